"""Monte Carlo balance simulator for tabletop skirmish combat.

The public API mirrors the command line: every command is a function here that
returns pandas DataFrames, so a notebook can do what the CLI does.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("skirmish-sim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0+src"

import importlib as _importlib

from sim.errors import ScenarioError  # noqa: E402
from sim.trace import trace  # noqa: E402  (eager: a lazy name would be shadowed by the module sim.trace)

# Loaded on first use, so `skirmish --help`, `validate` and `rules` do not pay for pandas
# and the engine: {name: module}.
_LAZY = {"load_scenario": "sim.scenario", "Scenario": "sim.scenario", "run": "sim.runner",
         "RunResult": "sim.runner", "run_to_folder": "sim.rundir", "run_summary": "sim.rundir",
         "ChunkedResult": "sim.rundir"}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
    elif not name.startswith("_"):
        try:  # a submodule named without importing it (`import sim; sim.runner.CHUNK_SIZE`)
            value = _importlib.import_module(f"sim.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"sim.{name}":
                raise
            raise AttributeError(f"module 'sim' has no attribute '{name}'") from None
    else:
        raise AttributeError(f"module 'sim' has no attribute '{name}'")
    globals()[name] = value
    return value


def compare(a, b, **kwargs):
    """Scenarios A and B on the same skirmishes, every figure with B - A and its paired
    95% interval; see sim.analysis.compare.compare."""
    from sim.analysis.compare import compare as compare_fn
    return compare_fn(a, b, **kwargs)


__all__ = ["ScenarioError", "load_scenario", "Scenario", "run", "RunResult", "trace", "__version__",
           "run_to_folder", "run_summary", "ChunkedResult", "compare"]
