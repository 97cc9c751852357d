"""Attack rolls, stunt points, stunts, damage: pure functions, then the batch resolver.

An attack is d<attack_die> + Offence against a Defence (50 + skill); it hits when the
total exceeds the Defence ("Ties go to the defender"), and every full `stunt_step`
by which it exceeds it is one stunt point.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce import tables as T


def hit_probability(offence: int, defence: int, die: int = 100) -> float:
    """Exact P(d<die> + offence > defence), by counting faces."""
    faces = np.arange(1, die + 1)
    return float(np.mean(faces + offence > defence))


def stunt_points(total, defence, step: int = 15):
    """Stunt points of an attack total: floor((total - Defence) / step) when it hits, else 0."""
    total, defence = np.asarray(total), np.asarray(defence)
    return np.where(total > defence, (total - defence) // step, 0)


def stunt_point_distribution(offence: int, defence: int, die: int = 100, step: int = 15) -> dict[int, float]:
    """Exact distribution of stunt points (0 includes misses), by counting faces."""
    pts = stunt_points(np.arange(1, die + 1) + offence, defence, step)
    values, counts = np.unique(pts, return_counts=True)
    return {int(v): c / die for v, c in zip(values, counts)}


def strength_damage(sb, two_handed, multiplier: float):
    """Strength Benefit added to a melee hit: x multiplier, truncated, when two-handed."""
    sb = np.asarray(sb)
    return np.where(two_handed, np.trunc(sb * multiplier).astype(sb.dtype), sb)


def armor_after_penetration(armor, penetration, armoured):
    """Armor that still applies: only against bludgeoning, piercing, slashing, less penetration."""
    return np.where(armoured, np.maximum(np.asarray(armor) - penetration, 0), 0)


def final_damage(rolled, armor_left, multiplier, shield, critical_applies: str):
    """Damage taken from a hit: the critical multiplier before or after Armor, then the
    Shield Block roll off "any incoming damage from the initial strike"."""
    dmg = np.asarray(rolled, dtype=np.float64)
    if critical_applies == "before_armor":
        dmg = np.trunc(dmg * multiplier)
    dmg = np.maximum(dmg - armor_left, 0)
    if critical_applies == "after_armor":
        dmg = np.trunc(dmg * multiplier)
    return np.maximum(dmg - shield, 0).astype(np.int32)


def buy_stunts(points, priority, costs, applicable):
    """Spend stunt points in priority order, vectorised.

    points (m,); priority (m, P) stunt ids in buying order, -1 padding; costs (S,) or
    (m, S) with -1 where the table lacks a stunt; applicable (m, S). Each stunt is bought at most
    once, except repeatable ones (Skirmish), which take every point they can. Minor and
    Major Critical exclude each other. Returns (m, S) how many of each were bought.
    """
    m, S = applicable.shape
    # (row, stunt) as one flat index: gathers from 1-D views instead of two-array indexing.
    costs = np.ascontiguousarray(np.broadcast_to(costs, (m, S))).reshape(-1)
    app = np.ascontiguousarray(applicable).reshape(-1)
    left = np.asarray(points, dtype=np.int32).copy()
    bought = np.zeros((m, S), dtype=np.int16)
    flat_bought = bought.reshape(-1)
    base = np.arange(m) * S
    repeat = np.array([s[3] for s in T.STUNTS])
    minor, major = T.STUNT["minor_critical"], T.STUNT["major_critical"]
    for j in range(priority.shape[1]):
        sid = priority[:, j]
        ok_id = sid >= 0
        s = np.maximum(sid, 0)
        fi = base + s
        cost = costs[fi].astype(np.int32)
        ok = ok_id & (cost > 0) & app[fi] & (left >= cost) & (flat_bought[fi] == 0)
        crit = (s == minor) | (s == major)
        if crit.any():
            ok &= ~(crit & ((bought[:, minor] > 0) | (bought[:, major] > 0)))
        times = np.where(ok, np.where(repeat[s], left // np.maximum(cost, 1), 1), 0)
        flat_bought[fi] += times.astype(np.int16)
        left -= times * cost
    return bought


def critical_multiplier(bought):
    """1, 1.5 (Minor Critical) or 2 (Major Critical) per attack."""
    mult = np.ones(len(bought))
    for name, value in T.CRITICAL_MULTIPLIER.items():
        mult = np.where(bought[:, T.STUNT[name]] > 0, value, mult)
    return mult
