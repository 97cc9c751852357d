"""Names holding a dot, a bracket, a quote or `=` are addressed by quoted path segments
(issue 33: `optimize` on a side named with a bracket raised a traceback, and no `--set`
could reach such a side)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import sim
from sim.analysis.optimize import with_policies
from sim.cli import main
from sim.overrides import get_path, key_segment, pick_segment, side_path, split_assignment, split_path
from tests.process_helpers import ROOT, YETI

HOSTILE = ["Orcs [elite]", "a.b", 'say "hi"', "x=y", "back\\slash", "3", " padded ", "plain name"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_segment_made_for_a_name_reads_back_as_that_name(name):
    assert split_path(side_path(name, "combatants" + pick_segment(name), "defense")) == [
        "sides", name, "combatants", ("name", name), "defense"]


def test_plain_names_stay_unquoted_and_positions_stay_positions():
    assert key_segment("yeti") == "yeti" and pick_segment("Yeti") == "[Yeti]"
    assert pick_segment("3") == '["3"]'  # [3] is the fourth entry
    assert split_path("sides.party.combatants[3].defense")[3] == 3
    assert split_path('a["3"]')[1] == ("name", "3")


def test_an_assignment_splits_at_the_first_equals_sign_outside_quotes():
    assert split_assignment('sides."x=y".combatants[A].defense=4') == ('sides."x=y".combatants[A].defense', "4")
    assert split_assignment("rules.resolution=sequential=x") == ("rules.resolution", "sequential=x")
    assert split_assignment("no value") is None


@pytest.fixture
def bracketed(tmp_path):
    """The Yeti with its party side named `Party [elite]` and Toromeen named `Toro.meen`."""
    text = (ROOT / YETI).read_text(encoding="utf-8")
    for old, new in (("\n  party:\n", f"\n  {json.dumps('Party [elite]')}:\n"),
                     ("- name: Toromeen", f"- name: {json.dumps('Toro.meen')}")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "yeti.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_set_reaches_a_side_and_a_combatant_named_with_brackets_and_dots(bracketed):
    where = 'sides."Party [elite]".combatants["Toro.meen"].defense'
    before = get_path(sim.load_scenario(bracketed).data, where)
    r = CliRunner().invoke(main, ["run", str(bracketed), "-n", "200", "--json", "--set", f"{where}={before + 5}"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["provenance"]["overrides"] == {where: str(before + 5)}
    assert get_path(sim.load_scenario(bracketed, {where: before + 5}).data, where) == before + 5


def test_a_written_policy_for_a_side_named_with_brackets_is_played(bracketed):
    scen = with_policies(bracketed, {"Party [elite]": {"target": "weakest"}})
    assert scen.data["sides"]["Party [elite]"]["policy"]["target"] == "weakest"


def test_sensitivity_names_stats_of_a_combatant_named_with_a_dot(bracketed):
    from sim.analysis.sensitivity import stat_steps
    scen = sim.load_scenario(bracketed)
    entries = scen.data["sides"]["Party [elite]"]["combatants"]
    index = next(i for i, c in enumerate(entries) if c.get("name") == "Toro.meen")
    paths = [path for _, path, *_ in stat_steps(scen, "Party [elite]", index, entries[index])]
    assert paths and all(path.startswith('sides."Party [elite]".combatants["Toro.meen"].') for path in paths)
    for path in paths:
        assert split_path(path)[:4] == ["sides", "Party [elite]", "combatants", ("name", "Toro.meen")]
