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


def _variant(name: str, rules: dict, party_target: str | None = None):
    import yaml
    with open(f"{SCENARIOS}{name}.yaml") as f:
        raw = yaml.safe_load(f)
    raw["rules"] = {**(raw.get("rules") or {}), **rules}
    if party_target:
        side = next(iter(raw["sides"].values()))
        side.setdefault("policy", {})["target"] = party_target
    scen = sim.load_scenario(raw)
    return scen.ruleset.build(scen)


@pytest.mark.parametrize("name,rules,target", [
    ("yeti", {"death_rule": "guide_roll", "surprised_first_round": "attack_at_penalty"}, "weakest"),
    ("yeti", {"injury_penalty": "health_rolls", "surprised_are_unaware": False, "cover_vs_melee": True}, "focus"),
    ("yeti", {"death_rule": "guide_roll", "health_check": "end_of_round"}, "strongest"),
    ("yeti", {"surprised_first_round": "attack_at_penalty", "sleep_wakes_on_damage": False}, "nearest"),
])
def test_fused_core_chunk_plays_what_the_general_round_plays(name, rules, target):
    # The fused core chunk (fused.py) under other rule options and every targeting mode.
    setup = _variant(name, rules, target)
    assert setup.flags[G_CORE]
    fast = gm_play.play(setup, 11, 500, 3000, 100)
    _same(fast, gm_play.play(_general(setup), 11, 500, 3000, 100))
    assert (fast.winner >= 0).mean() > 0


def test_fused_core_chunk_watches_for_stalls_as_the_general_loop_does():
    # Past STALL_ROUNDS rounds the stall check reads the side focus too: same rounds played.
    setup = _variant("yeti", {}, "focus")
    fast = gm_play.play(setup, 3, 0, 2000, 2000)
    _same(fast, gm_play.play(_general(setup), 3, 0, 2000, 2000))


def test_a_traced_core_skirmish_is_the_one_the_fused_chunk_plays():
    # A trace goes through the lean round (core.py), a plain chunk through fused.py.
    scen = sim.load_scenario(f"{SCENARIOS}yeti.yaml")
    setup = scen.ruleset.build(scen)
    chunk = gm_play.play(setup, 5, 40, 30, 100)
    for i in (0, 7, 29):
        one, lines = gm_play.trace(setup, 5, 40 + i, 100)
        assert lines and one.winner[0] == chunk.winner[i] and one.rounds[0] == chunk.rounds[i]
        for k, v in chunk.per_combatant.items():
            np.testing.assert_array_equal(v[i], one.per_combatant[k][0], err_msg=k)


def _carried_start(setup, n: int, seed: int) -> dict:
    """A day's next fight: random wounds, spent verve, some already down, surprise given
    for some and rolled (-1) for the rest."""
    rng = np.random.default_rng(seed)
    start = {k: v for k, v in gm_play.initial_state(setup, n).items() if k in gm_play.START_KEYS}
    C = setup.ct.shape[1]
    start["verve"] = rng.integers(0, start["verve"] + 1)
    start["survival"] = rng.integers(0, start["survival"] + 1)
    start["injuries"] = rng.integers(0, 4, (n, C))
    start["status"] = np.where(rng.random((n, C)) < 0.15, rng.choice([1, 2], (n, C)), 0)
    start["surprised"] = rng.choice([-1, -1, 0, 1], (n, C))
    return start


@pytest.mark.parametrize("name", ["yeti", "ogre_vs_two_warriors"])
def test_the_fused_chunk_plays_a_carried_start_as_the_general_round_does(name):
    scen = sim.load_scenario(f"{SCENARIOS}{name}.yaml")
    setup = scen.ruleset.build(scen)
    assert setup.flags[G_CORE]
    start = _carried_start(setup, 3000, 5)
    fast = gm_play.play(setup, 7, 1000, 3000, 100, start=start)
    # With a condition key (here the fresh drawn weapons) only the general round plays it.
    general = {**start, "drawn": gm_play.initial_state(setup, 3000)["drawn"]}
    _same(fast, gm_play.play(setup, 7, 1000, 3000, 100, start=general))
    _same(fast, gm_play.play(_general(setup), 7, 1000, 3000, 100, start=general))
    assert (fast.winner >= 0).mean() > 0.5 and (fast.rounds == 1).mean() < 0.9
