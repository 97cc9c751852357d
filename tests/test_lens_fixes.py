"""Fixes of issue 13 with a test each that the flag flipped back would fail: a Move that
goes nowhere is free, the defence choice prices the HAMSTRUNG of Dodge's and Parry's
costly branch, and no healing item is used once the enemy is down.

Each plays the kernel with the fix on and off (setup.extra["fixes"], as
benchmarks/agree_lens.py does), so the test shows it tells the two readings apart."""
from __future__ import annotations

import numpy as np
import pytest

from sim.rulesets.lens import play as KP
from sim.rulesets.lens.ktables import FIX_ALL, FIX_HAMSTRUNG, FIX_HOLD, FIX_MOVE, R_DEF_AB0, R_FIXES
from sim.scenario import load_scenario
from tests.test_lens_kernel import BEAST, HERO

BLOCK, DODGE, PARRY = 2, 3, 4


def _setup(data, fixes=FIX_ALL):
    scen = load_scenario(data)
    setup = scen.ruleset.build(scen)
    setup.extra["fixes"] = fixes
    return setup


def _spent(out, who):
    return out.per_combatant["momentum_spent"][:, who]


def test_a_move_that_goes_nowhere_costs_no_momentum():
    """A one-row corridor: the Hero's ally stands between it and the Beast, so its Move
    finds no free square. Fixed, that costs nothing; the old reading charged 1 a round."""
    spear = {**HERO, "name": "Ally", "body": 500, "position": [1, 0],
             "weapons": [{"name": "spear", "size": "medium", "workmanship": "common", "reach": 10}]}
    data = {"name": "corridor", "ruleset": "lens", "rules": {}, "run": {"max_rounds": 3},
            "battlefield": {"width": 3, "height": 1},
            "sides": {"a": {"policy": {"family": "all_out"},
                            "combatants": [{**HERO, "position": [0, 0]}, spear]},
                      "b": {"combatants": [{**BEAST, "body": 500, "position": [2, 0]}]}}}
    fixed = KP.play(_setup(data), 1, 0, 200, 3)
    old = KP.play(_setup(data, FIX_ALL & ~FIX_MOVE), 1, 0, 200, 3)
    assert (_spent(fixed, 0) == 0).all()
    assert (_spent(old, 0) == 3).all()  # one futile Move a round, then the turn ends
    assert (_spent(fixed, 1) == _spent(old, 1)).all()  # the ally's play is the same fight


def _saving(setup, d, mean, mv, tn=5):
    from sim.rulesets.lens.kvalue import defence_saving
    _, K, _ = KP._tables(setup)
    return defence_saving(K, 0, d, K[2][R_DEF_AB0 + d], tn, mean, mv, False, True)


def test_the_defence_choice_prices_the_hamstrung_of_dodge_and_parry():
    """Block, Dodge and Parry rolled with the same dice: their rows differ only in that the
    costly branch of a Sacrifice (negate the blow) leaves Dodge and Parry HAMSTRUNG, a
    Momentum lost next round. So each is worth exactly ps * (Momentum's worth) less."""
    trained = {k: {"training": "journeyman"} for k in ("weapon_use", "maneuvering", "shield_use")}
    hero = {**HERO, "armor_rating": 0, "shield": "common", "abilities": trained}
    data = {"name": "t", "ruleset": "lens", "rules": {}, "run": {"max_rounds": 5},
            "sides": {"a": {"combatants": [hero]}, "b": {"combatants": [BEAST]}}}
    setup = _setup(data)
    kt, K, _ = KP._tables(setup)
    pb, ps, pg, pt = kt.prob[0, int(K[2][R_DEF_AB0 + DODGE]), 5]
    mean, mv = 6.0, 2.0
    block = _saving(setup, BLOCK, mean, mv)
    # Botch: a condition (1 Momentum); Sacrifice: the costly branch negates; then the Momentum paid.
    assert block == pytest.approx(-pb * mv + (ps + pg + pt) * mean - mv)
    for d in (DODGE, PARRY):
        assert _saving(setup, d, mean, mv) == pytest.approx(block - ps * mv)
    assert K[2][R_FIXES] & FIX_HAMSTRUNG
    unpriced = _setup(data, FIX_ALL & ~FIX_HAMSTRUNG)
    assert _saving(unpriced, DODGE, mean, mv) == pytest.approx(_saving(unpriced, BLOCK, mean, mv))


def _drinks_after_the_kill(setup, n=60):
    hits = 0
    start = {"body_left": np.array([[-1, 4, -1]])}
    for k in range(n):
        _, lines = KP.trace(setup, 3, k, 5, start=start)
        down = False
        for line in lines:
            down = down or ("Beast takes" in line and "->" in line)
            hits += down and "Hurt uses" in line
    return hits


def test_no_healing_item_once_the_enemy_is_down():
    """The Killer acts first in each beat; when its blow drops the Beast, the hurt ally
    behind it keeps its draught (fixed) instead of drinking it after the fight is won."""
    killer = {**HERO, "name": "Killer", "weapons": [{"name": "maul", "damage": "3d6"}]}
    hurt = {**HERO, "name": "Hurt", "items": [{"name": "draught", "size": "small", "heal": "2d4", "uses": 1}]}
    data = {"name": "t", "ruleset": "lens", "rules": {}, "run": {"max_rounds": 5},
            "sides": {"a": {"policy": {"family": "all_out", "heal_below": 0.9}, "combatants": [killer, hurt]},
                      "b": {"combatants": [{**BEAST, "body": 6, "armor_rating": 0}]}}}
    assert _drinks_after_the_kill(_setup(data)) == 0
    assert _drinks_after_the_kill(_setup(data, FIX_ALL & ~FIX_HOLD)) > 0
