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


def run_chunk(ruleset, setup, rng: np.random.Generator, size: int, max_rounds: int,
              crn: bool = False, tracer: Tracer | None = None) -> Outcome:
    """Play `size` skirmishes to the end (or max_rounds) and return their outcomes in order."""
    batch = Batch(rng, size, crn=crn, tracer=tracer)
    if tracer is not None:
        tracer.locate(batch.ids)
    state = ruleset.init(setup, batch)
    results: list[tuple[np.ndarray, Outcome]] = []
    done = np.zeros(size, dtype=bool)
    for rnd in range(1, max_rounds + 1):
        if batch.size == 0:
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
            tracer.line(f"The fight is still going after {max_rounds} rounds: counted as unfinished.")
        results.append((batch.ids.copy(), out))
    return _assemble(results, size)


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
