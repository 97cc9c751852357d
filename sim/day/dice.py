"""The day's own draws (whether a fight happens, the night's rolls), keyed like every
number in a fight (sim/keyed.py): by the step's seed, the day and the member."""
from __future__ import annotations

import hashlib

import numpy as np
from numba import njit

from sim import keyed

SITE_CHANCE, SITE_NIGHT = 1, 2


def actor_key(name: str) -> int:
    """A member's key: from its name, so adding a member moves nobody else's dice."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "little") % keyed.MAX_ACTOR


@njit(cache=True, nogil=True)
def uniforms_by_day(seed, first, n, site, actor):
    out = np.empty(n)
    for i in range(n):
        out[i] = keyed.uniform(seed, first + i, 0, site, actor, 0)
    return out


@njit(cache=True, nogil=True)
def dice_by_day(sides, seed, first, n, site, actor):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = keyed.die(sides, seed, first + i, 0, site, actor, 0)
    return out
