"""Compile every ruleset's kernel once, side by side, before the first test.

On a machine that has never compiled these sources (a fresh CI machine) each kernel
takes from under a minute to a few minutes of CPU; compiled lazily, one test at a time,
they would run one after the other. Compiled here in parallel subprocesses, into the
shared cache (sim/compiled.py), they cost the longest of them, and every test after
finds them there. On a warm machine this finds every kernel cached and costs nothing.

The tests then run on several processes (pytest-xdist, `-n` in pyproject.toml's addopts), so
the compiling is done once, in pytest's controlling process before it starts them: a
session fixture would run in each of them and compile every kernel twice.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from sim import compiled

# A scenario per ruleset and path through its kernel (G&M has a fused chunk for core fights).
WARM_UP = {
    "gods_and_monsters": ("scenarios/gods_and_monsters/yeti.yaml", "scenarios/gods_and_monsters/goblin_ambush.yaml"),
    "lens": ("scenarios/lens/novice_party_vs_brute.yaml",),
    "lifeforce": ("scenarios/lifeforce/duel.yaml",),
}
CODE = ("import sys, sim, sim.runner\n"
        "for path in sys.argv[1:]:\n"
        "    scen = sim.load_scenario(path)\n"
        "    sim.runner.warm(scen)\n"
        "    sim.run(scen, n=50)  # the batch path too, which a warm-up of one skirmish may not reach\n")


def pytest_configure(config):
    if hasattr(config, "workerinput") or config.option.collectonly:
        return  # an xdist worker (the controlling process compiles them), or nothing will run
    cold = [name for name in WARM_UP if not compiled.is_compiled(name)]
    procs = [subprocess.Popen([sys.executable, "-c", CODE, *WARM_UP[name]]) for name in cold]
    failed = [name for name, p in zip(cold, procs) if p.wait() != 0]
    if failed:
        pytest.exit(f"compiling the kernels of {failed} failed (see the output above)", returncode=1)
