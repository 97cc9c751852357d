"""The adventuring day: one party through fights in a row, with rests between.

`sim.day.run(path)` plays a day file (docs/day.md) and returns a DayResult whose
DataFrames hold one row per day, per (day, fight) and per (day, fight, member).
"""
from __future__ import annotations

import json

import sim
from sim.day.spec import Day, Fight, Rest, derived_seed, load_day

__all__ = ["Day", "Fight", "Rest", "derived_seed", "load_day", "optimize_day", "run", "provenance"]


def provenance(day: Day) -> dict:
    return {
        "day": day.name, "day_file": day.source, "day_hash": day.hash, "ruleset": day.ruleset_name,
        "seed": int(day.run["seed"]), "days": int(day.run["days"]), "stop_when": day.stop_when,
        "day_rules": dict(day.day_rules), "package_version": sim.__version__,
        "steps": [({"fight": s.name, "scenario": s.scenario.name, "scenario_file": s.source,
                    "scenario_hash": s.scenario.hash, "seed": s.seed, "chance": s.chance,
                    "max_rounds": s.max_rounds, "rule_options": json.loads(json.dumps(s.scenario.rules, default=str))}
                   if isinstance(s, Fight) else {"rest": s.name, "kind": s.kind, "seed": s.seed})
                  for s in day.steps],
    }


def run(path, days: int | None = None, seed: int | None = None, jobs: int = 1, progress=None,
        precision: float | None = None, max_days: int = 1_000_000, *, backend: str = "threads",
        scheduler: str | None = None, summary_only: bool = False, run_dir=None, resume: bool = False):
    """Play the day file at `path` `days` times (default its `run.days`) and return a
    sim.day.result.DayResult. Day k is skirmish k of every fight, so the result depends
    on (day file, seed, days) only, not on `jobs` or `backend` (threads, loky, dask;
    `scheduler`: a dask cluster's address, whose workers must see the same files).

    `precision`: instead of a fixed number, play chunks of days in order until the 95%
    interval of the day's survival is at most +-precision wide (or `max_days`); the
    chunks are checked in order, so the days played depend on the seed alone.
    `summary_only`: keep the figures (counts and histograms) only, in constant memory.
    `run_dir`: save every finished chunk there; `resume=True` finishes an interrupted
    run in it without playing its finished chunks again, to the same result."""
    from sim.day.runs import play
    day = path if isinstance(path, Day) else load_day(path, days=days, seed=seed)
    return play(day, jobs=jobs, backend=backend, scheduler=scheduler, summary_only=summary_only, run_dir=run_dir,
                resume=resume, precision=precision, max_days=max_days, progress=progress, meta_of=provenance)


def optimize_day(path, sides=None, objective=None, days=None, seed=None, jobs=1, budget="normal", progress=None,
                 overrides=None):
    """The strongest play over the day file at `path` beside the day as written (a
    DataFrame): sim.day.optimize.optimize_day, imported when first used so that
    `import sim.day` stays light."""
    from sim.day.optimize import optimize_day as search
    return search(path, sides=sides, objective=objective, days=days, seed=seed, jobs=jobs, budget=budget,
                  progress=progress, overrides=overrides)
