"""Turn order's comparison, shared by the general chunk loop (kernel.py) and the duel loop (kduel.py)."""
from __future__ import annotations

from sim.rulesets.lifeforce.layout import K_ORDER_ATTR, S_HAST, S_ROLL0, S_SLOW
from sim.jit import once

DRAW, UNFINISHED = -1, -2
ROLL_OFFS = 3  # d10s per creature, then the uniform: four words, one block
TWO_POW_MINUS_32 = 1.0 / 4294967296.0


@once
def goes_before(K, S, RU, i, j):
    """Whether i acts before j: net Hastened, Reaction, the roll-offs, then the final draw."""
    ki, kj = S[i, S_HAST] - S[i, S_SLOW], S[j, S_HAST] - S[j, S_SLOW]
    if ki != kj:
        return ki > kj
    if K[i, K_ORDER_ATTR] != K[j, K_ORDER_ATTR]:
        return K[i, K_ORDER_ATTR] > K[j, K_ORDER_ATTR]
    for k in range(ROLL_OFFS):
        if S[i, S_ROLL0 + k] != S[j, S_ROLL0 + k]:
            return S[i, S_ROLL0 + k] > S[j, S_ROLL0 + k]
    if RU[i] != RU[j]:
        return RU[i] > RU[j]
    return i < j
