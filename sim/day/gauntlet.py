"""The gauntlet: one scenario's fight again and again (`skirmish gauntlet`, sim.day.gauntlet).

A day of K copies of the fight ("fight 1" .. "fight K", each keyed by its name), the
party carrying its state from one into the next with a rest between as `rest` says;
the day ends at the first fight lost. S(k), the chance the party wins at least k in a
row, is the share of days on which fight k was won (S(0) = 1). N50 is the largest k with
S(k) >= 1/2; a k whose 95% interval holds 1/2 is undecided at this many days.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.day.spec import REST_KINDS, Day, build_day
from sim.errors import ScenarioError
from sim.stats import wilson

DEFAULT_UNTIL = 20
DEFAULT_DAYS = 10_000
_REST = re.compile(r"^\s*(?P<kind>[a-z]+)(\s+every\s+(?P<every>\d+))?\s*$")


def parse_rest(text: str | None) -> tuple[str, int] | None:
    """'none' -> None; 'short' -> ('short', 1); 'night every 3' -> ('night', 3)."""
    if text is None or text.strip() == "none":
        return None
    m = _REST.match(text)
    if not m or m["kind"] not in REST_KINDS or (m["every"] is not None and int(m["every"]) < 1):
        raise ScenarioError(f"--rest {text!r} is not a rest: give KIND or 'KIND every N' with KIND one of "
                            f"{', '.join(REST_KINDS)} and N a whole number from 1 (a rest after every Nth fight), "
                            "or 'none'.")
    return m["kind"], int(m["every"] or 1)


def gauntlet_day(scenario, party: str, rest: str | None = None, until: int = DEFAULT_UNTIL,
                 days: int | None = None, seed: int | None = None) -> Day:
    """The day of `until` copies of `scenario`'s fight for its side `party`."""
    from sim.scenario import read_scenario_file
    path = Path(scenario).resolve()
    raw, _ = read_scenario_file(path)
    if isinstance(raw, dict) and "steps" in raw and "party" in raw:
        raise ScenarioError("is a day file; the gauntlet repeats one scenario's fight: give the scenario file "
                            "(a day's `scenario:` steps name them), or play the day with `skirmish day`.",
                            file=str(scenario))
    if not isinstance(raw, dict) or not isinstance(raw.get("sides"), dict):
        raise ScenarioError("must be a scenario with `sides:`; the gauntlet fights one scenario's fight again "
                            "and again.", file=str(scenario))
    if party not in raw["sides"]:
        raise ScenarioError(f"--party {party!r} is not a side of {scenario} (its sides: "
                            f"{', '.join(map(str, raw['sides']))}); name the side that runs the gauntlet.")
    if not 1 <= int(until) <= 1000:
        raise ScenarioError(f"--until {until} is outside 1..1000; give how many fights in a row to try at most.")
    resting = parse_rest(rest)
    steps: list[dict] = []
    for k in range(1, int(until) + 1):
        steps.append({"fight": f"fight {k}", "scenario": str(path), "party_side": party})
        if resting and k % resting[1] == 0 and k < until:
            steps.append({"rest": f"rest after fight {k}", "kind": resting[0]})
    run = raw.get("run") if isinstance(raw.get("run"), dict) else {}
    data = {"name": f"{raw.get('name') or path.stem}: the gauntlet", "ruleset": raw.get("ruleset"),
            "party": {"side": party, "from": {"scenario": str(path), "side": party}}, "steps": steps,
            "stop_when": "party_out",
            "run": {"days": int(days or DEFAULT_DAYS), "seed": int(run.get("seed", 0) if seed is None else seed)}}
    # The day has no file of its own: it is named after the scenario it repeats.
    return build_day(data, path.with_name(f"{path.stem}.gauntlet"), None, None)


@dataclass
class Gauntlet:
    """S(k) for k = 0..K (`curve`: k, won, days, rate, ci95_low, ci95_high), N50, and
    the day played (`day_result`, its tables and figures)."""
    curve: pd.DataFrame
    n50: int
    n50_at_least: bool
    undecided: list[int]
    day_result: object
    rest: str
    meta: dict = field(default_factory=dict)

    def summary(self) -> dict:
        rows = [{"k": int(r.k), "rate": float(r.rate), "ci95": [float(r.ci95_low), float(r.ci95_high)]}
                for r in self.curve.itertuples()]
        return {"gauntlet": self.day_result.day.name, "days": int(self.day_result.aggregate.n), "rest": self.rest,
                "survival_curve": rows, "n50": self.n50, "n50_at_least": self.n50_at_least,
                "undecided": self.undecided, "provenance": self.meta}

    def summary_text(self) -> str:
        n, K = int(self.day_result.aggregate.n), len(self.curve) - 1
        lines = [f"{self.day_result.day.name} ({self.day_result.day.ruleset_name}): {n:,} days of up to {K} fights "
                 f"in a row, rest: {self.rest}, seed {self.meta.get('seed')}",
                 "  k  wins at least k in a row   95% interval"]
        for r in self.curve.itertuples():
            if r.k == 0:
                continue
            flag = "  undecided" if r.k in self.undecided else ""
            lines.append(f"  {r.k:<3d}{100 * r.rate:8.1f}%               [{100 * r.ci95_low:.1f}, "
                         f"{100 * r.ci95_high:.1f}]{flag}")
            if r.rate == 0:
                break
        lines.append("")
        lines.append(n50_sentence(self))
        return "\n".join(lines)


def n50_sentence(g: Gauntlet) -> str:
    K = len(g.curve) - 1
    if g.n50_at_least:
        return (f"N50: at least {K}: the party wins {K} in a row on half the days or more; give a larger --until "
                "to find where it falls below half.")
    said = f"N50 = {g.n50}: the most fights in a row the party wins on at least half the days"
    if g.undecided:
        said += (f"; undecided at this many days: k = {', '.join(map(str, g.undecided))} "
                 "(the interval holds 1/2; play more days to settle it)")
    return said + "."


def survival_curve(won: np.ndarray, n: int) -> pd.DataFrame:
    """S(k) from the count of days on which each fight k = 1..K was won, with Wilson intervals."""
    counts = np.concatenate([[n], np.asarray(won, np.int64)])
    lo, hi = wilson(counts, np.full(len(counts), n))
    return pd.DataFrame({"k": np.arange(len(counts)), "won": counts, "days": n, "rate": counts / n,
                         "ci95_low": lo, "ci95_high": hi})


def n50_of(curve: pd.DataFrame) -> tuple[int, bool, list[int]]:
    """(N50, whether S(K) itself is at least 1/2, the k >= 1 whose interval holds 1/2)."""
    above = curve.index[curve["rate"] >= 0.5]
    n50 = int(curve.loc[above, "k"].max())
    holds = (curve["ci95_low"] <= 0.5) & (curve["ci95_high"] >= 0.5) & (curve["k"] >= 1)
    return n50, n50 == int(curve["k"].iloc[-1]), [int(k) for k in curve.loc[holds, "k"]]


def gauntlet(scenario, party: str, rest: str | None = None, until: int = DEFAULT_UNTIL, days: int | None = None,
             seed: int | None = None, jobs: int = 1, progress=None) -> Gauntlet:
    """Play the gauntlet of `scenario`'s fight for side `party` (see the module's text)."""
    import sim.day
    day = gauntlet_day(scenario, party, rest, until, days, seed)
    result = sim.day.run(day, jobs=jobs, progress=progress)
    won = result.aggregate.counts["fight"][:, 4]
    curve = survival_curve(won, int(result.aggregate.n))
    n50, at_least, undecided = n50_of(curve)
    meta = {**result.meta, "scenario_file": str(Path(scenario).resolve()), "party": party,
            "rest": rest or "none", "until": int(until)}
    meta.pop("day_file", None)
    return Gauntlet(curve, n50, at_least, undecided, result, rest or "none", meta)


__all__ = ["Gauntlet", "gauntlet", "gauntlet_day", "n50_of", "parse_rest", "survival_curve"]
