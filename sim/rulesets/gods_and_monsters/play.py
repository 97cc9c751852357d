"""The surface the core calls: play a chunk, trace one skirmish, warm the kernel."""
from __future__ import annotations

import numpy as np

from sim import events
from sim.rulesets.base import Outcome
from sim.rulesets.gods_and_monsters.tables import G_ADJ, G_CALLED, G_CORE, NSL, NW, Setup

START_KEYS = ("verve", "survival", "injuries", "status", "surprised")
COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken", "final_state", "down_round", "surprised",
           "verve_left", "survival_left", "injuries")
COMPILE_ESTIMATE_S = 40


def _tables(setup: Setup, start=None) -> tuple:
    flags = setup.flags
    if start is not None:
        # A given start may hold what the scenario alone never reaches (holds, sleep):
        # no situation is skipped.
        flags = flags.copy()
        flags[G_CALLED:G_ADJ + 1] = 1
        flags[G_CORE] = 0
    return (flags, setup.ct, setup.cf, setup.st, setup.sp, setup.pair_mod, setup.close_reach,
            setup.cell_size)


def _policy(setup: Setup) -> tuple:
    t = setup.table
    return (t.op, t.arg, t.const, t.rule_code, t.rule_action, t.rule_target, t.rule_first, t.reads)


def _start(start, n: int, C: int) -> tuple:
    if start is None:
        empty = np.zeros((1, 1), dtype=np.int64)
        return (False, empty, empty, empty, empty, empty)
    missing = [k for k in START_KEYS if k not in start]
    if missing:
        raise ValueError(f"`start` lacks {', '.join(missing)}; give (n, C) arrays of {', '.join(START_KEYS)}")
    arrays = []
    for k in START_KEYS:
        a = np.ascontiguousarray(np.broadcast_to(np.asarray(start[k]), (n, C)), dtype=np.int64)
        arrays.append(a)
    return (True, *arrays)


def _run(setup: Setup, seed: int, first: int, n: int, max_rounds: int, start, trace_row: int, buffer):
    from sim.rulesets.gods_and_monsters.kernel import play_chunk
    C, A = setup.ct.shape[1], setup.st.shape[1]
    i64 = lambda shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
    winner, rounds = np.zeros(n, dtype=np.int16), np.zeros(n, dtype=np.int32)
    per = {k: i64((n, C)) for k in COLUMNS}
    stalled = i64(1)
    out = (winner, rounds, per["attacks"], per["hits"], per["damage_dealt"], per["damage_taken"],
           per["final_state"], per["down_round"], per["surprised"], per["verve_left"], per["survival_left"],
           per["injuries"], stalled)
    scratch = (i64((C, C)), i64((C, C)), i64(setup.sp.shape[1]), i64(int(setup.flags[0])),
               np.zeros(C, dtype=np.bool_), np.zeros(C), np.zeros(C), np.zeros(len(setup.table.reads[0]) + C),
               np.zeros(setup.table.stack_size))
    ev, cnt = buffer
    play_chunk(np.uint64(seed), first, n, max_rounds, _tables(setup, start), _policy(setup), setup.zone, setup.zone_ptr,
               _start(start, n, C), out, i64((NW, C)), i64((NSL, A)), scratch, i64(max(1, len(setup.zone))),
               trace_row, ev, cnt)
    narrow = {"final_state": np.int8, "surprised": np.bool_, "down_round": np.int32}
    for k, dtype in narrow.items():
        per[k] = per[k].astype(dtype)
    for k in ("attacks", "hits", "damage_dealt", "damage_taken", "verve_left", "survival_left", "injuries"):
        per[k] = per[k].astype(np.int32)
    outcome = Outcome(winner=winner, rounds=rounds, per_combatant=per)
    outcome.stalled = int(stalled[0])
    return outcome


def play(setup: Setup, seed: int, first_skirmish: int, n: int, max_rounds: int, start=None) -> Outcome:
    """Skirmishes first_skirmish .. first_skirmish + n - 1 of a run with `seed`."""
    return _run(setup, seed, first_skirmish, n, max_rounds, start, -1, events.no_buffer())


def trace(setup: Setup, seed: int, skirmish: int, max_rounds: int, start=None):
    """(Outcome of that one skirmish, its blow-by-blow lines)."""
    from sim.rulesets.gods_and_monsters.trace_text import lines
    buffer = events.new_buffer()
    out = _run(setup, seed, skirmish, 1, max_rounds, start, 0, buffer)
    return out, lines(setup, events.rows(*buffer))


def _smallest_setup() -> Setup:
    import sim
    knife = [{"name": "knife", "damage": "d4"}]
    scen = sim.load_scenario({"name": "warm-up", "ruleset": "gods_and_monsters", "sides": {
        "a": {"combatants": [{"name": "A", "survival": 5, "weapons": knife}]},
        "b": {"combatants": [{"name": "B", "survival": 5, "weapons": knife}]}}})
    return scen.ruleset.build(scen)


def warm(setup: Setup | None = None) -> None:
    from sim import compiled

    def compile_now():
        play(setup if setup is not None else _smallest_setup(), 0, 0, 1, 5)

    compiled.warm("gods_and_monsters", "Gods & Monsters", COMPILE_ESTIMATE_S, compile_now)
