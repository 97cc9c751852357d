"""The adventuring day: one party through fights in a row, with rests between.

`sim.day.run(path)` plays a day file (docs/day.md) and returns a DayResult whose
DataFrames hold one row per day, per (day, fight) and per (day, fight, member).
"""
from __future__ import annotations

import json

import sim
from sim.day.spec import Day, Fight, Rest, derived_seed, load_day

__all__ = ["Day", "Fight", "Rest", "derived_seed", "load_day", "run", "provenance"]


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
        precision: float | None = None, max_days: int = 1_000_000):
    """Play the day file at `path` `days` times (default its `run.days`) and return a
    sim.day.result.DayResult. Day k is skirmish k of every fight, so the result depends
    on (day file, seed, days) only, not on `jobs`.

    `precision`: instead of a fixed number, play chunks of days in order until the 95%
    interval of the day's survival is at most +-precision wide (or `max_days`); the
    chunks are checked in order, so the days played depend on the seed alone."""
    from sim.day.play import _setup, play_days
    from sim.day.result import build_result
    from sim.runner import CHUNK_SIZE, check_seed, chunk_sizes, warm
    from sim.stats import wilson
    from sim.threads import threaded
    day = path if isinstance(path, Day) else load_day(path, days=days, seed=seed)
    n = int(max_days if precision else day.run["days"])
    for fight in day.fights:
        check_seed(fight.seed, 0, n)
    warm(day.fights[0].scenario)
    for fight in day.fights:
        _setup(fight.scenario)  # built here once, not by racing threads
    calls = [(day, i * CHUNK_SIZE, size) for i, size in enumerate(chunk_sizes(n))]
    chunks, survived, played, reached = [], 0, 0, False
    for _, chunk in threaded(play_days, calls, jobs, ordered=True):
        chunks.append(chunk)
        played += chunk.n
        if progress is not None:
            progress(chunk.n)
        if precision:
            survived += int((chunk.lost_at < 0).sum())
            lo, hi = wilson(survived, played)
            reached = (hi - lo) / 2 <= precision
            if reached:
                break
    day.run = {**day.run, "days": played}  # what was played, for the provenance
    meta = provenance(day)
    if precision:
        meta.update(precision=precision, max_days=max_days, reached=bool(reached))
    return build_result(day, chunks, meta)
