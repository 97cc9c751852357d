"""What each party stat is worth over a day (sim.day.sensitivity, `skirmish sensitivity DAY`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.sensitivity import party_steps, sensitivity_day
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"
SCEN = ROOT / "scenarios/gods_and_monsters"


def _written(tmp_path, **toromeen) -> Path:
    data = yaml.safe_load(ROAD.read_text())
    data["include"] = str(ROOT / "library/gods_and_monsters.yaml")
    data["party"]["combatants"][2] = {"use": "Toromeen", **toromeen}
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str(SCEN / Path(step["scenario"]).name)
    path = tmp_path / "road.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def test_a_step_is_priced_against_the_day_with_the_change_written_in(tmp_path):
    days = 1500
    df = sensitivity_day(ROAD, ["Toromeen"], days=days)
    row = df[(df["path"] == "party.combatants[Toromeen].survival") & (df["step"] == "+1")].iloc[0]
    assert (row["old"], row["new"]) == ("7", "8")
    base = sim.day.run(ROAD, days=days).days["survived"].to_numpy(float)
    written = sim.day.run(_written(tmp_path, survival=8), days=days).days["survived"].to_numpy(float)
    assert row["survival"] == written.mean() and row["base_survival"] == base.mean()
    assert row["delta"] == pytest.approx((written - base).mean())
    assert list(df["rank"]) == list(range(1, len(df) + 1))
    assert df["delta"].abs().is_monotonic_decreasing


def test_a_casters_spell_uses_are_a_stat_of_the_day(tmp_path):
    from tests.test_day_spells import _day
    day = sim.day.load_day(_day(tmp_path, days=200))
    steps = {(m, path, str(new)) for m, _, path, _, new, _, _ in party_steps(day)}
    assert ("Sorcerer", "party.combatants[Sorcerer].spells[1].uses", "3") in steps
    assert not any(m == "Guard" and "spells" in path for m, path, _ in steps)


def test_only_party_members_are_stepped_and_the_command_refuses_what_it_does_not_take():
    with pytest.raises(ScenarioError, match="not in the party"):
        party_steps(sim.day.load_day(ROAD, days=10), ["Yeti"])
    runner = CliRunner()
    ok = runner.invoke(main, ["sensitivity", str(ROAD), "--combatant", "Sam Stevens", "-n", "300", "-q", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["what"] == "day" and {r["combatant"] for r in data["rows"]} == {"Sam Stevens"}
    bad = runner.invoke(main, ["sensitivity", str(ROAD), "--play", "best"])
    assert bad.exit_code == 2 and "not taken by a sensitivity of a day file" in bad.output


def test_counts_that_set_how_a_weapon_works_are_not_stepped():
    from sim.analysis.sensitivity import stat_steps
    scen = sim.load_scenario(SCEN / "arquebus_volley.yaml")
    steps = [path for side, body in scen.data["sides"].items() for raw in body["combatants"]
             for _, path, *_ in stat_steps(scen, side, 0, raw)]
    assert steps and not any(p.endswith((".actions", ".loaded")) for p in steps)
    assert any(p.endswith(".damage") for p in steps)  # the weapons' stats still are
