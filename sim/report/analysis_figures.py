"""Figures of analyses (sweeps, sensitivity, tournaments), drawn from plain DataFrames.

The analysis commands return these frames; anyone can also build them by hand:

- sweep frame: one row per variant; one column per varied value (named by its
  override path, e.g. `sides.yeti.combatants[Yeti].defense`), and for each side
  `<side>_win_rate`, `<side>_ci_lo`, `<side>_ci_hi` (shares 0..1). Optional:
  `variant`, `skirmishes`, `draw_rate`. Which columns are varied values is taken from
  `params=`, else `frame.attrs["params"]`, else every column that is not a known result.
- sensitivity frame: one row per (stat, step, side) with `delta` (change in that
  side's win rate, share) and `ci_lo`, `ci_hi` (its 95% interval).
- tournament matrix: rows = one side's policies, columns = the other side's, cells =
  win rate of the row side (0..1); `index.name`/`columns.name` name the axes. A long
  frame with columns `row`, `col`, `win_rate` (and optionally `ci_lo`, `ci_hi`) is
  pivoted by `tournament_matrix`.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator, PercentFormatter

from sim.english import sides_possessive
from sim.report.figures import CI_NOTE, _ink_on, whiskers
from sim.report.style import (DIVERGING_CMAP, OKABE_ITO, new_figure, rows_height, short, side_colors,
                              side_markers, side_styles, styled)

RESULT_SUFFIXES = ("_win_rate", "_ci_lo", "_ci_hi", "_rate", "_ci95")
RESULT_COLUMNS = {"variant", "skirmishes", "n", "seed", "draw_rate", "unfinished_rate", "mean_rounds",
                  "rounds_mean", "rounds_p50", "rounds_p90", "scenario", "scenario_hash", "hash", "error"}


def path_label(path) -> str:
    """`sides.yeti.combatants[Yeti].defense` -> `Yeti: defense`; `rules.x` -> `rule x`."""
    text = str(path)
    m = re.fullmatch(r"sides\.([^.]+)\.combatants\[([^\]]+)\]\.(.+)", text)
    if m:
        return f"{m.group(2)}: {m.group(3)}"
    m = re.fullmatch(r"sides\.([^.]+)\.policy\.(.+)", text)
    if m:
        return f"{m.group(1)} policy: {m.group(2)}"
    if text.startswith("rules."):
        return "rule " + text[len("rules."):]
    return text


def sweep_sides(frame: pd.DataFrame) -> list[str]:
    return [c[: -len("_win_rate")] for c in frame.columns if c.endswith("_win_rate")]


def sweep_params(frame: pd.DataFrame, params=None) -> list[str]:
    if params is not None:
        return [params] if isinstance(params, str) else list(params)
    if frame.attrs.get("params"):
        return list(frame.attrs["params"])
    return [c for c in frame.columns
            if c not in RESULT_COLUMNS and not any(str(c).endswith(s) for s in RESULT_SUFFIXES)]


def _is_numeric(values: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


@styled
def sweep_figure(frame: pd.DataFrame, params=None, sides=None, target: float | None = None,
                 title: str | None = None):
    """Win rate against the varied value with 95% bands (one varied value), or a heat
    map of the first side's win rate (two varied values)."""
    params = sweep_params(frame, params)
    sides = list(sides) if sides is not None else sweep_sides(frame)
    if len(params) == 2:
        return sweep_heatmap(frame, params, sides[0], title=title)
    if len(params) != 1:
        raise ValueError(f"a sweep figure needs one or two varied values, got {params}")
    p = params[0]
    d = frame.sort_values(p) if _is_numeric(frame[p]) else frame
    numeric = _is_numeric(d[p])
    x = d[p].to_numpy(float) if numeric else np.arange(len(d))
    colors, styles, markers = side_colors(sides), side_styles(sides), side_markers(sides)
    fig, ax = new_figure(3.6)
    for i, s in enumerate(sides):
        rate, lo, hi = (d[f"{s}_{k}"].to_numpy(float) * 100 for k in ("win_rate", "ci_lo", "ci_hi"))
        if numeric:
            ax.fill_between(x, lo, hi, color=colors[s], alpha=0.2, lw=0)
            ax.plot(x, rate, color=colors[s], ls=styles[s], marker=markers[s], ms=4, lw=2, label=f"{short(s)} wins")
        else:  # separate choices: no line between them, whiskers instead of a band
            shift = (i - (len(sides) - 1) / 2) * 0.08
            ax.errorbar(x + shift, rate, yerr=whiskers(rate, lo, hi), color=colors[s], fmt=markers[s], ms=5,
                        capsize=3, label=f"{short(s)} wins")
    ax.axhline(50 if target is None else 100 * target, color="black", ls=":", lw=1)
    if not numeric:
        labels = [short(v, 16) for v in d[p].astype(str)]
        ax.set_xticks(x, labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    elif pd.api.types.is_integer_dtype(d[p]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-2, 102)
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.legend(loc="best")
    label = path_label(p)
    ax.set_title(title or f"How the win rate changes with {short(label, 40)}")
    ax.set_xlabel(f"{label} (value in the scenario's own units)" if numeric else f"{label} (choice)")
    ax.set_ylabel("Fights won (%); " + ("bands" if numeric else "whiskers") + ": 95% interval")
    return fig


@styled
def sweep_heatmap(frame: pd.DataFrame, params, side: str, title: str | None = None):
    """Heat map of one side's win rate over two varied values; 50% is white."""
    px, py = params
    grid = frame.pivot_table(index=py, columns=px, values=f"{side}_win_rate", aggfunc="mean")
    return _heatmap(grid, xlabel=path_label(px), ylabel=path_label(py),
                    title=title or f"How often {short(side)} wins as two values change",
                    cbar_label=f"{short(side)} wins (% of fights)", origin_lower=True)


def _heatmap(grid: pd.DataFrame, xlabel: str, ylabel: str, title: str, cbar_label: str,
             lo: pd.DataFrame | None = None, hi: pd.DataFrame | None = None, origin_lower: bool = False):
    rows, cols = grid.shape
    cell = 0.62 if max(rows, cols) <= 8 else 0.48
    width = min(max(4.8, 2.6 + cell * cols), 9.0)
    height = min(max(3.2, 1.9 + cell * rows), 9.0)
    fig, ax = new_figure(height, width=width)
    values = grid.to_numpy(float)
    im = ax.imshow(values * 100, cmap=DIVERGING_CMAP, vmin=0, vmax=100, aspect="auto",
                   origin="lower" if origin_lower else "upper")
    ax.grid(False)
    fs = 8.5 if max(rows, cols) <= 8 else 7
    cmap = im.get_cmap()
    for i in range(rows):
        for j in range(cols):
            v = values[i, j]
            if not np.isfinite(v):
                continue
            text = f"{100 * v:.0f}%"
            if lo is not None and hi is not None and max(rows, cols) <= 8:
                half = (hi.to_numpy(float)[i, j] - lo.to_numpy(float)[i, j]) / 2
                text += f"\n±{100 * half:.0f}" if half >= 0.01 else f"\n±{100 * half:.1f}"
            from matplotlib.colors import to_hex
            ax.text(j, i, text, ha="center", va="center", fontsize=fs,
                    color=_ink_on(to_hex(cmap(v))))
    # Turn the column names upright when they would not fit side by side (about 0.075
    # inch per character at this size); upright names never touch each other and may
    # be longer.
    cell_width = (width - 2.6) / max(cols, 1)
    rot = max((len(short(c, 18)) for c in grid.columns), default=0) * 0.075 > 0.9 * cell_width
    xlabels = [short(c, 28 if rot else 18) for c in grid.columns]
    ax.set_xticks(range(cols), xlabels, rotation=90 if rot else 0)
    ax.set_yticks(range(rows), [short(r, 22) for r in grid.index])
    ax.spines[:].set_visible(False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    cbar = fig.colorbar(im, ax=ax, shrink=0.9)
    cbar.set_label(cbar_label)
    return fig


@styled
def _step_text(rows: pd.DataFrame, steps) -> str:
    """"d6 -> d4/d8 dice", "40 -> 39/50": what was played, where the table says it
    (sim.analysis.sensitivity's `label`); else the step sizes, "±1"."""
    if "label" in rows.columns and rows["label"].astype(str).str.contains(" -> ").all():
        parts = [str(x).split(" (")[0].split(" -> ") for x in rows.sort_values("step")["label"]]
        text = f"{parts[0][0]} -> " + "/".join(p[1] for p in parts)
        return text + (" dice" if rows["label"].astype(str).str.contains("dice step").any() else "")
    mag = sorted({abs(x) for x in steps})
    return "±" + "/".join(f"{m:g}" for m in mag) if mag else ""


def tornado_figure(frame: pd.DataFrame, side: str | None = None, top: int = 12, title: str | None = None):
    """Which stats move a side's win rate most: one bar per stat and step direction,
    longest on top, with 95% intervals. Shows the `top` most influential stats."""
    side = side or str(frame["side"].iloc[0])
    d = frame[frame["side"].astype(str) == side].copy()
    d["reach"] = d.groupby("stat")["delta"].transform(lambda v: v.abs().max())
    stats = list(d.sort_values("reach", ascending=False)["stat"].drop_duplicates())[:top]
    fig, ax = new_figure(rows_height(len(stats), extra=1.9, minimum=2.8))
    up, down = OKABE_ITO["blue"], OKABE_ITO["orange"]
    labels = []
    for i, stat in enumerate(stats):
        rows = d[d["stat"] == stat]
        steps = rows["step"].to_numpy(float)
        for (_, r), offset in zip(rows.sort_values("step").iterrows(), ([0] if len(rows) == 1 else [0.18, -0.18])):
            raised = float(r["step"]) > 0
            v, lo, hi = 100 * float(r["delta"]), 100 * float(r["ci_lo"]), 100 * float(r["ci_hi"])
            ax.barh(i + offset, v, height=0.34, color=up if raised else down,
                    hatch=None if raised else "//", edgecolor="white", lw=0.3)
            ax.errorbar(v, i + offset, xerr=whiskers([v], [lo], [hi]), fmt="none", ecolor="black", capsize=2.5, lw=1)
        labels.append(f"{short(path_label(stat), 30)} ({_step_text(rows, steps)})")
    ax.set_yticks(range(len(stats)), labels)
    ax.set_ylim(len(stats) - 0.5, -0.5)
    ax.axvline(0, color="black", lw=1)
    ax.grid(False, axis="y")
    lim = max(d[["ci_lo", "ci_hi", "delta"]].abs().to_numpy().max() * 100 * 1.1, 1) if len(d) else 1
    ax.set_xlim(-lim, lim)
    from matplotlib.patches import Patch
    fig.legend(handles=[Patch(color=up, label="stat raised by the step"),
                        Patch(facecolor=down, hatch="//", edgecolor="white", label="stat lowered by the step")],
               loc="outside lower center", ncols=2)
    ax.set_title(title or f"Which stats move {sides_possessive(short(side))} win rate most")
    ax.set_xlabel(f"Change in {sides_possessive(short(side))} win rate (percentage points)\n{CI_NOTE}")
    return fig


def tournament_matrix(frame: pd.DataFrame, value: str = "win_rate", row: str = "row", col: str = "col"):
    """(matrix, lo, hi) from a long tournament frame; a matrix passes through."""
    if value not in frame.columns:
        return frame, None, None
    m = frame.pivot(index=row, columns=col, values=value)
    m = m.reindex(index=pd.unique(frame[row]), columns=pd.unique(frame[col]))  # keep the given order
    if "ci_lo" in frame.columns and "ci_hi" in frame.columns:
        lo = frame.pivot(index=row, columns=col, values="ci_lo").reindex_like(m)
        hi = frame.pivot(index=row, columns=col, values="ci_hi").reindex_like(m)
    else:
        lo = hi = None
    m.index.name = m.index.name if m.index.name != row else frame.attrs.get("row_label", row)
    m.columns.name = m.columns.name if m.columns.name != col else frame.attrs.get("col_label", col)
    return m, lo, hi


@styled
def tournament_figure(frame: pd.DataFrame, row_side: str | None = None, title: str | None = None):
    """The tournament as a heat map: how often the row policy beats the column policy.

    Purple cells favour the row side, orange the column side, white is an even fight."""
    m, lo, hi = tournament_matrix(frame)
    who = row_side or frame.attrs.get("row_side") or (m.index.name or "the row side")
    return _heatmap(m, xlabel=str(m.columns.name or "opponent's policy"), ylabel=str(m.index.name or "policy"),
                    title=title or f"Policy against policy: how often {short(who)} wins",
                    cbar_label=f"{short(who)} wins (% of fights)", lo=lo, hi=hi)


@styled
def tune_figure(frame: pd.DataFrame, param: str, side: str, target: float, answer=None, title: str | None = None):
    """The values a tune played: `side`'s win rate against `param` with 95% bands, the
    target as a dotted line and the answer marked. `frame` is a sweep frame over `param`."""
    fig = sweep_figure(frame, params=[param], sides=[side], target=target,
                       title=title or f"Tuning {short(path_label(param), 34)}: {short(side)} to win "
                                      f"{100 * target:.0f}% of fights")
    ax = fig.axes[0]
    if answer is not None:
        # A die answer sits at its position among the values played (the axis is categorical).
        values = list(frame[param].astype(str))
        at = float(answer) if _is_numeric(frame[param]) else float(values.index(str(answer)))
        ax.axvline(at, color="black", ls="--", lw=1)
        ax.text(at, 101, f" answer {answer}", ha="left", va="top", fontsize=8.5)
    ax.legend(loc="lower left")
    return fig
