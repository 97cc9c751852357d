"""Immobilizing: the grab, the Fortitude contests, breaking free, tying up.

Holds that a test needs from the first round are carried in through `start=` (held,
held_by: the hold counts as made in an earlier round, so the contest comes in round 1).
What the old round's state arrays showed is read from the outcome: a held or bound
combatant makes no attacks, a holder makes none while the contest is undecided, and the
blow of a combatant breaking free is the only damage its holder can take here.
"""
import re

import numpy as np
import pytest

from tests.test_gm_util import assert_rate, fighter, play_from, run, scenario, trace_from

CLUB = {"name": "club", "damage": 3}
GRABBED, IMMOBILIZED = 1, 2  # start["held"] codes (tables.HELD_*)


def brute_vs(target_size="large", **pa):
    a = fighter("A", weapons=[{"name": "fists", "damage": 0}])
    b = fighter("T", size=target_size, weapons=[CLUB])
    return scenario([a], [b], pa={"immobilize": "always", **pa}, pb={"move": "hold"})


@pytest.mark.parametrize("size,dodge", [("large", 12), ("huge", 14)])
def test_grab_is_a_called_shot_and_evasion_gains_two_per_size_level(size, dodge):
    d = brute_vs(size)
    assert_rate(run(d)["A"]["hits"], 8 / 20)  # the grab: a called shot, 11 - 3
    r = run(d, rounds=2)
    # Grabbed in round 1 (hit on 8, T fails Evasion 10 + 2 per size level): in round 2 the
    # held T and its holder A do nothing else; T not grabbed attacks in both rounds.
    grabbed = r["T"]["attacks"] == 1
    assert set(np.unique(r["T"]["attacks"])) == {1, 2}
    assert_rate(grabbed, 8 / 20 * (20 - dodge) / 20)
    assert ((r["A"]["attacks"] == 1) == grabbed).all()  # A holds exactly when T is held


def test_the_immobilizer_is_at_minus_two_defense():
    r = run(brute_vs("medium"))
    assert_rate(r["T"]["hits"], 13 / 20)


def hold(level=GRABBED, target=1, holder=0, n_combatants=2):
    held, held_by = [0] * n_combatants, [-1] * n_combatants
    held[target], held_by[target] = level, holder
    return {"held": held, "held_by": held_by}


@pytest.mark.parametrize("size,t_score,h_score", [("medium", 10, 10), ("large", 14, 10), ("small", 10, 14)])
def test_fortitude_contest_with_four_per_size_step(size, t_score, h_score):
    d = brute_vs(size)
    t_ok, h_ok = t_score / 20, h_score / 20
    one = play_from(d, rounds=1, **hold())
    # Breaking free is an automatically successful attack on the holder (T's club: 3).
    broken = one["A"]["damage_taken"] == 3
    assert set(np.unique(one["A"]["damage_taken"])) == {0, 3}
    assert_rate(broken, t_ok * (1 - h_ok))
    two = play_from(d, rounds=2, **hold())  # the same dice in round 1 (keyed randomness)
    # Round 2 shows round 1's result: immobilized, A strikes (hold_then: attack) and T does
    # nothing; broken free, T attacks and A, no longer holding, grabs again; else both hold.
    immobilized = (two["A"]["attacks"] == 1) & (two["T"]["attacks"] == 0)
    assert_rate(immobilized, (1 - t_ok) * h_ok)
    assert ((two["T"]["attacks"] == 1) == broken).all()
    assert (two["A"]["attacks"][broken] == 1).all()
    assert (two["A"]["attacks"][~broken & ~immobilized] == 0).all()
    # The trace gives the scores themselves: Fortitude 10, +4 for the larger.
    text = "\n".join(trace_from(d, 0, **hold()))
    m = re.search(r"T strains against A's hold \(Fortitude \d+ against (-?\d+), holder \d+ against (-?\d+)\)", text)
    assert m and (int(m[1]), int(m[2])) == (t_score, h_score), text


@pytest.mark.parametrize("then,t_ok", [("hold", 7 / 20), ("attack", 10 / 20)])
def test_immobilized_break_free_at_minus_three_unless_the_holder_strikes_with_a_weapon(then, t_ok):
    d = brute_vs("medium", hold_then=then)
    d["sides"]["a"]["combatants"][0]["weapons"] = [{"name": "dagger", "damage": 0}]
    r = play_from(d, rounds=1, **hold(IMMOBILIZED))
    assert (r["A"]["attacks"] == (1 if then == "attack" else 0)).all()
    assert_rate(r["A"]["damage_taken"] == 3, t_ok * 10 / 20)


def test_attacking_an_immobilized_target_is_plus_ten():
    d = brute_vs("medium", hold_then="attack", killing_blow=False)
    d["sides"]["b"]["combatants"][0]["defense"] = 10
    r = play_from(d, rounds=1, **hold(IMMOBILIZED))
    assert (r["A"]["attacks"] == 1).all()
    assert_rate(r["A"]["hits"], 11 / 20)  # 11 - 10 defense + 10
    assert (r["T"]["attacks"] == 0).all()  # the immobilized target cannot attack


def test_an_ally_ties_up_an_immobilized_target():
    d = brute_vs("medium", hold_then="hold")
    d["sides"]["a"]["combatants"].append(fighter("B"))
    start = hold(IMMOBILIZED, target=2, n_combatants=3)
    r = play_from(d, rounds=3, **start)
    # B stands next to T in the opening line, so it ties T up unless T broke free first
    # (Fortitude 10 - 3 against the holder's 10): bound, T never attacks again.
    tied = r["T"]["attacks"] == 0
    assert_rate(tied, 1 - 7 / 20 * 10 / 20)
    # Broken free: T strikes A for 3 in round 1 and fights on; tied: A's hands are free
    # from round 2 (it attacks or grabs instead of holding).
    one = play_from(d, rounds=1, **start)
    assert ((one["A"]["damage_taken"] == 0) == tied).all()
    assert (r["A"]["attacks"][tied] >= 1).all()
    for k in range(6):
        text = "\n".join(trace_from(d, k, **start))
        assert ("T is tied up." in text) != ("breaks free and strikes back." in text), text


@pytest.mark.parametrize("size,grabs", [("medium", True), ("large", False)])
def test_immobilize_vs_smaller_picks_only_smaller_targets(size, grabs):
    d = brute_vs(size, immobilize="vs_smaller")
    d["sides"]["a"]["combatants"][0]["size"] = "large"
    r = run(d, rounds=2, n=4000)
    if grabs:
        assert_rate(r["T"]["attacks"] == 1, 8 / 20 * 10 / 20, n=4000)  # held in round 2
    else:
        assert (r["T"]["attacks"] == 2).all()  # never held
        assert_rate(run(d, n=4000)["A"]["hits"], 11 / 20, n=4000)  # a plain attack instead
