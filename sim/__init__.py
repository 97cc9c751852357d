"""Monte Carlo balance simulator for tabletop skirmish combat.

The public API mirrors the command line: every command is a function here that
returns pandas DataFrames, so a notebook can do what the CLI does.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("skirmish-sim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0+src"

from sim.errors import ScenarioError  # noqa: E402
from sim.scenario import load_scenario, Scenario  # noqa: E402
from sim.runner import run, RunResult  # noqa: E402
from sim.trace import trace  # noqa: E402
from sim.rundir import run_to_folder, run_summary, ChunkedResult  # noqa: E402


def compare(a, b, **kwargs):
    """Scenarios A and B on the same skirmishes, every figure with B - A and its paired
    95% interval; see sim.analysis.compare.compare."""
    from sim.analysis.compare import compare as compare_fn
    return compare_fn(a, b, **kwargs)


__all__ = ["ScenarioError", "load_scenario", "Scenario", "run", "RunResult", "trace", "__version__",
           "run_to_folder", "run_summary", "ChunkedResult", "compare"]
