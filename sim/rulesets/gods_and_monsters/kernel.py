"""The compiled loop over a chunk's skirmishes: each is set up and played to its end
(or max_rounds, or a stall) before the next, on the scratch arrays of one skirmish."""
from __future__ import annotations

from sim import events, keyed
from sim.rulesets.base import DRAW, STANDING, UNFINISHED
from sim.rulesets.gods_and_monsters.carry import carry_in
from sim.rulesets.gods_and_monsters.core import play_round_core
from sim.rulesets.gods_and_monsters.fused import MAX_FUSED, play_core_chunk
from sim.rulesets.gods_and_monsters.round import emit_map, play_round
from sim.rulesets.gods_and_monsters.moves import distances
from sim.rulesets.gods_and_monsters.stall import STALL_EVERY, STALL_ROUNDS, fingerprint
from sim.rulesets.gods_and_monsters.tables import (
    C_DRAWN0, C_SCATTER, C_SIDE, C_SLEEPER, C_SURPRISE_T, C_SURV, C_VERVE, C_X0, C_Y0, EV_SLEEPS, EV_STALLED,
    EV_SURPRISE, EV_UNFINISHED, G_CORE, G_METRIC, G_SIDES, G_SLEEPERS, L_FREE_USED, L_LOADED, NEVER, P_USES, PLACE,
    S_LOADED0, SURPRISE, W_ASLEEP, W_ATTACKS, W_HITS, W_TAKEN, W_CAST_LAST, W_COVERING, W_DEALT, W_DOWN, W_DRAWN,
    W_HELD_BY, W_HOLDING, W_INJ, W_STATUS, W_SURPRISED, W_SURV, W_VERVE, W_WAKE, W_WAS_SURPRISED, W_X, W_Y)
from sim.rulesets.gods_and_monsters.tables import START_WITH_CONDITIONS
from sim.jit import kernel, rule


@kernel
def play_chunk(seed, first, n, max_rounds, tab, pol, zone, zone_ptr, start, out, W, SL, scratch, zbuf,
               trace_skirmish, ev, cnt, masks):
    flags, ct, cf, st, sp, pair_mod, close_reach, cell_size = tab
    dist, adj, uses, focus, cand, hbuf, dbuf, obs, stack, seen = scratch
    has_start, s_verve, s_surv, s_inj, s_status, s_surprised, carried = start
    winner, rounds, o_attacks, o_hits, o_dealt, o_taken, o_status, o_down, o_surprised, o_verve, o_surv, o_inj, \
        stalled, o_uses = out
    C, A = W.shape[1], SL.shape[1]
    if flags[G_CORE] and has_start != START_WITH_CONDITIONS and not 0 <= trace_skirmish < n and C <= MAX_FUSED:
        # Same results, one fused pass per round (fused.py).
        play_core_chunk(seed, first, n, max_rounds, tab, out, W, SL, scratch, masks, start)
        return
    n_sides = flags[G_SIDES]
    watch = max_rounds > STALL_ROUNDS
    for i in range(n):
        g = first + i
        tracing = i == trace_skirmish
        W[:, :] = 0
        for c in range(C):
            if has_start:
                W[W_STATUS, c], W[W_VERVE, c] = s_status[i, c], s_verve[i, c]
                W[W_SURV, c], W[W_INJ, c], W[W_SURPRISED, c] = s_surv[i, c], s_inj[i, c], s_surprised[i, c]
            else:
                W[W_VERVE, c], W[W_SURV, c] = ct[C_VERVE, c], ct[C_SURV, c]
            # A carried-in -1: surprise is rolled as in a fresh skirmish (the next fight of a day).
            if not has_start or s_surprised[i, c] < 0:
                W[W_SURPRISED, c] = 0
                if ct[C_SURPRISE_T, c] < NEVER:
                    r = keyed.die(20, seed, g, 0, SURPRISE, c, 0)
                    W[W_SURPRISED, c] = r > ct[C_SURPRISE_T, c]
                    if tracing:
                        events.emit(ev, cnt, EV_SURPRISE, 0, c, r, ct[C_SURPRISE_T, c], W[W_SURPRISED, c], 0, 0)
            W[W_WAS_SURPRISED, c] = W[W_SURPRISED, c]
            W[W_ASLEEP, c] = flags[G_SLEEPERS] and W[W_SURPRISED, c] and ct[C_SLEEPER, c]
            W[W_WAKE, c] = 2 if W[W_ASLEEP, c] else NEVER
            if tracing and W[W_ASLEEP, c] and (not has_start or s_surprised[i, c] < 0):
                events.emit(ev, cnt, EV_SLEEPS, 0, c, 0, 0, 0, 0, 0)
            W[W_HELD_BY, c], W[W_HOLDING, c], W[W_COVERING, c] = -1, -1, -1
            W[W_DRAWN, c], W[W_CAST_LAST, c] = ct[C_DRAWN0, c], 0
            W[W_X, c], W[W_Y, c] = ct[C_X0, c], ct[C_Y0, c]
        _scatter(seed, g, W, ct, zone, zone_ptr, n_sides, zbuf)
        for a in range(A):
            SL[L_LOADED, a], SL[L_FREE_USED, a] = st[S_LOADED0, a], 0
        for s in range(uses.shape[0]):
            uses[s] = sp[P_USES, s]
        if has_start:
            carry_in(i, W, SL, uses, carried, tracing, ev, cnt)
        for s in range(n_sides):
            focus[s] = -1
        distances(W, dist, flags[G_METRIC])
        if tracing:
            emit_map(W, 0, ev, cnt)
        w, last, unchanged, played, stop = UNFINISHED, 0, 0, 0, False
        for rnd in range(1, max_rounds + 1):
            if watch and rnd % STALL_EVERY == 1 and rnd > 1:
                now = fingerprint(W, SL, uses, focus)
                unchanged = unchanged + STALL_EVERY if now == last else 0
                last = now
                if unchanged >= STALL_ROUNDS:
                    stop = True
                    stalled[0] += 1
                    if tracing:
                        events.emit(ev, cnt, EV_STALLED, rnd, rnd - 1, 0, 0, 0, 0, 0)
                    break
            if flags[G_CORE]:
                play_round_core(seed, g, rnd, W, SL, tab, pol, scratch, tracing, ev, cnt)
            else:
                play_round(seed, g, rnd, W, SL, tab, pol, scratch, tracing, ev, cnt)
            played = rnd
            sides_left, side = 0, -1
            for s in range(n_sides):
                for c in range(C):
                    if W[W_STATUS, c] == STANDING and ct[C_SIDE, c] == s:
                        sides_left += 1
                        side = s
                        break
            if sides_left <= 1:
                w = side if sides_left == 1 else DRAW
                break
        if tracing and w == UNFINISHED and not stop:
            events.emit(ev, cnt, EV_UNFINISHED, played, max_rounds, 0, 0, 0, 0, 0)
        winner[i], rounds[i] = w, played
        for c in range(C):
            o_attacks[i, c], o_hits[i, c] = W[W_ATTACKS, c], W[W_HITS, c]
            o_dealt[i, c], o_taken[i, c] = W[W_DEALT, c], W[W_TAKEN, c]
            o_status[i, c], o_down[i, c], o_surprised[i, c] = W[W_STATUS, c], W[W_DOWN, c], W[W_WAS_SURPRISED, c]
            o_verve[i, c], o_surv[i, c], o_inj[i, c] = W[W_VERVE, c], W[W_SURV, c], W[W_INJ, c]
        for s in range(o_uses.shape[1]):
            o_uses[i, s] = uses[s]


@rule
def _scatter(seed, g, W, ct, zone, zone_ptr, n_sides, zbuf):
    # A scattered side's members take distinct random cells of its zone (a keyed
    # Fisher-Yates shuffle, one pick per member).
    C = W.shape[1]
    for s in range(n_sides):
        lo, hi = zone_ptr[s], zone_ptr[s + 1]
        if hi == lo:
            continue
        for z in range(hi - lo):
            zbuf[z] = lo + z
        j = 0
        for c in range(C):
            if ct[C_SCATTER, c] and ct[C_SIDE, c] == s:
                r = j + keyed.pick(hi - lo - j, seed, g, 0, PLACE, s, j)
                zbuf[j], zbuf[r] = zbuf[r], zbuf[j]
                W[W_X, c], W[W_Y, c] = zone[zbuf[j], 0], zone[zbuf[j], 1]
                j += 1
