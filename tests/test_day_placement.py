"""Where to rest (sim.day.placement, `skirmish day FILE --where-to-rest NAME`)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.placement import placements, where_to_rest
from sim.day.spec import build_day
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"
TROLL = ROOT / "days/lens/troll_road.yaml"


def test_the_rest_is_tried_after_every_fight_but_the_last_as_written_first():
    day = sim.day.load_day(ROAD)
    got = [(after, [s.get("fight", s.get("rest")) for s in steps]) for after, steps in placements(day, "camp")]
    assert got == [("orc patrol", ["goblin ambush", "breather", "orc patrol", "camp", "the yeti"]),
                   ("goblin ambush", ["goblin ambush", "camp", "breather", "orc patrol", "the yeti"])]
    with pytest.raises(ScenarioError, match="names no rest of the day .*'breather', 'camp'"):
        placements(day, "inn")


def test_each_placement_is_the_day_played_so_and_its_difference_is_paired_day_by_day():
    days = 3000
    df = where_to_rest(ROAD, "camp", days=days)
    day = sim.day.load_day(ROAD, days=days)
    survived = []
    for _, steps in placements(day, "camp"):
        data = copy.deepcopy(day.data)
        data["steps"] = steps
        played = sim.day.run(build_day(data, ROAD, days, int(day.run["seed"])))
        survived.append(played.days.sort_values("day")["survived"].to_numpy(float))
    assert df["survival"].tolist() == [s.mean() for s in survived]
    assert df["as_written"].tolist() == [True, False]
    d = survived[1] - survived[0]
    assert df.loc[1, "diff"] == pytest.approx(d.mean())
    half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(days)
    assert df.loc[1, "diff_hi"] - df.loc[1, "diff"] == pytest.approx(half)
    # Paired: the same days meet the same blows, so most days end alike.
    assert (d == 0).mean() > 0.8


def test_the_rest_of_a_two_fight_day_has_nowhere_else_to_go():
    day = sim.day.load_day(TROLL)
    rests = [s["rest"] for s in day.data["steps"] if "rest" in s]
    assert len(placements(day, rests[0])) == 1


def test_the_command_prints_json_and_refuses_what_it_does_not_take(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(main, ["day", str(ROAD), "--where-to-rest", "camp", "-n", "600", "-q", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["command"] == "where_to_rest" and data["rest"] == "camp" and data["days"] == 600
    assert [r["after"] for r in data["rows"]] == ["orc patrol", "goblin ambush"]
    text = runner.invoke(main, ["day", str(ROAD), "--where-to-rest", "camp", "-n", "600", "-q"])
    assert text.exit_code == 0 and "as written" in text.output and "Best: after" in text.output
    bad = runner.invoke(main, ["day", str(ROAD), "--where-to-rest", "camp", "--out", str(tmp_path / "o")])
    assert bad.exit_code == 2 and "does not take --out" in bad.output and not (tmp_path / "o").exists()
    unknown = runner.invoke(main, ["day", str(ROAD), "--where-to-rest", "inn"])
    assert unknown.exit_code == 2 and "names no rest" in unknown.output


@pytest.mark.parametrize("extra,named", [(["--where-to-rest", "camp", "--trace-day", "2"], "--trace-day"),
                                         (["--where-to-rest", "camp", "--summary-only"], "--summary-only"),
                                         (["--trace-day", "2", "--summary-only"], "--summary-only"),
                                         (["--trace-day", "2", "--json"], "--json")])
def test_options_that_would_be_ignored_together_are_refused(extra, named):
    out = CliRunner().invoke(main, ["day", str(ROAD), "-n", "20", *extra])
    assert out.exit_code == 2 and named in out.output and "does not take" in out.output
