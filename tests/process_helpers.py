"""The real CLI in a subprocess of its own session, for the fault tests (test_faults.py,
test_faults_processes.py): a signal can go to its whole process group as a terminal's
Ctrl-C does, and small chunks make a fault land mid-run."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
YETI = "scenarios/gods_and_monsters/yeti.yaml"
CHUNK = 300
# A terminal's process has Ctrl-C at its default; a test runner started in the background
# may have it ignored, which children inherit, so the launcher restores it.
LAUNCH = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
          f"import sim.runner as r; r.CHUNK_SIZE = {CHUNK}; from sim.cli import main; main()")
# A run still going well after its second chunk: the compiled Yeti plays 6,000 skirmishes
# in a few milliseconds, so an interrupt would land after the tables were written.
LONG_RUN, LONG_N = "scenarios/gods_and_monsters/goblin_ambush.yaml", 60_000
# An interrupted run exits in a fraction of a second; a hang never does. The bound is
# that far above the usual so that a loaded machine cannot fail it; a whole run started
# afresh gets the run's time, which no bound of the interrupt's kind should limit.
EXIT_WITHIN_S = 60
RUN_WITHIN_S = 600


def cli(*args, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", LAUNCH, *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **popen)


def finish(p: subprocess.Popen, within_s: float = EXIT_WITHIN_S) -> tuple[int, str, str]:
    try:
        out, err = p.communicate(timeout=within_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"the CLI did not exit within {within_s} s")
    return p.returncode, out, err


def wait_for(predicate, p: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while not predicate():
        assert p.poll() is None, "the run ended before the fault could be injected: " + p.stderr.read()
        assert time.time() < deadline, "the run never got going"
        time.sleep(0.002)


def one_paragraph(err: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]
