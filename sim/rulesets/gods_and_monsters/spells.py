"""Complex actions with an effect given in the scenario: spells, spirits and the like."""
from __future__ import annotations

from sim import events, keyed, targeting
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters.tables import (
    C_NSPELL, C_SAVE0, C_SIDE, C_SPELL_FIRST, EV_SPELL, NEVER, P_BONUS, P_COUNT, P_RANGE, P_SAVE, P_SIDES, P_SLEEP,
    SPELL_DAMAGE, SPELL_SAVE, SPELL_TARGET, W_ASLEEP, W_CASTING, W_DEALT, W_PTAKEN, W_RDEALT, W_ROLL_PEN,
    W_SPELL_OF, W_SPELL_TGT, W_STATUS, W_SURV, W_TAKEN, W_TMODE, W_VERVE, W_WAKE)
from sim.jit import once


@once
def choose_spells(seed, g, rnd, W, ct, sp, dist, uses, focus, cand, hbuf, dbuf):
    """Each caster takes its first spell with uses left and a target in range; a caster
    without one falls back to attacking (returns nothing; W_CASTING says who casts)."""
    C = W.shape[1]
    for j in range(C):
        hbuf[j] = W[W_VERVE, j] + W[W_SURV, j]
    for c in range(C):
        W[W_SPELL_OF, c], W[W_SPELL_TGT, c] = -1, -1
        if not W[W_CASTING, c]:
            continue
        for s in range(ct[C_SPELL_FIRST, c], ct[C_SPELL_FIRST, c] + ct[C_NSPELL, c]):
            if uses[s] <= 0:
                continue
            for j in range(C):
                cand[j] = (W[W_STATUS, j] == STANDING and ct[C_SIDE, j] != ct[C_SIDE, c]
                           and dist[c, j] <= sp[P_RANGE, s] and not (sp[P_SLEEP, s] and W[W_ASLEEP, j]))
                dbuf[j] = dist[c, j]
            u = keyed.uniform(seed, g, rnd, SPELL_TARGET, c, 0)
            t = targeting.choose(W[W_TMODE, c], cand, hbuf, dbuf, focus[ct[C_SIDE, c]], u)
            if t >= 0:
                W[W_SPELL_OF, c], W[W_SPELL_TGT, c] = s, t
                break
        if W[W_SPELL_OF, c] < 0:
            W[W_CASTING, c] = 0


@once
def cast(seed, g, rnd, W, ct, sp, uses, c, tracing, ev, cnt):
    """c's spell resolves: the target rolls its save, else takes the damage and the condition."""
    s, t = W[W_SPELL_OF, c], W[W_SPELL_TGT, c]
    score = ct[C_SAVE0 + sp[P_SAVE, s], t] - W[W_ROLL_PEN, t]
    r = keyed.die(20, seed, g, rnd, SPELL_SAVE, c, 0)
    failed = r > score
    dmg = 0
    if failed:
        dmg = max(keyed.dice(sp[P_COUNT, s], sp[P_SIDES, s], sp[P_BONUS, s], seed, g, rnd, SPELL_DAMAGE, c, 0), 0)
        if sp[P_COUNT, s] == 0 and sp[P_BONUS, s] == 0:
            dmg = 0
        if sp[P_SLEEP, s]:
            W[W_ASLEEP, t] = 1
            W[W_WAKE, t] = NEVER
    uses[s] -= 1
    W[W_PTAKEN, t] += dmg
    W[W_TAKEN, t] += dmg
    W[W_DEALT, c] += dmg
    W[W_RDEALT, c] += dmg
    if tracing:
        events.emit(ev, cnt, EV_SPELL, rnd, c, t, s, r * 1000 + score + 500, int(failed), dmg)
