"""Stall detection, shared by the general chunk loop and the fused core one: a skirmish
whose state has not changed for STALL_ROUNDS rounds stops (as sim/engine.py)."""
from __future__ import annotations

from sim.rulesets.gods_and_monsters.tables import L_FREE_USED, L_LOADED, W_ATTACKS, W_DOWN
from sim.jit import rule

STALL_ROUNDS, STALL_EVERY = 500, 50  # looked at every STALL_EVERY rounds


@rule
def fingerprint(W, SL, uses, focus):
    # Everything but the per-round tallies (attacks): a stall is no change in any of it.
    h = 1469598103934665603
    for r in range(W_DOWN + 1):
        if r == W_ATTACKS:
            continue
        for c in range(W.shape[1]):
            h = (h ^ W[r, c]) * 1099511628211
    for c in range(SL.shape[1]):
        h = (h ^ SL[L_LOADED, c]) * 1099511628211
        h = (h ^ SL[L_FREE_USED, c]) * 1099511628211
    for s in range(uses.shape[0]):
        h = (h ^ uses[s]) * 1099511628211
    for s in range(focus.shape[0]):
        h = (h ^ focus[s]) * 1099511628211
    return h
