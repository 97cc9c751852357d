"""A skirmish started from carried-in state (`start=` of RULESET.play): each condition
key changes the fight the way the rules say, and a start the rules cannot hold is refused."""
import numpy as np
import pytest

from sim.rulesets.base import DEAD, STANDING
from sim.rulesets.gods_and_monsters.play import initial_state
from tests.test_gm_util import assert_rate, fighter, play_from, scenario, setup_of, trace_from

SWORD = {"name": "sword", "damage": 1}
N = 20000


def duel(target=None, attacker=None, **pa):
    a = fighter("A", weapons=[SWORD], **(attacker or {}))
    return scenario([a], [fighter("T", defense=10, **(target or {}))], pa={"killing_blow": False, **pa},
                    pb={"move": "hold"})


def test_a_fresh_start_plays_as_a_fresh_skirmish_without_surprise():
    d = duel()
    ruleset, setup = setup_of(d)
    a = ruleset.play(setup, 1, 0, 2000, 5)
    b = ruleset.play(setup, 1, 0, 2000, 5, start=initial_state(setup, 2000))
    assert (a.winner == b.winner).all()
    for k in a.per_combatant:
        assert (a.per_combatant[k] == b.per_combatant[k]).all(), k


def test_a_start_of_whole_arrays_plays_on_the_kernel_already_compiled():
    # A start of whole (n, C) arrays reached the kernel as read-only views (broadcast_to),
    # another type to Numba: the chunk kernel compiled a second time (some 35 CPU-s) in
    # every process that gave one, the tests and days among them.
    from sim.rulesets.gods_and_monsters.kernel import play_chunk
    ruleset, setup = setup_of(duel())
    ruleset.play(setup, 1, 0, 10, 5)
    start = initial_state(setup, 10)
    start.update(held=np.zeros((10, 2), np.int64), held_by=np.full((10, 2), -1), asleep=[0, 0])
    ruleset.play(setup, 1, 0, 10, 5, start=start)
    assert len(play_chunk.overloads) == 1


def test_asleep_is_immobile_cannot_act_and_wakes_when_hurt():
    r = play_from(duel(), rounds=1, asleep=[0, 1])
    assert_rate(r["A"]["hits"], 11 / 20)  # 11 - 10 defense + 10 immobile (awake: 1 / 20)
    assert (r["T"]["attacks"] == 0).all()
    hit = r["A"]["hits"] == 1
    # Hit in round 1 (the same dice in a 2-round run), T wakes and attacks in round 2;
    # missed, it sleeps on.
    r = play_from(duel(), rounds=2, asleep=[0, 1])
    assert ((r["T"]["attacks"] == 1) == hit).all()
    d = duel()
    d["rules"] = {"sleep_wakes_on_damage": False}
    assert (play_from(d, rounds=3, n=2000, asleep=[0, 1])["T"]["attacks"] == 0).all()
    assert "T is asleep (carried in): an immobile target" in "\n".join(trace_from(duel(), 0, asleep=[0, 1]))


def test_without_asleep_the_scenarios_sleepers_sleep_when_surprised():
    d = duel(target={"awareness": "asleep", "perception": -20})
    asleep = play_from(d, rounds=1, surprised=[0, 1])
    assert_rate(asleep["A"]["hits"], 11 / 20)  # immobile in round 1
    awake = play_from(d, rounds=1, surprised=[0, 0])
    assert_rate(awake["A"]["hits"], 1 / 20)
    text = "\n".join(trace_from(d, 0, surprised=[0, 1]))
    assert "T sleeps through the first round" in text


def test_bound_is_immobile_and_cannot_act_for_the_whole_fight():
    r = play_from(duel(), rounds=3, bound=[0, 1])
    assert (r["T"]["attacks"] == 0).all()
    assert_rate(r["A"]["hits"].sum() / (3 * N), 11 / 20, n=3 * N)  # +10 every round


def test_held_by_an_enemy_cannot_act_and_the_holder_holds():
    r = play_from(duel(target={"weapons": [SWORD]}), rounds=1, held=[0, 1], held_by=[-1, 0])
    # Grabbed, undecided: neither does anything but the Fortitude contest (10 against 10).
    assert (r["T"]["attacks"] == 0).all() and (r["A"]["attacks"] == 0).all()
    assert_rate(r["A"]["damage_taken"] == 1, 10 / 20 * 10 / 20)  # broken free: T's sword


def test_drawn_overrides_the_scenarios_weapon_drawn():
    undrawn = duel(attacker={"weapon_drawn": False}, quick_draw=False)
    assert (play_from(undrawn, n=500)["A"]["attacks"] == 0).all()  # drawing takes the round
    assert (play_from(undrawn, n=500, drawn=[1, 1])["A"]["attacks"] == 1).all()
    assert (play_from(duel(quick_draw=False), n=500, drawn=[0, 1])["A"]["attacks"] == 0).all()


def arquebus(loaded=None):
    gun = {"name": "arquebus", "damage": 1, "range": 100, "actions": 3, **({"loaded": loaded} if loaded else {})}
    a = fighter("A", weapons=[gun, SWORD], position=[0, 0])
    return scenario([a], [fighter("T", position=[10, 0])], pa={"move": "hold"}, pb={"move": "hold"},
                    battlefield={"width": 20, "height": 3})


@pytest.mark.parametrize("loaded,first_shot", [(2, 1), (1, 1), (0, 2)])
def test_loaded_counts_the_actions_done_per_slot(loaded, first_shot):
    # Slots: A's arquebus, A's sword, T's club. Out of close combat each round is one action
    # and a free one per use: 2 done fire at once, 1 (+ the free one) too, 0 take two rounds.
    for rounds in (1, 2):
        r = play_from(arquebus(), rounds=rounds, n=300, loaded=[loaded, 0, 0])
        assert (r["A"]["attacks"] == (1 if rounds >= first_shot else 0)).all(), rounds
    assert (play_from(arquebus(), rounds=1, n=300)["A"]["attacks"] == 1).all()  # default: ready


def test_spell_uses_left():
    bolt = {"name": "bolt", "damage": 6, "save": "none"}
    d = scenario([fighter("C", spells=[bolt])], [fighter("T")])
    for uses, casts in ((0, 0), (1, 1), (-1, 3)):
        r = play_from(d, rounds=3, n=300, spell_uses=[uses])
        assert (r["T"]["damage_taken"] == 6 * casts).all(), uses
        assert (r["C"]["attacks"] == 3 - casts).all(), uses  # the weapon once the spell is spent


def test_base_state_still_carries_in():
    r = play_from(duel(), rounds=1, n=50, status=[STANDING, DEAD], injuries=[0, 2])
    assert (r["A"]["attacks"] == 0).all() and (r["T"]["final_state"] == DEAD).all()
    assert (r["T"]["injuries"] == 2).all()


@pytest.mark.parametrize("carried,match", [
    ({"held": [0, 1]}, "held_by"),
    ({"held": [0, 3], "held_by": [-1, 0]}, "held"),
    ({"held": [1, 0], "held_by": [0, -1]}, "nobody holds itself"),
    ({"held": [0, 1], "held_by": [-1, 0], "holding": [-1, -1]}, "disagrees"),
    ({"loaded": [3, 0, 0]}, "loaded"),
    ({"wounded": [0, 1]}, "unknown"),
    ({"asleep": [[0, 1, 0]]}, "shape"),
])
def test_a_start_the_rules_cannot_hold_is_refused(carried, match):
    d = arquebus() if "loaded" in carried else duel()
    with pytest.raises(ValueError, match=match):
        play_from(d, n=5, **carried)


def test_a_holder_holds_one_at_a_time():
    d = scenario([fighter("A")], [fighter("T"), fighter("U")])
    with pytest.raises(ValueError, match="one combatant at a time"):
        play_from(d, n=5, held=[0, 1, 1], held_by=[-1, 0, 0])
    with pytest.raises(ValueError, match="lacks"):
        ruleset, setup = setup_of(d)
        ruleset.play(setup, 1, 0, 5, 1, start={"held": np.zeros((5, 3))})
