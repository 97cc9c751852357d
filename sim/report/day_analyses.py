"""Pages of the analyses over a day against a value: `skirmish sweep DAY --vary ... --report DIR`
(report_day_sweep) and `skirmish tune DAY ... --report DIR` (report_day_tune); and what every
page of an analysis over a day shares (sim/report/day_rankings.py holds the ranked ones).

A day's figures are drawn by the scenario analyses' figure functions (a day plays the part
of a side whose "win" is living through the day) with the axes and legends saying so; the
provenance names the day file, its hash, the seed, the days, the --set overrides and the
version, and the stat blocks of every fight follow, as the day's own page has them.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from sim.report import analysis_figures as af
from sim.report.designs import design_section, overrides_text
from sim.report.figures import pct
from sim.report.html import Section, write_report
from sim.report.style import styled

SERIES = "day"  # the one "side" of a day's frames as the figure functions read them
MEANS = ("day.deaths", "day.fights_won")  # per-day counts; every other day figure is a share of days


def metric_words(metric: str) -> str:
    """What a day figure measures, as a sentence names it."""
    fixed = {"day.survival": "the party lives through the day", "day.nobody_dies": "nobody dies",
             "day.deaths": "deaths per day", "day.fights_won": "fights won per day"}
    if metric in fixed:
        return fixed[metric]
    if metric.startswith("fight.") and metric.endswith(".lost"):
        return f"the party loses {metric[len('fight.'):-len('.lost')]!r}"
    if metric.endswith(".dead"):
        return f"{metric[:-len('.dead')]} dies"
    return metric


def metric_noun(metric: str) -> str:
    """A day figure as an axis or a title names it, in few words."""
    fixed = {"day.survival": "day survival", "day.nobody_dies": "days nobody dies", "day.deaths": "deaths per day",
             "day.fights_won": "fights won per day"}
    if metric in fixed:
        return fixed[metric]
    if metric.startswith("fight.") and metric.endswith(".lost"):
        return f"{metric[len('fight.'):-len('.lost')]!r} lost"
    return f"{metric[:-len('.dead')]} dead" if metric.endswith(".dead") else metric


def change_text(d: float, lo: float, hi: float, metric: str = "day.survival") -> str:
    """A paired change as the pages write it: points of a share, or a count per day."""
    if metric in MEANS:
        return f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}] per day"
    return f"{100 * d:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def clear(lo: float, hi: float) -> bool:
    return bool(lo > 0 or hi < 0)


def day_path_label(path) -> str:
    """`party.combatants[Toromeen].survival` -> `Toromeen: survival`; a fight's path is
    named by its fight: `the yeti: Yeti: defense`."""
    from sim.day.variants import join_path
    from sim.overrides import split_path
    parts = split_path(str(path))
    head = parts[0] if parts else ""
    if head == "party" and len(parts) > 1:
        return af.path_label(join_path(["sides", "party", *parts[1:]])).replace("party policy", "the party's policy")
    if head == "steps" and len(parts) > 2:
        fight = parts[1][1] if isinstance(parts[1], tuple) else parts[1]
        return f"{fight}: {af.path_label(join_path(parts[2:]))}"
    return af.path_label(path)


@styled
def relabelled(fig, xlabel: str | None = None, ylabel: str | None = None, legend: list[str] | None = None,
               colorbar: str | None = None):
    """A scenario analysis figure with its axes saying what a day's figure measures."""
    ax = fig.axes[0]
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if legend is not None and ax.get_legend() is not None:
        for text, label in zip(ax.get_legend().get_texts(), legend):
            text.set_text(label)
    if colorbar is not None and len(fig.axes) > 1:
        fig.axes[1].set_ylabel(colorbar)
    return fig


def rate_columns(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The frame with the day figure `metric` (share 0..1) as the figures' one series."""
    out = frame.copy()
    out[f"{SERIES}_win_rate"], out[f"{SERIES}_ci_lo"], out[f"{SERIES}_ci_hi"] = (
        frame[metric + tail].to_numpy(float) for tail in ("", "_lo", "_hi"))
    return out


def interval(lo, hi, scale: float = 100, digits: int = 1, sign: str = "") -> list[str]:
    return [f"[{scale * a:{sign}.{digits}f}, {scale * b:{sign}.{digits}f}]" for a, b in zip(lo, hi)]


def paired_cells(frame: pd.DataFrame, key: str, scale: float = 100, digits: int = 1, blank=()) -> list[str]:
    """`+2.4 [+0.8, +4.0]` for each row of the paired change `key` (with `key_lo`, `key_hi`);
    `-` in the rows `blank` (the reference the others are paired against)."""
    cells = interval(frame[key + "_lo"], frame[key + "_hi"], scale, digits, "+")
    return ["-" if k in blank else f"{scale * d:+.{digits}f} {i}" for k, (d, i) in enumerate(zip(frame[key], cells))]


# ------------------------------------------------------------------ what every page shares

def base_day(frame: pd.DataFrame, day=None):
    """The Day the analysis played (its file, before --set): the one given, else the
    analysis' day file read again."""
    import sim.day
    if day is not None and not isinstance(day, (str, os.PathLike)):
        return day
    meta = frame.attrs.get("analysis", {})
    source = day or meta.get("day_file") or frame["day_file"].iloc[0]
    return sim.day.load_day(source, seed=meta.get("seed"))


def day_provenance(frame: pd.DataFrame, day, overrides: dict | None, shown: dict) -> dict:
    """What the provenance block shows: the day (file, hash, ruleset, seed, days, options,
    version), the --set overrides, `shown` (what the analysis varied), each fight's
    scenario (its file from the day file's folder, so a page played elsewhere reads the
    same) and the day file as played."""
    import sim.day
    from sim.report.regenerate import shown_path
    meta = frame.attrs.get("analysis", {})
    out = {k: v for k, v in sim.day.provenance(day).items() if k != "steps"}
    out.update(day_file=shown_path(day.source), seed=int(meta.get("seed", out["seed"])),
               days=meta.get("days", out["days"]))
    if overrides:
        out["overrides"] = dict(overrides)
    out.update(shown)
    if "day_hash" in frame.columns and frame["day_hash"].nunique() > 1:
        out["variant_hashes"] = list(frame["day_hash"])
    folder = Path(day.source).parent
    out["steps"] = {s.name: ({"scenario": s.scenario.name, "scenario_file": Path(os.path.relpath(s.source, folder))
                              .as_posix(), "scenario_hash": s.scenario.hash, "chance": s.chance}
                             if hasattr(s, "scenario") else {"rest": s.kind}) for s in day.steps}
    try:
        out["day_text"] = Path(day.source).read_text(encoding="utf-8")
    except OSError:
        pass
    return out


def fight_sections(day, overrides: dict | None) -> list[Section]:
    """The stat blocks of every fight as played (after --set), as the day's page shows them."""
    from sim.day.variants import day_variant, fight_overrides
    played = day_variant(day, overrides or {})
    per_fight = fight_overrides(day, overrides or {})[0]
    return [design_section(f.scenario, per_fight[f.name], title=f"Fight {f.name!r}: what was played", level=3,
                           anchor="fight-" + f.name.replace(" ", "-")) for f in played.fights]


def write_day_page(out_dir, frame: pd.DataFrame, day, overrides: dict | None, title: str, verdict: list[str],
                   sections: list[Section], shown: dict) -> Path:
    meta = frame.attrs.get("analysis", {})
    if overrides:
        verdict = [*verdict, "Played with " + overrides_text(overrides) + ", not the day file as saved."]
    days = int(meta.get("days", day.run["days"]))
    most = int(meta.get("max_days_played", days))  # a tune plays a value near its target on more days
    sub = f"{day.ruleset_name}, {days:,}{f' to {most:,}' if most > days else ''} days each, seed {meta.get('seed')}"
    note = Section("What the days share", [
        "Every variant plays the same days: day k meets the same dice in each (each fight and rest is keyed "
        "by its name), so the changes between them are paired day by day, with 95% intervals."], level=3)
    return write_report(out_dir, f"{day.name} — {title}", [("", verdict)],
                        [*sections, note, *fight_sections(day, overrides)],
                        [("", day_provenance(frame, day, overrides, shown))], subtitle=sub)


# ------------------------------------------------------------------ sweep

def sweep_verdict(df: pd.DataFrame) -> list[str]:
    meta = df.attrs["analysis"]
    paths = list(meta["vary"])
    rate = df["day.survival"].to_numpy(float)
    label = " and ".join(day_path_label(p) for p in paths)
    out = [f"Across {len(df)} variants of {label}, the party lives through the day on {pct(rate.min())} to "
           f"{pct(rate.max())} of {meta['days']:,} days each."]
    if len(df) > 1:
        rest = df.iloc[1:]
        k = int(np.argmax(np.abs(rest["day.survival.diff_base"].to_numpy(float))))
        r = rest.iloc[k]
        where = ", ".join(f"{day_path_label(p)} = {r[p]}" for p in paths)
        first = ", ".join(f"{df.iloc[0][p]}" for p in paths)
        d, lo, hi = (float(r["day.survival.diff_base" + t]) for t in ("", "_lo", "_hi"))
        how = "a clear change" if clear(lo, hi) else "no clear change (the interval holds 0)"
        out.append(f"The largest change from the first variant ({first}) is at {where}: {change_text(d, lo, hi)} "
                   f"of day survival on the same days, {how}.")
    return out


def sweep_table(df: pd.DataFrame, paths: list[str]) -> pd.DataFrame:
    """The table `skirmish sweep DAY` prints, one row a variant."""
    out = pd.DataFrame({day_path_label(p): df[p].astype(str).to_numpy() for p in paths})
    out["survives the day %"] = 100 * df["day.survival"].to_numpy(float)
    out["95% interval"] = interval(df["day.survival_lo"], df["day.survival_hi"])
    out["vs first, pts"] = paired_cells(df, "day.survival.diff_base", blank=(0,))
    out["deaths per day"] = df["day.deaths"].to_numpy(float)
    out["deaths 95% interval"] = interval(df["day.deaths_lo"], df["day.deaths_hi"], 1, 2)
    out["deaths vs first"] = paired_cells(df, "day.deaths.diff_base", 1, 2, blank=(0,))
    return out


def sweep_figures(df: pd.DataFrame, paths: list[str] | None = None) -> list[tuple[str, object]]:
    """Day survival against the varied value with its band, or a heat map over two."""
    paths = list(df.attrs["analysis"]["vary"]) if paths is None else paths
    plain = rate_columns(df, "day.survival")
    for p in paths:
        plain[p] = df[p].to_numpy()
    if len(paths) == 2:
        fig = af.sweep_heatmap(plain, paths, SERIES, title="Day survival as two values change")
        return [("day-sweep", relabelled(fig, xlabel=day_path_label(paths[0]), ylabel=day_path_label(paths[1]),
                                         colorbar="lives through the day (% of days)"))]
    label = day_path_label(paths[0])
    fig = af.sweep_figure(plain, [paths[0]], [SERIES], title=f"Day survival as {af.short(label, 40)} changes")
    numeric = "value in the day's own units" if pd.api.types.is_numeric_dtype(df[paths[0]]) else "choice"
    return [("day-sweep", relabelled(fig, xlabel=f"{label} ({numeric})", legend=["lives through the day"],
                                     ylabel="Days lived through (%); band: 95% interval"))]


def report_day_sweep(df: pd.DataFrame, out_dir, day=None, overrides: dict | None = None,
                     title: str | None = None) -> Path:
    """The page of sim.day.variants.sweep_day's table: day survival against the swept
    value(s) with the 95% band, the table `skirmish sweep DAY` prints, the verdict."""
    meta = df.attrs["analysis"]
    paths = list(meta["vary"])
    day = base_day(df, day)
    sec = Section("Day survival against the varied value" + ("s" if len(paths) > 1 else ""), [
        f"Each variant is the day with only {' and '.join(day_path_label(p) for p in paths)} changed, played on "
        f"{meta['days']:,} days; the changes are against the first variant on the same days (percentage points; "
        "deaths: per day)."], sweep_figures(df, paths), [("Variants", sweep_table(df, paths))])
    return write_day_page(out_dir, df, day, overrides, title or "Sweep over the day", sweep_verdict(df), [sec],
                          {"vary": meta["vary"]})


# ------------------------------------------------------------------ tune

def tune_verdict(df: pd.DataFrame) -> list[str]:
    meta = df.attrs["analysis"]
    out = [meta["message"]]
    beside = df[df["role"].isin(["below", "above"])]
    if len(beside):
        said = ", ".join(f"{r['value']} gives " + change_text(*(r["diff_vs_answer" + t] for t in ("", "_lo", "_hi")))
                         for r in beside.to_dict("records"))
        out.append(f"One step either side of {meta['answer']}, on the same days: {said} of "
                   f"{metric_noun(meta['metric'])}.")
    return out


def tune_table(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The table `skirmish tune DAY` prints, one row a value played."""
    d = df.sort_values("position")
    return pd.DataFrame({
        "value": d["value"].astype(str).to_numpy(), "role": d["role"].to_numpy(),
        f"{metric} %": 100 * d[metric].to_numpy(float), "95% interval": interval(d[f"{metric}_lo"], d[f"{metric}_hi"]),
        "vs answer (paired), pts": paired_cells(d, "diff_vs_answer", blank=np.flatnonzero(d["role"] == "answer")),
        "days": d["days"].to_numpy()})


def tune_figures(df: pd.DataFrame) -> list[tuple[str, object]]:
    """The day figure against every value played with its band, the target and the answer."""
    meta = df.attrs["analysis"]
    param, metric = meta["param"], meta["metric"]
    plain = rate_columns(df.sort_values("position"), metric).rename(columns={"value": param})
    label = day_path_label(param)
    fig = af.tune_figure(plain, param, SERIES, float(meta["target"]), meta["answer"],
                         title=f"Tuning {af.short(label, 34)}: {metric_words(metric)} on "
                               f"{100 * float(meta['target']):.0f}% of days")
    return [("day-tune", relabelled(fig, xlabel=label, legend=[metric_words(metric)],
                                    ylabel="Days (%); band: 95% interval; dotted: the target"))]


def report_day_tune(df: pd.DataFrame, out_dir, day=None, overrides: dict | None = None,
                    title: str | None = None) -> Path:
    """The page of sim.day.tune.tune_day's table: the day figure against every value
    played with its 95% band, the target and the answer, the table `skirmish tune DAY`
    prints, and its message as the verdict."""
    meta = df.attrs["analysis"]
    day = base_day(df, day)
    sec = Section("Values tried", [
        f"Every value of {day_path_label(meta['param'])} the search played, each on the same days (a value whose "
        "interval still held the target on twice as many), with the share of days on which "
        f"{metric_words(meta['metric'])} and its 95% interval; the changes are against the answer, paired."],
        tune_figures(df), [("Values played", tune_table(df, meta["metric"]))])
    shown = {k: meta[k] for k in ("param", "metric", "target", "range", "answer", "status", "max_days_played")}
    return write_day_page(out_dir, df, day, overrides, title or f"Tune: {day_path_label(meta['param'])}",
                          tune_verdict(df), [sec], shown)


__all__ = ["day_path_label", "metric_noun", "paired_cells", "report_day_sweep", "report_day_tune", "sweep_figures",
           "tune_figures", "write_day_page"]
