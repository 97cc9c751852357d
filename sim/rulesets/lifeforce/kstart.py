"""A creature's state at the start of a skirmish and of a round, for both chunk loops
(kernel.py and the duel loop, kduel.py), which must start both alike to play the same
fights."""
from __future__ import annotations

from sim.jit import once
from sim.rulesets.lifeforce.layout import (
    K_HASTENED, K_HP, K_SLOWED, S_HAST, S_HASTE_BONUS, S_HP, S_LOADED, S_NATT, S_NBLK, S_NGRAP, S_PARTNER,
    S_PREP_ACTION, S_PREP_TARGET, S_REACTION_LEFT, S_SEIZE, S_SLOW, S_TARGET, S_THREAT_BY)


@once
def fresh_creature(K, S, c):
    """Row c of S as a skirmish starts: every count 0, full hit points, the scenario's
    Hastened / Slowed, a Reaction and a loaded weapon, nothing prepared or targeted."""
    for f in range(S.shape[1]):
        S[c, f] = 0
    S[c, S_HP] = K[c, K_HP]
    S[c, S_HAST], S[c, S_SLOW] = K[c, K_HASTENED], K[c, K_SLOWED]
    S[c, S_REACTION_LEFT], S[c, S_LOADED] = 1, 1
    S[c, S_PREP_ACTION], S[c, S_PREP_TARGET], S[c, S_TARGET] = -1, -1, -1
    S[c, S_THREAT_BY], S[c, S_PARTNER] = -1, -1


@once
def new_round_creature(S, c):
    """Row c of S as a round starts: a fresh Reaction and fresh counts of the round's
    attacks, blocks and grapples (the k of their keyed numbers)."""
    # Seize the Initiative: Hastened for the next round only, one more source.
    S[c, S_HAST] += S[c, S_SEIZE] - S[c, S_HASTE_BONUS]
    S[c, S_HASTE_BONUS] = S[c, S_SEIZE]
    S[c, S_SEIZE] = 0
    S[c, S_REACTION_LEFT] = 1
    S[c, S_NATT] = 0
    S[c, S_NBLK] = 0
    S[c, S_NGRAP] = 0
