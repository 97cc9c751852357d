"""The batch loop: rounds of a ruleset over one chunk of skirmishes.

Finished skirmishes leave the batch after every round (their outcome rows are
recorded first), so the long tail of a few slow fights stays cheap.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import UNFINISHED, Outcome
from sim.tracing import Tracer


class Batch:
    """Randomness and bookkeeping for the active rows of one chunk.

    With `crn` (common random numbers) every draw is made for the whole chunk and the
    active rows are picked out, so skirmish k sees the same numbers whatever the other
    rows do; sweeps use it to compare variants on paired fights. Without it, draws are
    made for the active rows only, which is faster.
    """

    def __init__(self, rng: np.random.Generator, size: int, crn: bool = False, tracer: Tracer | None = None):
        self.rng = rng
        self.chunk_size = size
        self.ids = np.arange(size)
        self.crn = crn
        self.tracer = tracer
        self.round = 0

    @property
    def size(self) -> int:
        return len(self.ids)

    def _draw(self, fn, tail):
        if self.crn and self.size != self.chunk_size:
            return fn((self.chunk_size, *tail))[self.ids]
        return fn((self.size, *tail))

    def d(self, sides: int, *tail: int) -> np.ndarray:
        """Rolls of one die with `sides` faces, shape (active, *tail), int16."""
        return self._draw(lambda shape: self.rng.integers(1, sides + 1, size=shape, dtype=np.int16), tail)

    def uniform(self, *tail: int) -> np.ndarray:
        """Uniform floats in [0, 1), shape (active, *tail), float32."""
        return self._draw(lambda shape: self.rng.random(size=shape, dtype=np.float32), tail)

    def keep(self, keep: np.ndarray) -> None:
        self.ids = self.ids[keep]
        if self.tracer is not None:
            self.tracer.locate(self.ids)

    @property
    def trace(self):
        """The tracer when the traced skirmish is in this batch, else None (the hot path)."""
        t = self.tracer
        return t if t is not None and t.pos is not None else None


# Finished rows are recorded at once but only dropped from the arrays when they make up
# this share of the batch: copying every state array each round costs more than
# playing a few finished rows along (their results are already recorded and ignored).
COMPACT_SHARE = 0.3


# A round's temporaries grow with rows x attack slots x combatants; rows played together
# are capped so they stay near this size. A scenario with a thousand combatants plays its
# chunk in slices, one after the other on the same random stream, so the result still
# depends on (scenario, seed, count) only and a trace replays the same slice.
BATCH_BYTES = 256 * 2**20

# A batch whose whole state (all but the ruleset's per-round `counters`) has not changed
# for STALL_ROUNDS rounds is stopped: nobody can hurt anybody, and playing on to a
# max_rounds of a million would take days. Checked every STALL_EVERY rounds, and only
# when max_rounds exceeds STALL_ROUNDS, so ordinary runs are untouched.
STALL_ROUNDS = 500
STALL_EVERY = 50
DEFAULT_COUNTERS = ("attacks", "rounds")


def default_row_bytes(setup) -> int:
    # Without the ruleset's own estimate: pairwise (combatant x combatant) arrays, such as
    # distances and target choices, are what every ruleset so far holds per skirmish.
    c = len(getattr(setup, "names", ()) or ())
    return 32 * c * c + 256 * c


def rows_per_batch(ruleset, setup, size: int) -> int:
    cost = getattr(ruleset, "row_bytes", None) or default_row_bytes
    return max(1, min(size, BATCH_BYTES // max(1, int(cost(setup)))))


def run_chunk(ruleset, setup, rng: np.random.Generator, size: int, max_rounds: int,
              crn: bool = False, tracer: Tracer | None = None) -> Outcome:
    """Play `size` skirmishes to the end (or max_rounds) and return their outcomes in order."""
    rows = rows_per_batch(ruleset, setup, size)
    if rows >= size:
        return _run_batch(ruleset, setup, rng, size, max_rounds, crn, tracer)
    parts = []
    for start in range(0, size, rows):
        sub = min(rows, size - start)
        mine = tracer is not None and start <= tracer.row < start + sub
        if mine:
            tracer.row -= start
        try:
            out = _run_batch(ruleset, setup, rng, sub, max_rounds, crn, tracer if mine else None)
        finally:
            if mine:
                tracer.row += start
        parts.append((np.arange(start, start + sub), out))
    merged = _assemble(parts, size)
    merged.stalled = sum(getattr(p[1], "stalled", 0) for p in parts)
    return merged


def _fingerprint(ruleset_state) -> bytes:
    import hashlib
    from dataclasses import fields
    # Naming too few counters only hides a stall (a ticking field looks like progress);
    # naming a real progress field as a counter would cut live fights, so rulesets name
    # only pure tallies. Most rulesets' tallies are these two.
    skip = set(getattr(ruleset_state, "per_batch", ())) | set(getattr(ruleset_state, "counters", DEFAULT_COUNTERS))
    h = hashlib.blake2b(digest_size=16)
    for f in fields(ruleset_state):
        value = getattr(ruleset_state, f.name)
        if f.name not in skip and isinstance(value, np.ndarray):
            h.update(f.name.encode())
            h.update(str(value.shape).encode())
            h.update(np.ascontiguousarray(value).tobytes())
    return h.digest()


def _run_batch(ruleset, setup, rng: np.random.Generator, size: int, max_rounds: int,
               crn: bool = False, tracer: Tracer | None = None) -> Outcome:
    batch = Batch(rng, size, crn=crn, tracer=tracer)
    if tracer is not None:
        tracer.locate(batch.ids)
    state = ruleset.init(setup, batch)
    results: list[tuple[np.ndarray, Outcome]] = []
    done = np.zeros(size, dtype=bool)
    watch = max_rounds > STALL_ROUNDS
    last_print, unchanged, stalled_at = None, 0, None
    for rnd in range(1, max_rounds + 1):
        if batch.size == 0:
            break
        if watch and rnd % STALL_EVERY == 1 and rnd > 1:
            now = _fingerprint(state)
            unchanged = unchanged + STALL_EVERY if now == last_print else 0
            last_print = now
            if unchanged >= STALL_ROUNDS:
                stalled_at = rnd - 1
                break
        batch.round = rnd
        ruleset.step(setup, state, batch)
        newly = ruleset.is_over(setup, state) & ~done
        if newly.any():
            rows = np.flatnonzero(newly)
            results.append((batch.ids[rows], _take_outcome(ruleset, setup, state, rows)))
            done |= newly
            if tracer is not None and tracer.pos is not None and done[tracer.pos]:
                tracer.pos = None
            if done.all() or done.mean() >= COMPACT_SHARE:
                live = ~done
                state.take(live)
                batch.keep(live)
                done = done[live]
    live = ~done
    if live.any():
        state.take(live)
        batch.keep(live)
        out = ruleset.outcome(setup, state)
        out.winner = np.full(batch.size, UNFINISHED, dtype=out.winner.dtype)
        if tracer is not None and tracer.pos is not None:
            tracer.line(stall_message(1, stalled_at) if stalled_at else
                        f"The fight is still going after {max_rounds} rounds: counted as unfinished.")
        results.append((batch.ids.copy(), out))
    out = _assemble(results, size)
    out.stalled = int(live.sum()) if stalled_at else 0
    return out


def stall_message(count: int, at_round: int | None = None) -> str:
    when = f" after {at_round} rounds" if at_round else ""
    return (f"{count} skirmish{'es' if count != 1 else ''} stopped{when}: nothing had changed for "
            f"{STALL_ROUNDS} rounds (nobody could hurt anybody), so {'they count' if count != 1 else 'it counts'} "
            "as unfinished instead of playing on to max_rounds.")


def _take_outcome(ruleset, setup, state, rows) -> Outcome:
    # Outcome is computed on the finished rows only; states are small so a copy is cheap.
    import copy
    sub = copy.copy(state)
    sub.take(rows)
    return ruleset.outcome(setup, sub)


def _assemble(parts: list[tuple[np.ndarray, Outcome]], size: int) -> Outcome:
    # Each part's rows go straight to their place (ids are distinct and cover the chunk):
    # cheaper than concatenating everything and then reordering it.
    assert sum(len(p[0]) for p in parts) == size

    def place(get):
        arrays = [get(p[1]) for p in parts]
        first = arrays[0]
        out = np.empty((size,) + first.shape[1:], dtype=np.result_type(*arrays))
        for (ids, _), a in zip(parts, arrays):
            out[ids] = a
        return out

    winner = place(lambda o: o.winner)
    rounds = place(lambda o: o.rounds)
    keys = parts[0][1].per_combatant.keys()
    per = {k: place(lambda o, k=k: o.per_combatant[k]) for k in keys}
    return Outcome(winner, rounds, per)
