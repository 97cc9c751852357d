"""The scripted-policy language: safe, vectorised conditions and first-match rules."""
from __future__ import annotations

import numpy as np
import pytest

import sim
from sim.errors import ScenarioError
from sim.policy import TARGET_MODES, choose_targets, compile_condition, compile_policy, policy_schema
from sim.rulesets.gods_and_monsters import schema as gm
from sim.schema import validate_record

NAMES = {"round": "", "health": "", "enemies_standing": "", "took_damage": ""}
OBS = {
    "round": np.array([1, 2, 3, 4]),
    "health": np.array([1.0, 0.5, 0.2, 0.0]),
    "enemies_standing": np.array([3, 2, 1, 1]),
    "took_damage": np.array([0, 4, 0, 7]),
}


@pytest.mark.parametrize("text, expected", [
    ("health < 0.3", [0, 0, 1, 1]),
    ("health < 0.3 and took_damage > 0", [0, 0, 0, 1]),
    ("round == 1 or enemies_standing == 1", [1, 0, 1, 1]),
    ("not (round > 2)", [1, 1, 0, 0]),
    ("1 < round <= 3", [0, 1, 1, 0]),
    ("round % 2 == 0", [0, 1, 0, 1]),
    ("health * 10 + round >= 6", [1, 1, 0, 0]),
    ("took_damage / 2 - 1 > 0", [0, 1, 0, 1]),
    ("-health > -0.3", [0, 0, 1, 1]),
    ("true", [1, 1, 1, 1]),
    ("False", [0, 0, 0, 0]),
    ("round != 2", [1, 0, 1, 1]),
])
def test_conditions_evaluate_over_the_whole_batch(text, expected):
    out = compile_condition(text, NAMES, "p")(OBS)
    assert out.dtype == bool and out.shape == (4,)
    assert out.tolist() == [bool(x) for x in expected]


def test_yaml_booleans_are_conditions():
    assert compile_condition(True, NAMES, "p")(OBS).tolist() == [True] * 4
    assert compile_condition(False, NAMES, "p")(OBS).tolist() == [False] * 4


@pytest.mark.parametrize("text, fragment", [
    ("helth < 0.5", "Did you mean 'health'"),
    ("enemies < 2", "Did you mean 'enemies_standing'"),
    ("round <", "is not a valid condition"),
    ("__import__('os').system('true')", "is not allowed"),
    ("round.real > 1", "is not allowed"),
    ("[1, 2]", "is not allowed"),
    ("'text' == round", "is not allowed"),
    ("round is 1", "only <, <=, >, >=, ==, != compare"),
    ("round in (1, 2)", "is not allowed"),
    ("round in round", "only <, <=, >, >=, ==, != compare"),
    ("", "expected a condition"),
    ("round ** 2 > 1", "is not allowed"),
])
def test_bad_conditions_name_the_path(text, fragment):
    with pytest.raises(ScenarioError) as err:
        compile_condition(text, NAMES, "sides.a.policy.rules[0].if")
    assert err.value.path == "sides.a.policy.rules[0].if"
    assert fragment in str(err.value)


def compiled(spec: dict):
    full = validate_record(spec, policy_schema(gm.POLICY_FIELDS), "p")
    return compile_policy(full, gm.ACTIONS, gm.OBSERVATIONS, "p")


def test_first_matching_rule_decides_else_the_family_choice():
    pol = compiled({"target": "random", "rules": [
        {"if": "health < 0.3", "do": "flee"},
        {"if": "round == 1", "do": "hold"},
        {"if": "round >= 3", "do": "attack", "target": "weakest"},
    ]})
    default = np.zeros(4, dtype=np.int8)  # attack
    action, target = pol.decide(OBS, default)
    names = [gm.ACTIONS[a] for a in action]
    # Skirmish 0: round 1 -> hold. 1: nothing matches -> attack. 2, 3: health < 0.3 wins over round >= 3.
    assert names == ["hold", "attack", "flee", "flee"]
    assert [TARGET_MODES[t] for t in target] == ["random"] * 4
    obs = dict(OBS, health=np.array([1.0, 1.0, 1.0, 1.0]))
    action, target = pol.decide(obs, default)
    assert [gm.ACTIONS[a] for a in action] == ["hold", "attack", "attack", "attack"]
    assert [TARGET_MODES[t] for t in target] == ["random", "random", "weakest", "weakest"]
    assert (default == 0).all()  # the family's array is not modified in place


def test_policy_defaults_and_family_parameters():
    pol = compiled({})
    assert TARGET_MODES[pol.target] == "random" and pol.rules == []
    core = {"flee_below": 0.0, "flee_after_bad_round": False, "move": "auto", "kite_distance": 15}
    assert {k: pol.params[k] for k in core} == core
    # Parameters of the special situations (docs/rules/gods_and_monsters.md) take their defaults.
    from sim.rulesets.gods_and_monsters.schema import POLICY_FIELDS
    assert {k: v for k, v in pol.params.items() if k not in core} == {
        k: f.default for k, f in POLICY_FIELDS.items() if k not in core}


def test_unknown_action_suggests():
    with pytest.raises(ScenarioError) as err:
        compiled({"rules": [{"if": "round > 1", "do": "fle"}]})
    assert err.value.path == "p.rules[0].do" and "Did you mean 'flee'" in str(err.value)


def test_every_observation_is_provided_by_the_engine():
    # A condition naming each observation compiles and runs inside a real fight.
    cond = " and ".join(f"{name} >= -1000" for name in gm.OBSERVATIONS)
    data = {"name": "obs", "ruleset": "gods_and_monsters", "sides": {
        "a": {"policy": {"rules": [{"if": cond, "do": "attack"}]},
              "combatants": [{"name": "A", "survival": 5, "weapons": [{"name": "w", "damage": "d4"}]}]},
        "b": {"combatants": [{"name": "B", "survival": 5, "weapons": [{"name": "w", "damage": "d4"}]}]}}}
    r = sim.run(data, n=500, seed=1)
    assert (r.combatants.loc[r.combatants["combatant"] == "A", "attacks"] > 0).all()


def duel(policy: dict) -> dict:
    return {"name": "policy duel", "ruleset": "gods_and_monsters", "sides": {
        "a": {"policy": policy, "combatants": [{"name": "A", "survival": 20, "fortitude": 30,
                                                "weapons": [{"name": "w", "damage": "d4"}]}]},
        "b": {"combatants": [{"name": "B", "survival": 20, "fortitude": 30,
                              "weapons": [{"name": "w", "damage": "d4"}]}]}}}


def test_scripted_hold_and_flee_in_a_fight():
    # Holding for two rounds then fleeing: A never attacks and leaves in round 3.
    r = sim.run(duel({"rules": [{"if": "round >= 3", "do": "flee"}, {"if": "true", "do": "hold"}]}), n=2000, seed=4)
    a = r.combatants[r.combatants["combatant"] == "A"]
    assert (a["attacks"] == 0).all()
    still = a["final_state"] == "standing"
    assert (a.loc[~still & (a["final_state"] != "fled"), "down_round"] <= 2).all()
    fled = a[a["final_state"] == "fled"]
    assert len(fled) > 1500 and (fled["down_round"] == 3).all()
    assert (r.skirmishes.loc[fled["skirmish"].to_numpy(), "winner"] == "b").all()


def flee_run(flee_below: float):
    # A cannot hit (needs 11 - 20 - 0 <= 0), so it only takes damage; it flees at the start of the
    # first round that finds its health below the share, before it can fall (survival is not 0).
    data = duel({"flee_below": flee_below})
    data["sides"]["a"]["combatants"][0]["combat"] = -20
    r = sim.run(data, n=2000, seed=5)
    a = r.combatants[r.combatants["combatant"] == "A"]
    assert (a["final_state"] == "fled").all() and (a["hits"] == 0).all()
    assert (a["survival_left"] + a["damage_taken"] == 20).all()
    return a


def test_flee_below_uses_health_share():
    a = flee_run(0.575)  # 11.5 of 20 survival
    assert a["survival_left"].max() == 11
    # The round before it fled it still had 12 or more: d4 takes at most 4 a round.
    assert a["survival_left"].min() >= 12 - 4


def test_flee_below_is_strict_at_the_boundary():
    assert flee_run(0.6)["survival_left"].max() == 11


def test_choose_targets_modes():
    n, slots, C = 3, 4, 3
    candidates = np.ones((n, slots, C), dtype=bool)
    candidates[:, :, 0] = False  # combatant 0 is an ally
    candidates[2] = False  # no enemy left in skirmish 2
    health = np.array([[9.0, 5.0, 7.0], [9.0, 8.0, 2.0], [1.0, 1.0, 1.0]])
    noise = np.random.default_rng(0).random((n, slots, C)).astype(np.float32)
    modes = np.array([[1, 2, 0, 3]] * n)
    focus = np.array([[2, 2, 2, 2], [1, 1, 1, 1], [-1, -1, -1, -1]])
    t = choose_targets(modes, candidates, health, focus, noise)
    assert t[0, 0] == 1 and t[0, 1] == 2 and t[0, 3] == 2   # weakest, strongest, focus
    assert t[1, 0] == 2 and t[1, 1] == 1 and t[1, 3] == 1
    assert t[0, 2] in (1, 2) and t[1, 2] in (1, 2)
    assert (t[2] == -1).all()


def test_random_targeting_is_uniform():
    n, C = 60000, 4
    candidates = np.zeros((n, 1, C), dtype=bool)
    candidates[:, :, 1:] = True
    noise = np.random.default_rng(3).random((n, 1, C)).astype(np.float32)
    t = choose_targets(np.zeros((n, 1), dtype=np.int8), candidates, np.ones((n, C)), None, noise)[:, 0]
    counts = np.bincount(t, minlength=C)
    assert counts[0] == 0
    se = np.sqrt(1 / 3 * 2 / 3 / n)
    assert np.all(np.abs(counts[1:] / n - 1 / 3) <= 4 * se)


def test_lazy_observations_make_only_what_a_condition_reads_and_each_once():
    from sim.policy import LazyObservations, compile_condition
    made = []

    def maker(key, value):
        def make():
            made.append(key)
            return value
        return make

    def never():
        raise AssertionError("an observation no condition reads was computed")

    obs = LazyObservations({"round": maker("round", np.array([1, 2, 3])),
                            "health": maker("health", np.array([0.2, 0.5, 0.9])),
                            "nearest_enemy": never})
    cond = compile_condition("health < 0.6 and round > 1", {"round": "", "health": "", "nearest_enemy": ""}, "p")
    np.testing.assert_array_equal(cond(obs), [False, True, False])
    np.testing.assert_array_equal(cond(obs), [False, True, False])
    assert sorted(made) == ["health", "round"]
    assert set(obs) == {"round", "health", "nearest_enemy"} and len(obs) == 3
