"""Pages of the ranked analyses over a day: `skirmish sensitivity DAY --report DIR`
(report_day_sensitivity), `skirmish tournament DAY --report DIR` (report_day_tournament)
and `skirmish day DAY --where-to-rest REST --report DIR` (report_where_to_rest).

Each ranks its rows by a paired change on the same days and draws it with the comparison
page's dot-and-interval chart (sim.report.compare.difference_figure: dark where the
interval misses zero); the entrants and placements also get their day survival with its
Wilson interval as bars.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from sim.report.compare import difference_figure
from sim.report.day_analyses import (MEANS, base_day, change_text, clear, interval, paired_cells,
                                     metric_noun, relabelled, write_day_page)
from sim.report.designs import policy_label_table
from sim.report.figures import CI_NOTE, pct, rate_axis, rate_bars
from sim.report.html import Section
from sim.report.style import OKABE_ITO, new_figure, rows_height, short, styled

FIGURE_ROWS = 20  # the steps a sensitivity chart draws; the table lists them all


@styled
def day_survival_figure(labels, rate, lo, hi, title: str):
    """Day survival of each entrant or placement, in the given order, with 95% whiskers."""
    fig, ax = new_figure(rows_height(len(labels), extra=1.6))
    y = np.arange(len(labels))
    rate_bars(ax, y, 100 * np.asarray(rate, float), 100 * np.asarray(lo, float), 100 * np.asarray(hi, float),
              color=OKABE_ITO["blue"], height=0.6)
    rate_axis(ax, y, [short(s, 34) for s in labels], len(labels))
    ax.set_title(title)
    ax.set_xlabel(f"Days lived through (%; {CI_NOTE})")
    return fig


def paired_figure(labels, base, value, d, lo, hi, metric: str, against: str, title: str):
    """The paired changes, in the given order, against `against` (the comparison page's chart)."""
    kind = "mean" if metric in MEANS else "rate"
    rows = pd.DataFrame({"figure": list(labels), "kind": kind, "a": base, "b": value, "diff": d, "diff_lo": lo,
                         "diff_hi": hi})
    unit = "per day" if kind == "mean" else "points"
    return relabelled(difference_figure(rows, kind, title=title),
                      xlabel=f"Change in {metric_noun(metric)} against {against} ({unit})\n"
                             "paired 95% interval; black: clear (misses 0), grey: not clear")


# ------------------------------------------------------------------ sensitivity

def _sensitivity_key(meta: dict) -> tuple[str, str]:
    metric = meta.get("metric", "day.survival")
    return metric, "delta" if metric == "day.survival" else "metric.delta"


def _step_name(r: dict) -> str:
    """`Toromeen: battle axe.damage d8 -> d6`: a weapon by its name, the step without its note."""
    stat = re.sub(r"^\w+\[\d+\] \(([^)]*)\)", r"\1", str(r["stat"]))
    return f"{r['combatant']}: {stat} {str(r['label']).split(' (')[0]}"


def sensitivity_verdict(df: pd.DataFrame) -> list[str]:
    meta = df.attrs["analysis"]
    metric, key = _sensitivity_key(meta)
    top = df.iloc[0]
    written = f"{meta['base_metric']:.2f}" if metric in MEANS else pct(meta.get("base_metric", meta["base_survival"]))
    out = [f"{top['combatant']}'s {top['stat']} ({top['label']}) moves {metric_noun(metric)} most: "
           f"{change_text(top[key], top[key + '_lo'], top[key + '_hi'], metric)} on the same days, against "
           f"{written} as written."]
    flat = int((~df["significant"]).sum())
    if flat:
        out.append(f"{flat} of {len(df)} steps make no clear change (the interval holds 0).")
    return out


def sensitivity_table(df: pd.DataFrame) -> pd.DataFrame:
    """The table `skirmish sensitivity DAY` prints, every step of it."""
    metric, key = _sensitivity_key(df.attrs["analysis"])
    scale, digits = (1, 2) if metric in MEANS else (100, 1)
    out = pd.DataFrame({"rank": df["rank"].to_numpy(), "combatant": df["combatant"].to_numpy(),
                        "stat": df["stat"].to_numpy(), "step": df["label"].to_numpy(),
                        "survives the day %": 100 * df["survival"].to_numpy(float),
                        "95% interval": interval(df["survival_lo"], df["survival_hi"]),
                        "survival change, pts": paired_cells(df, "delta"),
                        "deaths per day change": paired_cells(df, "deaths_delta", 1, 2)})
    if metric not in ("day.survival", "day.deaths"):  # those two have their columns already
        out[f"{metric} change"] = paired_cells(df, key, scale, digits)
    out["clear change"] = np.where(df["significant"], "yes", "no")
    return out


def sensitivity_figures(df: pd.DataFrame) -> list[tuple[str, object]]:
    """The largest paired changes, biggest first, with their intervals."""
    metric, key = _sensitivity_key(df.attrs["analysis"])
    meta = df.attrs["analysis"]
    top = df.head(FIGURE_ROWS)
    value = top["survival" if metric == "day.survival" else "metric.value"]
    return [("day-sensitivity", paired_figure(
        [_step_name(r) for r in top.to_dict("records")], meta["base_metric"], value, top[key], top[key + "_lo"],
        top[key + "_hi"], metric, "the day as written", f"Which party stats move {metric_noun(metric)} most"))]


def report_day_sensitivity(df: pd.DataFrame, out_dir, day=None, overrides: dict | None = None,
                           title: str | None = None) -> Path:
    """The page of sim.day.sensitivity.sensitivity_day's table: the steps ranked by their
    paired change with its interval, the whole table, the verdict."""
    meta = df.attrs["analysis"]
    shown = min(len(df), FIGURE_ROWS)
    drawn = f"the {shown} largest of {len(df)}" if len(df) > shown else f"all {len(df)}"
    sec = Section("Which stats matter over the day", [
        f"Each numeric stat of the party's members one step up and one step down in every fight, each step played "
        f"on the same {meta['days']:,} days as the day as written; the chart draws {drawn} changes, biggest first."],
        sensitivity_figures(df), [("Every step, ranked by the size of its change", sensitivity_table(df))])
    return write_day_page(out_dir, df, base_day(df, day), overrides,
                          title or "Sensitivity: what each party stat is worth", sensitivity_verdict(df), [sec],
                          {"metric": _sensitivity_key(meta)[0]})


# ------------------------------------------------------------------ tournament

def _entrant(r: dict, keys: list[str]) -> str:
    return ", ".join(f"{k} {r[f'policy.{k}']}" for k in keys)


def tournament_table(df: pd.DataFrame) -> pd.DataFrame:
    """The table `skirmish tournament DAY` prints, one row an entrant, best first."""
    keys = list(df.attrs["analysis"]["policies"])
    return pd.DataFrame({
        "rank": df["rank"].to_numpy(), "policies": [_entrant(r, keys) for r in df.to_dict("records")],
        "survives the day %": 100 * df["day.survival"].to_numpy(float),
        "95% interval": interval(df["day.survival_lo"], df["day.survival_hi"]),
        "vs best, pts": paired_cells(df, "vs_best", blank=(0,)),
        "nobody dies %": 100 * df["day.nobody_dies"].to_numpy(float),
        "deaths per day": df["day.deaths"].to_numpy(float), "fights won per day": df["day.fights_won"].to_numpy(float)})


def tournament_figures(df: pd.DataFrame) -> list[tuple[str, object]]:
    """The entrants' day survival, best first, and each one's paired change against the best."""
    keys = list(df.attrs["analysis"]["policies"])
    labels = [_entrant(r, keys) for r in df.to_dict("records")]
    figs = [("day-tournament", day_survival_figure(labels, df["day.survival"], df["day.survival_lo"],
                                                   df["day.survival_hi"], "Entrants ranked by day survival"))]
    if len(df) > 1:
        rest = df.iloc[1:]
        figs.append(("day-tournament-vs-best", paired_figure(
            labels[1:], df["day.survival"].iloc[0], rest["day.survival"], rest["vs_best"], rest["vs_best_lo"],
            rest["vs_best_hi"], "day.survival", "the best", "Each entrant against the best, on the same days")))
    return figs


def report_day_tournament(df: pd.DataFrame, out_dir, day=None, overrides: dict | None = None,
                          title: str | None = None) -> Path:
    """The page of sim.day.tournament.tournament_day's table: the entrants ranked with
    their day survival and its interval, each one's paired change against the best, the
    policy labels and the verdict."""
    meta = df.attrs["analysis"]
    sec = Section("Entrants ranked", [
        f"Every combination of the listed policies played on the same {meta['days']:,} days; a clear best only "
        "when the runner-up's paired interval lies below zero."], tournament_figures(df),
        [("Entrants, best first", tournament_table(df)),
         ("What each policy label sets (over the policy the side has in each fight)",
          policy_label_table(meta.get("specs")))])
    return write_day_page(out_dir, df, base_day(df, day), overrides, title or "Tournament of policies over the day",
                          [meta["verdict"]], [sec], {"policies": meta["policies"]})


# ------------------------------------------------------------------ where to rest

def where_to_rest_verdict(df: pd.DataFrame) -> list[str]:
    from sim.day.placement import where_to_rest_text
    written = df.iloc[0]
    out = [f"As written, with the rest {df.attrs['analysis']['rest']!r} after {written['after']!r}, the party lives "
           f"through the day on {pct(written['survival'])} of days ({pct(written['survival_lo'])} to "
           f"{pct(written['survival_hi'])})."]
    moved = df.iloc[1:]
    if len(moved):
        k = int(np.argmax(moved["diff"].to_numpy(float)))
        r = moved.iloc[k]
        how = "a clear change" if clear(r["diff_lo"], r["diff_hi"]) else "no clear change (the interval holds 0)"
        out.append(f"Moved after {r['after']!r} it gives {change_text(r['diff'], r['diff_lo'], r['diff_hi'])} "
                   f"on the same days, {how}.")
    return out + [where_to_rest_text(df).splitlines()[-1]]


def where_to_rest_table(df: pd.DataFrame) -> pd.DataFrame:
    """The table `skirmish day DAY --where-to-rest REST` prints, one row a placement."""
    return pd.DataFrame({
        "rest after": df["after"].to_numpy(), "survives the day %": 100 * df["survival"].to_numpy(float),
        "95% interval": interval(df["survival_lo"], df["survival_hi"]),
        "vs as written, pts": paired_cells(df, "diff", blank=(0,)),
        "deaths per day": df["deaths"].to_numpy(float), "fights won per day": df["fights_won"].to_numpy(float)})


def where_to_rest_figures(df: pd.DataFrame) -> list[tuple[str, object]]:
    """Each placement's day survival, and its paired change against the day as written."""
    rest = df.attrs["analysis"]["rest"]
    labels = [f"after {a}" + (" (as written)" if w else "") for a, w in zip(df["after"], df["as_written"])]
    figs = [("where-to-rest", day_survival_figure(labels, df["survival"], df["survival_lo"], df["survival_hi"],
                                                  f"Day survival with the rest {rest!r} after each fight"))]
    if len(df) > 1:
        moved = df.iloc[1:]
        figs.append(("where-to-rest-vs-written", paired_figure(
            labels[1:], df["survival"].iloc[0], moved["survival"], moved["diff"], moved["diff_lo"], moved["diff_hi"],
            "day.survival", "the day as written", "Each placement against the day as written, on the same days")))
    return figs


def report_where_to_rest(df: pd.DataFrame, out_dir, day=None, title: str | None = None) -> Path:
    """The page of sim.day.placement.where_to_rest's table: each placement's day survival
    with its interval and its paired change against the day as written."""
    meta = df.attrs["analysis"]
    sec = Section("Each placement of the rest", [
        f"The rest {meta['rest']!r} tried after each fight but the last, every placement on the same "
        f"{meta['days']:,} days (moving a step moves no dice)."], where_to_rest_figures(df),
        [("Placements, the day as written first", where_to_rest_table(df))])
    return write_day_page(out_dir, df, base_day(df, day), None, title or f"Where to rest: {meta['rest']!r}",
                          where_to_rest_verdict(df), [sec], {"rest": meta["rest"]})


__all__ = ["report_day_sensitivity", "report_day_tournament", "report_where_to_rest", "sensitivity_figures",
           "tournament_figures", "where_to_rest_figures"]
