"""`skirmish compare` of two day files: paired per day on the same keyed dice."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.compare import compare_day_results, compare_days, per_day

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"


def rested_road(tmp_path) -> Path:
    """The road to Hightown with the breather a night's camp: only what follows it changes."""
    data = yaml.safe_load(ROAD.read_text())
    data["include"] = str(ROOT / "library/gods_and_monsters.yaml")
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str((ROAD.parent / step["scenario"]).resolve())
        if step.get("rest") == "breather":
            step["kind"] = "night"
    data["name"] = "The road to Hightown, camping twice"
    path = tmp_path / "rested.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def test_two_days_compare_day_by_day_and_a_fight_before_the_change_differs_by_nothing(tmp_path):
    df = compare_days(ROAD, rested_road(tmp_path), days=4000)
    row = df.set_index("key")
    assert df.attrs["analysis"]["paired"] and df.attrs["analysis"]["days"] == [4000, 4000]
    first = row.loc["fight.goblin ambush.lost"]
    assert first["diff"] == 0 and first["diff_lo"] == 0 and first["diff_hi"] == 0
    # A night instead of a short rest gives back verve and survival: the day gets safer.
    assert row.loc["day.survival", "diff_lo"] > 0
    a = sim.day.run(ROAD, days=4000)
    assert row.loc["day.survival", "a"] == pytest.approx(a.days["survived"].mean())


def test_the_paired_interval_is_the_mean_per_day_difference():
    a = sim.day.run(ROAD, days=3000)
    b = sim.day.run(ROAD, days=3000, seed=5)
    table = compare_day_results(a, b)
    assert not table.attrs["analysis"]["paired"]  # another seed: other dice, no pairing
    unpaired = table.set_index("key")
    same = compare_day_results(a, a).set_index("key")
    assert (same["diff"] == 0).all() and (same["diff_hi"] - same["diff_lo"] == 0).all()
    va, vb = per_day(a)["day.deaths"][2], per_day(b)["day.deaths"][2]
    d = vb.mean() - va.mean()
    se = np.sqrt(va.var(ddof=1) / len(va) + vb.var(ddof=1) / len(vb))
    assert unpaired.loc["day.deaths", "diff"] == pytest.approx(d)
    assert unpaired.loc["day.deaths", "diff_hi"] - d == pytest.approx(1.959964 * se, rel=1e-3)


def test_skirmish_compare_takes_two_day_files(tmp_path):
    out = CliRunner().invoke(main, ["compare", str(ROAD), str(rested_road(tmp_path)), "-n", "1000", "-q", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["command"] == "compare" and got["what"] == "days" and got["days"] == [1000, 1000]
    keys = [r["key"] for r in got["rows"]]
    assert keys[:4] == ["day.survival", "day.nobody_dies", "day.deaths", "day.fights_won"]
    text = CliRunner().invoke(main, ["compare", str(ROAD), str(rested_road(tmp_path)), "-n", "500", "-q"])
    assert text.exit_code == 0 and "500 days each" in text.output and "survives the day" in text.output


@pytest.mark.parametrize("extra,words", [
    ([str(ROOT / "scenarios/gods_and_monsters/yeti.yaml")], "is a day file and"),
    ([str(ROAD), "--set", "rules.x=1"], "--set is not taken"),
])
def test_a_day_compare_it_cannot_do_is_one_paragraph_and_exit_2(extra, words):
    out = CliRunner().invoke(main, ["compare", str(ROAD), *extra, "-q"])
    assert out.exit_code == 2 and words in out.output and "Traceback" not in out.output
