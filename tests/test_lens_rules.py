"""The Lens rules: damage examples, brackets and Momentum, every defence row."""
import numpy as np
import pytest

from sim.engine import Batch
from sim.rulesets.base import STANDING, UNCONSCIOUS
from sim.rulesets.lens import engine, resolve
from sim.rulesets.lens import tables as T
from sim.scenario import load_scenario

HERO = {"name": "Hero", "body": 20, "armor_rating": 2, "shield": "common", "talent": 8,
        "abilities": {k: {"training": "journeyman"} for k in
                      ("weapon_use", "maneuvering", "shield_use", "armor_use", "abjuration")},
        "weapons": [{"name": "long sword", "size": "medium", "workmanship": "common"}]}
BEAST = {"name": "Beast", "kind": "monster", "body": 30, "defense": 5, "attack_rating": 5, "initiative": 4,
         "attacks": [{"name": "claw", "damage": "2d6"}]}


def scenario(hero=None, beast=None, rules=None, policy=None):
    return load_scenario({"name": "t", "ruleset": "lens", "rules": rules or {},
                          "sides": {"a": {"policy": policy or {}, "combatants": [hero or HERO]},
                                    "b": {"combatants": [beast or BEAST]}}})


def fresh(scen, n):
    setup = scen.ruleset.build(scen)
    batch = Batch(np.random.default_rng(0), n)
    return setup, engine.init(setup, batch), batch


def test_damage_examples_from_the_text():
    scen = scenario(hero={**HERO, "shield": None, "weapons": [
        {"name": "crude two-handed sword", "size": "large", "workmanship": "crude"},
        {"name": "legendary dagger", "size": "tiny", "workmanship": "legendary"}]})
    setup = scen.ruleset.build(scen)
    assert str(setup.weapon_dice.dice[0]) == "4d2"
    scen = scenario(hero={**HERO, "weapons": [{"name": "legendary dagger", "size": "tiny",
                                               "workmanship": "legendary"}]})
    assert str(scen.ruleset.build(scen).weapon_dice.dice[0]) == "d12"
    # Named weapons from the ruleset's table take size from the text's examples.
    scen = scenario(hero={**HERO, "shield": None, "weapons": [{"name": "two-handed sword", "workmanship": "crude"}]})
    assert str(scen.ruleset.build(scen).weapon_dice.dice[0]) == "4d2"


def test_two_handed_weapon_with_shield_is_an_error():
    from sim.errors import ScenarioError
    with pytest.raises(ScenarioError, match="two-handed"):
        scenario(hero={**HERO, "weapons": [{"name": "greatsword", "size": "large"}]})


@pytest.mark.parametrize("bracket,timing,expected,early", [
    (0, "before", 2, False),   # Confused: after, -1 per round
    (1, "before", 2, True),    # Off-Balance choosing to go first: -1 that round
    (1, "after", 3, False),    # Off-Balance waiting: no loss
    (2, "after", 3, True),     # Prepared: before
    (3, "before", 4, True),    # Fluid: +1, either side
    (3, "after", 4, False),
])
def test_bracket_effects_on_momentum(bracket, timing, expected, early):
    scen = scenario(policy={"family": "all_out", "timing": timing})
    setup, state, _ = fresh(scen, 4)
    state.bracket[:, 0] = bracket
    engine._start_round(setup, state, False, None)
    assert (state.mom[:, 0] == expected).all()
    assert (state.early[:, 0] == early).all()


def test_bonus_momentum_and_condition_loss():
    scen = scenario(hero={**HERO, "bonus_momentum": 2})
    setup, state, _ = fresh(scen, 2)
    state.bracket[:, 0] = 2
    state.cond[0, 0, T.STUN] = state.fresh[0, 0, T.STUN] = True
    engine._start_round(setup, state, False, None)
    assert state.mom[:, 0].tolist() == [4, 5]
    assert not state.cond[0, 0, T.STUN]  # a one-round condition is spent


def _u(efforts: int, n=1):
    """Uniforms making a journeyman d8 + 2d8 roll exactly `efforts` against TN 5 (the riposte always hits)."""
    u = np.zeros((n, 15), np.float32)
    u[:, :efforts] = 0.99
    u[:, 10:13] = 0.99
    return u


ROWS = {  # (defence, outcome, takes the Sacrifice branch): damage, defender cond, attacker cond, extra
    ("abjure", 0, True): (7, None, None, ""), ("abjure", 1, True): (7, None, None, ""),
    ("abjure", 2, True): (0, None, None, ""), ("abjure", 3, True): (0, None, None, ""),
    ("mitigate", 0, True): (9, None, None, ""), ("mitigate", 1, False): (7, None, None, ""),
    ("mitigate", 1, True): (5, None, None, ""), ("mitigate", 2, True): (5, None, None, ""),
    ("mitigate", 3, True): (5, None, None, ""),
    ("block", 0, True): (7, "STUN", None, ""), ("block", 1, False): (7, None, None, ""),
    ("block", 1, True): (0, None, None, "lock"), ("block", 2, True): (0, None, None, ""),
    ("block", 3, True): (0, None, "STUN", ""),
    ("dodge", 0, True): (7, "PRONE", None, ""), ("dodge", 1, False): (7, None, None, ""),
    ("dodge", 1, True): (0, "HAMSTRUNG", None, ""), ("dodge", 2, True): (0, None, None, "move"),
    ("dodge", 3, True): (0, None, "PRONE", "move"),
    ("parry", 0, True): (7, "DISARMED", None, ""), ("parry", 1, False): (7, None, None, ""),
    ("parry", 1, True): (0, "HAMSTRUNG", None, ""), ("parry", 2, True): (0, None, None, ""),
    ("parry", 3, True): (0, None, None, "riposte"),
}


@pytest.mark.parametrize("key", list(ROWS))
def test_every_defence_row(key):
    name, outcome, take = key
    damage, dcond, acond, extra = ROWS[key]
    scen = scenario(policy={"take_sacrifice": take},
                    rules={"engagement": "battlefield"})
    setup, state, _ = fresh(scen, 1)
    state.round = 1
    state.mom[:] = 3
    start = state.pos.copy()
    d = T.DEFENCES.index(name)
    magical = name == "abjure"
    aux = {"weapon_damage": np.array([[6, 0]], np.int16), "noise8": np.zeros((1, 8), np.float32)}
    resolve.defend(setup, state, np.array([1]), np.array([0]), np.array([True]), np.array([7]),
                   np.array([0], np.int64), np.array([False]), np.array([magical]), np.array([7.0]),
                   _u(outcome), aux, None, True, choice=np.array([d]))
    assert state.taken[0, 0] == damage
    for c, want in ((0, dcond), (1, acond)):
        got = [T.CONDITIONS[k] for k in np.flatnonzero(state.cond[0, c])]
        assert got == ([want] if want else [])
    assert state.mom[0, 0] == (2 if T.ACTIVE[d] else 3)
    assert state.locked[0, 0] == (extra == "lock")
    assert (state.pos[0, 0] != start[0, 0]).any() == (extra == "move")
    assert state.taken[0, 1] == (6 if extra == "riposte" else 0)


def test_defeating_tags_and_missiles_remove_defences():
    from sim.rulesets.lens import policies as P
    scen = scenario()
    setup, state, _ = fresh(scen, 4)
    state.mom[:] = 3
    tags = setup.tags
    mask = np.array([tags.bit["CRUSHING"], tags.bit["SWEEPING"], tags.bit["HEAVY"], tags.bit["PIERCING"]])
    ok = P._allowed(setup, state, np.zeros(4, int), mask, np.zeros(4, bool), np.zeros(4, bool), np.arange(4))
    assert not ok[0, T.BLOCK] and ok[0, T.DODGE] and ok[0, T.PARRY]
    assert not ok[1, T.DODGE] and ok[1, T.BLOCK]
    assert not ok[2, T.PARRY] and ok[2, T.BLOCK]
    assert not ok[3, T.MITIGATE] and ok[0, T.MITIGATE]
    setup, state, _ = fresh(scen, 1)
    state.mom[:] = 3
    missile = P._allowed(setup, state, np.zeros(1, int), np.zeros(1, np.int64), np.ones(1, bool),
                         np.zeros(1, bool), np.arange(1))
    assert not missile[0, T.PARRY] and missile[0, T.BLOCK]
    state.mom[:] = 0  # no Momentum: passive defences only
    ok = P._allowed(setup, state, np.zeros(1, int), np.zeros(1, np.int64), np.zeros(1, bool), np.ones(1, bool),
                    np.arange(1))
    assert ok[0].tolist() == [True, True, False, False, False]


def test_body_goes_zero_and_overflows_into_void():
    scen = scenario()
    setup, state, _ = fresh(scen, 1)
    state.round = 3
    resolve.harm(setup, state, np.array([0]), np.array([25]), np.array([True]))
    assert state.body[0, 0] == 0 and state.void[0, 0] == 5
    assert state.status[0, 0] == UNCONSCIOUS and state.down_round[0, 0] == 3
    scen = scenario(rules={"zero_body": "void_limit", "void_limit": 6})
    setup, state, _ = fresh(scen, 1)
    resolve.harm(setup, state, np.array([0]), np.array([25]), np.array([True]))
    assert state.status[0, 0] == STANDING


def test_unspent_momentum_becomes_recovery():
    scen = scenario()
    setup, state, _ = fresh(scen, 1)
    state.body[0, 0] = 18
    state.mom[0, 0] = 3
    engine._end_round(setup, state, state.mom.copy(), None)
    assert state.body[0, 0] == 20 and state.recovered[0, 0] == 2


def test_initiative_brackets_follow_the_exact_challenge_probabilities():
    from sim.rulesets.lens.challenge import outcome_probs
    scen = scenario()
    setup, state, _ = fresh(scen, 100_000)
    assert setup.abilities[setup.init_ability[0]] == "weapon_use"  # all equal: the first best
    assert setup.init_tn[0] == 4  # the Beast's Initiative
    freq = np.bincount(state.bracket[:, 0], minlength=4) / 100_000
    p = np.array(outcome_probs(8, 8, 4))
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / 100_000))
    assert (state.bracket[:, 1] == -1).all()  # monsters have no bracket


def test_each_riposte_rolls_its_own_damage():
    """Two blows riposted in one round deal two weapon-damage rolls, not one roll twice."""
    import re

    from sim.trace import trace
    duelist = {"name": "Duelist", "body": 200, "talent": 12, "abilities": {"weapon_use": {"training": "master"}},
               "weapons": [{"name": "long sword", "size": "medium", "workmanship": "legendary"}]}
    beast = {"name": "Beast", "kind": "monster", "body": 4000, "defense": 2, "attack_rating": 2,
             "attacks": [{"name": "claw", "damage": "1d4"}, {"name": "bite", "damage": "1d4"}]}
    scen = scenario(duelist, beast, policy={"family": "hold_for_defence"})
    pairs = []
    for k in range(6):
        for rnd in trace(scen, seed=1, skirmish=k, n=10, max_rounds=4).split("--- Round")[1:]:
            dealt = [int(x) for x in re.findall(r"ripostes: \w+\.\n\s+Beast takes (\d+)", rnd)]
            if len(dealt) == 2:
                pairs.append(tuple(dealt))
    assert len(pairs) >= 10
    assert sum(a != b for a, b in pairs) >= len(pairs) // 3, pairs


def test_a_focusing_side_walks_toward_its_focus():
    """Move picks the side's focus like an attack does: both characters end beside the same
    monster instead of each walking to a random one (the two monsters stand far apart)."""
    import re

    from sim.trace import trace
    def char(name, y):
        return {"name": name, "body": 20, "abilities": {"weapon_use": {"training": "novice"}},
                "weapons": [{"name": "sword", "size": "small"}], "position": [2, y]}
    def brute(name, y):
        return {"name": name, "kind": "monster", "body": 30, "speed": 0,
                "attacks": [{"name": "club", "damage": "1d4"}], "position": [12, y]}
    scen = load_scenario({"name": "t", "ruleset": "lens", "battlefield": {"width": 20, "height": 15},
                          "sides": {"party": {"policy": {"family": "hold_for_defence", "target": "focus"},
                                              "combatants": [char("Anna", 7), char("Bert", 8)]},
                                    "brutes": {"combatants": [brute("North", 0), brute("South", 14)]}}})
    for k in range(8):
        log = trace(scen, seed=1, skirmish=k, n=10, max_rounds=4)
        first = {name: re.search(rf"{name} attacks (\w+)", log) for name in ("Anna", "Bert")}
        assert first["Anna"] and first["Bert"], (k, log)
        assert first["Anna"].group(1) == first["Bert"].group(1), (k, first)
