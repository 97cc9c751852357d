"""The table, verdict and text of `skirmish optimize DAY_FILE` (sim.day.optimize).

A fight's side with the objective `fight` is read on the days its fight is reached
(its rate: the party loses the fight before its round limit); its paired shifts are over the days
reached under both plays compared, which are all the days the fight is reached when
the plays differ only after that fight. Every other figure is read on every day.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict

import numpy as np
import pandas as pd

import sim
from sim.analysis import optimize_space as sp
from sim.analysis.common import frame, paired_diff
from sim.analysis.optimize import policy_lines, search_ending
from sim.runner import chunk_sizes
from sim.stats import wilson

PARTY = "party"


def objective_label(side: str, objective: str, fight: str | None = None) -> str:
    if side == PARTY:
        return "survives the day"
    return f"beats the party at {fight} if reached" if objective == "fight" else "the party falls by the day's end"


def _rate(values: np.ndarray, mask: np.ndarray) -> tuple[float, float, float]:
    n = int(mask.sum())
    if not n:
        return float("nan"), float("nan"), float("nan")
    k = int(values[mask].sum())
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


def _shift(search, a: np.ndarray, b: np.ndarray, side: str) -> tuple[float, float, float]:
    both = search.reached(a, side) & search.reached(b, side)
    return paired_diff(search.score(a, side)[both], search.score(b, side)[both])


def day_table(search, found: dict, history: list, converged: bool, sides: list[str], budget, n: int) -> pd.DataFrame:
    day = search.day
    profiles = {"written": dict(search.written), "strongest": found}
    profiles.update({f"own:{s}": {**search.written, s: found[s]} for s in search.sides})
    blocks = list(enumerate(chunk_sizes(n)))
    outs = dict(zip(profiles, search.outcomes(list(profiles.values()), blocks)))
    strongest_day = search.day_for(found)
    survival = {tag: _rate(outs[tag][:, 0], np.ones(n, dtype=bool)) for tag in ("written", "strongest")}
    rows = []
    for side in search.sides:
        fight = None if side == PARTY else search.fight_of(side).name
        row = {"side": side, "fight": fight, "searched": side in sides,
               "objective": "day.survival" if side == PARTY else search.objective,
               "figure": objective_label(side, search.objective, fight), "days": n}
        for tag, key in (("written", "written"), ("strongest", "strongest"), ("own_best", f"own:{side}")):
            out = outs[key]
            row[f"{tag}.rate"], row[f"{tag}.lo"], row[f"{tag}.hi"] = _rate(search.score(out, side),
                                                                           search.reached(out, side))
        row["shift"], row["shift_lo"], row["shift_hi"] = _shift(search, outs["written"], outs["strongest"], side)
        row["own_gain"], row["own_gain_lo"], row["own_gain_hi"] = _shift(search, outs["written"],
                                                                         outs[f"own:{side}"], side)
        row["own_survival"], row["own_survival_lo"], row["own_survival_hi"] = paired_diff(
            outs["written"][:, 0], outs[f"own:{side}"][:, 0])
        row["policy_written"] = sp.yaml_text(search.written[side])
        row["policy_found"] = sp.yaml_text(found[side])
        row["changes"] = sp.yaml_text(sp.changes(search.written[side], found[side], search.fields))
        row.update(day=day.name, day_file=day.source, day_hash=day.hash, variant_hash=strongest_day.hash,
                   seed=int(day.run["seed"]), day_rules=json.dumps(day.day_rules, sort_keys=True, default=str),
                   package_version=sim.__version__)
        rows.append(row)
    meta = {"command": "optimize", "what": "day", "day": day.name, "sides": list(search.sides), "searched": sides,
            "objective": search.objective, "days": n, "seed": int(day.run["seed"]), "budget": asdict(budget),
            "converged": converged, "cycled": search.cycled, "responses": len(history),
            "history": [{k: v for k, v in h.items() if k != "policy"} | {"policy": sp.yaml_text(h["policy"])}
                        for h in history],
            "policies": {s: found[s] for s in search.sides},
            "survival": {tag: dict(zip(("rate", "lo", "hi"), v)) for tag, v in survival.items()},
            "survival_shift": dict(zip(("shift", "lo", "hi"), paired_diff(outs["written"][:, 0],
                                                                         outs["strongest"][:, 0])))}
    meta["message"] = verdict(rows, meta)
    return frame(rows, meta)


def _pct(r: dict, tag: str) -> str:
    return f"{r[f'{tag}.rate']:.1%} [{r[f'{tag}.lo']:.1%} .. {r[f'{tag}.hi']:.1%}]"


def _pts(d, lo, hi) -> str:
    return f"{100 * d:+.1f} pts [{100 * lo:+.1f} .. {100 * hi:+.1f}]"


def verdict(rows: list[dict], meta: dict) -> str:
    """The answer in words: each side's figure as written and under the strongest play."""
    parts = []
    for r in rows:
        if not r["searched"] and r["changes"] == "{}" and r["side"] != PARTY:
            continue
        who = "the party" if r["side"] == PARTY else r["side"]
        text = f"{who} {r['figure']} {_pct(r, 'written')} as written, {_pct(r, 'strongest')} under the strongest play"
        if not math.isnan(r["shift"]):
            text += f" ({_pts(r['shift'], r['shift_lo'], r['shift_hi'])}, paired)"
        parts.append(text)
    return "; ".join(parts) + "." + search_ending(rows, meta)


def optimize_day_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    lines = [f"{meta['day']}: {meta['days']:,} days per figure, seed {meta['seed']}; the search played "
             f"{meta['search_days']:,} other days in {meta['responses']} best responses "
             f"({'converged' if meta['converged'] else 'NOT converged'}). Objective of the fights' sides: "
             f"{meta['objective']}. Rates with 95% intervals; shifts paired on the same days, in points.", ""]
    width = max(len("side"), *(len(s) for s in df["side"])) + 2
    fig_w = max(len("objective"), *(len(s) for s in df["figure"])) + 2
    lines.append(f"  {'side':<{width}}{'objective':<{fig_w}}{'as written':<24}{'strongest found':<24}"
                 f"{'shift':<27}{'own play alone':<27}day survival (own play alone)")
    for r in df.to_dict("records"):
        lines.append(f"  {r['side']:<{width}}{r['figure']:<{fig_w}}{_short(r, 'written'):<24}"
                     f"{_short(r, 'strongest'):<24}{_signed(r, 'shift'):<27}{_signed(r, 'own_gain'):<27}"
                     f"{_signed(r, 'own_survival')}")
    lines.append("")
    lines += policy_lines(df.to_dict("records"))
    lines += ["", meta["message"],
              "own play alone: the side's found policy, every other side as written."]
    return "\n".join(lines)


def _short(r: dict, tag: str) -> str:
    if math.isnan(r[f"{tag}.rate"]):
        return "-"
    return f"{r[f'{tag}.rate']:.1%} [{r[f'{tag}.lo']:.1%}, {r[f'{tag}.hi']:.1%}]"


def _signed(r: dict, key: str) -> str:
    d, lo, hi = r[key], r[f"{key}_lo"], r[f"{key}_hi"]
    if math.isnan(d):
        return "-"
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


__all__ = ["day_table", "objective_label", "optimize_day_text", "verdict"]
