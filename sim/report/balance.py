"""The page of `skirmish balance FILE --report DIR`: every design the search played, each
target's estimate with its 95% interval and the target's band shaded, the best design
marked; the best designs as a table; the best design's stat blocks as played; the
provenance.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from sim.report.designs import design_section, text
from sim.report.figures import whiskers
from sim.report.html import Section, write_report
from sim.report.style import OKABE_ITO, WIDTH, styled

SHARES = ("win_rate", "any_death", "any_down")
LABELS = {"win_rate": "{side} wins (% of fights)", "any_death": "a death on {side} (% of fights)",
          "any_down": "someone of {side} down (% of fights)", "deaths.mean": "{side} deaths a fight",
          "rounds.median": "median fight (rounds)", "rounds.mean": "mean fight (rounds)"}
TABLE_ROWS = 10


def _is_share(key: str) -> bool:
    return key.endswith(SHARES)


def _label(key: str) -> str:
    for measure, label in LABELS.items():
        if key == measure or key.endswith("." + measure):
            return label.format(side=key[: -len(measure) - 1])
    return key


@styled
def designs_figure(df: pd.DataFrame, title: str | None = None):
    """One panel per measure: each design's estimate (in the order played) with 95%
    whiskers, the target's band shaded (a point target: its tolerance), the best ringed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from sim.analysis.balance_targets import parse_target
    meta = df.attrs["analysis"]
    targets = [parse_target(t) for t in meta["targets"]]
    keys = list(dict.fromkeys(t.key for t in targets))
    fig = Figure(figsize=(WIDTH, 1.0 + 2.1 * len(keys)), layout="constrained")
    FigureCanvasAgg(fig)  # off-screen, as sim.report.style.new_figure does, with a panel per measure
    axes = fig.subplots(len(keys), 1, sharex=True, squeeze=False)[:, 0]
    order = df.sort_values("design")
    x = order["design"].to_numpy(int)
    colors = np.where(order["meets_all"].to_numpy(bool), OKABE_ITO["green"], OKABE_ITO["blue"])
    best = df.iloc[0]
    for ax, key in zip(axes, keys):
        k = 100.0 if _is_share(key) else 1.0
        y, lo, hi = (order[c].to_numpy(float) * k for c in (key, f"{key}.lo", f"{key}.hi"))
        bands = [(t.lo * k, t.hi * k, t.tolerance(meta["tolerance"]) * k) for t in targets if t.key == key]
        finite = [v for band in bands for v in band[:2] if math.isfinite(v)]
        top, bottom = max([*hi, *finite]), min([*lo, *finite])
        pad = max(0.08 * (top - bottom), 0.5 if k == 1 else 1.0)
        ax.set_ylim(bottom - pad, top + pad)
        for b_lo, b_hi, tol in bands:
            if b_lo == b_hi:  # a point target: its line, and its tolerance as the band
                ax.axhline(b_lo, color=OKABE_ITO["orange"], lw=1)
                b_lo, b_hi = b_lo - tol, b_hi + tol
            ax.axhspan(max(b_lo, bottom - pad), min(b_hi, top + pad), color=OKABE_ITO["orange"], alpha=0.18, lw=0)
        ax.errorbar(x, y, yerr=whiskers(y, lo, hi), fmt="none", ecolor="#555555", lw=0.8, capsize=2)
        ax.scatter(x, y, c=colors, s=16, zorder=3)
        ax.scatter([best["design"]], [best[key] * k], s=120, facecolors="none", edgecolors=OKABE_ITO["vermillion"],
                   linewidths=1.6, zorder=4)
        ax.set_ylabel(_label(key), fontsize=8.5)
    axes[-1].set_xlabel("Design, in the order played (green: meets every target; ringed: the best; "
                        "band: the target)")
    axes[0].set_title(title or "Each target per design played, with 95% intervals")
    return fig


def best_table(df: pd.DataFrame) -> pd.DataFrame:
    meta = df.attrs["analysis"]
    keys = list(dict.fromkeys(k for k, _, _ in meta["bands"]))
    rows = []
    for _, r in df.head(max(TABLE_ROWS, int(df["meets_all"].sum()))).iterrows():
        row = {"rank": int(r["rank"]), "design": int(r["design"])}
        row.update({name: str(r[p]) for name, p in zip(meta["names"], meta["params"])})
        for key in keys:
            k, unit = (100, " %") if _is_share(key) else (1, "")
            row[f"{key}{unit}"] = float(r[key]) * k
            digits = ".1f" if _is_share(key) else ".3g"
            row[f"{key}, 95%"] = f"{k * r[f'{key}.lo']:{digits}} .. {k * r[f'{key}.hi']:{digits}}"
        row["every target met"] = "yes" if r["meets_all"] else "no"
        row["skirmishes"] = int(r["skirmishes"])
        rows.append(row)
    return pd.DataFrame(rows)


def report_balance(df: pd.DataFrame, scen, out_dir, title: str | None = None) -> Path:
    """Write the balance page for the table of sim.analysis.balance.balance into `out_dir`;
    `scen` is the scenario the search started from (after --set)."""
    from sim.analysis.common import variant
    meta = df.attrs["analysis"]
    best = meta["best"]
    how = (f"{meta['designs']} designs played on common random numbers (the same seed and chunks), "
           f"{meta['skirmishes']:,} skirmishes each, the best few on more; targets: {', '.join(meta['targets'])}"
           + (f"; budget: {meta['budget']}" if meta.get("budget") else "") + ".")
    sections = [Section("Designs played", [how], [("balance", designs_figure(df))],
                        [("The best designs, best first", best_table(df))])]
    # Values read back from a saved table may be NumPy numbers, which a scenario refuses.
    best = {p: v.item() if hasattr(v, "item") else v for p, v in best.items()}
    changed = {p: v for p, v in best.items() if _value(scen, p) != v}
    played = design_section(variant(scen, changed) if changed else scen, None,
                            title="The best design as played", level=2)
    played.paragraphs.insert(0, ("The scenario with " + text([f"{p} = {v}" for p, v in changed.items()])
                                 + " (the rest as the file sets it).") if changed
                             else "The scenario as the file sets it: the search found nothing better.")
    sections.append(played)
    provenance = {k: v for k, v in meta.items() if k not in ("command", "message", "bands", "names")}
    provenance.update({k: df[k].iloc[0] for k in ("scenario_hash", "seed", "package_version") if k in df})
    return write_report(out_dir, title or f"{meta['scenario']}: balance", [("", [meta["message"]])], sections,
                        [("", provenance)], subtitle=f"{scen.ruleset_name}, skirmish balance")


def _value(scen, path):
    from sim.overrides import get_path
    return get_path(scen.data, path)
