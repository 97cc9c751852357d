"""Speed work must not change a fight: the outcome tables of every shipped G&M scenario
for a fixed seed, pinned as fingerprints. A deliberate rule change that moves a fight
updates them (print `_fingerprint` for each scenario) and says why in its commit."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import sim
from sim.rulesets.gods_and_monsters import play as gm_play

SCENARIOS = Path("scenarios/gods_and_monsters")
PINNED = {  # seed 11, skirmishes 500-1999, at most 100 rounds
    "ambush_on_sleepers": "5375d55baa51fc90", "archer_skirmish": "835667a9c0401be8",
    "archers_vs_ogre": "7f05496fcec25abf", "arquebus_volley": "deec4a6e0ff3ad91",
    "goblin_ambush": "4bfab965efd57cb4", "grappling_brute": "35e6a9782f4ef4db",
    "knockout_raid": "797c1d68ecd8dc75", "ogre_vs_two_warriors": "b2efe909e40652b8",
    "spellcaster_duel": "33aabb827dbebb92", "yeti": "e2aaedc2afa17b65",
}


def _fingerprint(name: str) -> str:
    scen = sim.load_scenario(str(SCENARIOS / f"{name}.yaml"))
    out = gm_play.play(scen.ruleset.build(scen), 11, 500, 1500, 100)
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(out.winner).tobytes())
    h.update(np.ascontiguousarray(out.rounds).tobytes())
    for k in sorted(out.per_combatant):
        h.update(k.encode())
        h.update(np.ascontiguousarray(out.per_combatant[k]).tobytes())
    return h.hexdigest()[:16]


def test_every_shipped_scenario_is_pinned():
    assert set(PINNED) == {p.stem for p in SCENARIOS.glob("*.yaml")}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_fights_are_the_pinned_ones(name):
    assert _fingerprint(name) == PINNED[name]
