"""Figures of a day (sim.day), each from a small frame of sim.report.day_tables.

Every function returns a `matplotlib.figure.Figure`, for the day report and notebooks.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter

from sim.report.figures import CI_NOTE, pct, rate_axis, rate_bars, whiskers
from sim.report.style import OKABE_ITO, STATE_COLORS, WIDTH, new_figure, rows_height, short, styled

REST_SHADE = "#E8EEF5"


@styled
def staircase_figure(stairs: pd.DataFrame, title: str | None = None):
    """The share of days the party is still in it after each step, with 95% Wilson
    bands; rests are shaded.

    `stairs`: columns step, kind ("start", "fight", rest kinds), going, ci95_low, ci95_high."""
    fig, ax = new_figure(3.6)
    x = np.arange(len(stairs))
    going = stairs["going"].to_numpy(float) * 100
    lo, hi = (stairs[c].to_numpy(float) * 100 for c in ("ci95_low", "ci95_high"))
    for xi, kind in zip(x, stairs["kind"]):
        if kind not in ("start", "fight"):
            ax.axvspan(xi - 0.5, xi + 0.5, color=REST_SHADE, lw=0)
            ax.text(xi, 3, f"rest\n({kind})", ha="center", va="bottom", fontsize=7.5, color="#456")
    ax.step(x, going, where="mid", color=OKABE_ITO["blue"], lw=2)
    ax.fill_between(x, lo, hi, step="mid", color=OKABE_ITO["blue"], alpha=0.25, lw=0)
    ax.plot(x, going, "o", color=OKABE_ITO["blue"], ms=4)
    last = len(x) - 1
    ax.annotate(pct(going[last] / 100), (x[last], going[last]), textcoords="offset points", xytext=(0, 7),
                ha="center", fontsize=8.5)
    ax.set_xticks(x, [short(s, 16) for s in stairs["step"]], rotation=20, ha="right")
    ax.set_ylim(0, 105)
    ax.set_xlim(-0.5, last + 0.5)
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_ylabel("Days still going (%)")
    ax.set_title(title or "How far the party gets: days with no fight lost, after each step")
    ax.set_xlabel("Step of the day (band: 95% Wilson interval; shaded: rests)")
    return fig


@styled
def hazard_figure(fights: pd.DataFrame, title: str | None = None):
    """Per fight: the chance the party loses it when it gets there, and the share of
    all days that end there.

    `fights`: columns fight, lost, lost_ci95_low, lost_ci95_high, ends_day."""
    names = [short(f, 24) for f in fights["fight"]]
    fig, (ax, ax2) = new_figure(rows_height(len(names), extra=1.6), ncols=2, sharey=True)
    y = np.arange(len(names))
    rate_bars(ax, y, fights["lost"].to_numpy(float) * 100, fights["lost_ci95_low"].to_numpy(float) * 100,
              fights["lost_ci95_high"].to_numpy(float) * 100, color=OKABE_ITO["vermillion"], height=0.6)
    rate_axis(ax, y, names, len(names))
    ax.set_title("Lost, when reached")
    ax.set_xlabel(f"Share of days reaching it (%; {CI_NOTE})")
    ends = fights["ends_day"].to_numpy(float) * 100
    ax2.barh(y, ends, color=OKABE_ITO["orange"], height=0.6)
    for yi, v in zip(y, ends):
        ax2.text(v + 1.2, yi, pct(v / 100), va="center", fontsize=8)
    ax2.set_xlim(0, 112)
    ax2.set_xticks(range(0, 101, 20))
    ax2.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax2.grid(False, axis="y")
    ax2.set_title("Days that end here")
    ax2.set_xlabel("Share of all days (%)")
    fig.suptitle(title or "Which fight decides the day", fontweight="bold")
    return fig


@styled
def resource_fan_figure(fan: pd.DataFrame, title: str | None = None):
    """Per carried resource, the party's total at each fight's entry and exit over the
    days that reached the fight: median, 25-75% and 5-95% bands, mean dashed.

    `fan`: columns point (label), resource, q05, q25, q50, q75, q95, mean, full."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    resources = list(dict.fromkeys(fan["resource"]))
    fig = Figure(figsize=(WIDTH, 1.2 + 1.8 * len(resources)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(len(resources), 1, sharex=True, squeeze=False)[:, 0])
    for ax, r in zip(axes, resources):
        d = fan[fan["resource"] == r]
        x = np.arange(len(d))
        ax.fill_between(x, d["q05"], d["q95"], color=OKABE_ITO["green"], alpha=0.18, lw=0, label="5-95%")
        ax.fill_between(x, d["q25"], d["q75"], color=OKABE_ITO["green"], alpha=0.35, lw=0, label="25-75%")
        ax.plot(x, d["q50"], color=OKABE_ITO["green"], lw=2, marker="o", ms=3, label="median")
        ax.plot(x, d["mean"], color="black", lw=1, ls="--", label="mean")
        ax.axhline(float(d["full"].iloc[0]), color="#777", lw=0.8, ls=":")
        ax.set_ylabel(r.replace("_", " "))
        ax.set_ylim(bottom=0)
        ax.set_axisbelow(True)
    labels = [f"{short(p.split(' ', 1)[1], 16)}\n{p.split(' ', 1)[0]}" for p in d["point"]]
    axes[-1].set_xticks(x, labels, fontsize=7.5)
    axes[-1].set_xlabel("The party's total, before and after each fight (dotted: full)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=4)
    fig.suptitle(title or "What the party carries along the day (days that reached each fight)", fontweight="bold")
    return fig


@styled
def fates_figure(fates: pd.DataFrame, title: str | None = None):
    """Stacked bars of how each member ends the day: dead, down or standing.

    `fates`: columns combatant, standing, unconscious, dead (shares)."""
    names = list(fates["combatant"])
    fig, ax = new_figure(rows_height(len(names), extra=1.9))
    y = np.arange(len(names))
    left = np.zeros(len(names))
    for state in ("dead", "unconscious", "standing"):
        v = fates[state].to_numpy(float) * 100
        ax.barh(y, v, left=left, color=STATE_COLORS[state], height=0.6, label=state, edgecolor="white", lw=0.3)
        left += v
    for yi, d in zip(y, fates["dead"].to_numpy(float)):
        ax.text(102, yi, f"dead {pct(d)}", va="center", fontsize=8.5)
    ax.set_xlim(0, 124)
    ax.set_xticks(range(0, 101, 20))
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_yticks(y, [short(n, 24) for n in names])
    ax.set_ylim(len(names) - 0.4, -0.6)
    ax.grid(False, axis="y")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    ax.set_title(title or "How each member ends the day")
    ax.set_xlabel("Share of days (%)")
    return fig


@styled
def state_value_figure(value: pd.DataFrame, title: str | None = None):
    """Per fight, the party's win chance by its health at entry, with 95% intervals.

    `value`: columns fight, entry_health, days, won, ci95_low, ci95_high (sim.day.result.state_value)."""
    fights = list(dict.fromkeys(value["fight"]))
    bins = list(dict.fromkeys(value["entry_health"]))
    fig, ax = new_figure(3.4)
    width = 0.8 / max(len(fights), 1)
    colors = [OKABE_ITO[k] for k in ("blue", "vermillion", "green", "purple", "orange", "sky")]
    for i, f in enumerate(fights):
        d = value[value["fight"] == f].set_index("entry_health").reindex(bins)
        x = np.arange(len(bins)) + (i - (len(fights) - 1) / 2) * width
        won = d["won"].to_numpy(float) * 100
        ax.bar(x, won, width=width * 0.95, color=colors[i % len(colors)], label=short(f, 24))
        ok = ~np.isnan(won)
        ax.errorbar(x[ok], won[ok], yerr=whiskers(won[ok], d["ci95_low"].to_numpy(float)[ok] * 100,
                                                   d["ci95_high"].to_numpy(float)[ok] * 100),
                    fmt="none", ecolor="black", capsize=2, lw=0.8)
    ax.set_xticks(np.arange(len(bins)), bins)
    ax.set_ylim(0, 105)
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_xlabel(f"The party's health at entry (share of its full resources; {CI_NOTE})")
    ax.set_ylabel("Fight won (%)")
    ax.legend(loc="upper left", ncols=min(len(fights), 3))
    ax.set_title(title or "What entry health is worth: win chance by health")
    return fig


@styled
def gauntlet_figure(curve: pd.DataFrame, n50: int, title: str | None = None):
    """S(k), the share of days the party wins at least k fights in a row, with 95%
    Wilson bands; beside it S(1)^k, what the curve would be if every fight were fought
    fresh, and the 1/2 line that gives N50.

    `curve`: columns k, rate, ci95_low, ci95_high (sim.day.gauntlet.survival_curve)."""
    fig, ax = new_figure(3.6)
    k = curve["k"].to_numpy()
    rate = curve["rate"].to_numpy(float) * 100
    lo, hi = (curve[c].to_numpy(float) * 100 for c in ("ci95_low", "ci95_high"))
    ax.fill_between(k, lo, hi, step="post", color=OKABE_ITO["blue"], alpha=0.25, lw=0)
    ax.step(k, rate, where="post", color=OKABE_ITO["blue"], lw=2, label="wins at least k in a row")
    if len(rate) > 1:
        fresh = 100 * (rate[1] / 100) ** k
        ax.plot(k, fresh, ls="--", color=OKABE_ITO["vermillion"], lw=1.2,
                label="if every fight were fought fresh: S(1)^k")
    ax.axhline(50, color="#777", lw=0.8, ls=":")
    ax.axvline(n50, color="#777", lw=0.8, ls=":")
    ax.annotate(f"N50 = {n50}", (n50, 50), textcoords="offset points", xytext=(5, 6), fontsize=8.5)
    ax.set_ylim(0, 105)
    ax.set_xlim(0, max(int(k[-1]), 1))
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_xlabel("k, fights in a row (band: 95% Wilson interval)")
    ax.set_ylabel("Days the party wins at least k (%)")
    ax.legend(loc="upper right")
    ax.set_title(title or "The gauntlet: how many in a row the party wins")
    return fig
