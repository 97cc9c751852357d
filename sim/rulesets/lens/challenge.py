"""The challenge roll: Talent die + two Training dice against a TN, counted in efforts.

Each die at or over the TN is one effort: 0 Botch, 1 Sacrifice, 2 Success, 3 Triumph.
An untrained roll is the Talent die alone. Variants from other drafts of the public
reference (rule option `challenge`):
  - two_training (default): Talent + 2 Training dice.
  - quality_modifier: as two_training, then the tool's quality modifier (crude -1 ..
    legendary +4) is added to one die after rolling, the die the roller chooses (a
    bonus goes where it turns a miss into an effort; a penalty where it costs nothing).
  - tool_die: Talent + one Training die + a die of the tool's workmanship.
Assist and Interfere change the Talent die: the roller rolls their own and the
helper's Talent die and keeps the better (Assist) or worse (Interfere) one.

`outcome_probs` is exact (enumeration over the faces); `roll` is the vectorised roller
used by the engine. Both go through `_count`, and the tests check both against hand
computed values.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

VARIANTS = ("two_training", "quality_modifier", "tool_die")


def _count(talent_face, d1, d2, has1, has2, tn, mod):
    """Efforts (0..3) from faces; has1/has2 say whether the 2nd/3rd die is rolled."""
    hit0 = talent_face >= tn
    hit1 = has1 & (d1 >= tn)
    hit2 = has2 & (d2 >= tn)
    eff = hit0.astype(np.int8) + hit1 + hit2
    if mod is None:
        return eff
    mod = np.asarray(mod)
    # The roller puts the modifier on the die where it helps most (or hurts least).
    miss_best = np.maximum(np.where(hit0, -99, talent_face),
                           np.maximum(np.where(has1 & ~hit1, d1, -99), np.where(has2 & ~hit2, d2, -99)))
    gain = (mod > 0) & (miss_best > -99) & (miss_best + mod >= tn)
    n_dice = 1 + has1.astype(np.int8) + has2
    all_hit = eff == n_dice
    hit_best = np.maximum(talent_face, np.maximum(np.where(has1, d1, -99), np.where(has2, d2, -99)))
    loss = (mod < 0) & all_hit & (hit_best + mod < tn)
    return (eff + gain - loss).astype(np.int8)


def _dice(variant: str, talent: int, training: int, tool: int) -> tuple[int, int, int]:
    """Sides of the three dice (0 = not rolled)."""
    if training == 0:
        return talent, 0, 0
    if variant == "tool_die":
        return talent, training, tool
    return talent, training, training


@lru_cache(maxsize=4096)
def outcome_probs(talent: int, training: int, tn: int, variant: str = "two_training", tool: int = 0,
                  mod: int = 0, assist: int = 0, interfere: int = 0) -> tuple[float, float, float, float]:
    """Exact probabilities of Botch, Sacrifice, Success, Triumph."""
    s0, s1, s2 = _dice(variant, talent, training, tool)
    faces = [range(1, s0 + 1), range(1, max(s1, 1) + 1), range(1, max(s2, 1) + 1),
             range(1, max(assist, 1) + 1), range(1, max(interfere, 1) + 1)]
    grid = np.array(list(itertools.product(*faces)), dtype=np.int16)
    t = grid[:, 0]
    if assist:
        t = np.maximum(t, grid[:, 3])
    if interfere:
        t = np.minimum(t, grid[:, 4])
    n = len(grid)
    eff = _count(t, grid[:, 1], grid[:, 2], np.full(n, s1 > 0), np.full(n, s2 > 0), tn,
                 mod if variant == "quality_modifier" else None)
    counts = np.bincount(eff, minlength=4)[:4]
    return tuple(float(c) / n for c in counts)


def _face(u, sides):
    return (u * sides).astype(np.int16) + 1


def roll(u: np.ndarray, talent, training, tn, variant: str = "two_training", tool=0, mod=0,
         assist=0, interfere=0) -> np.ndarray:
    """Efforts (0..3) per row.

    u: (n, 5) uniforms (talent, die 2, die 3, assister's talent, interferer's talent);
    the other arguments are scalars or (n,) arrays; 0 sides means "not rolled".
    """
    talent = np.asarray(talent)
    training = np.asarray(training)
    t = _face(u[:, 0], talent)
    assist = np.asarray(assist)
    interfere = np.asarray(interfere)
    if np.any(assist > 0):
        t = np.where(assist > 0, np.maximum(t, _face(u[:, 3], assist)), t)
    if np.any(interfere > 0):
        t = np.where(interfere > 0, np.minimum(t, _face(u[:, 4], interfere)), t)
    trained = training > 0
    third = np.asarray(tool) if variant == "tool_die" else training
    d1 = _face(u[:, 1], training)
    d2 = _face(u[:, 2], third)
    has2 = trained & (np.asarray(third) > 0)
    n = len(u)
    return _count(t, d1, d2, np.broadcast_to(trained, (n,)), np.broadcast_to(has2, (n,)), np.asarray(tn),
                  np.broadcast_to(mod, (n,)) if variant == "quality_modifier" else None)
