"""Lifeforce: a shield never used for a Shield Block, a stunt never bought (sim/inert.py),
read from the outcome columns `shield_blocks`, `stunt_points` (points a combatant's
attacks earned in the skirmish) and `stunt_<name>` (how often it bought that stunt).
"""
from __future__ import annotations

from sim.inert import blocks, item, peak, total
from sim.rulesets.lifeforce import tables as T


def _shield_reason(c) -> str:
    p = c.policy.params
    readies = p.get("ready") == "block" and p.get("family") == "guardian"
    if "shield_block" not in c.stats["reactions"] and not readies:
        return "its reactions leave out shield_block and its policy never readies a block"
    if p.get("use_reaction") in ("none", "attack_of_opportunity") and not readies:
        return f"its policy keeps its Reaction for {p['use_reaction'].replace('_', ' ')}".replace("for none",
                                                                                                 "nothing")
    return (f"no blow it faced found its Reaction or a readied block free (policy {p.get('family')}, "
            f"use_reaction {p.get('use_reaction')})")


def _shield(scenario, table, label, idx, c) -> list[dict]:
    if not c.stats["shield"] or total(scenario, table, "shield_blocks", idx):
        return []
    return [item(label, f"shield ({c.stats['shield']}) never used for a Block", _shield_reason(c))]


def _costs(c, spell_costs: str) -> list[int]:
    """Per stunt, the cheapest price on any of its weapons' stunt tables; -1 where none has it."""
    tables = {w["stunts"] for w in c.stats["weapons"]} or {"weapon"}
    rows = [T.stunt_costs(t, spell_costs) for t in sorted(tables)]
    out = []
    for k in range(len(T.STUNT_NAMES)):
        offered = [int(r[k]) for r in rows if r[k] >= 0]
        out.append(min(offered) if offered else -1)
    return out


def _cannot_help(scenario, c, name: str) -> str | None:
    """Why a stunt could do nothing for this combatant here, where the scenario says so."""
    if name == "rapid_reload" and not any(w["loading"] for w in c.stats["weapons"]):
        return "Rapid Reload only speeds a Loading weapon, and it carries none"
    enemies = sum(1 for e in scenario.combatants if e.side != c.side)
    if name == "dual_strike" and enemies < 2:
        return "Dual Strike needs a second enemy beside the target, and it faces one"
    return None


def _buying_list(c, costs) -> tuple[tuple[str, ...], str]:
    """The stunts its policy would buy, and how the policy names that list."""
    p = c.policy.params
    if p.get("stunt_order"):
        return tuple(p["stunt_order"]), "its stunt_order"
    order = T.STUNT_PRIORITIES.get(p.get("stunts"))
    if order is not None:
        return order, f"its stunt order ({p['stunts']})"
    return tuple(n for n, cost in zip(T.STUNT_NAMES, costs) if cost >= 0), "its policy"


def _stunts(scenario, table, label, idx, c) -> list[dict]:
    if not all(f"stunt_{n}" in table.columns for n in T.STUNT_NAMES):
        return []
    costs = _costs(c, scenario.rules["spell_stunt_costs"])
    wanted, whose = _buying_list(c, costs)
    most = peak(scenario, table, "stunt_points", idx)
    by_reason: dict[str, list[str]] = {}
    for name in wanted:
        cost = int(costs[T.STUNT[name]])
        if cost < 0 or total(scenario, table, f"stunt_{name}", idx):
            continue
        why = _cannot_help(scenario, c, name)
        if why is None and most < cost:
            why = (f"no skirmish gave it stunt points above {most}" if most else "it never earned a stunt point")
            name = f"{name} (costs {cost})"
        elif why is None:
            why = f"{whose} spent the points its attacks earned (at most {most} in a skirmish) on other stunts"
        by_reason.setdefault(why, []).append(name)
    return [item(label, f"stunt{'s' if len(ns) > 1 else ''} never bought: {', '.join(ns)}", why)
            for why, ns in by_reason.items()]


def inert(scenario, table) -> list[dict]:
    out = []
    for label, idx, c in blocks(scenario):
        out += _shield(scenario, table, label, idx, c) + _stunts(scenario, table, label, idx, c)
    return out
