"""Lifeforce pure rule functions against exact values."""
import numpy as np
import pytest

from sim.rulesets.lifeforce import grapple as G
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.attacks import (buy_stunts, final_damage, hit_probability, strength_damage,
                                            stunt_point_distribution, stunt_points)
from sim.rulesets.lifeforce.turn_order import turn_order


@pytest.mark.parametrize("offence, defence, expected", [
    (20, 70, 0.50),   # equal skills hit half the time (docs/rules/lifeforce.md, Gaps and contradictions, 'Attack roll')
    (30, 65, 0.65),
    (0, 50, 0.50),
    (0, 99, 0.01),    # only a 100 beats 99
    (0, 100, 0.00),   # a tie goes to the defender
    (60, 50, 1.00),
    (40, 50, 0.90),   # charge: +10 Offence on 30
])
def test_hit_chance_is_exact(offence, defence, expected):
    assert hit_probability(offence, defence) == pytest.approx(expected)


def test_stunt_points_count_from_the_defence():
    assert stunt_points(84, 70).tolist() == 0       # 14 over: no point
    assert stunt_points(85, 70).tolist() == 1       # 15 over: one
    assert stunt_points(130, 70).tolist() == 4
    assert stunt_points(70, 70).tolist() == 0       # a tie misses


def test_stunt_point_distribution_is_exact():
    # d100 + 20 against 70: misses 50, margins 1..50 -> 14 zeros, 15 ones, 15 twos, 6 threes.
    dist = stunt_point_distribution(20, 70)
    assert dist == pytest.approx({0: 0.64, 1: 0.15, 2: 0.15, 3: 0.06})
    assert sum(dist.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("movement, split", [
    (12, [3, 3, 3, 3]), (13, [3, 3, 3, 4]), (14, [3, 3, 4, 4]), (15, [3, 4, 4, 4]), (3, [0, 1, 1, 1]),
    (24, [6, 6, 6, 6]),
])
def test_movement_split_adds_leftovers_from_the_last_phase(movement, split):
    assert [int(T.movement_split(movement, p)) for p in range(4)] == split
    assert sum(split) == movement


def _order(reaction, hastened, slowed, rolls=None):
    c = len(reaction)
    ro = np.zeros((1, c, 4)) if rolls is None else np.asarray(rolls, dtype=float)[None]
    return turn_order(np.array(reaction), np.array([hastened]), np.array([slowed]), ro)[0].tolist()


def test_turn_order_by_reaction_highest_first():
    assert _order([10, 30, 20], [0, 0, 0], [0, 0, 0]) == [1, 2, 0]


def test_hastened_first_and_slowed_last_regardless_of_reaction():
    assert _order([10, 30, 20, 40], [1, 0, 0, 0], [0, 0, 0, 1]) == [0, 1, 2, 3]


def test_hastened_and_slowed_cancel_and_sources_stack():
    # 0: both (neither), 1: slowed twice, 2: slowed once, 3: plain; all Reaction 50 but 3 lower.
    assert _order([50, 50, 50, 10], [1, 0, 0, 0], [1, 2, 1, 0]) == [0, 3, 2, 1]
    # Two sources of Hastened act before one source.
    assert _order([10, 20, 30], [2, 1, 0], [0, 0, 0]) == [0, 1, 2]


def test_ties_are_rolled_off_with_d10_until_one_is_higher():
    rolls = [[4, 9, 0, 0], [4, 2, 0, 0], [7, 1, 0, 0]]  # 2 wins outright; 0 beats 1 on the re-roll
    assert _order([20, 20, 20], [0, 0, 0], [0, 0, 0], rolls) == [2, 0, 1]


def test_grapple_track_transitions():
    lvl = np.array([T.GRAPPLING, T.HELD, T.PINNED, T.HELD, T.PINNED, T.GRAPPLING])
    a_dom = np.ones(6, dtype=bool)
    a_wins = np.array([True, True, True, False, False, False])
    b_wins = np.array([False, False, False, True, True, False])
    new, dom = G.transition(lvl, a_dom, a_wins, b_wins)
    # Dominant wins progress (Pinned stays Pinned); the other's wins swap dominance only.
    assert new.tolist() == [T.HELD, T.PINNED, T.PINNED, T.HELD, T.PINNED, T.GRAPPLING]
    assert dom.tolist() == [True, True, True, False, False, True]


def test_grapple_full_track_with_forced_dice():
    level, a_dom = np.array([T.GRAPPLING]), np.array([True])
    seen = []
    # a wins, a wins, b wins (swap at Pinned), b wins (b progresses: stays Pinned), a wins (swap back).
    for a_roll, b_roll in [(90, 10), (80, 20), (10, 95), (5, 60), (70, 30)]:
        a_w, b_w = G.contest(np.array([a_roll]), np.array([b_roll]))
        level, a_dom = G.transition(level, a_dom, a_w, b_w)
        seen.append((T.TRACK[level[0]], bool(a_dom[0])))
    assert seen == [("held", True), ("pinned", True), ("pinned", False), ("pinned", False), ("pinned", True)]


def test_engaging_needs_to_beat_the_defender():
    won, level = G.engage(np.array([60, 50, 40]), np.array([50, 50, 50]))
    assert won.tolist() == [True, False, False]
    assert level.tolist() == [T.GRAPPLING, 0, 0]


def test_advantage_keeps_better_and_cancels():
    rolls = np.array([[20, 80], [20, 80], [20, 80]])
    assert G.keep_roll(rolls, np.array([1, -1, 0])).tolist() == [80, 20, 20]
    assert G.net_advantage(np.array([True, True, False]), np.array([True, False, True])).tolist() == [0, 1, -1]


def _prio(*names):
    return np.array([[T.STUNT[n] for n in names]])


def test_greedy_stunt_buying():
    costs = T.stunt_costs("weapon", "literal")
    greedy = _prio(*T.STUNT_PRIORITIES["greedy"])
    ok = np.ones((1, len(T.STUNTS)), dtype=bool)
    ok[0, T.STUNT["dual_strike"]] = False
    ok[0, T.STUNT["rapid_reload"]] = False
    bought = lambda pts: {T.STUNT_NAMES[s]: int(k) for s, k in enumerate(buy_stunts([pts], greedy, costs, ok)[0]) if k}
    assert bought(0) == {}
    assert bought(1) == {"minor_critical": 1}
    assert bought(2) == {"minor_critical": 1, "defensive_stance": 1}
    assert bought(4) == {"major_critical": 1}            # Major and Minor do not stack
    assert bought(5) == {"major_critical": 1, "defensive_stance": 1}


def test_skirmish_is_bought_repeatedly_and_tables_differ():
    costs = T.stunt_costs("weapon", "literal")
    ok = np.ones((1, len(T.STUNTS)), dtype=bool)
    out = buy_stunts([3], _prio("skirmish"), costs, ok)
    assert out[0, T.STUNT["skirmish"]] == 3
    spell = T.stunt_costs("spell", "literal")
    assert spell[T.STUNT["minor_critical"]] == 2 and spell[T.STUNT["knock_prone"]] == -1
    assert T.stunt_costs("spell", "weapon")[T.STUNT["minor_critical"]] == 1


def test_damage_armor_penetration_criticals_and_shield():
    # 10 rolled, Armor 4 less AP 1 = 3 -> 7; Minor Critical before Armor: 15 - 3 = 12; after: 7 * 1.5 = 10.
    assert final_damage(10, 3, 1.0, 0, "before_armor") == 7
    assert final_damage(10, 3, 1.5, 0, "before_armor") == 12
    assert final_damage(10, 3, 1.5, 0, "after_armor") == 10
    assert final_damage(10, 3, 2.0, 5, "before_armor") == 12
    assert final_damage(3, 5, 1.0, 0, "before_armor") == 0  # never negative
    assert strength_damage(np.array([5, 5, 3]), np.array([True, False, True]), 1.5).tolist() == [7, 5, 4]
    assert int(T.strength_benefit(47, 10)) == 4


def test_damage_faces_from_uniforms_cover_each_face_equally():
    from sim.dice import DiceTable, parse_dice
    from sim.rulesets.lifeforce.engine import _faces
    table = DiceTable([parse_dice("2d6+1"), parse_dice("d4"), parse_dice(3)])
    # Uniforms at the centre of each face's interval give every face exactly once.
    grid = (np.arange(6) + 0.5) / 6
    u = np.array(np.meshgrid(grid, grid)).reshape(2, -1).T
    totals = _faces(table, np.zeros(36, dtype=int), u)
    assert sorted(totals.tolist()) == sorted(a + b + 3 for a in range(6) for b in range(6))
    u4 = np.stack([(np.arange(4) + 0.5) / 4, np.full(4, 0.99)], axis=1)
    assert _faces(table, np.ones(4, dtype=int), u4).tolist() == [1, 2, 3, 4]
    assert _faces(table, np.full(2, 2), np.zeros((2, 2))).tolist() == [3, 3]


def test_a_shield_with_a_negative_roll_blocks_nothing_and_adds_nothing():
    """Shield rolls below 0 are floored like weapon dice: a shield of -1 and one of -2 both
    block nothing, so the same seed plays the same fights (unfloored, the more negative
    shield added more damage)."""
    import pandas as pd

    import sim
    path = "scenarios/lifeforce/duel.yaml"
    runs = [sim.run(path, n=3000, seed=7, overrides={"sides.blue.combatants[0].shield": s}) for s in (-1, -2)]
    assert runs[0].combatants["damage_dealt"].sum() > 0
    pd.testing.assert_frame_equal(runs[0].combatants, runs[1].combatants)
    pd.testing.assert_frame_equal(runs[0].skirmishes, runs[1].skirmishes)
