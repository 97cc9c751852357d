"""Every kind of bad input: one paragraph naming file and field, exit status 2, no traceback."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import sim
from sim.cli import main

YETI = Path("scenarios/gods_and_monsters/yeti.yaml")
BASE = yaml.safe_load(YETI.read_text(encoding="utf-8"))


def bad_file(tmp_path, edit=None, text: str | None = None) -> Path:
    path = tmp_path / "bad.yaml"
    if text is None:
        data = copy.deepcopy(BASE)
        edit(data)
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(*args) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["run", *map(str, args), "-n", "10"])
    out = res.output  # click 8.2+ mixes stderr into output
    assert "Traceback" not in out
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, out


def sam(data):
    return data["sides"]["party"]["combatants"][0]


CASES = {
    "unknown field": (lambda d: sam(d).update(vervee=3),
                      ["sides.party.combatants[Sam Stevens].vervee", "unknown field", "Did you mean 'verve'"]),
    "wrong type": (lambda d: sam(d).update(verve="lots"),
                   ["sides.party.combatants[Sam Stevens].verve", "'lots'", "whole number"]),
    "out of range": (lambda d: sam(d).update(verve=-3),
                     ["sides.party.combatants[Sam Stevens].verve", "got -3", "from 0 to"]),
    "bad choice": (lambda d: sam(d).update(awareness="sleepy"),
                   ["sides.party.combatants[Sam Stevens].awareness", "'aware', 'unaware', 'asleep'"]),
    "missing required": (lambda d: sam(d).pop("survival"),
                         ["sides.party.combatants[Sam Stevens].survival", "is missing"]),
    "unknown ruleset": (lambda d: d.update(ruleset="gods_and_monster"),
                        ["ruleset", "Did you mean 'gods_and_monsters'"]),
    "bad dice": (lambda d: sam(d)["weapons"][0].update(damage="d8+"),
                 ["sides.party.combatants[Sam Stevens].weapons[0].damage", "'d8+' is not a dice expression"]),
    "no weapon": (lambda d: sam(d).pop("weapons"),
                  ["sides.party.combatants[0]", "neither `weapons` nor `attacks`"]),
    "empty side": (lambda d: d["sides"]["party"].update(combatants=[]),
                   ["sides.party.combatants", "no combatants"]),
    "one side": (lambda d: d["sides"].pop("yeti"), ["'sides'", "at least two sides"]),
    "bad rule option": (lambda d: d.update(rules={"resolution": "simultanous"}),
                        ["rules.resolution", "Did you mean 'simultaneous'"]),
    "unknown rule option": (lambda d: d.update(rules={"death_rules": "guide_roll"}),
                            ["rules.death_rules", "Did you mean 'death_rule'"]),
    "bad policy field": (lambda d: d["sides"]["yeti"]["policy"].update(flee_bellow=0.2),
                         ["sides.yeti.policy.flee_bellow", "Did you mean 'flee_below'"]),
    "bad condition": (lambda d: d["sides"]["yeti"]["policy"].update(rules=[{"if": "helth < 0.5", "do": "flee"}]),
                      ["sides.yeti.policy.rules[0].if", "'helth'", "Did you mean 'health'"]),
    "bad action": (lambda d: d["sides"]["yeti"]["policy"].update(rules=[{"if": "round > 2", "do": "run"}]),
                   ["sides.yeti.policy.rules[0].do", "unknown action 'run'"]),
    "duplicate names": (lambda d: d["sides"]["party"]["combatants"][1].update(name="Sam Stevens"),
                        ["'sides'", "two combatants are called 'Sam Stevens'"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_scenario_field(tmp_path, case):
    edit, expected = CASES[case]
    path = bad_file(tmp_path, edit)
    code, out = run_cli(path)
    assert code == 2, out
    assert out.startswith(f"error: {path}"), out  # names the file first
    for part in expected:
        assert part in out, (part, out)
    assert out.strip().count("\n") == 0  # one paragraph


def test_missing_file():
    code, out = run_cli("scenarios/nope.yaml")
    assert code == 2 and "scenarios/nope.yaml" in out and "no such file" in out


def test_yaml_syntax_error(tmp_path):
    path = bad_file(tmp_path, text="name: x\nsides:\n  party: [a, b\n  yeti: 1\n")
    code, out = run_cli(path)
    assert code == 2 and str(path) in out and "not valid YAML" in out and "line " in out


def test_not_a_mapping(tmp_path):
    code, out = run_cli(bad_file(tmp_path, text="- just\n- a list\n"))
    assert code == 2 and "must be a YAML mapping" in out


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: Kordé\n".encode("latin-1"))
    code, out = run_cli(path)
    assert code == 2 and "not UTF-8" in out


@pytest.mark.parametrize("setting, expected", [
    ("sides.yeti.combatants[Yeto].defense=4", ["no entry named 'Yeto'", "Did you mean 'Yeti'"]),
    ("sides.yeti.combatants[5].defense=4", ["index [5] is out of range"]),
    ("sides.yetti.combatants[0].defense=4", ["'yetti'", "Did you mean 'yeti'"]),
    ("sides.yeti.combatants[Yeti].defence=4", ["sides.yeti.combatants[Yeti].defence", "Did you mean 'defense'"]),
    ("sides.yeti.combatants[Yeti].defense=lots", ["sides.yeti.combatants[Yeti].defense", "'lots'"]),
    ("rules.resolution", ["PATH=VALUE"]),
])
def test_bad_set(setting, expected):
    code, out = run_cli(YETI, "--set", setting)
    assert code == 2, out
    for part in expected:
        assert part in out, (part, out)


def test_validate_reports_every_bad_file_and_exits_2(tmp_path):
    bad_file(tmp_path, lambda d: sam(d).update(verve=-1))
    (tmp_path / "good.yaml").write_text(YETI.read_text(encoding="utf-8"), encoding="utf-8")
    res = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert res.exit_code == 2
    assert "good.yaml: ok" in res.output
    assert "bad.yaml, line 20, field 'sides.party.combatants[Sam Stevens].verve'" in res.output


def test_python_api_raises_scenario_error_with_path():
    data = copy.deepcopy(BASE)
    sam(data)["defence"] = 3
    with pytest.raises(sim.ScenarioError) as err:
        sim.load_scenario(data)
    assert err.value.path == "sides.party.combatants[Sam Stevens].defence"
    assert "Did you mean 'defense'" in str(err.value)
