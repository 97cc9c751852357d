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

# What each ruleset measures a shared observation in: the idea is shared, the unit is the
# ruleset's. A ruleset's description of the name must say so (tests/test_vocabulary.py).
MEASURES = {
    "gods_and_monsters": {"health": "verve + survival", "distance": "feet"},
    "lens": {"health": "Body", "distance": "feet"},
    "lifeforce": {"health": "hit points", "distance": "metres"},
}

# Names that are NOT shared because they mean different things in different rulesets; a
# ruleset using one must be listed here with its meaning.
DIFFERING = {
    "withdraw": {
        "gods_and_monsters": "stop fighting this round and leave the fight at its end (open to that round's "
                             "attacks); final state fled",
        "lifeforce": "old alias of `step_back`: step away from the nearest enemy, staying in the fight "
                     "(Lifeforce files should say `step_back`; `flee` leaves the fight)",
    },
}


def markdown(rulesets) -> str:
    """The shared names, each ruleset's old names and the differing ones, for docs/scenarios.md."""
    out = ["The targeting modes are implemented once (sim/policy.py) and behave alike in every ruleset; a "
           "ruleset that does not play a mode refuses it when the file loads.", "",
           "Shared names: every ruleset that has the idea uses the name with this meaning "
           "(`sim/vocabulary.py`).", "", "| name | kind | meaning |", "|---|---|---|"]
    out += [f"| `{k}` | observation | {v} |" for k, v in SHARED_OBSERVATIONS.items()]
    out += [f"| `{k}` | action | {v} |" for k, v in SHARED_ACTIONS.items()]
    out += ["", "Old names, still read as the name they became:", "", "| ruleset | old name | reads |", "|---|---|---|"]
    for rs in rulesets:
        for kind in ("observation_aliases", "action_aliases"):
            out += [f"| {rs.name} | `{old}` | `{new}` |" for old, new in (getattr(rs, kind, None) or {}).items()]
    out += ["", "Words whose meaning differs between rulesets (not shared):", ""]
    for word, meanings in DIFFERING.items():
        out += [f"- `{word}`: " + "; ".join(f"{rs}: {m}" for rs, m in meanings.items())]
    return "\n".join(out) + "\n"
