"""The "at least X" views of a run: the chance a side deals (or takes) at least X damage in
a fight, and that a fight lasts at least R rounds, each with its 95% Wilson band, and the
levels reached in 9, 5 and 1 fights of 10 with their intervals.

The question designers ask of a damage roll ("how often does the party deal 30 or more?")
asked of whole fights; sim/odds.py answers it of one exchange, exactly.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator, PercentFormatter

from sim.report.style import new_figure, short, side_colors, styled
from sim.stats import wilson

LEVELS = ((0.9, "in 9 of 10 fights"), (0.5, "in half of fights"), (0.1, "in 1 of 10 fights"))


def side_totals(t) -> pd.DataFrame:
    """Per skirmish and side: the damage the side dealt and took in the fight, summed over
    its combatants (rolled damage, as the rest of the page counts it)."""
    c = t.combatants
    totals = c.groupby(["skirmish", "side"], sort=False, observed=True)[["damage_dealt", "damage_taken"]].sum()
    return totals.reset_index()


def at_least_curve(values: np.ndarray) -> pd.DataFrame:
    """x = 0..max: the share of fights with at least x, and its 95% Wilson interval."""
    values = np.asarray(values, dtype=np.int64)
    n = len(values)
    counts = np.bincount(values, minlength=1) if n else np.zeros(1, np.int64)
    tail = np.cumsum(counts[::-1])[::-1]  # fights with at least x
    lo, hi = wilson(tail, n)
    return pd.DataFrame({"x": np.arange(len(counts)), "share": tail / max(n, 1), "lo": lo, "hi": hi})


def level(curve: pd.DataFrame, share: float) -> tuple[int, int, int]:
    """The most x reached in at least `share` of fights, and the range of x whose interval
    allows it: (x, low, high)."""
    def most(col):
        ok = curve.loc[curve[col] >= share - 1e-12, "x"]
        return int(ok.max()) if len(ok) else 0
    return most("share"), most("lo"), most("hi")


def measures(t) -> list[tuple[str, np.ndarray]]:
    totals = side_totals(t)
    out = []
    for side in t.sides:
        mine = totals[totals["side"] == side]
        out.append((f"{side} deals (damage)", mine["damage_dealt"].to_numpy()))
        out.append((f"{side} takes (damage)", mine["damage_taken"].to_numpy()))
    out.append(("fight length (rounds)", t.skirmishes["rounds"].to_numpy()))
    return out


def at_least_table(t) -> pd.DataFrame:
    """Per measure, the level reached in 9, 5 and 1 fights of 10, with its 95% interval."""
    rows = []
    for name, values in measures(t):
        curve = at_least_curve(values)
        row = {"measure": name, "mean": round(float(np.mean(values)), 2) if len(values) else 0.0}
        for share, words in LEVELS:
            x, lo, hi = level(curve, share)
            row[f"at least, {words}"] = f"{x} [{lo}–{hi}]" if lo != hi else str(x)
        rows.append(row)
    return pd.DataFrame(rows)


@styled
def at_least_figure(t, title: str | None = None):
    """Three panels: damage dealt by each side, damage taken, fight length; each curve the
    share of fights with at least x, its band the 95% interval."""
    fig, axes = new_figure(3.3, ncols=3, sharey=True)
    colors = side_colors(t.sides)
    totals = side_totals(t)
    for ax, col, what in ((axes[0], "damage_dealt", "Damage a side deals"),
                          (axes[1], "damage_taken", "Damage a side takes")):
        for side in t.sides:
            _curve(ax, at_least_curve(totals.loc[totals["side"] == side, col].to_numpy()), colors[side],
                   short(side, 18))
        ax.set_title(what, fontsize=10)
        ax.set_xlabel("at least this many points")
    _curve(axes[2], at_least_curve(t.skirmishes["rounds"].to_numpy()), "#444444", "all fights")
    axes[2].set_title("Fight length", fontsize=10)
    axes[2].set_xlabel("at least this many rounds")
    axes[0].set_ylabel("Share of fights (%)")
    axes[0].yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
    for ax in axes:
        ax.set_ylim(0, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4))
    fig.suptitle(title or "How often a fight reaches at least X (bands: 95% intervals)", fontsize=11,
                 fontweight="bold")
    return fig


def _curve(ax, curve: pd.DataFrame, color, label) -> None:
    # Cut where under 0.5% of fights remain, as the fight-length bars do, so one freak fight
    # does not squash the picture.
    shown = curve[curve["share"] >= 0.005] if (curve["share"] >= 0.005).any() else curve.iloc[:1]
    ax.step(shown["x"], shown["share"], where="post", color=color, lw=1.6, label=label)
    ax.fill_between(shown["x"], shown["lo"], shown["hi"], step="post", color=color, alpha=0.2, lw=0)
