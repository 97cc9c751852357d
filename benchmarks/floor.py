"""The cost floor: what a skirmish's random numbers alone cost on this machine.

A batch engine cannot be faster than making its dice. Every number the kernels use is
a word of a Philox4x32-10 evaluation keyed by (seed, skirmish, round, site, actor, k)
(sim/keyed.py), so the floor of a scenario is the evaluations one skirmish makes
(counted on the rules run uncompiled, the same source, with the generator's two entry
points tallied) times what one evaluation costs here. Two costs: evaluations that do
not wait on each other (the machine overlaps them: the true lower bound) and
evaluations each waiting on the one before (a blow whose hit branch waits on its dice
is closer to this).
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
from numba import njit

from sim import keyed

ROOT = Path(__file__).resolve().parent.parent
_SAMPLE = 2_000_000


@njit(cache=False, nogil=True)
def _independent(n, seed):
    total = np.uint64(0)
    for i in range(n):
        w = keyed.block(seed, i, 1, 7, i & 3, 0)
        total ^= w[0] ^ w[3]
    return total


@njit(cache=False, nogil=True)
def _chained(n, seed):
    """Each evaluation's counter takes a bit of the one before, so none can start early."""
    carry = np.uint64(0)
    for i in range(n):
        w = keyed.block(seed, i, 1, 7, np.int64(carry & np.uint64(1)), 0)
        carry = w[0]
    return carry


def ns_per_philox(repeat: int = 5) -> dict[str, float]:
    """Nanoseconds per Philox evaluation, compiled: {'independent': .., 'chained': ..}, best of `repeat`."""
    out = {}
    for kind, fn in (("independent", _independent), ("chained", _chained)):
        fn(1000, 1)  # compile outside the timing
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(_SAMPLE, 1)
            best = min(best, time.perf_counter() - t0)
        out[kind] = best / _SAMPLE * 1e9
    return out


COUNTING = """
from sim import keyed
calls = [0]
_core, _blocks = keyed.philox4x32, keyed.blocks_into
def _counted(*a):
    calls[0] += 1
    return _core(*a)
def _counted_blocks(words, actors, count, *rest):
    calls[0] += int(count)
    return _blocks(words, actors, count, *rest)
keyed.philox4x32, keyed.blocks_into = _counted, _counted_blocks
"""
_PLAY = """
from sim.scenario import load_scenario
scen = load_scenario({path!r})
scen.ruleset.play(scen.ruleset.build(scen), {seed}, 0, {n}, int(scen.run["max_rounds"]))
print(calls[0] / {n})
"""


def run_counted(script: str) -> list[str]:
    """The lines `script` prints, run after COUNTING with Numba's compiler off
    (NUMBA_DISABLE_JIT: every rule is its Python source, so the tally sees each call)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + COUNTING + script
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"counting Philox evaluations failed:\n{done.stderr}")
    return done.stdout.strip().splitlines()


def philox_per_skirmish(path, seed: int, n: int = 300) -> float:
    """Mean Philox evaluations a skirmish of the scenario makes (skirmishes 0 .. n-1)."""
    return float(run_counted(_PLAY.format(path=str(path), seed=int(seed), n=int(n)))[-1])


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
