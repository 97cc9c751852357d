"""`skirmish odds`: the core's tables, the command and the report's matchup table."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.analysis.odds import odds
from sim.cli import main
from sim.odds import Exchange, at_least, check, damage_table, matchups, pairs_table
from sim.scenario import load_scenario

GOBLINS = "scenarios/gods_and_monsters/goblin_ambush.yaml"


def _exchange(**kw):
    base = dict(attacker="A", attacker_side="a", defender="D", defender_side="d", attack="club",
                hit=F(1, 2), damage={0: F(1, 2), 2: F(1, 4), 3: F(1, 4)}, outcomes={"miss": F(1, 2), "hit": F(1, 2)})
    return Exchange(**{**base, **kw})


def test_tables_hold_the_exact_figures_of_each_exchange():
    e = _exchange()
    row = pairs_table([e]).iloc[0]
    assert (row["hit"], row["damage_mean"], row["damage_any"], row["damage_max"]) == (0.5, 1.25, 0.5, 3)
    assert row["outcome.miss"] == 0.5
    long = damage_table([e])
    assert long["damage"].tolist() == [0, 1, 2, 3]
    assert long["p"].tolist() == [0.5, 0, 0.25, 0.25] and long["p_at_least"].tolist() == [1, 0.5, 0.5, 0.25]
    assert at_least({0: F(1, 3), 2: F(2, 3)}) == {0: 1, 1: F(2, 3), 2: F(2, 3)}


def test_a_distribution_that_does_not_sum_to_one_is_caught():
    with pytest.raises(AssertionError, match="sums to 3/4"):
        check(_exchange(damage={0: F(1, 2), 1: F(1, 4)}))
    with pytest.raises(AssertionError, match="outcomes"):
        check(_exchange(outcomes={"miss": F(1, 2)}))


def test_copies_of_a_stat_block_meet_once():
    scen = load_scenario(GOBLINS)
    pairs = matchups(scen)
    blocks = {(c.side, c.stats["name"]) for c in scen.combatants}
    assert len(pairs) == sum(1 for a in blocks for d in blocks if a[0] != d[0])
    assert len(scen.combatants) > len(blocks)  # the ambush has copies, so the test means something


def test_the_command_prints_writes_and_filters(tmp_path):
    runner = CliRunner()
    out = tmp_path / "odds.csv"
    done = runner.invoke(main, ["odds", GOBLINS, "--json", "--out", str(out), "--defender", "Brannoc"])
    assert done.exit_code == 0, done.output
    said = json.loads(done.output)
    assert said["command"] == "odds" and said["rows"] and all(r["defender"] == "Brannoc" for r in said["rows"])
    assert said["scenario_hash"] and said["package_version"]
    pairs, damage = pd.read_csv(out), pd.read_csv(tmp_path / "odds.damage.csv")
    assert len(pairs) == len(said["rows"]) and set(damage["defender"]) == {"Brannoc"}
    exact = odds(GOBLINS, defender="Brannoc")
    assert pairs["hit"].tolist() == pytest.approx(exact.pairs["hit"].tolist())
    text = runner.invoke(main, ["odds", GOBLINS, "--damage"]).output
    assert "Exact odds of one exchange" in text and "exactly  at least" in text


def test_bad_names_and_day_files_are_refused_in_one_paragraph():
    runner = CliRunner()
    for args, said in ((["--attacker", "Branoc"], "Did you mean 'Brannoc'"),
                       (["--set", "sides.nobody.x=1"], "nobody")):
        done = runner.invoke(main, ["odds", GOBLINS, *args])
        assert done.exit_code == 2 and said in done.output, done.output
    day = runner.invoke(main, ["odds", "days/gods_and_monsters/road_to_hightown.yaml"])
    assert day.exit_code == 2 and "is a day file" in day.output


def test_the_run_report_holds_the_matchup_table(tmp_path):
    scenario = "scenarios/gods_and_monsters/yeti.yaml"
    done = CliRunner().invoke(main, ["run", scenario, "-n", "200", "--report", str(tmp_path), "-q"])
    assert done.exit_code == 0, done.output
    page = (tmp_path / "index.html").read_text()
    assert "Exact odds of one exchange" in page and "hit %" in page
    first = odds(scenario).pairs.iloc[0]
    assert f"{100 * first['hit']:.1f}" in page


@pytest.mark.parametrize("scenario", ["scenarios/lens/caster_duel.yaml", "scenarios/lifeforce/duel.yaml"])
def test_the_matchup_section_of_every_ruleset(scenario):
    from sim.report.odds import odds_section
    section = odds_section(load_scenario(scenario))
    (caption, table), = section.tables
    pairs = odds(scenario).pairs
    assert caption == "Matchups" and len(table) == len(pairs)
    assert table["hit %"].tolist() == (100 * pairs["hit"]).round(1).tolist()
    assert any(c.endswith(" %") and c not in ("hit %", "any damage %") for c in table.columns)  # the outcomes
