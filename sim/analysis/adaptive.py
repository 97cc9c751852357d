"""Adaptive run length: play chunk after chunk until the win-rate intervals are as narrow
as asked. The chunk loop itself lives in `common.play_variants`, which sweeps share, so
a sweep with --precision keeps all its variants on the same skirmishes."""
from __future__ import annotations

from sim.analysis.common import as_scenario, play_variants, widest_half_width
from sim.runner import RunResult

__all__ = ["run_adaptive", "widest_half_width"]


def run_adaptive(scenario, precision: float, max_skirmishes: int | None = None, seed: int | None = None,
                 jobs: int = 1, max_rounds: int | None = None, overrides: dict | None = None,
                 step: int | None = None, crn: bool = False) -> RunResult:
    """`sim.run` until every side's win-rate interval has at most half-width `precision`.

    The result's `meta["adaptive"]` says how many steps it took and whether the
    precision was reached before `max_skirmishes`; `meta["skirmishes"]` how many were played.
    """
    scen = as_scenario(scenario, overrides)
    return play_variants([scen], seed=seed, jobs=jobs, max_rounds=max_rounds, crn=crn, precision=precision,
                         max_skirmishes=max_skirmishes, step=step).results[0]
