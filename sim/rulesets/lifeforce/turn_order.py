"""Turn order: Hastened/Slowed sources first, then Reaction, then d10 roll-offs.

"A Creature that is both Hastened and Slowed is treated as being neither, and a
Creature that is Slowed from 2 different sources will act after all other Slowed
Creatures": the key is the net count hastened - slowed, highest first.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce.tables import ROLL_OFF_DIE

ROLL_OFFS = 3  # d10 columns; ties left after three roll-offs are broken by a uniform draw


def roll_offs(batch, c: int) -> np.ndarray:
    """(N, C, ROLL_OFFS + 1) roll-off keys: d10 rolls, then a uniform final tie-break.

    Rolling again "until one of them rolls higher" among tied creatures gives each
    order among them the same chance; successive d10 columns plus a uniform column
    reproduce exactly that with a fixed number of draws.
    """
    dice = batch.d(ROLL_OFF_DIE, c, ROLL_OFFS).astype(np.float32)
    return np.concatenate([dice, batch.uniform(c, 1)], axis=2)


def turn_order(attribute: np.ndarray, hastened: np.ndarray, slowed: np.ndarray,
               rolloffs: np.ndarray) -> np.ndarray:
    """(N, C) combatant indices in acting order.

    attribute (C,) or (N, C): Reaction (or Initiative); hastened, slowed (N, C) counts
    of sources; rolloffs (N, C, K) from `roll_offs` (higher goes first).
    """
    net = hastened.astype(np.int32) - slowed.astype(np.int32)
    attr = np.broadcast_to(attribute, net.shape).astype(np.int32)
    if net.shape[1] == 2:
        # Two creatures: one comparison per key, most significant first, instead of a
        # sort; equal keys keep index order, as the stable lexsort does.
        second_first = np.zeros(len(net), dtype=bool)
        decided = np.zeros(len(net), dtype=bool)
        for key in [net, attr] + [rolloffs[..., k] for k in range(rolloffs.shape[-1])]:
            k0, k1 = key[:, 0], key[:, 1]
            second_first |= ~decided & (k1 > k0)
            decided |= k0 != k1
        return np.stack([second_first, ~second_first], axis=1).astype(np.int16)
    # lexsort sorts ascending by the LAST key first: negate so higher acts earlier.
    keys = [-rolloffs[..., k] for k in range(rolloffs.shape[-1] - 1, -1, -1)] + [-attr, -net]
    return np.lexsort(keys, axis=-1).astype(np.int16)
