"""Solving a day for a target: which whole-number value of a day path (sim.day.variants)
gives a day figure its target, e.g. `skirmish tune DAY --param party.combatants[Toromeen].survival
--target day.survival=0.8` (sim.day.tune.tune_day).

As `skirmish tune` does for a scenario: bisection over the range, every value played on
the same days; a value whose 95% interval still holds the target is played on twice the
days (the first days again and as many more: a day's dice depend on its index alone)
until it does not or `max_days` is reached; the two values that bracket the target are
compared on the same days.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.common import frame, paired_diff
from sim.analysis.tune import bracket, parse_rate, search_space, sign_against
from sim.day.spec import Day
from sim.day.variants import fight_overrides, day_variant
from sim.errors import ScenarioError
from sim.overrides import get_path
from sim.stats import wilson

SCAN_POINTS = 11


def parse_day_target(text: str) -> tuple[str, float]:
    """`day.survival=0.8` -> ("day.survival", 0.8): a rate of the day's figures."""
    left, sep, right = str(text).partition("=")
    key = left.strip()
    if not sep or not (key in ("day.survival", "day.nobody_dies") or key.startswith("fight.") and key.endswith(".lost")
                       or key.endswith(".dead")):
        raise ScenarioError(f"--target '{text}': a day is tuned for one of its rates: day.survival=RATE, "
                            "day.nobody_dies=RATE, fight.NAME.lost=RATE or MEMBER.dead=RATE (e.g. day.survival=0.8).")
    return key, parse_rate(text, right, "0.8")


class _Days:
    """The metric's per-day values for each value of the path, on days 0..n-1."""

    def __init__(self, day: Day, param: str, metric: str, value_of, n: int, max_days: int, jobs: int, progress):
        self.day, self.param, self.metric, self.value_of = day, param, metric, value_of
        self.n, self.max, self.jobs, self.progress = n, max_days, jobs, progress
        self.values: dict[int, np.ndarray] = {}

    def play(self, v: int, n: int) -> np.ndarray:
        import dataclasses

        import sim.day
        from sim.day.compare import per_day
        if v not in self.values or len(self.values[v]) < n:
            d = day_variant(self.day, {self.param: self.value_of(v)})
            d = dataclasses.replace(d, run={**d.run, "days": n})
            figures = per_day(sim.day.run(d, jobs=self.jobs, progress=self.progress))
            if self.metric not in figures:
                raise ScenarioError(f"--target {self.metric}: the day has no such figure; its rates: "
                                    f"{', '.join(k for k, f in figures.items() if f[1] == 'rate')}.")
            self.values[v] = figures[self.metric][2]
        return self.values[v][:n]

    def rate(self, v: int, n: int | None = None) -> tuple[float, float, float, int]:
        x = self.play(v, n or len(self.values.get(v, ())) or self.n)
        lo, hi = wilson(int(x.sum()), len(x))
        return float(x.mean()), float(lo), float(hi), len(x)

    def side_of_target(self, v: int, target: float) -> int:
        """+1 above, -1 below, 0 still holding the target at max_days."""
        n = max(self.n, len(self.values.get(v, ())))
        while True:
            _, lo, hi, _ = self.rate(v, n)
            sign = sign_against(lo, hi, target)
            if sign:
                return sign
            if 2 * n > self.max:
                return 0
            n *= 2


def _current(day: Day, param: str):
    """The path's value as the day has it, and the fight scenario and path that hold it."""
    per_fight, _ = fight_overrides(day, {param: 0})
    for f in day.fights:
        for path in per_fight[f.name]:
            try:
                return get_path(f.scenario.data, path), f.scenario, path
            except ScenarioError as e:
                raise e.located(f.source) from None
    raise ScenarioError(f"--param {param}: tune solves for a stat or a policy number of a fight or the party "
                        "(steps.FIGHT.PATH or party.PATH).")


def tune_day(path, param: str, metric: str, target: float, lo: int | None = None, hi: int | None = None,
             days: int | None = None, seed: int | None = None, jobs: int = 1, max_days: int | None = None,
             overrides: dict | None = None, progress=None) -> pd.DataFrame:
    """The value of `param` in lo..hi whose `metric` (a day rate) is closest to `target`:
    one row per value played, with its rate and interval, days, role (answer, below,
    above, probe) and its paired difference to the answer; `df.attrs["analysis"]`
    holds status ("found" or "unreachable") and the message."""
    import sim.day
    day = day_variant(path if isinstance(path, Day) else sim.day.load_day(path, days=days, seed=seed),
                      overrides or {})
    if param.split(".")[0] not in ("steps", "party"):
        raise ScenarioError(f"--param {param}: a day is tuned over a stat or policy number of a fight "
                            "(steps.FIGHT.PATH) or of the party (party.PATH).")
    current, scen, where = _current(day, param)
    value_of, lo, hi = search_space(scen, where, current, lo, hi)
    n = int(days or day.run["days"])
    ev = _Days(day, param, metric, value_of, n, int(max_days or 8 * n), jobs, progress)
    candidates, status = bracket(lambda v: ev.side_of_target(v, target), lo, hi, SCAN_POINTS)
    if status == "unreachable":
        candidates = sorted(ev.values)
    most = max(len(ev.values[v]) for v in candidates)
    answer = min(candidates, key=lambda v: (abs(ev.rate(v, most)[0] - target), v))
    return _table(day, ev, param, metric, target, lo, hi, answer, status)


def _table(day, ev: _Days, param, metric, target, lo, hi, answer, status) -> pd.DataFrame:
    neighbours = [v for v in (answer - 1, answer + 1) if lo <= v <= hi]
    most = max(len(ev.values[v]) for v in ev.values)
    for v in neighbours:
        ev.play(v, len(ev.values[answer]))
    rate, rlo, rhi, n = ev.rate(answer, len(ev.values[answer]))
    rows = []
    for v in sorted(ev.values):
        k = min(len(ev.values[v]), len(ev.values[answer]))
        r, r_lo, r_hi, days = ev.rate(v, len(ev.values[v]))
        d = (0.0, 0.0, 0.0) if v == answer else paired_diff(ev.values[answer][:k], ev.values[v][:k])
        role = "answer" if v == answer else ("below" if v == answer - 1 else "above" if v == answer + 1 else "probe")
        rows.append({"value": ev.value_of(v), "position": v, "role": role, metric: r, f"{metric}_lo": r_lo,
                     f"{metric}_hi": r_hi, "days": days, "diff_vs_answer": d[0], "diff_vs_answer_lo": d[1],
                     "diff_vs_answer_hi": d[2]})
    found = (f"{param} = {ev.value_of(answer)} gives {metric} {100 * rate:.1f}% [{100 * rlo:.1f}, {100 * rhi:.1f}] "
             f"over {n:,} days, the nearest to the target {100 * target:.1f}% in {ev.value_of(lo)}..{ev.value_of(hi)}.")
    message = found if status == "found" else (
        f"unreachable: no value of {param} in {ev.value_of(lo)}..{ev.value_of(hi)} brings {metric} to "
        f"{100 * target:.1f}%; the nearest is {ev.value_of(answer)} at {100 * rate:.1f}%.")
    meta = {"command": "tune", "what": "day", "day": day.name, "day_file": day.source, "param": param,
            "metric": metric, "target": target, "range": [ev.value_of(lo), ev.value_of(hi)], "answer":
            ev.value_of(answer), "status": status, "message": message, "seed": int(day.run["seed"]),
            "max_days_played": most}
    df = frame(rows, meta)
    df.attrs["analysis"] = meta
    return df


__all__ = ["parse_day_target", "tune_day"]
