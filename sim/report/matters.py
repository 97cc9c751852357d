"""The page of `skirmish matters FILE --report DIR`: who matters, each combatant benched.

A bar per combatant of the paired change in its own side's win rate with it benched
(and against the baseline stand-in, when one was given), with 95% intervals; the table;
the stat blocks as played and the provenance.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.report.designs import design_section
from sim.report.figures import whiskers
from sim.report.html import Section, write_report
from sim.report.style import OKABE_ITO, new_figure, rows_height, short, styled


@styled
def matters_figure(df: pd.DataFrame, title: str | None = None):
    """Horizontal bars: each combatant's worth to its side in points (its side's win rate
    with everyone less with it benched), 95% whiskers; a second bar against the baseline."""
    rows = len(df)
    fig, ax = new_figure(rows_height(rows))
    y = np.arange(rows)
    worth = -100 * df["own_delta"].to_numpy(float)
    lo = -100 * np.array([r[f"{r['side']}.delta_hi"] for r in df.to_dict("records")], float)
    hi = -100 * np.array([r[f"{r['side']}.delta_lo"] for r in df.to_dict("records")], float)
    base = "baseline.delta" in df and df["baseline.delta"].notna().any()
    h = 0.4 if base else 0.7
    ax.barh(y - (h / 2 if base else 0), worth, height=h, color=OKABE_ITO["blue"], label="benched")
    ax.errorbar(worth, y - (h / 2 if base else 0), xerr=whiskers(worth, lo, hi), fmt="none", ecolor="black",
                capsize=2, lw=0.8)
    if base:
        b = -100 * df["baseline.delta"].to_numpy(float)
        blo, bhi = -100 * df["baseline.delta_hi"].to_numpy(float), -100 * df["baseline.delta_lo"].to_numpy(float)
        ok = ~np.isnan(b)
        ax.barh(y[ok] + h / 2, b[ok], height=h, color=OKABE_ITO["orange"], label="against the baseline stand-in")
        ax.errorbar(b[ok], y[ok] + h / 2, xerr=whiskers(b[ok], blo[ok], bhi[ok]), fmt="none", ecolor="black",
                    capsize=2, lw=0.8)
        ax.legend(loc="lower right")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [short(f"{c} ({s})", 30) for c, s in zip(df["combatant"], df["side"])])
    ax.set_ylim(rows - 0.4, -0.6)
    ax.set_xlabel("Worth to its side: win-rate points lost without it (whiskers: 95% paired interval)")
    ax.set_title(title or "Who matters: each combatant benched in turn")
    return fig


def report_matters(df: pd.DataFrame, scen, out_dir, title: str | None = None) -> Path:
    """Write the matters page for the table of sim.analysis.matters.matters into `out_dir`."""
    from sim.analysis.matters import matters_text
    meta = df.attrs["analysis"]
    shown = df[["rank", "combatant", "side", "own_delta", "significant"]].copy()
    shown["own_delta"] = 100 * shown["own_delta"]
    lines = matters_text(df).splitlines()
    sections = [Section("Who matters", [lines[0]], [("matters", matters_figure(df))],
                        [("Each combatant benched: the change in its side's win rate, points",
                          shown.rename(columns={"own_delta": "change (pts)"}))]),
                design_section(scen, getattr(scen, "overrides", None), level=3)]
    verdict = [line.strip() for line in lines[2:] if line.strip()][:3]
    provenance = {k: v for k, v in meta.items() if k != "command"}
    provenance.update({k: df[k].iloc[0] for k in ("scenario_hash", "seed", "package_version") if k in df})
    return write_report(out_dir, title or f"{meta['scenario']}: who matters", [("", verdict)], sections,
                        [("", provenance)], subtitle=f"{scen.ruleset_name}, {meta['skirmishes']:,} skirmishes each")
