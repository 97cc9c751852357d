"""`skirmish validate` reports every problem of a file, each with its line and a path that
names combatants the way `--set` does, with hints across rulesets."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.errors import ScenarioError
from sim.scenario import load_scenario

BAD = """\
name: Broken
ruleset: gods_and_monsters
colour: red
sides:
  party:
    combatants:
      - name: Father Aldo
        hp: 6
        verve: lots
        weapons: [long sord]
      - name: Brother Tuck
        survival: 5
        awareness: null
        weapons: [{name: staff, damage: d6+}]
  monsters:
    policy: {target: random}
    combatants:
      - {use: Ogre}
"""
# (line, field path, a piece of the message) of every problem in BAD, in file order.
EXPECTED = [
    (3, "colour", "unknown field 'colour'"),
    (7, "sides.party.combatants[Father Aldo].survival", "is missing"),
    (8, "sides.party.combatants[Father Aldo].hp", "name for hit points is 'survival'"),
    (9, "sides.party.combatants[Father Aldo].verve", "got 'lots'"),
    (10, "sides.party.combatants[Father Aldo].weapons[0]", "Did you mean 'long sword'"),
    (13, "sides.party.combatants[Brother Tuck].awareness", "got nothing (null)"),
    (14, "sides.party.combatants[Brother Tuck].weapons[0].damage", "'d6+' is not a dice expression"),
    (18, "sides.monsters.combatants[Ogre].use", "names no entry of `bestiary:`"),
]


@pytest.fixture
def bad(tmp_path) -> Path:
    f = tmp_path / "bad.yaml"
    f.write_text(BAD, encoding="utf-8")
    return f


def test_validate_lists_every_problem_with_its_line(bad):
    res = CliRunner().invoke(main, ["validate", str(bad)])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.startswith("error: ")]
    assert len(lines) == len(EXPECTED), res.output
    for line, (n, path, piece) in zip(lines, EXPECTED):
        assert line.startswith(f"error: {bad}, line {n}, field '{path}': "), line
        assert piece in line, line
    assert f"{bad}: {len(EXPECTED)} problems" in res.output


def test_run_reports_the_first_problem_and_counts_the_rest(bad):
    res = CliRunner().invoke(main, ["run", str(bad), "-n", "10"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.output.strip().count("\n") == 0
    assert f"({len(EXPECTED) - 1} more problems in this file; `skirmish validate FILE` lists them all.)" in res.output


def test_the_api_error_carries_every_problem(bad):
    with pytest.raises(ScenarioError) as e:
        load_scenario(bad)
    assert [(p.line, p.path) for p in sorted(e.value.problems, key=lambda p: p.line)] == \
        [(n, path) for n, path, _ in EXPECTED]


def test_one_problem_reads_as_before(tmp_path):
    f = tmp_path / "one.yaml"
    f.write_text(Path("scenarios/gods_and_monsters/yeti.yaml").read_text().replace("verve: 15", "verve: -1"))
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    assert str(e.value).startswith(f"{f}, line 18, field 'sides.party.combatants[Sam Stevens].verve': got -1")
    assert "more problem" not in str(e.value)


@pytest.mark.parametrize("scenario, combatant, word, hint", [
    ("scenarios/gods_and_monsters/yeti.yaml", "sides.party.combatants[Sam Stevens]", "hp", "'survival'"),
    ("scenarios/gods_and_monsters/yeti.yaml", "sides.party.combatants[Sam Stevens]", "body", "'survival'"),
    ("scenarios/lens/greatsword_vs_dagger.yaml", "sides.dagger.combatants[Duellist with legendary dagger]",
     "hp", "'body'"),
    ("scenarios/lens/greatsword_vs_dagger.yaml", "sides.dagger.combatants[Duellist with legendary dagger]",
     "survival", "'body'"),
    ("scenarios/lifeforce/duel.yaml", "sides.red.combatants[Red swordsman]", "survival", "'hp'"),
    ("scenarios/lifeforce/duel.yaml", "sides.red.combatants[Red swordsman]", "body", "'hp'"),
    ("scenarios/lifeforce/duel.yaml", "sides.red.combatants[Red swordsman]", "defense", "'dodge'"),
    ("scenarios/lens/greatsword_vs_dagger.yaml", "sides.dagger.combatants[Duellist with legendary dagger]",
     "armor", "'armor_rating'"),
])
def test_a_word_from_another_ruleset_gets_this_rulesets_name(scenario, combatant, word, hint):
    res = CliRunner().invoke(main, ["run", scenario, "-n", "10", "--set", f"{combatant}.{word}=5"])
    assert res.exit_code == 2, res.output
    assert f"field '{combatant}.{word}'" in res.output and hint in res.output


def test_rules_spells_defaults_as_yaml():
    res = CliRunner().invoke(main, ["rules", "lens"])
    assert res.exit_code == 0 and "None" not in res.output


def test_docs_say_null_not_none():
    text = Path("docs/scenarios.md").read_text(encoding="utf-8")
    assert "`None`" not in text and "| `null` |" in text  # (`none` itself is a choice of some fields)
    assert "any value" not in text
