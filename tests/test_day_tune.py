"""Tuning a day for a target (sim.day.tune, `skirmish tune DAY --target day.survival=R`)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.tune import parse_day_target, tune_day
from sim.day.variants import day_variant
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"
YETI_DEFENSE = "steps.the yeti.sides.yeti.combatants[Yeti].defense"


def _survival(day, value, days: int) -> float:
    d = day_variant(day, {YETI_DEFENSE: value})
    return float(sim.day.run(dataclasses.replace(d, run={**d.run, "days": days})).days["survived"].mean())


def test_the_answer_is_the_value_nearest_the_target_among_its_neighbours_on_the_same_days():
    df = tune_day(ROAD, YETI_DEFENSE, "day.survival", 0.75, lo=2, hi=12, days=1500)
    meta = df.attrs["analysis"]
    assert meta["status"] == "found"
    rows = df.set_index("value")
    answer = meta["answer"]
    n = int(rows.loc[answer, "days"])
    base = sim.day.load_day(ROAD)
    assert rows.loc[answer, "day.survival"] == _survival(base, answer, n)
    for v in (answer - 1, answer + 1):
        assert int(rows.loc[v, "days"]) == n and rows.loc[v, "role"] in ("below", "above")
        assert abs(rows.loc[answer, "day.survival"] - 0.75) <= abs(rows.loc[v, "day.survival"] - 0.75)
    lo, hi = rows.loc[answer - 1, "day.survival"], rows.loc[answer + 1, "day.survival"]
    assert lo > 0.75 > hi  # a harder yeti, a shorter day: the answer brackets the target


def test_a_target_out_of_reach_says_so_and_the_command_exits_3():
    df = tune_day(ROAD, YETI_DEFENSE, "day.survival", 0.999, lo=0, hi=4, days=800, max_days=1600)
    assert df.attrs["analysis"]["status"] == "unreachable" and "unreachable" in df.attrs["analysis"]["message"]
    out = CliRunner().invoke(main, ["tune", str(ROAD), "--param", YETI_DEFENSE, "--target", "day.survival=0.999",
                                    "--range", "0..4", "-n", "800", "--max", "1600", "-q", "--json"])
    assert out.exit_code == 3, out.output
    assert json.loads(out.stdout)["status"] == "unreachable"


@pytest.mark.parametrize("text", ["party.win_rate=0.6", "day.survival", "day.survival=1.5", "day.deaths=0.2"])
def test_a_target_a_day_cannot_be_tuned_for_is_one_message(text):
    with pytest.raises(ScenarioError, match="--target"):
        parse_day_target(text)


def test_the_command_refuses_what_a_day_tune_does_not_take():
    runner = CliRunner()
    two = runner.invoke(main, ["tune", str(ROAD), "--param", YETI_DEFENSE, "--param",
                               "party.combatants[Toromeen].survival", "--target", "day.survival=0.8"])
    assert two.exit_code == 2 and "a second --param" in two.output
    rules = runner.invoke(main, ["tune", str(ROAD), "--param", "day_rules.night_roll", "--target",
                                 "day.survival=0.8"])
    assert rules.exit_code == 2 and "steps.FIGHT.PATH" in rules.output
