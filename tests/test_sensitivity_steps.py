"""What sensitivity does not step, and says why (issue 31: a one-sided step had no reason)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import sim
from sim.analysis.sensitivity import one_sided, stat_steps
from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
YETI = ROOT / "scenarios/gods_and_monsters/yeti.yaml"


def test_a_stat_at_its_fields_limit_is_stepped_one_way_and_the_other_is_said():
    scen = sim.load_scenario(YETI)
    raw = scen.data["sides"]["yeti"]["combatants"][0]
    steps = stat_steps(scen, "yeti", 0, raw)
    assert [s[4] for s in steps if s[0] == "verve"] == [1]  # verve 0: only up
    said = {(u["stat"], u["step"]): u["reason"] for u in one_sided("Yeti", steps)}
    assert said[("verve", "-1")] == "0 is at the field's limit"
    assert ("defense", "-1") not in said and ("defense", "+1") not in said


def test_the_command_lists_what_it_did_not_step_and_marks_steps_that_changed_no_skirmish():
    out = CliRunner().invoke(main, ["sensitivity", str(YETI), "--combatant", "Yeti", "-n", "600", "-q"])
    assert out.exit_code == 0, out.output
    assert "Not stepped: Yeti verve -1 (0 is at the field's limit)" in out.output
    assert "(no skirmish changed)" in out.output
