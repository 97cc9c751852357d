"""The kernel's shortcuts play the same rules: a core scenario's lean round (G_CORE) and
the skipped situations (G_CALLED .. G_ADJ) give skirmish for skirmish what the general
round gives with nothing skipped."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import sim
from sim.rulesets.gods_and_monsters import play as gm_play
from sim.rulesets.gods_and_monsters.tables import G_ADJ, G_CALLED, G_CORE

SCENARIOS = "scenarios/gods_and_monsters/"


def _general(setup):
    flags = setup.flags.copy()
    flags[G_CALLED:G_ADJ + 1] = 1
    flags[G_CORE] = 0
    return dataclasses.replace(setup, flags=flags)


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.rounds, b.rounds)
    for k, v in a.per_combatant.items():
        np.testing.assert_array_equal(v, b.per_combatant[k], err_msg=k)


@pytest.mark.parametrize("name,core", [("yeti", True), ("ogre_vs_two_warriors", True), ("goblin_ambush", False),
                                       ("knockout_raid", False), ("archers_vs_ogre", False)])
def test_shortcuts_play_what_the_general_round_plays(name, core):
    scen = sim.load_scenario(f"{SCENARIOS}{name}.yaml")
    setup = scen.ruleset.build(scen)
    assert bool(setup.flags[G_CORE]) == core
    fast = gm_play.play(setup, 7, 1000, 3000, 100)
    slow = gm_play.play(_general(setup), 7, 1000, 3000, 100)
    _same(fast, slow)
    assert 0 < (fast.winner >= 0).mean()  # real fights were played
