import copy

import pytest
import yaml

import sim

with open("scenarios/gods_and_monsters/yeti.yaml") as f:
    YETI = yaml.safe_load(f)


def test_weapons_by_name_come_from_the_ruleset_table_and_the_armory():
    data = copy.deepcopy(YETI)
    data["armory"] = {"great club": {"damage": "2d6", "reach": 10}}
    data["sides"]["party"]["combatants"][0]["weapons"] = ["long sword"]
    data["sides"]["party"]["combatants"][2]["weapons"] = [{"name": "battle axe", "attack": 1}]
    data["sides"]["yeti"]["combatants"][0]["attacks"] = ["claw", "great club"]
    scen = sim.load_scenario(data)
    sam, tor, yeti = scen.combatants[0], scen.combatants[2], scen.combatants[3]
    assert str(sam.stats["weapons"][0]["damage"]) == "d8"
    assert tor.stats["weapons"][0]["attack"] == 1 and str(tor.stats["weapons"][0]["damage"]) == "d8"
    assert [str(a["damage"]) for a in yeti.stats["attacks"]] == ["d6", "2d6"]
    assert yeti.stats["attacks"][1]["reach"] == 10


def test_unknown_weapon_name_suggests_the_closest_and_says_where_to_define_it():
    data = copy.deepcopy(YETI)
    data["sides"]["party"]["combatants"][0]["weapons"] = ["long swrod"]
    with pytest.raises(sim.ScenarioError) as e:
        sim.load_scenario(data)
    msg = str(e.value)
    assert "sides.party.combatants[Sam Stevens].weapons[0]" in msg
    assert "Did you mean 'long sword'" in msg and "armory" in msg
