"""The comparison page of two runs: which is A and which is B, both designs' figures in
the same charts, and every figure's difference B - A with its 95% interval.

`skirmish compare A.yaml B.yaml --report DIR` and `skirmish report A.parquet B.parquet`
both end here. The figures take plain frames (the table of
sim.analysis.compare.compare_results and sim.report.tables' frames), like the rest.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator, PercentFormatter

from sim.report.designs import design_section, overrides_text, scenario_of
from sim.report.figures import CI_NOTE, pct, rate_axis, rate_bars, whiskers
from sim.report.html import Section, write_report
from sim.report.style import OKABE_ITO, new_figure, rows_height, short, side_colors, styled
from sim.report.tables import length_table, survival_table

DESIGN_COLORS = (OKABE_ITO["blue"], OKABE_ITO["orange"])  # A, B: the two series in every chart


def _letters(labels) -> list[str]:
    """'A: Yeti' for the legends, without doubling a prefix default_labels already added."""
    return [lab if lab.startswith(f"{x}:") else f"{x}: {lab}" for x, lab in zip("AB", labels)]


@styled
def compare_win_figure(df: pd.DataFrame, labels, title: str | None = None):
    """Win (and draw) rates of A and B side by side, with 95% intervals.

    `df`: the comparison table (figure, key, kind, a, a_lo, a_hi, b, b_lo, b_hi)."""
    rows = df[df["key"].str.endswith(".win_rate") | ((df["key"] == "draw_rate") & ((df["a"] > 0) | (df["b"] > 0)))]
    names = [f.replace(" win rate", "").replace("draw rate", "draw") for f in rows["figure"]]
    fig, ax = new_figure(rows_height(2 * len(rows), extra=1.6, minimum=2.6))
    y = np.arange(len(rows))
    for i, (col, color, label) in enumerate(zip("ab", DESIGN_COLORS, _letters(labels))):
        v = rows[col].to_numpy(float) * 100
        lo, hi = rows[f"{col}_lo"].to_numpy(float) * 100, rows[f"{col}_hi"].to_numpy(float) * 100
        yy = y + (i - 0.5) * 0.38
        rate_bars(ax, yy, v, lo, hi, height=0.36, color=color, label=short(label, 60), hatch="//" if i else None)
    rate_axis(ax, y, [short(n) for n in names], len(rows))
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    ax.set_title(title or "Who wins under A and under B")
    ax.set_xlabel(f"Fights won (% of fights)\n{CI_NOTE}; dotted line: 50%")
    return fig


def _shown(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Rows worth a line: figures that are not zero in both runs."""
    d = df[df["kind"] == kind]
    return d[~((d["a"].fillna(0) == 0) & (d["b"].fillna(0) == 0))]


@styled
def difference_figure(df: pd.DataFrame, kind: str = "rate", title: str | None = None):
    """B - A for every figure of one kind, dot and 95% interval, against the zero line.

    kind "rate": win, draw, down and fled rates in percentage points; kind "mean": mean
    rounds and damage per fight in their own units. Intervals that miss zero are drawn
    dark (a clear difference), the others grey."""
    d = _shown(df, kind)
    scale = 100 if kind == "rate" else 1
    fig, ax = new_figure(rows_height(len(d), extra=1.6))
    y = np.arange(len(d))
    diff = d["diff"].to_numpy(float) * scale
    lo, hi = d["diff_lo"].to_numpy(float) * scale, d["diff_hi"].to_numpy(float) * scale
    clear = (lo > 0) | (hi < 0)
    for flag, color in ((True, "black"), (False, "#999999")):
        m = clear == flag
        ax.errorbar(diff[m], y[m], xerr=whiskers(diff[m], lo[m], hi[m]), fmt="o", color=color, ecolor=color,
                    capsize=3, ms=4, lw=1.2)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [short(f, 36) for f in d["figure"]])
    ax.set_ylim(len(d) - 0.5, -0.5)
    ax.grid(False, axis="y")
    span = max(np.nanmax(np.abs(np.r_[lo, hi, 0.1])), 1e-9) * 1.15
    ax.set_xlim(-span, span)
    unit = "percentage points" if kind == "rate" else "rounds or damage points per fight"
    ax.set_title(title or ("Rates: B - A" if kind == "rate" else "Fight length and damage: B - A"))
    ax.set_xlabel(f"B - A ({unit}), paired 95% interval\n"
                  "black: a clear difference (interval misses 0); grey: not clear")
    return fig


@styled
def compare_length_figure(tables, labels, title: str | None = None):
    """How long fights last under A and under B: share of fights ending in each round."""
    fig, ax = new_figure(3.2)
    cut = 1
    for t, color, label, style in zip(tables, DESIGN_COLORS, _letters(labels), ("-", "--")):
        share = length_table(t).sum(axis=1)
        cum = share.cumsum().to_numpy()
        last = int(share.index[min(np.searchsorted(cum, 0.995 - 1e-12), len(cum) - 1)])
        cut = max(cut, last)
        ax.plot(share.index, share.to_numpy() * 100, color=color, ls=style, lw=2, marker="o", ms=3,
                label=short(label, 60) + f" (mean {t.skirmishes['rounds'].mean():.2f} rounds)")
    ax.set_xlim(0.5, cut + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.legend(loc="upper right")
    ax.set_title(title or "How long fights last under A and under B")
    ax.set_xlabel("Fight length (rounds); the longest 0.5% are off the axis")
    ax.set_ylabel("Share of fights (%)")
    return fig


@styled
def compare_survival_figure(tables, labels, title: str | None = None):
    """Share of each side still fighting by round: colour = side, solid A, dashed B."""
    sides = list(dict.fromkeys(s for t in tables for s in t.sides))
    colors = side_colors(sides)
    fig, ax = new_figure(3.4)
    for t, style, letter in zip(tables, ("-", "--"), "AB"):
        surv = survival_table(t)
        for s in t.sides:
            d = surv[surv["side"] == s]
            ax.plot(d["round"], d["standing"] * 100, color=colors[s], ls=style, lw=2,
                    label=f"{short(s, 20)} ({letter})")
    ax.set_ylim(-2, 104)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.legend(loc="upper right", ncols=2)
    ax.set_title(title or "Each side worn down, A (solid) against B (dashed)")
    ax.set_xlabel("End of round (0 = before the first blow)")
    ax.set_ylabel("Still fighting (% of side;\nnot down, not fled)")
    return fig


def figure_text(value, lo, hi, kind: str) -> str:
    if value is None or math.isnan(value):
        return "-"
    if kind == "rate":
        return f"{pct(value)} ({pct(lo)} – {pct(hi)})"
    return f"{value:.2f} ({lo:.2f} – {hi:.2f})"


def diff_text(d, lo, hi, kind: str) -> str:
    if d is None or math.isnan(d):
        return "-"
    s = 100 if kind == "rate" else 1
    unit = " pts" if kind == "rate" else ""
    return f"{s * d:+.1f}{unit} ({s * lo:+.1f} to {s * hi:+.1f})" if kind == "rate" else \
        f"{d:+.2f} ({lo:+.2f} to {hi:+.2f})"


def figures_table(df: pd.DataFrame) -> pd.DataFrame:
    """The comparison table as a person reads it: percentages, intervals, B - A."""
    return pd.DataFrame({
        "figure": df["figure"],
        "A (95% interval)": [figure_text(r.a, r.a_lo, r.a_hi, r.kind) for r in df.itertuples()],
        "B (95% interval)": [figure_text(r.b, r.b_lo, r.b_hi, r.kind) for r in df.itertuples()],
        "B - A (95% interval)": [diff_text(r.diff, r.diff_lo, r.diff_hi, r.kind) for r in df.itertuples()],
        "clear?": ["yes" if (r.diff_lo > 0 or r.diff_hi < 0) else "no" for r in df.itertuples()],
    })


def compare_verdict(df: pd.DataFrame, labels, meta: dict) -> list[str]:
    la, lb = labels
    na, nb = meta["skirmishes"]
    if meta["paired"]:
        how = (f"Both were played on the same {na:,} skirmishes (seed {meta['a'].get('seed', '?')}): skirmish k "
               "of A and of B roll the same dice wherever the rules allow, so each difference is paired fight "
               "by fight and its interval is narrow.")
    else:
        how = (f"A has {na:,} skirmishes and B {nb:,}, so the differences are of independent runs "
               "(unpaired intervals, wider than a paired comparison would give).")
    def changed(m):
        return f" ({overrides_text(m['overrides'])})" if m.get("overrides") else ""
    out = [f"A is {la}{changed(meta['a'])}; B is {lb}{changed(meta['b'])}.", how]
    for _, r in df[df["key"].str.endswith(".win_rate")].iterrows():
        side = r["figure"].replace(" win rate", "")
        clear = r["diff_lo"] > 0 or r["diff_hi"] < 0
        out.append(f"{side} wins {pct(r['a'])} under A and {pct(r['b'])} under B: "
                   f"{diff_text(r['diff'], r['diff_lo'], r['diff_hi'], 'rate')} for B - A, "
                   + ("a clear difference." if clear else "no clear difference (the interval includes zero)."))
    rounds = df[df["key"] == "rounds_mean"].iloc[0]
    out.append(f"Fights last {rounds['a']:.2f} rounds on average under A and {rounds['b']:.2f} under B "
               f"({diff_text(rounds['diff'], rounds['diff_lo'], rounds['diff_hi'], 'mean')}).")
    downs = df[df["key"].str.endswith(".down_rate") & ((df["diff_lo"] > 0) | (df["diff_hi"] < 0))]
    if len(downs):
        top = downs.loc[downs["diff"].abs().idxmax()]
        out.append(f"Biggest clear change for one combatant: {top['figure']} "
                   f"{pct(top['a'])} → {pct(top['b'])} of fights (down = dead or unconscious).")
    return out


def report_comparison(a, b, out_dir, figures: pd.DataFrame | None = None, labels=None,
                      title: str | None = None):
    """Write the comparison page of two runs (RunResult, RunTables or outcome-table paths)."""
    from sim.analysis.compare import compare_results
    from sim.report.build import as_tables
    ta, tb = as_tables(a)[0], as_tables(b)[0]
    df = compare_results(ta, tb, labels=labels) if figures is None else figures
    meta = df.attrs["analysis"]
    labels = meta["labels"]
    la, lb = _letters(labels)
    sections = [
        Section("Who wins", ["A and B in one chart, with 95% intervals."],
                [("compare-win-rates", compare_win_figure(df, labels))]),
        Section("What changes from A to B",
                ["Every figure's difference B - A with its 95% interval; an interval that misses zero is "
                 "a clear difference. Down = dead or unconscious at the end; fled is counted apart."],
                [("compare-rate-differences", difference_figure(df, "rate")),
                 ("compare-mean-differences", difference_figure(df, "mean"))],
                [("Every figure under A and B, and B - A", figures_table(df))]),
        Section("How fights unfold", [],
                [("compare-fight-length", compare_length_figure([ta, tb], labels)),
                 ("compare-survival", compare_survival_figure([ta, tb], labels))]),
    ]
    for t, head in ((ta, la), (tb, lb)):
        scen = scenario_of(t)
        if scen is not None:
            sections.append(design_section(scen, t.meta.get("overrides"), title=f"What was played: {head}",
                                           anchor=f"design-{head[0].lower()}"))
    verdict = compare_verdict(df, labels, meta)
    title = title or f"Comparison: {labels[0]} (A) against {labels[1]} (B)"
    sub = f"{la}; {lb}" + (f"; {meta['skirmishes'][0]:,} skirmishes each, paired" if meta["paired"] else "")
    return write_report(out_dir, title, [("", verdict)], sections, [(la, ta.meta), (lb, tb.meta)], subtitle=sub)
