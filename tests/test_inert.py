"""The inert list: what had no effect in any skirmish of a run (sim/inert.py and each
ruleset's finder), and the ruleset's own columns in the summary, --json and report."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import sim
import sim.cli
from sim.inert import blocks, check_items, gather, means_lines, total

N = 400
LENS = sorted(Path("scenarios/lens").glob("*.yaml"))
LIFEFORCE = sorted(Path("scenarios/lifeforce").glob("*.yaml"))
YETI = "scenarios/gods_and_monsters/yeti.yaml"


def items_of(result, who=None):
    found = gather(result.scenario, result.combatants)
    return [it for it in found if who is None or it["who"] == who]


def test_under_all_out_a_lens_shield_is_named_with_the_policy():
    r = sim.run("scenarios/lens/greatsword_vs_dagger.yaml", n=N, seed=3,
                overrides={"sides.dagger.policy.family": "all_out"})
    bearer = next(c.name for c in r.scenario.combatants if c.stats["shield"])
    shield = [it for it in items_of(r, bearer) if "never used for a Block" in it["what"]]
    assert len(shield) == 1, items_of(r)
    assert "all_out policy never defends" in shield[0]["reason"]
    # and it really never blocked: the counters agree
    idx = next(i for label, i, _ in blocks(r.scenario) if label == bearer)
    column = "defended_block" if "defended_block" in r.combatants.columns else "defences_used"
    assert total(r.scenario, r.combatants, column, idx) == 0


def test_under_the_scenario_play_the_same_shield_is_not_named():
    r = sim.run("scenarios/lens/greatsword_vs_dagger.yaml", n=N, seed=3)
    assert not [it for it in items_of(r) if "shield" in it["what"]], items_of(r)


# What each kind of item claims, as the counter that must be zero for its combatants.
def _claimed_zero(it) -> list[str]:
    what = it["what"]
    if "never used for a Block" in what:
        return ["defended_block", "shield_blocks"]
    if what.startswith(("defence never chosen:", "defences never chosen:")):
        return [f"defended_{d.strip()}" for d in what.split(":", 1)[1].split(",")]
    if what.startswith(("stunt never bought:", "stunts never bought:")):
        return [f"stunt_{d.split('(')[0].strip()}" for d in what.split(":", 1)[1].split(",")]
    if what.startswith(("tag never applied:", "tags never applied:")):
        return ["tags_applied"]
    raise AssertionError(f"an item of a kind this test does not know: {it}")


@pytest.mark.parametrize("path", LENS + LIFEFORCE, ids=lambda p: p.stem)
def test_nothing_spurious_is_named_under_the_shipped_play(path):
    r = sim.run(str(path), n=N, seed=5)
    labels = {label: idx for label, idx, _ in blocks(r.scenario)}
    for it in items_of(r):
        assert it["who"] in labels, it
        columns = [c for c in _claimed_zero(it) if c in r.combatants.columns]
        if "never used for a Block" in it["what"] and not columns:
            columns = ["defences_used"]  # the Lens before per-defence counts: no defence at all
        assert columns, it
        for column in columns:
            assert total(r.scenario, r.combatants, column, labels[it["who"]]) == 0, (it, column)


def test_gm_level_named_only_when_the_configured_rules_do_not_read_it():
    plain = {it["who"]: it for it in items_of(sim.run(YETI, n=50, seed=1)) if it["what"].startswith("level")}
    # Toromeen is a warrior but does not lead; Charlotte (a monk) is no warrior at all.
    assert "lead: false" in plain["Toromeen"]["reason"]
    assert "warrior_archetypes" in plain["Charlotte Kordé"]["reason"]
    assert "Sam Stevens" not in plain  # level 1 is the default: not something the designer wrote
    leading = sim.run(YETI, n=50, seed=1, overrides={"sides.party.policy.lead": True})
    named = {it["who"] for it in items_of(leading) if it["what"].startswith("level")}
    assert "Toromeen" not in named and "Charlotte Kordé" in named
    monks = sim.run(YETI, n=50, seed=1, overrides={"rules.warrior_archetypes": ["warrior", "monk"],
                                                   "sides.party.policy.lead": True})
    assert not [it for it in items_of(monks) if it["what"].startswith("level") and it["who"] != "Yeti"]


def test_gm_verve_of_a_non_warrior_is_named_with_the_rule_option():
    found = [it for it in items_of(sim.run(YETI, n=50, seed=1)) if it["what"].startswith("verve")]
    assert [it["who"] for it in found] == ["Charlotte Kordé"]
    assert "verve_archetypes gives verve to warriors only" in found[0]["reason"]
    both = sim.run(YETI, n=50, seed=1, overrides={"rules.verve_archetypes": ["warrior", "monk"]})
    assert not [it for it in items_of(both) if it["what"].startswith("verve")]


def test_summary_json_and_report_carry_the_list_and_the_ruleset_columns(tmp_path):
    runner = CliRunner()
    text = runner.invoke(sim.cli.main, ["run", YETI, "-n", "200", "-q"])
    assert text.exit_code == 0, text.output
    assert "No effect in any of the 200 skirmishes" in text.output
    assert "Charlotte Kordé: verve 14 never absorbs damage, because rule option verve_archetypes" in text.output
    assert "Gods & Monsters figures, means per skirmish" in text.output and "verve_left" in text.output
    js = runner.invoke(sim.cli.main, ["run", YETI, "-n", "200", "--json"])
    payload = json.loads(js.output)
    assert check_items(payload["inert"]) and {"who", "what", "reason"} == set(payload["inert"][0])
    assert payload["ruleset_columns"]["Yeti"]["survival_left"] >= 0
    rep = runner.invoke(sim.cli.main, ["run", YETI, "-n", "200", "-q", "--report", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output
    html = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "What had no effect" in html and "never absorbs damage" in html and "survival_left" in html


def test_ruleset_column_tables_stay_narrow_and_group_prefixed_columns():
    scen = sim.load_scenario(YETI)
    cols = {f"stunt_{k}": 0.5 for k in ("a", "b", "c", "d")} | {"hp_left": 3.0, "never": 0.0}
    means = {c.name: dict(cols) for c in scen.combatants}
    lines = means_lines(scen, means, "Test figures", width=60)
    assert all(len(line) <= 60 for line in lines[1:])  # the tables; the title line is prose
    assert any(line.strip().startswith("stunt:") for line in lines)  # the group's own table, prefix dropped
    assert not any("never" in line for line in lines[1:])  # zero for everyone: left out
