"""The default stunt buyer (`stunts: expected`): the affordable combination worth the most."""
import numpy as np
import pytest

import sim
from sim.rulesets.lifeforce import kstunts
from sim.rulesets.lifeforce import layout as L
from sim.scenario import load_scenario
from tests.test_lifeforce_engine import duel, fighter

STUNT_CHOICES = "scenarios/lifeforce/stunt_choices.yaml"


def _total(r, name, column):
    return int(r.combatants.loc[r.combatants["combatant"] == name, column].sum())


def _strong(**kw):
    # Offence far above the target's Defence: most hits earn 3-6 points.
    return fighter("A", hp=400, weapons=[{"name": "axe", "skill": 80, "damage": "d10", "damage_type": "slashing"}],
                   **kw)


def test_expected_is_the_default_and_fixed_orders_stay_choices():
    scen = load_scenario(duel(fighter("A"), fighter("B"), pa={"family": "steady"}))
    assert scen.combatants[0].policy.params["stunts"] == "expected"
    for order in ("greedy", "control", "defensive", "none"):
        load_scenario(duel(pa={"family": "steady", "stunts": order}))


def test_disarm_is_never_bought_against_an_unarmed_beast_and_a_critical_is():
    beast = fighter("B", hp=400, weapons=[], dodge=0)
    r = sim.run(duel(_strong(), beast, pa={"family": "steady"}), n=200, seed=4, max_rounds=6)
    assert _total(r, "A", "stunt_disarm") == 0
    assert _total(r, "A", "stunt_major_critical") > 0 and _total(r, "A", "stunt_minor_critical") > 0


def test_knock_prone_is_not_bought_when_it_cannot_work_but_control_buys_it():
    # Reflex 200: no attack total beats Reflex Defence 250, so Knock Prone always fails.
    rock = fighter("B", hp=400, dodge=0, reflex=200)
    ev = sim.run(duel(_strong(), rock, pa={"family": "steady"}), n=200, seed=5, max_rounds=6)
    assert _total(ev, "A", "stunt_knock_prone") == 0
    fixed = sim.run(duel(_strong(), rock, pa={"family": "steady", "stunts": "control"}), n=200, seed=5, max_rounds=6)
    assert _total(fixed, "A", "stunt_knock_prone") > 0
    # Where it works (Reflex 0, the target fights back), the buyer takes it too.
    soft = fighter("B", hp=400, dodge=0, reflex=0)
    r = sim.run(duel(_strong(), soft, pa={"family": "steady"}, pb={"family": "steady", "stunts": "none"}), n=200,
                seed=5, max_rounds=6)
    assert _total(r, "A", "stunt_knock_prone") > 0


def test_expected_damage_table_is_exact():
    # d6, no Strength Benefit, against Armor 2: E[max(x - 2, 0)] = (0+0+1+2+3+4)/6; a Major
    # Critical after armour doubles that; a Minor Critical truncates 1.5 x toward zero.
    K = np.zeros((2, L.NK), dtype=np.int64)
    K[:, L.K_ARMOR] = 2
    W = np.zeros((1, L.NW), dtype=np.int64)
    W[0, L.W_D_COUNT], W[0, L.W_D_SIDES], W[0, L.W_ARMOURED] = 1, 6, 1
    ev = kstunts.expected_damage(K, W, np.zeros((2, 1), dtype=np.int64), crit_before=False)
    assert ev[0, 3] == pytest.approx(10 / 6)
    assert ev[0, 5] == pytest.approx(20 / 6)
    assert ev[0, 4] == pytest.approx((0 + 0 + 1 + 3 + 4 + 6) / 6)


def _win(order_a, order_b, n=20000):
    over = {"sides.greedy.policy.stunts": order_a, "sides.control.policy.stunts": order_b}
    r = sim.run(load_scenario(STUNT_CHOICES, over), n=n, seed=11)
    return float((r.skirmishes["winner"] == "greedy").mean()), n


@pytest.mark.parametrize("opponent", ["greedy", "control"])
def test_the_buyer_wins_no_less_than_the_best_fixed_order(opponent):
    n = 20000
    ev, _ = _win("expected", opponent, n)
    best = max(_win(order, opponent, n)[0] for order in ("greedy", "control", "defensive"))
    se = np.sqrt(2 * 0.25 / n)
    assert ev >= best - 4 * se, (ev, best)
