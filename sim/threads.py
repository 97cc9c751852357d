"""Chunks played side by side on threads of this process: the default local backend.

The compiled kernels run without Python's lock (`nogil`), so threads share the two cores
as well as worker processes do, and cost nothing to start: a fresh worker process spends
about a CPU-second importing NumPy, pandas and Numba and loading the kernel before it plays
its first skirmish, and sends every outcome back through a pipe. What a chunk does in
Python around its kernel call (a few arrays) holds the lock briefly.

A chunk's numbers depend on its skirmish indices only (sim/keyed.py), so the thread that
plays it changes nothing.
"""
from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Callable, Iterator, Sequence

# Chunks queued per thread: one running and one ready, so no thread waits for its next
# while a stopped run (Ctrl-C, a crash) has few started in vain.
IN_FLIGHT_PER_THREAD = 2


def threaded(fn: Callable, calls: Sequence[tuple], jobs: int, ordered: bool = False) -> Iterator[tuple[int, object]]:
    """(i, fn(*calls[i])) for every call, on `jobs` threads: as each finishes, or in call
    order with `ordered`. A call that raises stops the rest and raises here.

    On a stop (an exception, Ctrl-C, the caller leaving the loop) no queued call starts;
    those running end with their chunk (a kernel cannot be stopped halfway), which the
    interpreter waits for on its way out."""
    jobs = max(1, min(jobs, len(calls)))
    if jobs == 1:
        for i, args in enumerate(calls):
            yield i, fn(*args)
        return
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="skirmish-chunks")
    waiting = iter(enumerate(calls))
    running: dict[Future, int] = {}

    def top_up():
        while len(running) < IN_FLIGHT_PER_THREAD * jobs:
            nxt = next(waiting, None)
            if nxt is None:
                return
            running[pool.submit(fn, *nxt[1])] = nxt[0]

    try:
        top_up()
        while running:
            if ordered:  # submitted in call order, so the lowest index running is the next one due
                finished = [min(running, key=running.get)]
            else:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                result = future.result()
                yield running.pop(future), result
            top_up()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
