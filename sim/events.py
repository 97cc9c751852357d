"""The event buffer a kernel writes while it plays the traced skirmish.

A kernel knows no strings: at each event site of the traced skirmish it writes a row
of integers (an event code, the round and up to six numbers: who, whom, rolls, needs,
damage ...). Python then turns the rows into the blow-by-blow text with the ruleset's
table of formats. Every other skirmish pays one comparison per site.
"""
from __future__ import annotations

import numpy as np
from sim.jit import once

WIDTH = 8  # code, round, and six values
CAPACITY = 200_000


def new_buffer(capacity: int = CAPACITY) -> tuple[np.ndarray, np.ndarray]:
    """(events, counts): rows of WIDTH int64; counts = [rows written, rows that did not fit]."""
    return np.zeros((capacity, WIDTH), dtype=np.int64), np.zeros(2, dtype=np.int64)


def no_buffer() -> tuple[np.ndarray, np.ndarray]:
    """What a batch run passes: nothing is ever written."""
    return np.zeros((0, WIDTH), dtype=np.int64), np.zeros(2, dtype=np.int64)


@once
def emit(events, counts, code, rnd, a, b, c, d, e, f):
    i = counts[0]
    if i < events.shape[0]:
        events[i, 0], events[i, 1], events[i, 2], events[i, 3] = code, rnd, a, b
        events[i, 4], events[i, 5], events[i, 6], events[i, 7] = c, d, e, f
        counts[0] = i + 1
    else:
        counts[1] += 1


def rows(events: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return events[: int(counts[0])]
