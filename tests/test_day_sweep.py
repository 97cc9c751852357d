"""Sweeps over a day (sim.day.variants, `skirmish sweep DAY --vary ...`)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.variants import day_variant, sweep_day
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"
SCEN = ROOT / "scenarios/gods_and_monsters"


def _road_written(tmp_path, toromeen_survival: int, yeti_defense: int | None = None) -> Path:
    """The road to Hightown with the change written into the files themselves."""
    data = yaml.safe_load(ROAD.read_text())
    data["include"] = str(ROOT / "library/gods_and_monsters.yaml")
    data["party"]["combatants"][2] = {"use": "Toromeen", "survival": toromeen_survival}
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str(SCEN / Path(step["scenario"]).name)
    if yeti_defense is not None:
        yeti = yaml.safe_load((SCEN / "yeti.yaml").read_text())
        yeti["sides"]["yeti"]["combatants"][0]["defense"] = yeti_defense
        (tmp_path / "yeti.yaml").write_text(yaml.safe_dump(yeti, sort_keys=False, allow_unicode=True))
        data["steps"][-1]["scenario"] = str(tmp_path / "yeti.yaml")
    path = tmp_path / f"road-{toromeen_survival}-{yeti_defense}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def test_each_variant_plays_as_the_day_file_with_the_change_written_in(tmp_path):
    days = 2000
    df = sweep_day(ROAD, {"party.combatants[Toromeen].survival": [5, 9],
                          "steps.the yeti.sides.yeti.combatants[Yeti].defense": [4]}, days=days)
    for row in df.to_dict("records"):
        written = sim.day.run(_road_written(tmp_path, row["party.combatants[Toromeen].survival"], 4), days=days)
        days_table = written.days
        assert row["day.survival"] == days_table["survived"].mean()
        assert row["day.deaths"] == pytest.approx(days_table["deaths"].mean())


def test_differences_are_paired_day_by_day_and_a_later_fight_leaves_the_earlier_ones_alone():
    days = 2000
    base = sim.day.load_day(ROAD, days=days)
    df = sweep_day(base, {"steps.the yeti.sides.yeti.combatants[Yeti].defense": [2, 8]})
    a, b = (sim.day.run(day_variant(base, {"steps.the yeti.sides.yeti.combatants[Yeti].defense": v}))
            for v in (2, 8))
    d = b.days["survived"].to_numpy(float) - a.days["survived"].to_numpy(float)
    assert df.loc[1, "day.survival.diff_base"] == pytest.approx(d.mean())
    assert df.loc[1, "day.survival.diff_base_hi"] - df.loc[1, "day.survival.diff_base"] == pytest.approx(
        1.959963984540054 * d.std(ddof=1) / np.sqrt(days))
    assert df.loc[1, "day.survival"] < df.loc[0, "day.survival"]  # a harder yeti
    for fight in ("goblin ambush", "orc patrol"):  # before the yeti: the same fights, day by day
        fa, fb = (r.fights[r.fights["fight"] == fight].reset_index(drop=True) for r in (a, b))
        assert fa.equals(fb)
        assert df.loc[1, f"fight.{fight}.lost.diff_base"] == 0


def test_day_options_and_every_fights_rules_are_paths_too():
    base = sim.day.load_day(ROAD, days=50)
    changed = day_variant(base, {"day_rules.night_roll": "always", "rules.resolution": "sequential"})
    assert changed.day_rules["night_roll"] == "always" and base.day_rules["night_roll"] != "always"
    assert all(f.scenario.rules["resolution"] == "sequential" for f in changed.fights)
    assert changed.hash != base.hash and [f.seed for f in changed.fights] == [f.seed for f in base.fights]


@pytest.mark.parametrize("path,value,says", [
    ("monsters.yeti", 1, "starts with steps.FIGHT."),
    ("steps.the dragon.sides.x.defense", 1, "names no fight of the day"),
    ("day_rules.night_roll", "sometimes", "night_roll"),
    ("party.combatants[Toromeen].count", 2, "not the party's members"),
])
def test_a_path_a_day_cannot_take_is_one_message(path, value, says):
    with pytest.raises(ScenarioError, match=says):
        day_variant(sim.day.load_day(ROAD, days=10), {path: value})


def test_the_command_sweeps_a_day_file_and_refuses_what_it_does_not_take(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(main, ["sweep", str(ROAD), "--vary", "party.combatants[Toromeen].survival=5,9", "-n", "500",
                              "-q", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["what"] == "day" and [r["party.combatants[Toromeen].survival"] for r in data["rows"]] == [5, 9]
    bad = runner.invoke(main, ["sweep", str(ROAD), "--vary", "party.combatants[Toromeen].survival=5,9",
                               "--precision", "0.01"])
    assert bad.exit_code == 2 and "not taken by a sweep of a day file" in bad.output
    none = runner.invoke(main, ["sweep", str(ROAD)])
    assert none.exit_code == 2 and "needs --vary" in none.output
