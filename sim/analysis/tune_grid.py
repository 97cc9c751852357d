"""Solving for two stats at once: a small grid of both, played on common random numbers,
and the pairs that come nearest a side's target win rate.

One value answers a one-stat question (sim/analysis/tune.py); with two stats there is a
curve of answers (more survival and less damage bonus can give the same 60%). So the
grid is played whole, every point on the same skirmishes, and the result names the
pairs whose interval holds the target, nearest first, and for each value of the first
stat between which two values of the second the target lies.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from sim.analysis.common import (_run_settings, as_scenario, check_side, frame, play_variants, provenance_columns,
                                 variant, win_matrix)
from sim.analysis.tune import check_params, search_space
from sim.errors import ScenarioError
from sim.overrides import get_path
from sim.stats import wilson

# Values per stat when no --range is given (the current value in the middle), and the
# most a range is thinned to, so a grid stays a few dozen variants.
DEFAULT_SPAN = 3
MAX_PER_AXIS = 9
NEAREST = 5


def axis(base, param: str, lo=None, hi=None) -> list:
    """The values of one stat the grid plays: whole numbers or dice along the ladder."""
    try:
        current = get_path(base.data, param)
    except ScenarioError as e:
        raise e.located(base.source) from None
    if isinstance(current, int) and not isinstance(current, bool) and lo is None and hi is None:
        lo, hi = current - DEFAULT_SPAN, current + DEFAULT_SPAN
    value_of, lo, hi = search_space(base, param, current, lo, hi)
    positions = sorted(set(np.linspace(lo, hi, min(MAX_PER_AXIS, hi - lo + 1)).round().astype(int).tolist()))
    out = []
    for v in positions:
        value = value_of(v)
        try:
            variant(base, {param: value})
        except ScenarioError:
            continue  # outside what the field accepts (survival 0): not a value to play
        out.append(value)
    if len(out) < 2:
        raise ScenarioError("needs at least two values the field accepts; give --range LO..HI.", path=param)
    return out


def tune_grid(scenario, params: list[str], side: str, target: float, ranges: list | None = None,
              n: int | None = 4000, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
              overrides: dict | None = None, progress=None) -> pd.DataFrame:
    """Play the grid of two stats and rank its pairs by distance to `side`'s target win rate.

    One row per pair: both values, every side's win rate with its interval, `distance`
    (|rate - target|), `on_target` (the interval holds the target), `rank` (1 = nearest).
    `df.attrs["analysis"]` holds `message` (the verdict in words) and `between` (per value
    of the first stat, the two values of the second the target lies between).
    """
    if len(params) != 2:
        raise ScenarioError(f"tune takes one or two --param, not {len(params)}.")
    base = as_scenario(scenario, overrides)
    check_params(params, base.source)
    check_side(base, side, "--target")
    ranges = list(ranges or [(None, None)] * 2)
    axes = [axis(base, p, *r) for p, r in zip(params, ranges)]
    pairs = list(itertools.product(*axes))
    variants = [variant(base, dict(zip(params, pair))) for pair in pairs]
    n, seed, max_rounds = _run_settings(base, n, seed, max_rounds)
    played = play_variants(variants, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, crn=True,
                           reduce=win_matrix, progress=progress)
    rows = []
    for pair, scen, w in zip(pairs, variants, played.results):
        row = dict(zip(params, pair))
        row["skirmishes"] = len(w)
        for j, name in enumerate(base.side_names):
            k = int(w[:, j].sum())
            lo, hi = wilson(k, len(w))
            row[f"{name}.win_rate"], row[f"{name}.win_lo"], row[f"{name}.win_hi"] = k / len(w), float(lo), float(hi)
        row["distance"] = abs(row[f"{side}.win_rate"] - target)
        row["on_target"] = bool(row[f"{side}.win_lo"] <= target <= row[f"{side}.win_hi"])
        row.update(provenance_columns(base, scen, played.seed))
        rows.append(row)
    df = pd.DataFrame(rows).sort_values("distance", kind="stable").reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    between = crossings(df, params, side, target, axes)
    message = grid_message(df, params, side, target, between)
    return frame(df.to_dict("records"), {"command": "tune", "grid": True, "params": list(params), "side": side,
                                         "target": target, "skirmishes": played.skirmishes,
                                         "axes": [list(map(str, a)) for a in axes], "between": between,
                                         "status": "found" if df["on_target"].any() or between else "unreachable",
                                         "message": message})


def crossings(df: pd.DataFrame, params, side: str, target: float, axes) -> list[dict]:
    """For each value of the first stat, the neighbouring values of the second whose
    win rates lie on either side of the target (each rate's interval clear of it)."""
    first, second = params
    rate, lo, hi = f"{side}.win_rate", f"{side}.win_lo", f"{side}.win_hi"
    out = []
    for a in axes[0]:
        line = df[df[first] == a].set_index(second).reindex(axes[1])
        for b0, b1 in zip(axes[1], axes[1][1:]):
            r0, r1 = line.loc[b0], line.loc[b1]
            below, above = sorted((r0, r1), key=lambda r: r[rate])
            if below[hi] < target < above[lo]:
                out.append({first: a, f"{second}.from": b0, f"{second}.to": b1,
                            "rates": [float(r0[rate]), float(r1[rate])]})
    return out


def grid_message(df: pd.DataFrame, params, side: str, target: float, between: list[dict]) -> str:
    first, second = params
    rate, lo, hi = f"{side}.win_rate", f"{side}.win_lo", f"{side}.win_hi"
    hits = df[df["on_target"]].head(NEAREST)
    if len(hits):
        pairs = "; ".join(f"{first.rsplit('.', 1)[-1]} {r[first]}, {second.rsplit('.', 1)[-1]} {r[second]}: "
                          f"{r[rate]:.1%} [{r[lo]:.1%} .. {r[hi]:.1%}]" for _, r in hits.iterrows())
        text = f"{len(df[df['on_target']])} of {len(df)} pairs give {side} {target:.0%} within their interval; " \
               f"nearest: {pairs}."
    else:
        best = df.iloc[0]
        text = (f"no pair of the grid gives {side} {target:.0%} within its interval; nearest: "
                f"{best[first]}, {best[second]} at {best[rate]:.1%} [{best[lo]:.1%} .. {best[hi]:.1%}].")
    if between:
        name = second.rsplit(".", 1)[-1]
        spans = "; ".join(f"at {first.rsplit('.', 1)[-1]} {b[first]}, between {name} {b[f'{second}.from']} "
                          f"({b['rates'][0]:.1%}) and {b[f'{second}.to']} ({b['rates'][1]:.1%})" for b in between)
        text += f" No grid value hits it exactly here: {spans}."
    return text
