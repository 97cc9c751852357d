"""Where to rest: one rest of a day tried after each fight, every placement on the same
days (`skirmish day FILE --where-to-rest NAME`, sim.day.placement.where_to_rest).

Moving a step moves no dice: each fight and rest is keyed by its own name, so day k of
every placement meets the same blows, and the differences between placements are
paired day by day.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd

from sim.analysis.common import frame, paired_diff
from sim.day.spec import Day, build_day, load_day
from sim.errors import ScenarioError
from sim.stats import mean_ci, wilson

COLUMNS = ["placement", "after", "as_written", "survival", "survival_lo", "survival_hi", "diff", "diff_lo",
           "diff_hi", "deaths", "deaths_lo", "deaths_hi", "fights_won"]


def placements(day: Day, rest: str) -> list[tuple[str, list]]:
    """(the fight the rest follows, the steps' data with the rest there), as written first,
    then after each other fight but the last (a rest after the last fight gives nothing)."""
    raw = day.data["steps"]
    names = [str(s.get("fight", s.get("rest"))) for s in raw]
    rests = [n for s, n in zip(raw, names) if "rest" in s]
    if rest not in rests:
        raise ScenarioError(f"--where-to-rest {rest!r} names no rest of the day (its rests: "
                            f"{', '.join(map(repr, rests)) or 'none'}); name one of them.", file=day.source)
    i = names.index(rest)
    step, others = raw[i], raw[:i] + raw[i + 1:]
    fights = [k for k, s in enumerate(others) if "fight" in s]
    written = next((str(others[k]["fight"]) for k in reversed(fights) if k < i), "(before any fight)")
    out = [(written, raw)]
    for k in fights[:-1]:
        after = str(others[k]["fight"])
        if after != written:
            out.append((after, others[:k + 1] + [step] + others[k + 1:]))
    return out


def where_to_rest(path, rest: str, days: int | None = None, seed: int | None = None, jobs: int = 1,
                  progress=None) -> pd.DataFrame:
    """One row per placement of the rest named `rest`: the day's survival with its 95%
    interval, its paired difference to the day as written, deaths per day and fights won.
    The first row is the day as written."""
    import sim.day
    day = path if isinstance(path, Day) else load_day(path, days=days, seed=seed)
    rows, base = [], None
    for k, (after, steps) in enumerate(placements(day, rest)):
        data = copy.deepcopy(day.data)
        data["steps"] = steps
        variant = build_day(data, Path(day.source), int(day.run["days"]), int(day.run["seed"]))
        table = sim.day.run(variant, jobs=jobs, progress=progress).days.sort_values("day")
        survived, deaths = table["survived"].to_numpy(float), table["deaths"].to_numpy(float)
        if base is None:
            base = survived
        lo, hi = wilson(int(survived.sum()), len(survived))
        d_mean, d_lo, d_hi = mean_ci(deaths)
        diff = paired_diff(base, survived) if k else (0.0, 0.0, 0.0)
        rows.append({"placement": k, "after": after, "as_written": k == 0, "survival": float(survived.mean()),
                     "survival_lo": float(lo), "survival_hi": float(hi), "diff": diff[0], "diff_lo": diff[1],
                     "diff_hi": diff[2], "deaths": d_mean, "deaths_lo": d_lo, "deaths_hi": d_hi,
                     "fights_won": float(table["fights_won"].mean())})
    meta = {"command": "where_to_rest", "rest": rest, "day": day.name, "day_file": day.source,
            "day_hash": day.hash, "days": int(day.run["days"]), "seed": int(day.run["seed"])}
    df = frame(rows, meta)[COLUMNS]
    df.attrs["analysis"] = meta
    return df


def where_to_rest_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    lines = [f"{meta['day']}: the rest {meta['rest']!r} after each fight, {meta['days']:,} days each, seed "
             f"{meta['seed']}, the same days (paired); 95% intervals.", "",
             f"  {'rest after':<28}{'survives the day':>24}   {'vs as written, pts':>22}   deaths/day"]
    for r in df.itertuples():
        diff = "as written" if r.as_written else f"{100 * r.diff:+.1f} [{100 * r.diff_lo:+.1f}, {100 * r.diff_hi:+.1f}]"
        lines.append(f"  {r.after[:27]:<28}{100 * r.survival:>8.1f}% [{100 * r.survival_lo:.1f}, "
                     f"{100 * r.survival_hi:.1f}]   {diff:>22}   {r.deaths:.3f}")
    best = df.loc[df["survival"].idxmax()]
    clear = best["as_written"] or best["diff_lo"] > 0
    lines += ["", f"Best: after {best['after']!r}" + ("" if clear else
              " (no clear best: its interval against the day as written holds 0)") + "."]
    return "\n".join(lines)


__all__ = ["placements", "where_to_rest", "where_to_rest_text"]
