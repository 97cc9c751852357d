"""Who matters (sim.analysis.matters, `skirmish matters`): each combatant benched in turn."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sim
from sim.analysis.matters import benched_start, matters
from sim.cli import main
from sim.day.spec import day_rules_module

ROOT = Path(__file__).resolve().parents[1]
CASES = [("gods_and_monsters", "yeti.yaml"), ("gods_and_monsters", "goblin_ambush.yaml"),
         ("lens", "novice_party_vs_brute.yaml"), ("lifeforce", "archers_vs_beast.yaml")]


def _setup(ruleset: str, name: str):
    scen = sim.load_scenario(ROOT / "scenarios" / ruleset / name)
    return scen, scen.ruleset.build(scen)


@pytest.mark.parametrize("ruleset,name", CASES)
def test_a_start_that_benches_nobody_plays_the_fight_with_everyone(ruleset, name):
    scen, setup = _setup(ruleset, name)
    n, C = 800, len(scen.combatants)
    fresh = scen.ruleset.play(setup, 11, 100, n, 60)
    started = scen.ruleset.play(setup, 11, 100, n, 60, day_rules_module(ruleset).start(setup, n, C, {}))
    assert np.array_equal(fresh.winner, started.winner) and np.array_equal(fresh.rounds, started.rounds)
    for k in ("attacks", "hits", "damage_dealt", "damage_taken", "final_state"):
        assert np.array_equal(fresh.per_combatant[k], started.per_combatant[k]), k


@pytest.mark.parametrize("ruleset,name", CASES)
def test_a_benched_combatant_never_acts_and_is_never_a_target(ruleset, name):
    scen, setup = _setup(ruleset, name)
    n = 600
    for c in range(len(scen.combatants)):
        out = scen.ruleset.play(setup, 5, 0, n, 60, benched_start(scen, setup, n, c))
        assert out.per_combatant["attacks"][:, c].sum() == 0 and out.per_combatant["damage_dealt"][:, c].sum() == 0
        assert out.per_combatant["damage_taken"][:, c].sum() == 0


def test_the_change_is_the_paired_difference_and_a_lone_duellist_benched_always_loses():
    df = matters(ROOT / "scenarios/lens/greatsword_vs_dagger.yaml", n=3000, seed=4)
    scen, setup = _setup("lens", "greatsword_vs_dagger.yaml")
    base = np.asarray(scen.ruleset.play(setup, 4, 0, 3000, scen.run["max_rounds"]).winner)
    for r in df.to_dict("records"):
        side = r["side"]
        s = scen.side_names.index(side)
        assert r[f"{side}.win_rate"] == 0.0  # alone and benched: its side never wins
        assert r["own_delta"] == pytest.approx(-(base == s).mean())
        assert r[f"{side}.base_rate"] == (base == s).mean()
    assert list(df["rank"]) == [1, 2] and abs(df.loc[0, "own_delta"]) >= abs(df.loc[1, "own_delta"])


def test_the_command_ranks_every_combatant_and_refuses_a_day_file():
    runner = CliRunner()
    ok = runner.invoke(main, ["matters", str(ROOT / "scenarios/gods_and_monsters/yeti.yaml"), "-n", "2000", "-q",
                              "--json"])
    assert ok.exit_code == 0, ok.output
    rows = json.loads(ok.stdout)["rows"]
    assert {r["combatant"] for r in rows} == {"Sam Stevens", "Charlotte Kordé", "Toromeen", "Yeti"}
    assert rows[0]["combatant"] == "Toromeen" and rows[0]["own_delta"] < -0.3
    text = runner.invoke(main, ["matters", str(ROOT / "scenarios/gods_and_monsters/yeti.yaml"), "-n", "500", "-q"])
    assert "the party without Toromeen:" in text.output
    day = runner.invoke(main, ["matters", str(ROOT / "days/lens/troll_road.yaml")])
    assert day.exit_code == 2 and "is a day file" in day.output


def test_a_baseline_stand_in_agrees_in_direction_and_a_combatant_standing_in_for_itself_changes_nothing():
    goblins = ROOT / "scenarios/gods_and_monsters/goblin_ambush.yaml"
    df = matters(goblins, n=2000, seed=3, baseline="Goblin").set_index("combatant")
    for name in ("Brannoc", "Ysolde", "Father Aldous"):
        assert df.loc[name, "baseline.delta"] < 0 and df.loc[name, "own_delta"] <= df.loc[name, "baseline.delta"]
    assert np.isnan(df.loc["Goblin 3", "baseline.delta"])  # one copy of a counted block is not replaced
    itself = matters(goblins, n=1000, seed=3, baseline="Brannoc").set_index("combatant")
    assert (itself.loc["Brannoc", ["baseline.delta", "baseline.delta_lo", "baseline.delta_hi"]] == 0).all()


def test_the_page_shows_the_ranked_worth_the_stat_blocks_and_the_provenance(tmp_path):
    out = CliRunner().invoke(main, ["matters", str(ROOT / "scenarios/gods_and_monsters/yeti.yaml"), "-n", "500", "-q",
                                    "--report", str(tmp_path / "page")])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "page/index.html").read_text()
    assert (tmp_path / "page/matters.png").exists() and "Who matters" in page
    assert "the party without Toromeen" in page and "scenario hash" in page and "package version" in page
