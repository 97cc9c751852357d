"""Complex actions (spells), leading, and morale: withdrawing and routing."""
import numpy as np
import pytest

from tests.test_gm_util import assert_rate, fighter, run, scenario

BOLT = {"name": "bolt", "damage": 6, "save": "evasion"}


def test_spell_damage_against_a_save():
    d = scenario([fighter("C", spells=[BOLT])], [fighter("T", evasion=12)])
    r = run(d)
    assert_rate(r["T"]["damage_taken"] == 6, 8 / 20)
    assert (r["C"]["attacks"] == 0).all()  # casting takes the round


def test_sleep_spell_leaves_the_target_immobile_and_unable_to_act():
    sleep = {"name": "sleepfall", "save": "willpower", "condition": "sleep"}
    d = scenario([fighter("C", spells=[sleep])], [fighter("T", willpower=10)])
    r = run(d, rounds=2)
    # T attacks in round 1 either way (all at once); asleep after it, it cannot in round 2.
    asleep = r["T"]["attacks"] == 1
    assert set(np.unique(r["T"]["attacks"])) == {1, 2}
    assert_rate(asleep, 10 / 20)
    # Immobile: C, with no target left for its sleep spell, clubs it in a killing blow,
    # a called shot at +10: needs 11 + 10 - 3 = 18.
    assert (r["C"]["attacks"][asleep] == 1).all()
    assert_rate(r["C"]["hits"][asleep], 18 / 20)
    assert (r["C"]["attacks"][~asleep] == 0).all()  # T awake: C casts again


def test_limited_uses_then_the_weapon():
    d = scenario([fighter("C", spells=[{**BOLT, "uses": 1}])], [fighter("T")])
    r = run(d, rounds=3, n=500)
    assert (r["C"]["attacks"] == 2).all()


def test_surprised_casters_cannot_start_a_spell():
    d = scenario([fighter("C", spells=[{**BOLT, "save": "none"}], awareness="unaware", perception=-20)],
                 [fighter("T")])
    r = run(d, rounds=2)
    # Round 1 is lost to surprise; in round 2 it casts only if it snapped out (the better of
    # Willpower and Fortitude, 10).
    assert_rate(r["T"]["damage_taken"] == 6, 10 / 20)


@pytest.mark.parametrize("companions,p_led", [(1, 12 / 20), (2, 0.0)])
def test_a_leading_warrior_grants_the_warrior_cover_bonus(companions, p_led):
    bow = {"name": "bow", "damage": 1, "range": 50}
    archer = fighter("Archer", weapons=[bow], position=[0, 2])
    leader = fighter("L", archetypes=["warrior"], level=1, perception=12, position=[19, 2], policy={"lead": True})
    friends = [fighter(f"F{i}", cover="strong", position=[8, 2 + i]) for i in range(companions)]
    d = scenario([archer], [leader, *friends],
                 pa={"move": "hold", "target": "strongest" if companions == 2 else "random"},
                 pb={"move": "hold"}, battlefield={"width": 20, "height": 5})
    if companions == 2:  # the archer shoots the second companion, who is past the leader's level
        d["sides"]["b"]["combatants"][2]["survival"] = 2000
    r = run(d)
    assert (r["L"]["attacks"] == 0).all()
    assert_rate(r["Archer"]["hits"], p_led * 9 / 20 + (1 - p_led) * 10 / 20)


def test_withdrawing_leaves_at_the_end_of_the_round_and_fleeing_at_its_start():
    sword = {"name": "sword", "damage": 4}
    d = scenario([fighter("A", weapons=[sword])], [fighter("T", policy={"rules": [{"if": True, "do": "withdraw"}]})])
    r = run(d)
    assert (r["T"]["final_state"] == "fled").all()
    assert_rate(r["T"]["damage_taken"] > 0, 11 / 20)
    d["sides"]["b"]["combatants"][0]["policy"] = {"rules": [{"if": True, "do": "flee"}]}
    r = run(d, n=500)
    assert (r["T"]["final_state"] == "fled").all() and (r["T"]["damage_taken"] == 0).all()


def test_withdraw_below_a_share_of_health():
    sword = {"name": "sword", "damage": 4}
    d = scenario([fighter("A", weapons=[sword])], [fighter("T", survival=10, policy={"withdraw_below": 0.8})])
    r = run(d, rounds=2)
    # Hit in round 1 (4 of 10 left 0.6): withdraws at the end of round 2, taking that round's attack.
    fled = r["T"]["final_state"] == "fled"
    assert (r["T"]["damage_taken"][fled] >= 4).all() and fled[r["T"]["damage_taken"] == 8].all()
    assert_rate(r["T"]["final_state"] == "fled", 11 / 20)


def test_a_side_routs_when_too_few_are_left():
    sword = {"name": "sword", "damage": 4}
    d = scenario([fighter("A", weapons=[sword])],
                 [fighter("T1", survival=1, fortitude=0), fighter("T2")],
                 pa={"target": "weakest"}, pb={"rout_below": 0.75})
    r = run(d, rounds=2)
    assert_rate(r["T2"]["final_state"] == "fled", 11 / 20)
    fled = r["T2"]["final_state"] == "fled"
    assert (r["T1"]["final_state"][fled] == "dead").all()


def test_scripted_actions_and_observations():
    d = scenario([fighter("C", spells=[{**BOLT, "save": "none", "uses": 1}],
                          policy={"cast": False, "rules": [{"if": "round == 2 and spells_left > 0", "do": "cast"}]})],
                 [fighter("T")])
    r = run(d, rounds=1, n=300)
    assert (r["T"]["damage_taken"] == 0).all()
    r = run(d, rounds=2, n=300)
    assert (r["T"]["damage_taken"] == 6).all()


def test_surprised_targets_make_their_saves_at_minus_three_after_round_one():
    # T never snaps out (Willpower and Fortitude -20): its Evasion 12 save is 12 in round 1, 9 after.
    d = scenario([fighter("C", spells=[BOLT])],
                 [fighter("T", evasion=12, awareness="unaware", perception=-20, willpower=-20, fortitude=-20,
                          survival=1000)])
    taken = run(d, rounds=2)["T"]["damage_taken"]
    assert_rate(taken == 12, 8 / 20 * 11 / 20)
    assert_rate(taken == 0, 12 / 20 * 9 / 20)
