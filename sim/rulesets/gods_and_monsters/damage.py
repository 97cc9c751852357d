"""Damage onto verve, survival and injuries, and the rolls to stay conscious."""
from __future__ import annotations

from sim import events, keyed
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.gods_and_monsters.schema import SURPRISED_ROLL_PENALTY
from sim.rulesets.gods_and_monsters.tables import (
    C_FORT, C_USES_VERVE, DEATH_GUIDE, EV_CONSCIOUS, EV_DIES, EV_TAKES, G_GUIDE, HEALTH, W_DOWN, W_INJ,
    W_OWED, W_PDIRECT, W_PENDING, W_PTAKEN, W_RTAKEN, W_STATUS, W_SURPRISED, W_SURV, W_VERVE)
from sim.jit import rule


@rule
def apply_and_check(seed, g, rnd, k, check_now, W, ct, flags, tracing, ev, cnt):
    """W_PTAKEN (verve first where fighting is archetypal, then survival, then injuries)
    and W_PDIRECT (injuries straight: knockout and killing blows) land; a roll to stay
    conscious is owed when survival just reached 0 or injuries grew. k keys the rolls."""
    C = W.shape[1]
    for c in range(C):
        taken, direct = W[W_PTAKEN, c], W[W_PDIRECT, c]
        W[W_OWED, c] = 0
        if taken == 0 and direct == 0:
            continue
        W[W_PTAKEN, c], W[W_PDIRECT, c] = 0, 0
        W[W_RTAKEN, c] += taken + direct
        left = taken
        if ct[C_USES_VERVE, c]:
            off = min(W[W_VERVE, c], left)
            W[W_VERVE, c] -= off
            left -= off
        had_survival = W[W_SURV, c] > 0
        off = min(W[W_SURV, c], left)
        W[W_SURV, c] -= off
        left -= off
        W[W_INJ, c] += left + direct
        W[W_OWED, c] = W[W_STATUS, c] == STANDING and (
            (had_survival and W[W_SURV, c] == 0 and taken > 0) or left > 0 or direct > 0)
        if tracing:
            events.emit(ev, cnt, EV_TAKES, rnd, c, taken + direct, W[W_VERVE, c], W[W_SURV, c], W[W_INJ, c], 0)
    for c in range(C):
        if not W[W_OWED, c]:
            continue
        if check_now:
            health_check(seed, g, rnd, k, c, W, ct, flags, tracing, ev, cnt)
        else:
            W[W_PENDING, c] = 1


@rule
def settle_pending(seed, g, rnd, W, ct, flags, tracing, ev, cnt):
    for c in range(W.shape[1]):
        if W[W_PENDING, c]:
            W[W_PENDING, c] = 0
            health_check(seed, g, rnd, 0, c, W, ct, flags, tracing, ev, cnt)


@rule
def health_check(seed, g, rnd, k, c, W, ct, flags, tracing, ev, cnt):
    # Death first: a combatant past its limit is dead whether or not it stays conscious.
    inj, fort = W[W_INJ, c], ct[C_FORT, c]
    if flags[G_GUIDE]:
        dies = (inj > 0 and keyed.die(20, seed, g, rnd, DEATH_GUIDE, c, 2 * k) <= inj
                and keyed.die(20, seed, g, rnd, DEATH_GUIDE, c, 2 * k + 1) > fort)
    else:
        dies = inj > fort
    if dies:
        W[W_STATUS, c], W[W_DOWN, c] = DEAD, rnd
        if tracing:
            events.emit(ev, cnt, EV_DIES, rnd, c, inj, 0, 0, 0, 0)
        return
    # "In subsequent rounds" a surprised combatant's rolls are at -3: not in the first.
    surprised_pen = SURPRISED_ROLL_PENALTY * W[W_SURPRISED, c] if rnd > 1 else 0
    need = fort - inj - surprised_pen
    r = keyed.die(20, seed, g, rnd, HEALTH, c, k)
    faints = r > need
    if faints:
        W[W_STATUS, c], W[W_DOWN, c] = UNCONSCIOUS, rnd
    if tracing:
        events.emit(ev, cnt, EV_CONSCIOUS, rnd, c, r, need, int(faints), 0, 0)
