"""What each party stat is worth over a day: every numeric stat of the party's members one
step up and one step down, in every fight, priced in points of day survival on the same
days (`skirmish sensitivity DAY`, sim.day.sensitivity.sensitivity_day).

The steps are the scenario sensitivity's (sim.analysis.sensitivity): the next value the
rules read differently, a die along the die ladder; a carried resource is a stat like
any other here (survival, verve, a spell's `uses`, a healing item's `uses`), so "+1 spell
use" is a row.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from sim.analysis.common import frame, paired_diff
from sim.analysis.sensitivity import next_read_step, rules_input, stat_blocks, stat_steps, step_label
from sim.day.spec import Day
from sim.day.variants import day_variant, join_path
from sim.errors import ScenarioError, closest
from sim.overrides import side_path, split_path
from sim.stats import mean_ci, wilson


def party_steps(day: Day, members: list[str] | None = None) -> list[tuple]:
    """(member, stat, day path, old, new, label) for every numeric stat of the members."""
    first = day.fights[0]
    scen, side = first.scenario, first.scenario.side_names[first.party_index]
    chosen = members or day.members
    unknown = [m for m in chosen if m not in day.members]
    if unknown:
        raise ScenarioError(f"--combatant {unknown[0]!r} is not in the party ({', '.join(day.members)}); a day's "
                            "sensitivity steps the party's stats.", file=day.source)
    prefix = len(split_path(side_path(side, "x"))) - 1  # the parts of "sides.SIDE."
    base_input = rules_input(scen)
    out = []
    for s, _, raw in stat_blocks(scen, chosen):
        if s != side:
            continue
        for stat, path, old, new, step in stat_steps(scen, side, 0, raw):
            found = next_read_step(scen, base_input, path, old, new, step)
            if found is None:
                continue
            new, _, kind = found
            out.append((raw["name"], stat, "party." + join_path(split_path(path)[prefix:]), old, new, step,
                        step_label(old, new, kind)))
    return out


def sensitivity_day(path, members: list[str] | None = None, days: int | None = None, seed: int | None = None,
                    jobs: int = 1, overrides: dict | None = None, progress=None,
                    metric: str = "day.survival") -> pd.DataFrame:
    """One row per (member, stat, step): the day's survival with the change, its paired
    difference to the day as written (points, 95% interval) and the change in deaths per
    day; ranked by the size of the survival change. `metric` (a day figure of
    sim.day.compare.per_day: day.nobody_dies, day.deaths, day.fights_won, fight.NAME.lost,
    MEMBER.dead) adds its value and paired change per row (`metric.*`) and ranks by that."""
    import sim.day
    day = day_variant(path if isinstance(path, Day) else sim.day.load_day(path, days=days, seed=seed),
                      overrides or {})
    if days is not None:
        day = dataclasses.replace(day, run={**day.run, "days": int(days)})
    check_metric(day, metric)
    steps = party_steps(day, members)
    if not steps:
        raise ScenarioError("the party's members have no numeric stats to step.", file=day.source)

    def played(d: Day):
        result = sim.day.run(d, jobs=jobs, progress=progress)
        table = result.days.sort_values("day")
        return table["survived"].to_numpy(float), table["deaths"].to_numpy(float), day_metric(result, metric)

    base_survived, base_deaths, base_metric = played(day)
    rows = []
    for member, stat, dpath, old, new, step, label in steps:
        survived, deaths, measured = played(day_variant(day, {dpath: new}))
        lo, hi = wilson(int(survived.sum()), len(survived))
        d, d_lo, d_hi = paired_diff(base_survived, survived)
        dd = paired_diff(base_deaths, deaths)
        rows.append({"combatant": member, "stat": stat, "path": dpath, "step": "+1" if step > 0 else "-1",
                     "old": str(old), "new": str(new), "label": label, "days": len(survived),
                     "base_survival": float(base_survived.mean()), "survival": float(survived.mean()),
                     "survival_lo": float(lo), "survival_hi": float(hi), "delta": d, "delta_lo": d_lo,
                     "delta_hi": d_hi, "deaths_delta": dd[0], "deaths_delta_lo": dd[1], "deaths_delta_hi": dd[2],
                     "significant": bool(d_lo > 0 or d_hi < 0)})
        m = paired_diff(base_metric, measured)
        rows[-1].update({"metric": metric, "metric.value": float(measured.mean()), "metric.delta": m[0],
                         "metric.delta_lo": m[1], "metric.delta_hi": m[2]})
        if metric != "day.survival":
            rows[-1]["significant"] = bool(m[1] > 0 or m[2] < 0)
    meta = {"command": "sensitivity", "what": "day", "day": day.name, "day_file": day.source, "day_hash": day.hash,
            "days": int(day.run["days"]), "seed": int(day.run["seed"]), "metric": metric,
            "base_survival": float(base_survived.mean()), "base_deaths": mean_ci(base_deaths)[0],
            "base_metric": float(base_metric.mean())}
    df = frame(rows, meta)
    key = "delta" if metric == "day.survival" else "metric.delta"
    df = df.loc[df[key].abs().sort_values(ascending=False, kind="stable").index].reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    df.attrs["analysis"] = meta
    return df


MEANS = ("day.deaths", "day.fights_won")  # the day figures that are counts per day, not shares of days


def day_metrics(day: Day) -> list[str]:
    """The figures a day's sensitivity can price: sim.day.compare.per_day's."""
    return (["day.survival", "day.nobody_dies", *MEANS] + [f"fight.{f.name}.lost" for f in day.fights]
            + [f"{m}.dead" for m in day.members])


def check_metric(day: Day, metric: str) -> None:
    names = day_metrics(day)
    if metric not in names:
        raise ScenarioError(f"--metric {metric!r} is not a figure of this day.{closest(metric, names)} Give one of: "
                            f"{', '.join(names)}.", file=day.source)


def day_metric(result, metric: str):
    """One value per day, in day order, of a figure of sim.day.compare.per_day."""
    from sim.day.compare import per_day
    return per_day(result)[metric][2]


def sensitivity_day_text(df: pd.DataFrame, top: int = 25) -> str:
    meta = df.attrs["analysis"]
    metric = meta.get("metric", "day.survival")
    rate = metric not in MEANS
    scale, unit = (100, "points") if rate else (1, "per day")
    what = (f"the day's survival ({100 * meta['base_survival']:.1f}% as written)" if metric == "day.survival" else
            f"{metric} ({scale * meta['base_metric']:.{1 if rate else 2}f}{'%' if rate else ''} as written)")
    lines = [f"{meta['day']}: each party stat one step up and down in every fight, {meta['days']:,} days each, "
             f"seed {meta['seed']}, the same days; {what} changes by, in {unit} with paired 95% intervals:", ""]
    key = "delta" if metric == "day.survival" else "metric.delta"
    for r in df.head(top).to_dict("records"):
        mark = "" if r["significant"] else "  (no clear change)"
        lines.append(f"  {r['rank']:>3}. {r['combatant'][:18]:<18} {r['stat'][:36]:<36} {r['label'][:30]:<30} "
                     f"{scale * r[key]:+6.2f} [{scale * r[key + '_lo']:+.2f}, {scale * r[key + '_hi']:+.2f}]{mark}")
    if len(df) > top:
        lines.append(f"  ... and {len(df) - top} more (--json or --out for the whole table)")
    return "\n".join(lines)


__all__ = ["party_steps", "sensitivity_day", "sensitivity_day_text"]
