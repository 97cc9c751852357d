"""Figures of one run, each from a small documented frame (see sim.report.tables).

Every function returns a `matplotlib.figure.Figure`; nothing is shown or saved here.
Titles say what the figure shows in a designer's words; axes carry units; sides keep
the same colour in every figure; combatant charts grow with the number of combatants
so that twelve names never overlap.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator, PercentFormatter

from sim.report.style import (DRAW_COLOR, STATE_COLORS, UNFINISHED_COLOR, new_figure, rows_height,
                              short, side_colors, side_markers, side_styles, styled)

CI_NOTE = "whiskers: 95% confidence interval"


def outcome_colors(sides) -> dict:
    colors = side_colors(sides)
    colors.update({"draw": DRAW_COLOR, "unfinished": UNFINISHED_COLOR})
    return colors


def pct(x: float) -> str:
    """A share as a percentage with as many decimals as small shares need."""
    x = 100 * float(x)
    if 99 < x < 100:  # 99.98% must not print as 100.0%
        return f"{x:.2f}%" if x < 99.99 else ">99.99%"
    if x == 0 or x >= 1 or x <= -1:
        return f"{x:.1f}%"
    return f"{x:.2f}%" if abs(x) >= 0.01 else "<0.01%"


def _decimals(ticks) -> int:
    """Fewest decimals that write every tick apart (2.5% must not read as 2%)."""
    for d in range(3):
        if all(abs(t - round(t, d)) < 1e-9 for t in ticks):
            return d
    return 3


def whiskers(value, lo, hi):
    """Error-bar lengths below and above; rounding can put an interval end a hair on
    the wrong side of a rate of exactly 0 or 1, which matplotlib rejects."""
    value, lo, hi = (np.asarray(a, float) for a in (value, lo, hi))
    return [np.maximum(value - lo, 0), np.maximum(hi - value, 0)]


def rate_bars(ax, yy, rates, lo, hi, **bar_style) -> None:
    """One series of horizontal win-rate bars (in percent) with their 95% whiskers and
    each bar's rate written past its interval."""
    ax.barh(yy, rates, edgecolor="white", lw=0.3, **bar_style)
    ax.errorbar(rates, yy, xerr=whiskers(rates, lo, hi), fmt="none", ecolor="black", capsize=3, lw=1)
    for yi, vi, h in zip(yy, rates, hi):
        ax.text(min(h, 100) + 1.2, yi, pct(vi / 100), va="center", fontsize=8)


def rate_axis(ax, y, labels, rows: int) -> None:
    """The percent axis of rate_bars, 0-100% with room for the labels, a line at 50%."""
    ax.axvline(50, color="black", ls=":", lw=1)
    ax.set_xlim(0, 112)
    ax.set_xticks(range(0, 101, 20))
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_yticks(y, labels)
    ax.set_ylim(rows - 0.4, -0.6)
    ax.grid(False, axis="y")


def _ink_on(color: str) -> str:
    """Black or white text, whichever reads better on `color`."""
    from matplotlib.colors import to_rgb
    r, g, b = to_rgb(color)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def _combatant_axis(ax, names, side_of, colors) -> None:
    """Names top to bottom in scenario order, each tick label in its side's colour,
    with a thin rule between sides."""
    y = np.arange(len(names))
    ax.set_yticks(y, [short(n) for n in names])
    for label, name in zip(ax.get_yticklabels(), names):
        label.set_color(colors[side_of[name]])
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.grid(False, axis="y")
    for i in range(1, len(names)):
        if side_of[names[i]] != side_of[names[i - 1]]:
            ax.axhline(i - 0.5, color="#888888", lw=0.8)


def _side_legend(ax_or_fig, sides, colors, extra=(), **kw):
    handles = [Patch(color=colors[s], label=short(s)) for s in sides] + list(extra)
    return ax_or_fig.legend(handles=handles, **kw)


@styled
def win_rates_figure(wins: pd.DataFrame, title: str | None = None):
    """Bars of how often each side wins, with 95% intervals and the 50% line.

    `wins`: one row per outcome with columns outcome, kind ('side', 'draw',
    'unfinished'), rate, ci_lo, ci_hi, skirmishes (see tables.win_table). Draw and
    unfinished rows are drawn only when they happened.
    """
    rows = wins[(wins["kind"] == "side") | (wins["rate"] > 0)].reset_index(drop=True)
    sides = list(wins.loc[wins["kind"] == "side", "outcome"])
    colors = outcome_colors(sides)
    fig, ax = new_figure(rows_height(len(rows), extra=1.5, minimum=2.4))
    y = np.arange(len(rows))
    rate, lo, hi = (rows[c].to_numpy(float) * 100 for c in ("rate", "ci_lo", "ci_hi"))
    bar_colors = [colors[o] for o in rows["outcome"]]
    ax.barh(y, rate, color=bar_colors, height=0.6)
    ax.errorbar(rate, y, xerr=whiskers(rate, lo, hi), fmt="none", ecolor="black", capsize=4, lw=1.2)
    ax.axvline(50, color="black", ls=":", lw=1)
    ax.set_xlim(0, 100)
    for yi, r, low, h, c in zip(y, rate, lo, hi, bar_colors):
        text = f"{pct(r / 100)}  ({pct(low / 100)} – {pct(h / 100)})"
        if h > 62:  # no room on the right: write inside the bar
            ax.text(min(low, r) - 1.5, yi, text, va="center", ha="right", color=_ink_on(c), fontsize=9)
        else:
            ax.text(h + 1.5, yi, text, va="center", ha="left", fontsize=9)
    labels = [o if k == "side" else ("draw (all fell)" if k == "draw" else "unfinished (hit round limit)")
              for o, k in zip(rows["outcome"], rows["kind"])]
    ax.set_yticks(y, [short(s) for s in labels])
    ax.set_ylim(len(rows) - 0.4, -0.6)
    ax.grid(False, axis="y")
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    n = int(wins["skirmishes"].iloc[0]) if len(wins) else 0
    ax.set_title(title or f"Who wins: share of {n:,} fights won by each side")
    ax.set_xlabel(f"Fights won (% of fights)\n{CI_NOTE}; dotted line: 50%")
    return fig


@styled
def fight_length_figure(lengths: pd.DataFrame, sides, title: str | None = None):
    """Stacked bars of how many fights last 1, 2, 3... rounds, split by who won.

    `lengths`: index = rounds, columns = outcomes (sides, draw, unfinished), values =
    share of all fights (see tables.length_table). The longest 0.5% are left off the
    axis and counted in a note, so one freak fight does not squash the picture.
    """
    colors = outcome_colors(sides)
    rounds = lengths.index.to_numpy(int)
    share = lengths.sum(axis=1).to_numpy(float)
    cum = np.cumsum(share)
    cut = int(rounds[min(np.searchsorted(cum, 0.995 - 1e-12), len(rounds) - 1)]) if len(rounds) else 1
    shown = lengths[lengths.index <= cut]
    fig, ax = new_figure(3.4)
    bottom = np.zeros(len(shown))
    x = shown.index.to_numpy(int)
    for col in shown.columns:
        v = shown[col].to_numpy(float) * 100
        if v.sum() == 0:
            continue
        label = f"{short(col, 22)} won" if col in sides else ("draw" if col == "draw" else "unfinished")
        ax.bar(x, v, bottom=bottom, color=colors[col], width=0.8, label=label,
               hatch="//" if col == "unfinished" else None, edgecolor="white", lw=0.3)
        bottom += v
    median = int(rounds[np.searchsorted(cum, 0.5 - 1e-12)]) if len(rounds) else 0
    p90 = int(rounds[np.searchsorted(cum, 0.9 - 1e-12)]) if len(rounds) else 0
    ax.axvline(median, color="black", ls="--", lw=1)
    ax.axvline(p90, color="black", ls=":", lw=1)
    top = max(bottom.max() if len(bottom) else 1, 1e-9)
    ax.set_xlim(0.3, cut + 0.7)
    ax.set_ylim(0, top * 1.22)
    for x_at, y_at, text in ((median, 1.19, f"median {median}"), (p90, 1.10, f"9 in 10 end by {p90}")):
        # Labels near the right edge hang to the left of their line so they stay inside.
        right = (x_at - 0.3) / (cut + 0.4) > 0.7
        ax.text(x_at, top * y_at, f" {text} " if not right else f"{text} ", ha="right" if right else "left",
                va="top", fontsize=8.5)
    hidden = float(share[rounds > cut].sum())
    note = f"; the {pct(hidden)} of fights longer than {cut} rounds are not shown" if hidden > 0 else ""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 5, 10]))
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=_decimals(ax.get_yticks())))
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4))
    ax.set_title(title or "How long fights last, and who wins fights of each length")
    ax.set_xlabel(f"Fight length (rounds){note}".replace("; ", "\n", 1))
    ax.set_ylabel("Share of all fights (%)")
    return fig


@styled
def survival_figure(survival: pd.DataFrame, sizes: dict | None = None, title: str | None = None):
    """Lines of the share of each side still standing at the end of each round.

    `survival`: columns side, round, standing (0..1) (see tables.survival_table).
    `sizes` (side -> combatants) only adds the head count to the legend.
    """
    sides = list(dict.fromkeys(survival["side"]))
    colors, styles, markers = side_colors(sides), side_styles(sides), side_markers(sides)
    fig, ax = new_figure(3.4)
    for s in sides:
        d = survival[survival["side"] == s]
        label = short(s, 24) + (f" ({sizes[s]} combatant{'s' if sizes[s] != 1 else ''})" if sizes else "")
        ax.plot(d["round"], d["standing"] * 100, color=colors[s], ls=styles[s], lw=2, marker=markers[s],
                ms=3.5, label=label)
    ax.set_ylim(-2, 104)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.legend(loc="lower left")
    ax.set_title(title or "How each side is worn down: share still fighting by round")
    ax.set_xlabel("End of round (0 = before the first blow)")
    ax.set_ylabel("Still fighting (% of side;\nnot down, not fled)")
    return fig


def _box_stats(values: pd.Series, label: str) -> dict:
    v = values.to_numpy(float)
    q05, q25, q50, q75, q95 = np.percentile(v, [5, 25, 50, 75, 95]) if v.size else [0] * 5
    return {"label": label, "whislo": q05, "q1": q25, "med": q50, "q3": q75, "whishi": q95,
            "mean": float(v.mean()) if v.size else 0.0, "fliers": []}


@styled
def damage_figure(combatants: pd.DataFrame, names, side_of: dict, title: str | None = None):
    """Per combatant, the spread of damage dealt (left) and taken (right) per fight.

    `combatants`: the combatants outcome table (columns combatant, damage_dealt,
    damage_taken). Boxes span the middle half of fights, whiskers 5% to 95%, the
    line is the median and the diamond the mean.
    """
    sides = list(dict.fromkeys(side_of[n] for n in names))
    colors = side_colors(sides)
    fig, axes = new_figure(rows_height(len(names), extra=1.9), ncols=2, sharey=True)
    grouped = combatants.assign(combatant=combatants["combatant"].astype(str)).groupby("combatant")
    for ax, col, sub in zip(axes, ("damage_dealt", "damage_taken"), ("Dealt", "Taken")):
        stats = [_box_stats(grouped.get_group(n)[col] if n in grouped.groups else pd.Series(dtype=float), n)
                 for n in names]
        bp = ax.bxp(stats, positions=np.arange(len(names)), orientation="horizontal", widths=0.6,
                    showmeans=True, patch_artist=True, showfliers=False,
                    meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black",
                               "markersize": 4.5},
                    medianprops={"color": "black", "lw": 1.2})
        for patch, n in zip(bp["boxes"], names):
            patch.set_facecolor(colors[side_of[n]])
            patch.set_alpha(0.75)
        ax.set_title(sub, fontsize=10)
        ax.set_xlabel("Damage per fight (points)")
        ax.set_xlim(left=0)
        ax.grid(True, axis="x", alpha=0.3)
    _combatant_axis(axes[0], names, side_of, colors)
    axes[1].tick_params(axis="y", left=False)
    for i in range(1, len(names)):
        if side_of[names[i]] != side_of[names[i - 1]]:
            axes[1].axhline(i - 0.5, color="#888888", lw=0.8)
    from matplotlib.lines import Line2D
    mean = Line2D([], [], marker="D", color="white", markeredgecolor="black", ls="none", label="mean")
    box = Patch(facecolor="none", edgecolor="black", label="box: middle half of fights, whiskers: 5–95%")
    _side_legend(fig, sides, colors, extra=[mean, box], loc="outside lower center", ncols=min(len(sides) + 2, 4))
    fig.suptitle(title or "Damage each combatant deals and takes per fight", fontsize=11, fontweight="bold")
    return fig


@styled
def hit_rate_figure(table: pd.DataFrame, title: str | None = None):
    """Bars of the share of each combatant's attacks that hit, with 95% intervals.

    `table`: columns combatant, side, attacks, hit_rate, hit_ci_lo, hit_ci_hi (see
    tables.combatant_table).
    """
    names = list(table["combatant"])
    side_of = dict(zip(table["combatant"], table["side"]))
    sides = list(dict.fromkeys(table["side"]))
    colors = side_colors(sides)
    fig, ax = new_figure(rows_height(len(names), extra=1.8))
    y = np.arange(len(names))
    rate = table["hit_rate"].to_numpy(float) * 100
    lo, hi = table["hit_ci_lo"].to_numpy(float) * 100, table["hit_ci_hi"].to_numpy(float) * 100
    has = np.isfinite(rate)
    ax.barh(y[has], rate[has], color=[colors[side_of[n]] for n, h in zip(names, has) if h], height=0.6)
    ax.errorbar(rate[has], y[has], xerr=whiskers(rate[has], lo[has], hi[has]), fmt="none",
                ecolor="black", capsize=3, lw=1)
    for yi, r, h, a in zip(y, rate, hi, table["attacks"]):
        if np.isfinite(r):
            ax.text(h + 1.2, yi, f"{r:.0f}%  ({a:.1f} attacks/fight)", va="center", fontsize=8.5)
        else:
            ax.text(1, yi, "never attacked", va="center", fontsize=8.5, style="italic")
    ax.set_xlim(0, 135)
    ax.set_xticks(range(0, 101, 20))
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    _combatant_axis(ax, names, side_of, colors)
    _side_legend(fig, sides, colors, loc="outside lower center", ncols=min(len(sides), 4))
    ax.set_title(title or "How often each combatant's attacks hit")
    ax.set_xlabel(f"Attacks that hit (% of attacks made)\n{CI_NOTE}")
    return fig


@styled
def down_rate_figure(table: pd.DataFrame, title: str | None = None):
    """Stacked bars of how each combatant ends its fights: dead, unconscious, fled or
    still standing, with the down rate (dead or unconscious) and fled rate beside each bar.

    `table`: columns combatant, side, dead_rate, unconscious_rate, fled_rate,
    standing_rate, down_rate (see tables.combatant_table).
    """
    names = list(table["combatant"])
    side_of = dict(zip(table["combatant"], table["side"]))
    sides = list(dict.fromkeys(table["side"]))
    colors = side_colors(sides)
    fig, ax = new_figure(rows_height(len(names), extra=1.9))
    y = np.arange(len(names))
    left = np.zeros(len(names))
    for state in ("dead", "unconscious", "fled", "standing"):
        v = table[f"{state}_rate"].to_numpy(float) * 100
        ax.barh(y, v, left=left, color=STATE_COLORS[state], height=0.6, label=state,
                hatch="//" if state == "fled" else None, edgecolor="white", lw=0.3)
        left += v
    fled = table["fled_rate"].to_numpy(float) * 100
    for yi, d, f in zip(y, table["down_rate"].to_numpy(float) * 100, fled):
        ax.text(102, yi, f"down {d:.1f}%" + (f", fled {f:.1f}%" if f > 0 else ""), va="center", fontsize=8.5)
    ax.set_xlim(0, 145 if (fled > 0).any() else 124)
    ax.set_xticks(range(0, 101, 20))
    ax.xaxis.set_major_formatter(PercentFormatter(decimals=0))
    _combatant_axis(ax, names, side_of, colors)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=4)
    ax.set_title(title or "How each combatant ends the fight (names coloured by side)")
    ax.set_xlabel("Share of fights (%); down = dead or unconscious, fled counted apart")
    return fig
