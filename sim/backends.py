"""Where chunks are played: on threads of this process (sim/threads.py), on local loky
worker processes, or on a dask cluster.

Every backend plays the same tasks (chunk index, size, seed), so a result never
depends on the backend: a skirmish's numbers depend on its index only (sim/keyed.py).
Results come back as each chunk finishes (not in order), so a caller can save or fold
them in at once and memory stays bounded by the chunks in flight.
"""
from __future__ import annotations

import tempfile
import traceback
import warnings
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

from sim.errors import ScenarioError

BACKENDS = ("threads", "loky", "dask")

# joblib says so when a run stops early (Ctrl-C, a crash) with results in flight; the
# run's own message says what happened, and a second paragraph would only confuse.
warnings.filterwarnings("ignore", message=r"\d+ tasks (have been successfully executed|which were still being "
                                          r"processed by the workers)", category=UserWarning)

# loky's resource tracker (a process of its own, writing to our stderr) warns about
# semaphores it removes itself when a run is stopped while its pool shuts down. The
# removal is right and the warning is loky's internals; the run's one paragraph says
# what happened. Its filters come from the environment it is started with.
TRACKER_QUIET = "ignore:resource_tracker:UserWarning"

# How long to wait for a remote scheduler before saying it cannot be reached.
CONNECT_TIMEOUT_S = 10


class ChunkCrash(Exception):
    """A chunk raised inside a worker; carries what is needed to reproduce it.

    Plain string/int arguments so it pickles back from any worker.
    """

    def __init__(self, chunk: int, seed: int, size: int, error: str, detail: str = ""):
        super().__init__(chunk, seed, size, error, detail)
        self.chunk, self.seed, self.size, self.error, self.detail = chunk, seed, size, error, detail

    def __str__(self) -> str:
        return f"chunk {self.chunk} (seed {self.seed}, {self.size} skirmishes) failed: {self.error}"


class RunFailed(Exception):
    """A run stopped by a crash, not by bad input: the CLI prints it and exits 1."""


def guarded(fn: Callable, chunk: int, seed: int, size: int, *args):
    """Call `fn(chunk, seed, size, *args)` and tag any failure with the chunk it happened in.

    Returns (chunk, result) so results arriving out of order can be put back in place.
    """
    try:
        return chunk, fn(chunk, seed, size, *args)
    except Exception as e:  # noqa: BLE001 - re-raised with the chunk attached
        raise ChunkCrash(chunk, seed, size, f"{type(e).__name__}: {e}",
                         "".join(traceback.format_exception(e))) from None


def in_worker(fn: Callable, *args):
    """`fn(*args)` in a local worker process, which leaves Ctrl-C to the parent.

    A terminal sends SIGINT to the whole process group; a worker interrupted while it
    sends a result back can leave the result queue locked, and the parent then hangs
    shutting the pool down. The parent alone stops the run (and kills the workers)."""
    import multiprocessing
    import signal
    parent = multiprocessing.parent_process()
    if parent is not None:  # never the CLI's own process
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        end_with_parent(parent.pid)
    return fn(*args)


# How often a worker looks whether its parent is still there, and how it exits when not.
PARENT_POLL_S = 0.2
EXIT_PARENT_GONE = 1
_WATCHING = {"parent": None}


def end_with_parent(parent_pid: int) -> None:
    """Make this worker process exit as soon as the process that started it is gone.

    A parent killed with SIGKILL shuts no pool down: its loky workers (about 530 MB each)
    went on playing, or waiting for work, for as long as loky's idle timeout allows and
    longer. Once per process: on Linux the kernel signals the worker when its parent
    dies (PR_SET_PDEATHSIG); everywhere, a daemon thread looks every PARENT_POLL_S
    whether the worker was handed to another parent. The kernels release the GIL, so
    the thread runs even while a chunk is being played."""
    import os
    import threading
    import time
    if _WATCHING["parent"] == parent_pid:
        return
    _WATCHING["parent"] = parent_pid
    _parent_death_signal(parent_pid)

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(EXIT_PARENT_GONE)

    threading.Thread(target=watch, name="skirmish-parent-watch", daemon=True).start()


def _parent_death_signal(parent_pid: int) -> None:
    """Linux: SIGUSR1 to this process when its parent dies, and end it on that signal.

    Not SIGKILL outright: the kernel sends it when the parent *thread* that started the
    worker ends, and loky may start workers from a thread of its own; a handler that
    looks at the parent process again makes a thread's end harmless."""
    import os
    import signal
    import sys
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError):  # no libc to call: the thread alone watches
        return

    def on_parent_death(*_):
        if os.getppid() != parent_pid:
            os._exit(EXIT_PARENT_GONE)

    signal.signal(signal.SIGUSR1, on_parent_death)
    PR_SET_PDEATHSIG = 1
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGUSR1), 0, 0, 0) != 0:
        return
    if os.getppid() != parent_pid:  # the parent died before the signal was asked for
        os._exit(EXIT_PARENT_GONE)


@contextmanager
def sigint_held():
    """Ctrl-C held off (blocked, not lost) while a pool of local workers is started.

    Workers started meanwhile inherit the blocked signal through fork and exec, and so
    ignore Ctrl-C from their first instruction: interrupted while importing, before
    in_worker could ignore it, each printed a traceback into the run's paragraph. So do
    the helper threads and the resource trackers the pool starts. A Ctrl-C pressed
    meanwhile is raised here as soon as the pool is up."""
    import signal
    import threading
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    # The resource trackers first: the standard library's unblocks SIGINT once it has
    # started its process (SIG_UNBLOCK, not the mask it found), which would let the
    # workers started after it take Ctrl-C again.
    quiet_resource_tracker()
    from multiprocessing import resource_tracker as mp_tracker
    from joblib.externals.loky.backend import resource_tracker as loky_tracker
    mp_tracker.ensure_running()
    loky_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def quiet_resource_tracker() -> None:
    """Start loky's resource tracker (if it is not running yet) with its warnings off."""
    import os
    filters = os.environ.get("PYTHONWARNINGS", "")
    if TRACKER_QUIET not in filters.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(f for f in (filters, TRACKER_QUIET) if f)


def cores() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    import os
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def local_workers(jobs: int, chunks: int, scheduler: str | None = None) -> int:
    """Workers worth starting for `chunks` chunks: never more than the chunks, and on this
    machine never more than its cores (more would only take turns on them). A cluster
    (--scheduler) counts its own cores."""
    jobs = max(1, min(jobs, chunks))
    return jobs if scheduler else min(jobs, cores())


def check_backend(backend: str, scheduler: str | None) -> str:
    if scheduler:
        backend = "dask"
    if backend not in BACKENDS:
        raise ScenarioError(f"unknown backend '{backend}'; use one of {', '.join(BACKENDS)}.")
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise ScenarioError("the dask backend needs dask.distributed: pip install 'skirmish-sim[cluster]' "
                                "(or pip install dask distributed).") from None
    if scheduler and not (scheduler.startswith(("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://"))
                          and len(scheduler.split("://", 1)[1]) > 0 and _parses(scheduler)):
        raise ScenarioError(f"--scheduler '{scheduler}' is not a scheduler address; write it like "
                            "tcp://HOST:PORT or tcp://[::1]:PORT (as printed by `dask scheduler`).")
    return backend


def _parses(address: str) -> bool:
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(address)
        parts.port  # noqa: B018 - raises for a port that is not a number or out of range
    except ValueError:  # an unclosed [ of an IPv6 host, a bad port
        return False
    return True


@contextmanager
def dask_client(scheduler: str | None, jobs: int, scratch: str | None = None):
    """A dask.distributed Client: on the scheduler given, else on a new local cluster.

    The local cluster listens on loopback only, serves no dashboard nor any other HTTP
    (sim/dask_local.py), and keeps its spill
    space in `scratch` (a temporary folder when not given). It speaks mutual TLS with a
    certificate made for this run and held in memory only: a cluster runs whatever
    tasks it is sent, and loopback alone would let any local user's process connect.
    A remote scheduler is secured by its operator (docs/scaling.md); `Client` picks up
    the TLS settings of the dask configuration.
    """
    from distributed import Client
    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as e:
            raise ScenarioError(f"cannot reach the dask scheduler at {scheduler} ({type(e).__name__}: {e}). "
                                "Check the address and that `dask scheduler` is running there.") from None
        with client:
            yield client
        return
    import logging

    import dask
    with tempfile.TemporaryDirectory(prefix="skirmish-dask-", dir=scratch) as tmp, \
            dask.config.set({"temporary-directory": tmp}):  # else lock files land in the system temp
        security = run_certificate()
        cluster = client = None
        try:
            # Its processes start with Ctrl-C held (sigint_held): interrupted while they
            # imported, each printed a traceback, and the nannies a few more.
            with sigint_held():
                from sim.dask_local import local_cluster
                # silence_logs: its workers' own logs too (other processes): after a
                # Ctrl-C they reported scratch folders already removed.
                cluster = local_cluster(jobs, security, tmp, silence_logs=logging.CRITICAL)
                client = Client(cluster, security=security)
            yield client
        except BaseException:
            # Ctrl-C or a failure: what the cluster logs while it is torn down mid-start
            # or mid-run (nannies that failed to start, workers lost) is its own internals,
            # and the run's one paragraph says what happened.
            quiet_distributed()
            raise
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


def quiet_distributed() -> None:
    import logging
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def run_certificate():
    """A distributed Security with a fresh self-signed certificate, required of every peer."""
    from distributed.security import Security
    try:
        return Security.temporary()
    except ImportError:
        raise ScenarioError("the local dask cluster secures its connections with a certificate made by the "
                            "cryptography package: pip install cryptography (or "
                            "pip install 'skirmish-sim[cluster]').") from None


def play_all(fn: Callable, tasks: Iterable[tuple], jobs: int = 1, backend: str = "threads",
             scheduler: str | None = None, scratch: str | None = None) -> Iterator[tuple[int, object]]:
    """Yield (chunk, fn(*task)) as chunks finish; each task is (chunk, seed, size, *args).

    A chunk that raises surfaces as ChunkCrash; a worker that dies as RunFailed naming
    the chunks that were still unfinished.
    """
    backend = check_backend(backend, scheduler)
    tasks = list(tasks)
    if not tasks:
        return
    jobs = local_workers(jobs, len(tasks), scheduler)  # one with no chunk only costs its start-up
    if backend == "threads" or (backend == "loky" and jobs == 1):  # one loky worker: no pool to start
        from sim.threads import threaded
        for _, chunk_and_result in threaded(guarded, [(fn, *t) for t in tasks], jobs):
            yield chunk_and_result
        return
    finished: set[int] = set()
    try:
        if backend == "loky":
            from joblib import Parallel, delayed
            quiet_resource_tracker()
            with sigint_held():
                gen = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered", max_nbytes=None)(
                    delayed(in_worker)(guarded, fn, *t) for t in tasks)
            for chunk, result in gen:
                finished.add(chunk)
                yield chunk, result
        else:
            with dask_client(scheduler, jobs, scratch) as client:
                for chunk, result in on_dask(client, fn, tasks):
                    finished.add(chunk)
                    yield chunk, result
    except (ChunkCrash, ScenarioError, KeyboardInterrupt, GeneratorExit):
        raise
    except Exception as e:  # a worker process died (loky TerminatedWorkerError, dask KilledWorker, ...)
        unfinished = [t for t in tasks if t[0] not in finished]
        raise WorkerDied(unfinished, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None


def on_dask(client, fn: Callable, tasks: list[tuple]) -> Iterator[tuple[int, object]]:
    """(chunk, result) of `guarded(fn, *task)` for each task, as they finish on the client's
    cluster, with two chunks in flight per worker thread (a worker never waits for its
    next one, and a crash stops the run with few submitted in vain).

    Submitted directly rather than through joblib's dask backend: that backend pickles
    itself into every batch, and unpickled in a worker it opens a Client of the worker's
    own to the scheduler. Left open when the cluster closed under a Ctrl-C, each worker's
    Client printed "Exception ignored in Client.__del__ ... IOLoop is closed" (a traceback)
    into the run's one paragraph."""
    from itertools import islice

    from distributed import as_completed
    pending = iter(tasks)
    running = as_completed()

    def top_up():
        # Counted again each time: workers of a remote cluster may join (or leave) mid-run.
        room = 2 * max(1, sum(client.nthreads().values())) - running.count()
        for t in islice(pending, max(room, 0)):
            running.add(client.submit(guarded, fn, *t, pure=False))

    top_up()
    for future in running:
        yield future.result()  # a chunk's ChunkCrash, or a dead worker's KilledWorker, raised here
        top_up()


class WorkerDied(RunFailed):
    def __init__(self, unfinished: list[tuple], error: str):
        super().__init__(error)
        self.unfinished = [(t[0], t[1], t[2]) for t in unfinished]  # (chunk, seed, size)
        self.error = error


def _play_chunk_task(chunk: int, seed: int, size: int, data_json: str, source: str, max_rounds: int, crn: bool):
    from sim.runner import play_chunk
    return play_chunk(data_json, source, chunk, size, seed, max_rounds, crn)


def play_in_memory(tasks: list[tuple], jobs: int, backend: str, scheduler: str | None, progress=None) -> list:
    """Outcomes of `runner.play_chunk` argument tuples, in task order, on any backend.

    `progress(size)` is called as each chunk finishes, in whatever order they do.
    """
    order = [t[2] for t in tasks]
    got = {}
    for chunk, outcome in play_all(_play_chunk_task, [(chunk, seed, size, data_json, source, max_rounds, crn)
                                                      for data_json, source, chunk, size, seed, max_rounds, crn
                                                      in tasks], jobs, backend, scheduler):
        got[chunk] = outcome
        if progress is not None:
            progress(len(outcome.winner))
    return [got[c] for c in order]
