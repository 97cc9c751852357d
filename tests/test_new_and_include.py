"""`skirmish new` starters and libraries shared between scenarios (`include:`, `use:`)."""
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.errors import ScenarioError
from sim.scenario import load_scenario
from sim.starters import STARTERS

ROOT = Path(__file__).resolve().parent.parent


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("ruleset", sorted(STARTERS))
def test_new_writes_a_starter_that_validates_and_runs(tmp_path, ruleset):
    f = tmp_path / f"{ruleset}.yaml"
    res = invoke("new", ruleset, f)
    assert res.exit_code == 0, res.output
    assert f.read_text(encoding="utf-8").startswith("# A starter")
    scen = load_scenario(f)
    assert scen.ruleset_name == ruleset
    s = sim.run(f, n=400, seed=1).summary()
    # Both sides can win: a starter that one side always wins teaches nothing.
    assert all(0.02 < v["win_rate"] < 0.995 for v in s["sides"].values()), s["sides"]
    assert invoke("sweep", f, "-n", "200").exit_code == 0


def test_new_refuses_to_overwrite_without_force(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text("keep me")
    res = invoke("new", "lens", f)
    assert res.exit_code == 2 and "--force" in res.output and f.read_text() == "keep me"
    assert invoke("new", "lens", f, "--force").exit_code == 0
    assert "ruleset: lens" in f.read_text()


def test_new_names_the_rulesets_for_an_unknown_one(tmp_path):
    res = invoke("new", "lense", tmp_path / "x.yaml")
    assert res.exit_code == 2 and "Did you mean 'lens'" in res.output and not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("path", ["scenarios/gods_and_monsters/ogre_vs_two_warriors.yaml",
                                  "scenarios/lens/caster_duel.yaml", "scenarios/lifeforce/shield_wall.yaml"])
def test_a_shipped_scenario_uses_its_library(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "include: ../../library/" in text and "{use: " in text
    scen = load_scenario(ROOT / path)
    assert "include" not in scen.data and "bestiary" not in scen.data  # stored resolved, self-contained
    again = sim.run(scen.data, n=300, seed=4)  # the resolved data plays the same fights without files
    pd.testing.assert_frame_equal(again.combatants, sim.run(ROOT / path, n=300, seed=4).combatants)


def test_library_fights_equal_the_written_out_stat_blocks():
    """The ogre scenario as it was before the library (figures written out) plays identically."""
    written_out = {
        "name": "Ogre against two warriors", "ruleset": "gods_and_monsters", "rules": {},
        "sides": {
            "warriors": {"policy": {"target": "focus"}, "combatants": [
                {"name": "Hild", "archetypes": ["warrior"], "level": 3, "survival": 9, "verve": 18, "perception": 11,
                 "willpower": 10, "fortitude": 12, "combat": 2, "attack": 1, "defense": 5,
                 "weapons": [{"name": "long sword", "damage": "d8"}]},
                {"name": "Osric", "archetypes": ["warrior"], "level": 2, "survival": 8, "verve": 13, "perception": 9,
                 "willpower": 9, "fortitude": 11, "combat": 2, "defense": 4, "strength": 18,
                 "weapons": [{"name": "battle axe", "damage": "d8"}]}]},
            "ogre": {"policy": {"target": "strongest", "flee_below": 0.15}, "combatants": [
                {"name": "Ogre", "level": 5, "survival": 42, "perception": 7, "willpower": 8, "fortitude": 15,
                 "combat": 3, "attack": 1, "defense": 2, "strength": 18,
                 "attacks": [{"name": "great club", "damage": "2d6"}]}]}},
        "run": {"skirmishes": 100000, "seed": 11, "max_rounds": 100}}
    lib = sim.run(ROOT / "scenarios/gods_and_monsters/ogre_vs_two_warriors.yaml", n=2000, seed=11)
    pd.testing.assert_frame_equal(lib.combatants, sim.run(written_out, n=2000, seed=11).combatants)


def scenario_with(tmp_path, body: str, name="s.yaml", **files) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    f = tmp_path / name
    f.write_text(body, encoding="utf-8")
    return f


BODY = """\
name: t
ruleset: gods_and_monsters
include: {include}
sides:
  a:
    policy: {{use: careful}}
    combatants: [{{use: Brute}}, {{use: Brute, name: Small brute, survival: 3}}]
  b:
    combatants: [{{name: Target, survival: 5, weapons: [dagger]}}]
"""
LIB = """\
library: gods_and_monsters
bestiary:
  Brute: {survival: 12, combat: 2, weapons: [club]}
armory:
  club: {damage: d6}
policies:
  careful: {target: weakest, flee_below: 0.5}
"""


def test_use_fills_in_the_definition_and_fields_beside_it_win(tmp_path):
    f = scenario_with(tmp_path, BODY.format(include="lib/monsters.yaml"), **{"lib/monsters.yaml": LIB})
    scen = load_scenario(f)
    brute, small = scen.combatants[0], scen.combatants[1]
    assert (brute.name, brute.stats["survival"], small.name, small.stats["survival"]) == ("Brute", 12, "Small brute", 3)
    assert brute.stats["weapons"][0]["damage"].sides == 6  # `club` from the library's armory
    assert brute.policy_spec["flee_below"] == 0.5


def test_the_scenarios_own_definition_wins_and_later_includes_win(tmp_path):
    other = LIB.replace("survival: 12", "survival: 20")
    body = BODY.format(include="[one.yaml, two.yaml]")
    f = scenario_with(tmp_path, body, **{"one.yaml": LIB, "two.yaml": other})
    assert load_scenario(f).combatants[0].stats["survival"] == 20
    own = body.replace("sides:", "bestiary:\n  Brute: {survival: 30, weapons: [dagger]}\nsides:")
    f.write_text(own, encoding="utf-8")
    assert load_scenario(f).combatants[0].stats["survival"] == 30


def test_includes_are_relative_to_the_including_file(tmp_path):
    nested = "library: gods_and_monsters\ninclude: deeper/base.yaml\n"
    f = scenario_with(tmp_path, BODY.format(include="lib/top.yaml"),
                      **{"lib/top.yaml": nested, "lib/deeper/base.yaml": LIB})
    assert load_scenario(f).combatants[0].stats["survival"] == 12


def test_a_missing_include_names_the_path_it_looked_for(tmp_path):
    f = scenario_with(tmp_path, BODY.format(include="lib/nope.yaml"))
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    assert "'lib/nope.yaml'" in str(e.value) and "relative to the file" in str(e.value)
    assert str(tmp_path / "lib" / "nope.yaml") in str(e.value)


def test_circular_includes_are_named(tmp_path):
    a = "library: gods_and_monsters\ninclude: b.yaml\n"
    b = "library: gods_and_monsters\ninclude: a.yaml\n"
    f = scenario_with(tmp_path, BODY.format(include="a.yaml"), **{"a.yaml": a, "b.yaml": b})
    res = invoke("validate", f)
    assert res.exit_code == 2 and "circle (a.yaml -> b.yaml -> a.yaml)" in res.output
    self_include = scenario_with(tmp_path, BODY.format(include="s.yaml"))
    with pytest.raises(ScenarioError, match="circle"):
        load_scenario(self_include)


def test_an_unknown_use_suggests_the_closest_and_a_wrong_ruleset_library_is_refused(tmp_path):
    f = scenario_with(tmp_path, BODY.format(include="m.yaml").replace("{use: Brute}", "{use: Brut}"),
                      **{"m.yaml": LIB})
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    assert "Did you mean 'Brute'" in str(e.value) and e.value.line == 7
    f = scenario_with(tmp_path, BODY.format(include="m.yaml"), **{"m.yaml": LIB.replace("gods_and_monsters", "lens")})
    with pytest.raises(ScenarioError, match="library for the ruleset 'lens'"):
        load_scenario(f)


def test_an_included_file_provides_definitions_only(tmp_path):
    f = scenario_with(tmp_path, BODY.format(include="m.yaml"), **{"m.yaml": LIB + "sides: {}\n"})
    with pytest.raises(ScenarioError, match="definitions only"):
        load_scenario(f)


def test_a_library_given_as_a_scenario_says_what_it_is():
    res = invoke("run", ROOT / "library/gods_and_monsters.yaml", "-n", "5")
    assert res.exit_code == 2 and res.output.count("is a library") == 1
    checked = invoke("validate", ROOT / "library")  # validate checks it as a library (issue 31)
    assert checked.exit_code == 0 and checked.output.count(" library: ") == 3
