"""Ranged combat, cover, firing into close combat, multi-action weapons, drawing, high ground."""
import numpy as np
import pytest

from sim.rulesets.gods_and_monsters import tables as T
from sim.scenario import load_scenario
from tests.test_gm_util import assert_rate, fighter, run, scenario, setup_of, trace_from

BOW = {"name": "bow", "damage": 5, "range": 100}
FIELD = {"width": 20, "height": 5}
HOLD = {"move": "hold"}


def shooting(target: dict, rules=None, archer=None, allies=(), pa=None):
    archer = {**fighter("Archer", weapons=[BOW], position=[0, 0]), **(archer or {})}
    return scenario([archer, *allies], [{**fighter("T", position=[10, 2]), **target}], rules=rules,
                    pa={**HOLD, **(pa or {})}, pb=HOLD, battlefield=FIELD)


@pytest.mark.parametrize("level,warrior,bonus", [("weak", False, 0), ("weak", True, 1), ("strong", False, 1),
                                                 ("strong", True, 2), ("full", False, 2), ("full", True, 3)])
def test_cover_table_bonus_against_missiles(level, warrior, bonus):
    target = {"cover": level, "archetypes": ["warrior"] if warrior else []}
    r = run(shooting(target))["Archer"]
    assert (r["attacks"] == 1).all()
    assert_rate(r["hits"], (11 - bonus) / 20)


def test_cover_does_not_protect_in_melee_unless_the_option_says_so():
    d = scenario([fighter("A", weapons=[{"name": "sword", "damage": 1}])], [fighter("T", cover="full")])
    assert_rate(run(d)["A"]["hits"], 11 / 20)
    d["rules"] = {"cover_vs_melee": True}
    assert_rate(run(d)["A"]["hits"], 9 / 20)


def test_firing_into_close_combat_strong_cover_and_stray_hits():
    # T (defense 0) fights F (defense 2) next to it: 2 in the melee, strong cover (+1, non-warrior).
    ally = fighter("F", defense=2, position=[11, 2])
    r = run(shooting({}, allies=[ally]))
    assert_rate(r["Archer"]["hits"], 10 / 20)
    # F is struck by a hit that would also have hit it (roll <= 10 + 0 - 2 = 8) and a failed
    # Evasion (10), or by a miss (roll > 10) and a failed Evasion + Defense (12).
    p_f = 8 / 20 * 10 / 20 + 10 / 20 * 8 / 20
    assert_rate(r["F"]["damage_taken"] == 5, p_f)
    assert set(np.unique(r["F"]["damage_taken"])) <= {0, 5}


def test_firing_into_close_combat_with_five_is_full_cover():
    allies = [fighter(f"F{i}", position=p) for i, p in enumerate([[11, 2], [9, 2], [10, 1], [10, 3]])]
    r = run(shooting({}, allies=allies))
    assert_rate(r["Archer"]["hits"], 9 / 20)


def test_firing_into_close_combat_counts_everyone_in_the_melee():
    # A chain T - F1 - T2 - F2 - T3: T fights only F1, but the melee is all five ("five or
    # more combatants, including the target"): full cover (+2, non-warrior), not strong.
    chain = [fighter(f"F{i}", position=[11 + 2 * i, 2]) for i in range(2)]
    others = [fighter(f"T{i}", position=[8 + 2 * i, 2]) for i in (2, 3)]
    d = shooting({"survival": 2000}, allies=chain, pa={"target": "strongest"})
    d["sides"]["b"]["combatants"] += others
    d["battlefield"] = {"width": 20, "height": 5}
    assert_rate(run(d)["Archer"]["hits"], 9 / 20)
    # Three in the melee (T - F1 - T2): strong cover, as two would be.
    d["sides"]["a"]["combatants"] = d["sides"]["a"]["combatants"][:2]
    d["sides"]["b"]["combatants"] = d["sides"]["b"]["combatants"][:2]
    assert_rate(run(d)["Archer"]["hits"], 10 / 20)


def test_called_shot_into_close_combat_spares_the_others_on_a_hit():
    ally = fighter("F", defense=2, position=[11, 2])
    r = run(shooting({}, allies=[ally], pa={"called_shot": "always"}))
    assert_rate(r["Archer"]["hits"], 7 / 20)  # strong cover and the called shot's -3
    assert_rate(r["F"]["damage_taken"] == 5, 13 / 20 * 8 / 20)  # only misses stray


def test_firing_into_close_combat_can_be_switched_off():
    ally = fighter("F", defense=2, position=[11, 2])
    r = run(shooting({}, allies=[ally], rules={"firing_into_close_combat": False}))
    assert_rate(r["Archer"]["hits"], 11 / 20)
    assert (r["F"]["damage_taken"] == 0).all()


def arquebus(loaded=None, second=None):
    w = [{"name": "arquebus", "damage": 5, "range": 100, "actions": 3,
          **({"loaded": loaded} if loaded is not None else {})}]
    return w + ([second] if second else [])


def test_arquebus_takes_two_rounds_out_of_close_combat_and_three_in_it():
    far = shooting({}, archer={"weapons": arquebus(loaded=0)})
    assert (run(far, rounds=1, n=200)["Archer"]["attacks"] == 0).all()
    assert (run(far, rounds=2, n=200)["Archer"]["attacks"] == 1).all()
    assert (run(far, rounds=4, n=200)["Archer"]["attacks"] == 2).all()
    near = scenario([fighter("A", weapons=arquebus(loaded=0))], [fighter("T")], pa={"reload": "always", **HOLD},
                    pb=HOLD)
    assert (run(near, rounds=2, n=200)["A"]["attacks"] == 0).all()
    assert (run(near, rounds=3, n=200)["A"]["attacks"] == 1).all()


def test_a_preloaded_weapon_fires_at_once_and_close_combat_switches_to_the_sword():
    far = shooting({}, archer={"weapons": arquebus()})
    assert (run(far, rounds=1, n=200)["Archer"]["attacks"] == 1).all()
    sword = {"name": "sword", "damage": 1}
    near = scenario([fighter("A", weapons=arquebus(second=sword))], [fighter("T")], pa=HOLD, pb=HOLD)
    r = run(near, rounds=3, n=200)["A"]  # shot, then the sword twice (no reloading in close combat)
    assert (r["attacks"] == 3).all()


def test_drawing_and_attacking_in_one_round_needs_an_evasion_roll():
    d = scenario([fighter("A", weapon_drawn=False, evasion=12, weapons=[{"name": "sword", "damage": 1}])],
                 [fighter("T")])
    assert_rate(run(d)["A"]["attacks"], 12 / 20)
    d["sides"]["a"]["policy"] = {"quick_draw": False}
    assert (run(d, n=500)["A"]["attacks"] == 0).all()
    assert (run(d, rounds=2, n=500)["A"]["attacks"] == 1).all()


def test_failed_draw_leaves_the_combatant_surprised():
    # A never snaps out (Willpower and Fortitude -20) and flees as soon as it is surprised:
    # at the start of round 2 exactly when its draw in round 1 failed (Evasion 12).
    a = fighter("A", weapon_drawn=False, evasion=12, willpower=-20, fortitude=-20,
                weapons=[{"name": "sword", "damage": 1}], policy={"rules": [{"if": "surprised == 1", "do": "flee"}]})
    d = scenario([a], [fighter("T")])
    r = run(d, rounds=2)["A"]
    fled = r["final_state"] == "fled"
    assert_rate(fled, 8 / 20)
    assert (r["down_round"][fled] == 2).all() and (r["attacks"][fled] == 0).all()
    for k in range(8):
        text = "\n".join(trace_from(d, k, rounds=2))
        assert ("fumbles, acts as if surprised" in text) == ("A flees the fight" in text), text


@pytest.mark.parametrize("choice,p_a,p_b", [("attack", 12 / 20, 11 / 20), ("defense", 11 / 20, 10 / 20)])
def test_high_ground_gives_one_to_attack_or_defense(choice, p_a, p_b):
    d = scenario([fighter("A", high_ground=True, weapons=[{"name": "sword", "damage": 1}])],
                 [fighter("B", weapons=[{"name": "sword", "damage": 1}])], pa={"high_ground": choice})
    r = run(d)
    assert_rate(r["A"]["hits"], p_a)
    assert_rate(r["B"]["hits"], p_b)


@pytest.mark.parametrize("over", [{}, {"rules.resolution": "sequential"}, {"rules.death_rule": "guide_roll"}])
def test_unused_situations_leave_the_fight_unchanged(over):
    """Switching on the gates of situations nobody uses (taking aim, extra attacks, firing
    into close combat) gives the same results bit for bit: the gates only skip work."""
    scen = load_scenario("scenarios/gods_and_monsters/yeti.yaml", over or None)
    plain, forced = scen.ruleset.build(scen), scen.ruleset.build(scen)
    assert not plain.flags[[T.G_AIM, T.G_EXTRA, T.G_INTO_MELEE]].any()
    forced.flags[[T.G_AIM, T.G_EXTRA, T.G_INTO_MELEE]] = 1
    a = scen.ruleset.play(plain, 3, 0, 3000, 100)
    b = scen.ruleset.play(forced, 3, 0, 3000, 100)
    assert (a.winner == b.winner).all() and (a.rounds == b.rounds).all()
    for k in a.per_combatant:
        assert (a.per_combatant[k] == b.per_combatant[k]).all(), k


def test_loaded_beyond_the_weapons_actions_is_a_scenario_error():
    from sim.errors import ScenarioError
    d = scenario([fighter("A", weapons=arquebus(loaded=3))], [fighter("T")])
    with pytest.raises(ScenarioError, match=r"combatants\[0\]\.weapons\[0\]\.loaded"):
        load_scenario(d)


def test_high_ground_can_be_forgone():
    d = scenario([fighter("A", high_ground=True, weapons=[{"name": "sword", "damage": 1}])],
                 [fighter("B", weapons=[{"name": "sword", "damage": 1}])], pa={"high_ground": "none"})
    r = run(d)
    assert_rate(r["A"]["hits"], 11 / 20)  # neither +1 to attack ...
    assert_rate(r["B"]["hits"], 11 / 20)  # ... nor +1 to defense
    assert not setup_of(d)[1].pair_mod.any()


@pytest.mark.parametrize("ranged,p", [(False, 8 / 20), (True, 5 / 20)])
def test_unseen_targets_minus_three_close_minus_six_ranged(ranged, p):
    if ranged:
        d = shooting({"unseen": True})
        who = "Archer"
    else:
        d = scenario([fighter("A", weapons=[{"name": "sword", "damage": 1}])], [fighter("T", unseen=True)])
        who = "A"
    assert_rate(run(d)[who]["hits"], p)
