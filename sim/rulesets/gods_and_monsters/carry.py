"""A skirmish started from carried-in state: the conditions play.py's `start` gives
(asleep, bound, holds, drawn weapons, loaded actions, spell uses) over a fresh set-up."""
from __future__ import annotations

from sim import events
from sim.rulesets.gods_and_monsters.tables import (
    EV_SLEEPS, L_LOADED, W_ASLEEP, W_BOUND, W_DRAWN, W_HELD, W_HELD_BY, W_HOLDING, W_WAKE)
from sim.jit import rule


@rule
def carry_in(i, W, SL, uses, carried, tracing, ev, cnt):
    """Skirmish i of the chunk takes row i of each carried array (play._conditions)."""
    asleep, wake, bound, held, held_by, holding, drawn, loaded, spell_uses = carried
    for c in range(W.shape[1]):
        if asleep[i, c] >= 0:  # -1: as the fresh surprise roll left it (play._conditions)
            W[W_ASLEEP, c], W[W_WAKE, c] = asleep[i, c], wake[i, c]
        W[W_BOUND, c] = bound[i, c]
        W[W_HELD, c], W[W_HELD_BY, c], W[W_HOLDING, c] = held[i, c], held_by[i, c], holding[i, c]
        W[W_DRAWN, c] = drawn[i, c]
        if tracing and W[W_ASLEEP, c]:
            # b: 0 sleeps through round 1 (a sleeper of the scenario), 1 until woken.
            events.emit(ev, cnt, EV_SLEEPS, 0, c, int(W[W_WAKE, c] != 2), 0, 0, 0, 0)
    for a in range(SL.shape[1]):
        SL[L_LOADED, a] = loaded[i, a]
    for s in range(uses.shape[0]):
        uses[s] = spell_uses[i, s]
