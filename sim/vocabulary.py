"""One policy vocabulary: what means the same thing in every ruleset has one name.

A ruleset's `observations` and `actions` use these names with these meanings wherever
it has the idea; words of its own (Momentum, verve, grapple track, ...) are documented
extensions. Old names a ruleset used before stay readable as aliases
(`observation_aliases`, `action_aliases` on the ruleset object), so old scenario files
play as they did. `tests/test_vocabulary.py` holds every ruleset to this table.
"""
from __future__ import annotations

SHARED_OBSERVATIONS = {
    "round": "the round number, from 1",
    "health": "health left as a share of what it started with (0..1): verve + survival in Gods & Monsters, "
              "Body in The Lens, hit points in Lifeforce",
    "allies_standing": "combatants of its side able to fight, itself included",
    "enemies_standing": "enemies able to fight",
    "distance": "distance to the nearest enemy able to fight, in the ruleset's unit (feet or metres)",
}

SHARED_ACTIONS = {
    "attack": "fight: attack this round (phase, beat) as the family would",
    "hold": "do nothing this round (phase, beat)",
    "flee": "leave the fight now: counts as fled, out of the fight for good",
}

# The same target modes everywhere (sim.policy.TARGET_MODES, sim/targeting.py).
