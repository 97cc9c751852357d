"""Weapons by name: a ruleset's weapon table plus the scenario's own `armory:`.

A combatant may list a weapon as a bare name (`weapons: [long sword]`) or as a name
with some fields changed (`{name: long sword, attack: 1}`); the table row fills in the
rest. So a new weapon is a table row, written once and used by everyone.
"""
from __future__ import annotations

from sim.errors import ScenarioError, closest


def weapon_table(ruleset, armory, path: str = "armory") -> dict[str, dict]:
    table = {k.lower(): {"name": k, **v} for k, v in getattr(ruleset, "weapon_table", {}).items()}
    if armory is None:
        return table
    if not isinstance(armory, dict):
        raise ScenarioError("expected a mapping of weapon name to its fields, e.g. "
                            "{long bow: {damage: d6, range: 150}}.", path=path)
    for name, fields in armory.items():
        if not isinstance(fields, dict):
            raise ScenarioError("expected the weapon's fields as a mapping, e.g. {damage: d6}.",
                                path=f"{path}.{name}")
        table[str(name).lower()] = {"name": str(name), **fields}
    return table


def expand(raw: dict, lists: tuple[str, ...], table: dict[str, dict], path: str) -> dict:
    """A copy of a combatant's raw fields with weapon names replaced by table rows."""
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    for key in lists:
        entries = raw.get(key)
        if not isinstance(entries, list):
            continue
        expanded = []
        for i, entry in enumerate(entries):
            where = f"{path}.{key}[{i}]"
            if isinstance(entry, str):
                row = table.get(entry.lower())
                if row is None:
                    known = sorted(r["name"] for r in table.values())
                    listing = f" Known: {', '.join(known)}." if known else ""
                    raise ScenarioError(
                        f"unknown weapon '{entry}'.{closest(entry, [r['name'] for r in table.values()])}{listing} "
                        "Define it under `armory:` at the top of the file, or write its fields here, "
                        "e.g. {name: " + entry + ", damage: d6}.", path=where)
                expanded.append(dict(row))
            elif isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"].lower() in table:
                expanded.append({**table[entry["name"].lower()], **entry})
            else:
                expanded.append(entry)
        out[key] = expanded
    return out
