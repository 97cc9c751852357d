"""The page of `skirmish optimize --report DIR`: each side's win rate as written, under
the strongest play found and with only its own play improved, with 95% intervals;
the policies found (to paste into the scenario) and every step of the search."""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.report import adapt as ad
from sim.report.designs import analysis_designs
from sim.report.figures import CI_NOTE, rate_axis, rate_bars
from sim.report.html import Section, write_report
from sim.report.style import OKABE_ITO, new_figure, rows_height, short, styled

PLAYS = (("written", "as written", OKABE_ITO["blue"]), ("strongest", "strongest play found", OKABE_ITO["orange"]),
         ("own_best", "own play alone improved", OKABE_ITO["green"]))


@styled
def play_figure(df: pd.DataFrame, title: str | None = None):
    """Per side, three bars (as written, strongest play found, own play alone) with 95% intervals."""
    fig, ax = new_figure(rows_height(3 * len(df), extra=1.8, minimum=2.8))
    y = np.arange(len(df))
    for i, (tag, label, color) in enumerate(PLAYS):
        v = df[f"{tag}.win_rate"].to_numpy(float) * 100
        lo, hi = df[f"{tag}.win_lo"].to_numpy(float) * 100, df[f"{tag}.win_hi"].to_numpy(float) * 100
        yy = y + (i - 1) * 0.27
        rate_bars(ax, yy, v, lo, hi, height=0.25, color=color, label=label, hatch=(None, "//", "..")[i])
    rate_axis(ax, y, [short(s) for s in df["side"]], len(df))
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
    ax.set_title(title or "Who wins as written and under the strongest play found")
    ax.set_xlabel(f"Fights won (% of fights)\n{CI_NOTE}; dotted line: 50%")
    return fig


def _interval(r, tag) -> str:
    return f"{100 * r[f'{tag}.win_lo']:.1f} – {100 * r[f'{tag}.win_hi']:.1f}%"


def _shift(r, col) -> str:
    return f"{100 * r[col]:+.1f} [{100 * r[f'{col}_lo']:+.1f} .. {100 * r[f'{col}_hi']:+.1f}]"


def figures_table(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for _, r in df.iterrows():
        rows.append({"side": r["side"], "as written %": 100 * r["written.win_rate"],
                     "as written, 95%": _interval(r, "written"),
                     "strongest play %": 100 * r["strongest.win_rate"],
                     "strongest, 95%": _interval(r, "strongest"),
                     "shift (pts, paired)": _shift(r, "shift"),
                     "own play alone (pts, paired)": _shift(r, "own_gain")})
    return pd.DataFrame(rows)


def policies_table(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"side": df["side"], "searched": ["yes" if s else "no" for s in df["searched"]],
                         "policy as written": df["policy_written"], "strongest found": df["policy_found"],
                         "changes": df["changes"]})


def history_table(meta: dict) -> pd.DataFrame:
    rows = [{"step": h["response"], "side": h["side"], "candidates": h["candidates"],
             "skirmishes per finalist": h["skirmishes_per_finalist"],
             "gain on fresh fights (pts)": f"{100 * h['gain']:+.1f} [{100 * h['gain_lo']:+.1f} .. "
                                           f"{100 * h['gain_hi']:+.1f}]",
             "adopted": "yes" if h["changed"] else "no", "policy after": h["policy"]}
            for h in meta.get("history", [])]
    return pd.DataFrame(rows)


def report_optimize(frame: pd.DataFrame, out_dir, meta: dict | None = None, title: str | None = None,
                    scenario=None):
    """Write the optimize page into out_dir; return the path of its index.html."""
    info = {**ad.analysis_info(frame), **(meta or {})}
    sections = [
        Section("As written against the strongest play found",
                [f"Each side's share of {info.get('skirmishes', 0):,} fights won, on the scenario's own seed: as "
                 "the file plays it, when every side plays the strongest policy the search found, and when only "
                 "that side does (the others as written). Shifts are paired differences on the same fights."],
                [("optimize", play_figure(frame))], [("Win rates and shifts", figures_table(frame))]),
        Section("Policies found",
                ["Paste `strongest found` under the side's `policy:` in the scenario. Scripted rules stay as "
                 "written; a combatant's own policy fields stay its own."],
                [], [("Per side", policies_table(frame))]),
        Section("How the search went",
                [f"Alternating best responses, {info.get('responses', 0)} in all "
                 f"({'converged' if info.get('converged') else 'not converged'}); each by successive halving on "
                 f"common random numbers, a change adopted only when its gain on fresh fights has a paired 95% "
                 f"interval above zero. The search played {info.get('search_skirmishes', 0):,} skirmishes of its "
                 "own, apart from the fights above."],
                [], [("Best responses", history_table(info))]),
    ]
    sections += analysis_designs(frame, meta, scenario, "The policies under `policy as written` above are "
                                 "these; the strongest play replaces only the sides' policies.")
    prov = {k: v for k, v in ad.provenance_of(frame, meta).items() if k not in ("history", "message", "policies")}
    title = title or ad.titled(frame, "Strongest play: the balance as written and under the best play found")
    return write_report(out_dir, title, [("", [info.get("message", "")])], sections, [("", prov)])
