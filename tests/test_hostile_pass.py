"""Issue 32's hostile pass: bad input that ended in a traceback, or lost or ignored data,
now ends in one paragraph with exit status 2 before anything is played or written."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.errors import ScenarioError
from sim.yamlload import load_text

ROOT = Path(__file__).resolve().parent.parent
YETI = str(ROOT / "scenarios/gods_and_monsters/yeti.yaml")
DUEL = str(ROOT / "scenarios/lifeforce/duel.yaml")
SCRIPTED = {  # a shipped scenario with a scripted rule per ruleset, and the condition to enlarge
    "gods_and_monsters": ("scenarios/gods_and_monsters/goblin_ambush.yaml", "enemies_standing == 1"),
    "lens": ("scenarios/lens/scripted_duelist.yaml", "health < 0.4"),
    "lifeforce": ("scenarios/lifeforce/crossbow_ambush.yaml", "health < 0.25"),
}
HUGE = "1" * 400


def _cli(*args) -> tuple[int, str]:
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stderr


def _one_paragraph(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.mark.parametrize("ruleset", sorted(SCRIPTED))
def test_a_number_of_400_digits_in_a_condition_is_refused_in_every_ruleset(ruleset, tmp_path):
    path, condition = SCRIPTED[ruleset]
    text = (ROOT / path).read_text(encoding="utf-8")
    assert condition in text
    number = condition.split()[-1]
    f = tmp_path / "huge.yaml"
    f.write_text(text.replace(condition, condition.replace(number, HUGE)), encoding="utf-8")
    code, err = _cli("validate", f)
    assert code == 2
    assert "a number of 400 digits is out of range" in err and ".if'" in err


def test_an_infinite_number_in_a_condition_is_refused():
    from sim.policy import compile_condition
    with pytest.raises(ScenarioError, match="out of range"):
        compile_condition("health < 1e400", {"health": ""}, "rules[0].if")
    compile_condition("health < 1e15", {"health": ""}, "rules[0].if")  # the largest allowed


def test_a_lifeforce_condition_change_beyond_any_roll_is_refused():
    huge = "1" + "0" * 30
    code, err = _cli("run", DUEL, "-n", 5, "--set", f"rules.conditions={{prone: {{offence: {huge}}}}}")
    assert code == 2
    assert "rules.conditions.prone.offence" in _one_paragraph(err) and "at most 1000" in err


def test_a_start_distance_beyond_the_largest_battlefield_is_refused():
    code, err = _cli("run", DUEL, "-n", 5, "--set", "battlefield.start_distance=99999")
    assert code == 2
    line = _one_paragraph(err)
    assert "battlefield.start_distance" in line and "at most 2,000" in line


@pytest.mark.parametrize("text", ["a: &x [1, *x]", "a: &x {b: *x}", "a: {b: &y [c, [*y]]}"])
def test_a_value_that_contains_itself_is_refused(text):
    with pytest.raises(ScenarioError, match="contains an alias to itself"):
        load_text(text, "f.yaml")


def test_a_reused_anchor_is_not_taken_for_a_loop():
    data, _ = load_text("a: &x [1, 2]\nb: *x\nc: [*x, *x]", "f.yaml")
    assert data["c"] == [[1, 2], [1, 2]]


def test_a_strength_table_with_a_key_that_is_no_strength_is_refused_by_validate(tmp_path):
    f = tmp_path / "bonus.yaml"
    f.write_text(Path(YETI).read_text(encoding="utf-8").replace("rules: {}", "rules: {strength_damage_bonus: {a: 1}}"),
                 encoding="utf-8")
    assert "strength_damage_bonus" in f.read_text(encoding="utf-8")
    code, err = _cli("validate", f)
    assert code == 2 and "'a' is not a Strength score" in err


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symlink_loops_as_the_scenario_or_its_include_are_one_paragraph(tmp_path):
    (tmp_path / "one.yaml").symlink_to(tmp_path / "two.yaml")
    (tmp_path / "two.yaml").symlink_to(tmp_path / "one.yaml")
    code, err = _cli("run", tmp_path / "one.yaml", "-n", 5)
    assert code == 2 and "cannot be followed" in _one_paragraph(err)
    including = tmp_path / "inc.yaml"
    including.write_text(Path(YETI).read_text(encoding="utf-8").replace("rules: {}", "include: one.yaml\nrules: {}"),
                         encoding="utf-8")
    code, err = _cli("run", including, "-n", 5)
    assert code == 2 and "includes 'one.yaml', which cannot be followed" in _one_paragraph(err)


def test_a_set_of_include_is_refused_rather_than_ignored():
    code, err = _cli("run", YETI, "-n", 5, "--set", "include=/etc/passwd")
    assert code == 2 and "`include:` is resolved when the file is read" in _one_paragraph(err)


def test_out_whose_combatant_table_is_a_folder_is_refused_before_playing(tmp_path):
    (tmp_path / "t.combatants.parquet").mkdir()
    code, err = _cli("run", YETI, "-n", 70000, "--out", tmp_path / "t.parquet")
    assert code == 2 and "which is a folder" in _one_paragraph(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.combatants.parquet"]


def test_a_second_file_whose_set_up_fails_stops_the_run_before_the_first_writes(tmp_path, monkeypatch):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for f, name in ((first, "first"), (second, "second")):
        f.write_text(Path(YETI).read_text(encoding="utf-8").replace("name: Yeti in the snowy mountains",
                                                                    f"name: {name}"), encoding="utf-8")
    ruleset = sim.load_scenario(YETI).ruleset
    real_build = ruleset.build

    def build(scen):
        if scen.name == "second":
            raise ValueError("a set-up bug")
        return real_build(scen)

    monkeypatch.setattr(ruleset, "build", build)
    r = CliRunner().invoke(main, ["run", str(first), str(second), "-n", "50", "--json", "--out", str(tmp_path / "out")])
    assert isinstance(r.exception, ValueError)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.parquet"))


def test_tune_refuses_what_is_not_a_stat_and_a_stat_given_twice():
    code, err = _cli("tune", YETI, "--param", "run.seed", "--target", "party.win_rate=0.5")
    assert code == 2 and "not `run`" in _one_paragraph(err)
    stat = "sides.party.combatants[Toromeen].defense"
    code, err = _cli("tune", YETI, "--param", stat, "--param", stat, "--target", "party.win_rate=0.5")
    assert code == 2 and "is given twice" in _one_paragraph(err)


@pytest.mark.parametrize("address", ["tcp://[::1", "tcp://host:99999", "tcp://"])
def test_a_scheduler_address_that_does_not_parse_is_bad_input(address):
    code, err = _cli("run", YETI, "-n", 5, "--scheduler", address)
    assert code == 2 and "is not a scheduler address" in _one_paragraph(err)


def test_a_bad_swept_value_names_the_scenario_file():
    code, err = _cli("sweep", YETI, "--vary", "sides.party.combatants[Toromeen].defense=a..b", "-n", 100)
    assert code == 2
    assert _one_paragraph(err).startswith(f"error: {YETI}, field 'sides.party.combatants[Toromeen].defense'")


def test_the_refusals_leave_every_shipped_scenario_valid():
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        assert sim.load_scenario(path).combatants, path


@pytest.mark.parametrize("args", [
    ["sweep", YETI, "--vary", "nonsense"],
    ["tune", YETI, "--param", "sides.party.combatants[Toromeen].defense", "--range", "x..y",
     "--target", "party.win_rate=0.5"],
    ["tune", YETI, "--param", "sides.party.combatants[Toromeen].defense", "--target", "party=0.5"],
])
def test_a_bad_analysis_option_names_the_scenario_it_was_given_for(args):
    code, err = _cli(*args)
    assert code == 2 and _one_paragraph(err).startswith(f"error: {YETI}: ")


def test_an_include_that_is_a_folder_names_the_file_that_includes_it(tmp_path):
    """Found by the hardening test's generator: `include: .` named the folder only."""
    f = tmp_path / "inc.yaml"
    f.write_text(Path(YETI).read_text(encoding="utf-8").replace("rules: {}", "include: .\nrules: {}"),
                 encoding="utf-8")
    code, err = _cli("run", f, "-n", 5)
    assert code == 2 and _one_paragraph(err).startswith(f"error: {f}, ") and "which is a folder" in err
