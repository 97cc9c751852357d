"""The `run` command's options for long runs: --summary-only, --run-dir, --resume.

Kept apart from sim/cli.py so the command stays a thin wrapper. A crash is not bad
input: it exits 1 with one paragraph saying how to reproduce it; Ctrl-C exits 130 and
says how to finish the run.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

from sim.backends import ChunkCrash, RunFailed
from sim.interrupts import INTERRUPTED, stop_if_interrupted

EXIT_CRASH = 1
EXIT_INTERRUPTED = 130
EXIT_GRACE_S = 5  # after Ctrl-C, time to remove partial files and exit before the process is ended


@contextmanager
def crash_guard(resume_hint: str | None = None):
    from sim.terminal import echo
    try:
        yield
    except (RunFailed, ChunkCrash) as e:
        echo(f"error: {e}", err=True)
        sys.exit(EXIT_CRASH)
    except KeyboardInterrupt:
        settle_after_interrupt()
        say_interrupted("interrupted." + (f" Finished chunks are saved; finish the run with: {resume_hint}"
                                          if resume_hint else " No file was left half-written."))
        sys.exit(EXIT_INTERRUPTED)


def say_interrupted(paragraph: str) -> None:
    """The one paragraph a Ctrl-C prints (and that the watchdog knows was printed)."""
    from sim.terminal import echo
    INTERRUPTED["said"] = True
    echo(paragraph, err=True)


def settle_after_interrupt() -> None:
    """After Ctrl-C: stop the local workers now rather than at interpreter exit, and
    remove any temporary a write left behind."""
    _remove_half_written()
    executor = _loky_pool()
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)


def _loky_pool():
    """The pool joblib's loky backend reuses, if this process started one. Looked up, not
    imported: a Ctrl-C during joblib's own import (0.49 s into a loky run) left it half
    initialised, and importing it again to stop a pool that never started raised an
    ImportError with a traceback."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    return getattr(module, "_executor", None)


def _remove_half_written() -> None:
    io = sys.modules.get("sim.io")  # not imported: nothing was being written
    if io is not None:
        io.remove_in_flight()


def _end_now() -> None:
    """Kill the local workers (they ignore Ctrl-C), remove the temporaries being written
    and end the process without further cleanup."""
    import os
    import signal
    _remove_half_written()
    if not INTERRUPTED["said"]:  # the Ctrl-C's exception was dropped (a callback) and nothing reached a safe point
        sys.stderr.write("interrupted. No file was left half-written.\n")
        sys.stderr.flush()
    for pid in list(getattr(_loky_pool(), "_processes", None) or {}):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os._exit(EXIT_INTERRUPTED)


def interruptible(progress):
    """`progress` that raises KeyboardInterrupt at the next finished chunk after a Ctrl-C:
    library code that catches every exception could otherwise swallow the one Ctrl-C
    raised, and the run would go on as if nothing had been pressed."""
    def update(k):
        stop_if_interrupted()
        if progress is not None:  # None: no bar (quiet, or stderr is not a terminal)
            progress(k)
    return update


def handle_interrupts() -> None:
    """Ctrl-C in the `skirmish` process itself (not when the CLI runs inside another
    program, such as a test). The first raises KeyboardInterrupt, so partial files are
    removed and the resume command printed; that takes well under a second, and further
    Ctrl-Cs are ignored meanwhile (interrupting the cleanup is what gave a traceback).
    Should the cleanup or a worker pool's shutdown hang, the process ends anyway after
    EXIT_GRACE_S with status 130."""
    import signal
    import threading
    import time

    def watchdog():
        time.sleep(EXIT_GRACE_S)
        _end_now()

    def first(*_):
        INTERRUPTED["pending"] = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Thread(target=watchdog, daemon=True).start()
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if started with Ctrl-C ignored
        signal.signal(signal.SIGINT, first)
        sys.unraisablehook = _quiet_interrupt_in_callbacks(sys.unraisablehook)


def _quiet_interrupt_in_callbacks(previous):
    """The Ctrl-C's KeyboardInterrupt can land in a callback Python cannot raise from (an
    import lock's weakref callback, a __del__), which printed "Exception ignored in ..."
    and a traceback; or in the middle of building an object whose __del__ then fails on
    what was never set (a ZipFile cut off in its __init__ while a chunk's aggregate was
    written: "AttributeError: 'ZipFile' object has no attribute '_writing'"). Once a
    Ctrl-C is pending both are dropped: nothing is lost, the pending flag stops the run
    at the next finished chunk, and the watchdog ends it otherwise. Any other fault in a
    callback still shows."""
    def hook(unraisable):
        exc = unraisable.exc_value
        half_built = isinstance(exc, AttributeError) and getattr(unraisable.object, "__name__", "") == "__del__"
        if INTERRUPTED["pending"] and (isinstance(exc, KeyboardInterrupt) or half_built):
            return
        previous(unraisable)
    return hook


def interrupts_end_quietly() -> None:
    """Once the command is done (its output written, the process about to exit): Ctrl-C
    ends the process at once with status 130. Raised as KeyboardInterrupt there, it landed
    in the interpreter's exit handlers (loky's pool shutdown) and printed a traceback."""
    import os
    import signal

    def end(*_):
        sys.stderr.write("interrupted.\n")
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)

    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None):  # SIG_IGN: a Ctrl-C is being handled
        signal.signal(signal.SIGINT, end)


def end_process(status) -> None:
    """End the `skirmish` process with `status` (a SystemExit code) once its command is
    done: the interpreter's exit steps that matter (joining threads still playing, exit
    handlers such as a worker pool's shutdown), then the process ends without the
    interpreter's own teardown.

    That teardown is where a late Ctrl-C killed the process by signal with nothing said
    (status -2, empty stderr: CI saw it 2.45 s into a loky run): the interpreter puts
    SIGINT back to its default before the last of it. Skipping it also skips freeing a
    large run's tables object by object. After a Ctrl-C, threads still playing a chunk
    are not waited for: they write nothing, and their chunk is lost either way."""
    import atexit
    import os
    import threading
    if status is None:
        status = 0
    elif not isinstance(status, int):
        sys.stderr.write(f"{status}\n")
        status = 1
    try:
        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None and not INTERRUPTED["pending"]:
            shutdown()
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe (| head): nothing more can reach it
                pass
        os._exit(status)


def run_chunked_cli(path: Path, n_files: int, n, seed, jobs, max_rounds, overrides, backend, scheduler,
                    summary_only, run_dir, resume, out, progress=None):
    from sim.rundir import resume_command, run_chunked, subfolder_name
    from sim.scenario import load_scenario
    run_dir = Path(run_dir) / subfolder_name(path) if run_dir and n_files > 1 else run_dir
    target = (Path(out) / subfolder_name(path) if n_files > 1 else Path(out)) if out else None
    hint = None
    if run_dir:
        scen = load_scenario(path, overrides)
        hint = resume_command(scen, int(scen.run["seed"] if seed is None else seed),
                              int(scen.run["skirmishes"] if n is None else n),
                              int(scen.run["max_rounds"] if max_rounds is None else max_rounds),
                              overrides, run_dir, summary_only, out=target, jobs=jobs, backend=backend,
                              scheduler=scheduler)
    with crash_guard(hint):
        result = run_chunked(path, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, overrides=overrides,
                             run_dir=run_dir, resume=resume, summary_only=summary_only, backend=backend,
                             scheduler=scheduler, out=target, progress=progress)
    replayed = getattr(result, "replayed", [])
    if replayed:
        from sim.terminal import echo
        shown = "; ".join(f"chunk {chunk} ({problem})" for chunk, problem in replayed[:3])
        more = f"; and {len(replayed) - 3} more" if len(replayed) > 3 else ""
        echo(f"note: {run_dir}: {len(replayed)} finished chunk{'s' if len(replayed) > 1 else ''} had damaged "
             f"files and {'were' if len(replayed) > 1 else 'was'} played again, which gives the same result: "
             f"{shown}{more}.", err=True)
    return result
