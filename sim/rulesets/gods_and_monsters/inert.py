"""Gods & Monsters: stat-block fields the rules as configured never read (sim/inert.py).

Which fields are read under which options (docs/rules/gods_and_monsters.md): `level`
only by a warrior who leads ("grant the warrior cover bonus to up to level
companions"), so by nobody else; `verve` only absorbs fighting damage for the
archetypes of the rule option `verve_archetypes`. A field still at its default is not
named: the designer did not write it.
"""
from __future__ import annotations

from sim.inert import blocks, item, plural


def _lower(names) -> set[str]:
    return {str(a).lower() for a in names}


def _archetypal(stats: dict, archetypes: set[str]) -> bool:
    return any(str(a).lower() in archetypes for a in stats["archetypes"])


def _leads(combatant) -> bool:
    spec = combatant.policy_spec
    return bool(combatant.policy.params.get("lead")) or any(r.get("do") == "lead" for r in spec.get("rules") or [])


def _level(label, c, warriors: set[str]) -> list[dict]:
    level = c.stats["level"]
    if level == 1:  # the schema's default
        return []
    words = ", ".join(sorted(warriors)) or "nobody"
    if not _archetypal(c.stats, warriors):
        return [item(label, f"level {level} is never read",
                     f"only a warrior who leads reads level, and rule option warrior_archetypes ({words}) "
                     "does not count it a warrior")]
    if not _leads(c):
        return [item(label, f"level {level} is never read",
                     "only a warrior who leads reads level, and its policy has lead: false")]
    return []


def _verve(label, c, verve_users: set[str]) -> list[dict]:
    verve = c.stats["verve"]
    if verve <= 0 or _archetypal(c.stats, verve_users):
        return []
    words = " and ".join(plural(a) for a in sorted(verve_users)) or "no archetype"
    return [item(label, f"verve {verve} never absorbs damage",
                 f"rule option verve_archetypes gives verve to {words} only; it still counts in its "
                 "health share")]


def inert(scenario, table) -> list[dict]:
    warriors = _lower(scenario.rules["warrior_archetypes"])
    verve_users = _lower(scenario.rules["verve_archetypes"])
    out = []
    for label, _, c in blocks(scenario):
        out += _level(label, c, warriors) + _verve(label, c, verve_users)
    return out
