"""Immobilizing one skirmish's combatants: the grab, the Fortitude contests of a hold,
tying up, and holds ending when either side of them falls or leaves."""
from __future__ import annotations

from sim import events, keyed
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters.schema import (
    GRAB_EVASION_PER_SIZE, HOLD_FORTITUDE_PER_SIZE, IMMOBILIZED_BREAK_PENALTY)
from sim.rulesets.gods_and_monsters.tables import (
    C_EVASION, C_FIRST_SLOT, C_FORT, C_SIZE, DAMAGE, EV_GRAB, EV_STRAIN, EV_TIED, GRAB_DODGE, HELD_GRABBED,
    HELD_IMMOBILIZED, HELD_NONE, HOLD_BREAK, HOLD_KEEP, K_GRAB, L_ATTACKING, L_HIT, L_KIND, L_TARGET, S_OWNER,
    W_BOUND, W_DEALT, W_HELD, W_HELD_BY, W_HOLDING, W_ON_HELD, W_PRE_HELD, W_PTAKEN, W_RDEALT, W_ROLL_PEN,
    W_STATUS, W_TAKEN, W_TYING)
from sim.jit import once, rule
from sim.rulesets.gods_and_monsters.attacks import slot_damage


@once
def grabs(seed, g, rnd, W, SL, ct, st, tracing, ev, cnt):
    """A grab that hits: the target rolls Evasion (+2 per size level larger), else is held."""
    for a in range(SL.shape[1]):
        if not (SL[L_ATTACKING, a] and SL[L_KIND, a] == K_GRAB and SL[L_HIT, a]):
            continue
        o, t = st[S_OWNER, a], SL[L_TARGET, a]
        larger = max(ct[C_SIZE, t] - ct[C_SIZE, o], 0)
        score = ct[C_EVASION, t] + GRAB_EVASION_PER_SIZE * larger - W[W_ROLL_PEN, t]
        r = keyed.die(20, seed, g, rnd, GRAB_DODGE, a, 0)
        caught = r > score
        if caught and W[W_HELD, t] == HELD_NONE and W[W_HOLDING, o] < 0:
            W[W_HELD, t], W[W_HELD_BY, t], W[W_HOLDING, o] = HELD_GRABBED, o, t
        if tracing:
            events.emit(ev, cnt, EV_GRAB, rnd, o, t, r, score, int(caught), 0)


@once
def hold_contests(seed, g, rnd, W, ct, st, tracing, ev, cnt):
    """One Fortitude contest a round for every hold made in an earlier round; a hold
    broken gives the held an automatically successful attack (W_PTAKEN of the holder)."""
    C = W.shape[1]
    for c in range(C):
        h = W[W_HELD_BY, c]
        if not (W[W_PRE_HELD, c] and W[W_HELD, c] > HELD_NONE and W[W_STATUS, c] == STANDING
                and h >= 0 and W[W_STATUS, h] == STANDING):
            continue
        diff = ct[C_SIZE, c] - ct[C_SIZE, h]
        penalty = IMMOBILIZED_BREAK_PENALTY * (W[W_HELD, c] == HELD_IMMOBILIZED and not W[W_ON_HELD, h])
        t_score = ct[C_FORT, c] + HOLD_FORTITUDE_PER_SIZE * max(diff, 0) - penalty - W[W_ROLL_PEN, c]
        h_score = ct[C_FORT, h] + HOLD_FORTITUDE_PER_SIZE * max(-diff, 0) - W[W_ROLL_PEN, h]
        t_roll = keyed.die(20, seed, g, rnd, HOLD_BREAK, c, 0)
        h_roll = keyed.die(20, seed, g, rnd, HOLD_KEEP, c, 0)
        t_ok, h_ok = t_roll <= t_score, h_roll <= h_score
        result = 0
        if t_ok and not h_ok:
            result = 1
            blow = slot_damage(seed, g, rnd, st, ct[C_FIRST_SLOT, c], DAMAGE)
            W[W_PTAKEN, h] += blow
            W[W_TAKEN, h] += blow
            W[W_DEALT, c] += blow
            W[W_RDEALT, c] += blow
            W[W_HELD, c], W[W_HELD_BY, c], W[W_HOLDING, h] = HELD_NONE, -1, -1
        elif h_ok and not t_ok:
            result = 2
            W[W_HELD, c] = HELD_IMMOBILIZED
        if tracing:
            events.emit(ev, cnt, EV_STRAIN, rnd, c, h, t_roll * 100 + t_score + 50, h_roll * 100 + h_score + 50,
                        result, 0)


@once
def tie_up(W, adj, rnd, tracing, ev, cnt):
    C = W.shape[1]
    for j in range(C):
        if not (W[W_HELD, j] == HELD_IMMOBILIZED and W[W_STATUS, j] == STANDING):
            continue
        for c in range(C):
            if W[W_TYING, c] and W[W_STATUS, c] == STANDING and adj[c, j]:
                h = W[W_HELD_BY, j]
                if h >= 0:
                    W[W_HOLDING, h] = -1
                W[W_BOUND, j], W[W_HELD, j], W[W_HELD_BY, j] = 1, HELD_NONE, -1
                if tracing:
                    events.emit(ev, cnt, EV_TIED, rnd, j, c, 0, 0, 0, 0)
                break


@rule
def release(W):
    """Holds end when the holder or the held falls or leaves."""
    C = W.shape[1]
    for c in range(C):
        h = W[W_HELD_BY, c]
        if W[W_HELD, c] > HELD_NONE and h >= 0 and (W[W_STATUS, c] != STANDING or W[W_STATUS, h] != STANDING):
            W[W_HOLDING, h] = -1
            W[W_HELD, c], W[W_HELD_BY, c] = HELD_NONE, -1
    for c in range(C):
        t = W[W_HOLDING, c]
        if t >= 0 and W[W_STATUS, c] != STANDING:
            W[W_HELD, t], W[W_HELD_BY, t] = HELD_NONE, -1
            W[W_HOLDING, c] = -1
