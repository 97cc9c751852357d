"""The cost floor: what a skirmish's random numbers alone cost on this machine.

A batch engine cannot be faster than drawing its dice. The floor of a scenario is the
numbers one skirmish draws (counted through a Generator that tallies every request)
times the time this machine's `numpy.random.Generator` takes per number of each kind.
"""
from __future__ import annotations

import json
import random
import time
import types

import numpy as np

from sim.engine import run_chunk
from sim.runner import CHUNK_SIZE, _compiled, chunk_rng
from sim.scenario import load_scenario

_SAMPLE = 4_000_000


def ns_per_draw(repeat: int = 5) -> dict[str, float]:
    """Nanoseconds per number of the two kinds the engine asks for: small integers (d20 as
    int16, `Generator.integers`) and float32 uniforms (`Generator.random`), best of `repeat`."""
    rng = np.random.default_rng(0)
    kinds = {"integers": lambda: rng.integers(1, 21, size=_SAMPLE, dtype=np.int16),
             "random": lambda: rng.random(size=_SAMPLE, dtype=np.float32)}
    out = {}
    for kind, draw in kinds.items():
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            draw()
            best = min(best, time.perf_counter() - t0)
        out[kind] = best / _SAMPLE * 1e9
    return out


class CountingGenerator:
    """Stands in for the batch's Generator and tallies how many numbers each method returns."""

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self.counts = {"integers": 0, "random": 0}

    def integers(self, *args, **kwargs):
        out = self._rng.integers(*args, **kwargs)
        self.counts["integers"] += np.size(out)
        return out

    def random(self, *args, **kwargs):
        out = self._rng.random(*args, **kwargs)
        self.counts["random"] += np.size(out)
        return out

    @property
    def bit_generator(self):
        # Streams split off this way (G&M special situations) are not counted: the
        # benchmark scenarios play rounds that use none.
        return self._rng.bit_generator


def draws_per_skirmish(path, seed: int, size: int = CHUNK_SIZE) -> dict[str, float]:
    """Mean numbers of each kind one skirmish of the scenario draws (one chunk of `size`)."""
    scen = load_scenario(path)
    scen, setup = _compiled(json.dumps(scen.data, default=str), scen.source)
    counting = CountingGenerator(chunk_rng(seed, 0))
    run_chunk(scen.ruleset, setup, counting, size, scen.run["max_rounds"])
    return {kind: count / size for kind, count in counting.counts.items()}


class CountingRandom(random.Random):
    """Python's `random.Random`, tallying every number it draws (all of `randint`,
    `choice`, `shuffle`, `uniform` and `random` come down to these two methods)."""
    drawn = 0

    def random(self):
        CountingRandom.drawn += 1
        return super().random()

    def getrandbits(self, k):
        CountingRandom.drawn += 1
        return super().getrandbits(k)


def numbers_needed(plain_module, path, n: int, seed: int) -> float:
    """Mean random numbers a skirmish needs when only what the rules ask for is drawn:
    the plain loop's count (it rolls a die only when one is called for)."""
    shim = types.ModuleType("random")
    shim.__dict__.update(random.__dict__)
    shim.Random = CountingRandom
    real, CountingRandom.drawn = plain_module.random, 0
    plain_module.random = shim
    try:
        plain_module.play(path, n, seed=seed)
    finally:
        plain_module.random = real
    return CountingRandom.drawn / n
