"""The surface sim.runner and sim.trace call on the compiled Lens: play, trace, warm."""
from __future__ import annotations

import numpy as np

from sim import compiled, events
from sim.rulesets.base import Outcome
from sim.rulesets.lens import kernel as KN
from sim.rulesets.lens.kcore import N_DRAWN, NST
from sim.rulesets.lens.kvalue import fill_savings
from sim.rulesets.lens.ktables import OBSERVATIONS, R_SIDES, build_tables, pack

# A cold compile on the idle 2-core machine: 47 CPU-s (December
# 2026; 404 before the compile-cost work, docs/performance.md "Compile cost").
COMPILE_ESTIMATE_S = 50


def _tables(setup):
    kt = setup.extra.get("kernel_tables")
    if kt is None:
        kt = setup.extra["kernel_tables"] = build_tables(setup)
    K = setup.extra.get("kernel_pack")
    if K is None:
        K = setup.extra["kernel_pack"] = pack(kt)
        fill_savings(K, kt.ci.shape[0])
    P = setup.extra.get("policy_pack")
    if P is None:
        P = setup.extra["policy_pack"] = pack_policy(kt.policy, kt.reads)
    return kt, K, P


def pack_policy(arrays, reads):
    """sim.policy_vm's table as (integers, constants, reads): its six integer arrays one
    after another behind a header of their offsets (kcore.policy_views)."""
    op, arg, const, rule_code, rule_action, rule_target, rule_first = arrays
    parts = [op, arg, rule_code, rule_action, rule_target, rule_first]
    bounds = np.cumsum([len(parts) + 1] + [len(p) for p in parts])
    ints = np.concatenate([bounds] + [np.asarray(p) for p in parts]).astype(np.int32)
    return ints, np.asarray(const, np.float64), reads


def _start_array(start, n: int, C: int):
    arr = np.full((len(KN.START_KEYS), max(n, 1), C), -1, np.int64)
    if not start:
        return False, arr
    for k, key in enumerate(KN.START_KEYS):
        if key in start:
            arr[k, :n] = np.asarray(start[key], dtype=np.int64).reshape(n, C)
    unknown = set(start) - set(KN.START_KEYS)
    if unknown:
        raise ValueError(f"unknown start columns {sorted(unknown)}; a Lens skirmish may start from "
                         f"{', '.join(KN.START_KEYS)}")
    return True, arr


def _run(setup, seed: int, first: int, n: int, max_rounds: int, start, traced: int, ev, cnt) -> Outcome:
    kt, K, P = _tables(setup)
    C = kt.ci.shape[0]
    has_start, start_arr = _start_array(start, n, C)
    out = np.zeros((len(KN.OUT_COLUMNS), n, C), np.int32)  # written as returned: no copy, half the fresh pages
    winner = np.zeros(n, np.int64)
    rounds = np.zeros(n, np.int64)
    stalled = np.zeros(1, np.int64)
    st = np.zeros((NST, C), np.int64)
    snap = np.zeros((len(KN.SNAP_ROWS), C), np.int64)
    # Scratch (kcore.focus_of .. stack_of): context, focus, work row, candidates, who is
    # still to act, blocks drawn ahead; health, distance, observations, the policy machine's stack.
    ctx = np.zeros(4 + max(int(kt.rules[R_SIDES]), 1) + 3 * C + 2 + 2 * C + 4 * N_DRAWN, np.int64)
    F = np.zeros(2 * C + len(OBSERVATIONS) + kt.stack_size + 1)
    zi = np.zeros(max(kt.zones.shape[1], 1), np.int64)
    KN.play_kernel(K, P, np.uint64(seed), first, n, max_rounds, has_start, start_arr, out, winner, rounds, stalled,
                   st, snap, ctx, F, zi, ev, cnt, traced)
    per = {name: out[k] for k, name in enumerate(KN.OUT_COLUMNS)}
    per["final_state"] = out[KN.OUT_COLUMNS.index("final_state")].astype(np.int8)
    per["bracket"] = out[KN.OUT_COLUMNS.index("bracket")].astype(np.int8)
    o = Outcome(winner=winner.astype(np.int16), rounds=rounds.astype(np.int32), per_combatant=per)
    o.stalled = int(stalled[0])
    return o


def play(setup, seed: int, first_skirmish: int, n: int, max_rounds: int, start=None) -> Outcome:
    ev, cnt = events.no_buffer()
    return _run(setup, seed, first_skirmish, n, max_rounds, start, -1, ev, cnt)


def trace(setup, seed: int, skirmish: int, max_rounds: int, start=None):
    from sim.rulesets.lens.trace_text import lines
    ev, cnt = events.new_buffer()
    out = _run(setup, seed, skirmish, 1, max_rounds, start, skirmish, ev, cnt)
    return out, lines(setup, events.rows(ev, cnt), int(cnt[1]))


def warm(setup=None) -> None:
    def compile_now():
        if setup is not None:
            play(setup, 0, 0, 1, 2)
        else:  # the starter, which ships inside the package (scenarios/ does not)
            import yaml

            from sim.rulesets.lens.setup import build
            from sim.scenario import load_scenario
            from sim.starters import starter
            play(build(load_scenario(yaml.safe_load(starter("lens")))), 0, 0, 1, 2)
    compiled.warm("lens", "Lens", COMPILE_ESTIMATE_S, compile_now)
