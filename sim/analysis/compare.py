"""Two designs side by side: every summary figure of A and of B, and B - A with a 95%
interval, paired by skirmish.

`compare(a, b)` plays both on common random numbers: the same seed, the same chunk
numbering and `crn=True`, so skirmish k of A and skirmish k of B roll the same dice
wherever the two rulesets draw in the same order. Paired by skirmish index, the
difference then carries the effect of the design change, not the luck of the dice,
and its interval is far narrower than that of two independent runs.

`compare_results(a, b)` does the same for two finished runs (RunResult or
sim.report.RunTables). Runs of the same size are paired by skirmish index; runs of
different sizes get an unpaired (independent-samples) interval instead, and the
table says which (`paired` column).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.common import as_scenario, frame, paired_diff, play_variants
from sim.stats import Z95, mean_ci, wilson

DOWN_STATES = ("dead", "unconscious")  # "down" everywhere: out of the fight by wounds; fled is apart

COLUMNS = ["figure", "key", "kind", "a", "a_lo", "a_hi", "b", "b_lo", "b_hi", "diff", "diff_lo", "diff_hi",
           "paired"]


def play_pair(a, b, n: int | None = None, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
              overrides: dict | None = None, overrides_b: dict | None = None, progress=None):
    """Play A and B on the same skirmishes; returns their two RunResults.

    `n`, `seed` and `max_rounds` default to A's `run:` block, and B uses the same, so
    the two are comparable. `overrides` apply to both; `overrides_b` to B alone (compare
    a file with a changed copy of itself)."""
    sa = as_scenario(a, overrides)
    sb = as_scenario(b, {**(overrides or {}), **(overrides_b or {})} or None)
    played = play_variants([sa, sb], n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, crn=True,
                           progress=progress)
    ra, rb = played.results
    for r, sets in ((ra, overrides or {}), (rb, {**(overrides or {}), **(overrides_b or {})})):
        if sets:
            r.meta.setdefault("overrides", dict(sets))
    return ra, rb


def compare(a, b, n: int | None = None, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
            overrides: dict | None = None, overrides_b: dict | None = None, labels=None,
            progress=None) -> pd.DataFrame:
    """Play scenarios A and B on common random numbers and return one row per figure:
    `a`, `b` with their 95% intervals, `diff` = B - A with its paired 95% interval.

    Figures: each side's win rate, draw and unfinished rates, mean rounds, and per
    combatant its down rate (dead or unconscious at the end), fled rate, damage dealt
    and damage taken per fight. Rates are shares (0..1); `kind` says rate or mean.
    `df.attrs["analysis"]` names A and B and holds both runs' provenance.
    """
    ra, rb = play_pair(a, b, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, overrides=overrides,
                       overrides_b=overrides_b, progress=progress)
    return compare_results(ra, rb, labels=labels)


def default_labels(meta_a: dict, meta_b: dict) -> tuple[str, str]:
    """The scenario names, told apart by their files or by B's overrides when they match."""
    a, b = str(meta_a.get("scenario") or "A"), str(meta_b.get("scenario") or "B")
    if a != b:
        return a, b
    fa, fb = meta_a.get("scenario_file"), meta_b.get("scenario_file")
    if fa and fb and fa != fb:
        return f"{a} ({Path(str(fa)).name})", f"{b} ({Path(str(fb)).name})"
    if meta_b.get("overrides") and meta_b.get("overrides") != meta_a.get("overrides"):
        return f"{a} as written" if not meta_a.get("overrides") else a, f"{b}, changed"
    return f"{a} (first)", f"{b} (second)"


def compare_results(a, b, labels=None) -> pd.DataFrame:
    """The comparison table of two finished runs (see the module docstring)."""
    meta_a, meta_b = dict(getattr(a, "meta", {}) or {}), dict(getattr(b, "meta", {}) or {})
    label_a, label_b = labels or default_labels(meta_a, meta_b)
    xa, xb = _per_skirmish(a), _per_skirmish(b)
    paired = len(xa["ids"]) == len(xb["ids"]) and np.array_equal(xa["ids"], xb["ids"])
    rows = []
    for key, (figure, kind) in _figure_keys(xa, xb).items():
        va, vb = xa["values"].get(key), xb["values"].get(key)
        row = {"figure": figure, "key": key, "kind": kind, "paired": paired}
        row["a"], row["a_lo"], row["a_hi"] = _estimate(va, kind)
        row["b"], row["b_lo"], row["b_hi"] = _estimate(vb, kind)
        row["diff"], row["diff_lo"], row["diff_hi"] = _difference(va, vb, paired)
        rows.append(row)
    meta = {"command": "compare", "labels": [label_a, label_b], "skirmishes": [len(xa["ids"]), len(xb["ids"])],
            "paired": paired, "a": meta_a, "b": meta_b}
    df = frame(rows, meta)[COLUMNS]
    df.attrs["analysis"] = meta
    return df


def _sides(x) -> list[str]:
    side = x.combatants["side"]
    if isinstance(side.dtype, pd.CategoricalDtype):
        return [str(s) for s in side.cat.categories]
    return [str(s) for s in pd.unique(side.astype(str))]


def _names(x) -> list[str]:
    col = x.combatants["combatant"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return [str(s) for s in col.cat.categories]
    return [str(s) for s in pd.unique(col.astype(str))]


def _per_skirmish(x) -> dict:
    """Per-skirmish value arrays of every figure, in skirmish-id order."""
    sk = x.skirmishes.sort_values("skirmish") if "skirmish" in x.skirmishes else x.skirmishes
    ids = sk["skirmish"].to_numpy() if "skirmish" in sk else np.arange(len(sk))
    winner = sk["winner"].astype(str).to_numpy()
    values = {f"{s}.win_rate": (winner == s).astype(float) for s in _sides(x)}
    values["draw_rate"] = (winner == "draw").astype(float)
    values["unfinished_rate"] = (winner == "unfinished").astype(float)
    values["rounds_mean"] = sk["rounds"].to_numpy(float)
    cb = x.combatants
    names = cb["combatant"].astype(str).to_numpy()
    state = cb["final_state"].astype(str).to_numpy()
    cb_ids = cb["skirmish"].to_numpy() if "skirmish" in cb else np.repeat(ids, len(_names(x)))
    position = pd.Index(ids).get_indexer(cb_ids)
    for name in _names(x):
        mine = names == name
        where = position[mine]
        for key, v in ((".down_rate", np.isin(state[mine], DOWN_STATES).astype(float)),
                       (".fled_rate", (state[mine] == "fled").astype(float)),
                       (".damage_dealt", cb["damage_dealt"].to_numpy(float)[mine]),
                       (".damage_taken", cb["damage_taken"].to_numpy(float)[mine])):
            out = np.zeros(len(ids))
            out[where] = v
            values[name + key] = out
    return {"ids": ids, "values": values, "sides": _sides(x), "names": _names(x)}


def _figure_keys(xa: dict, xb: dict) -> dict:
    """Every figure either run has, in reading order: sides, draws, length, combatants."""
    keys: dict = {}
    for s in dict.fromkeys(xa["sides"] + xb["sides"]):
        keys[f"{s}.win_rate"] = (f"{s} win rate", "rate")
    keys["draw_rate"] = ("draw rate", "rate")
    keys["unfinished_rate"] = ("unfinished rate", "rate")
    keys["rounds_mean"] = ("mean rounds", "mean")
    for name in dict.fromkeys(xa["names"] + xb["names"]):
        keys[f"{name}.down_rate"] = (f"{name} down", "rate")
        keys[f"{name}.fled_rate"] = (f"{name} fled", "rate")
        keys[f"{name}.damage_dealt"] = (f"{name} damage dealt / fight", "mean")
        keys[f"{name}.damage_taken"] = (f"{name} damage taken / fight", "mean")
    return keys


def _estimate(v, kind: str) -> tuple[float, float, float]:
    if v is None or len(v) == 0:
        return (math.nan,) * 3
    if kind == "rate":
        lo, hi = wilson(int(v.sum()), len(v))
        return float(v.mean()), float(lo), float(hi)
    return mean_ci(v)


def _difference(va, vb, paired: bool) -> tuple[float, float, float]:
    if va is None or vb is None or len(va) == 0 or len(vb) == 0:
        return (math.nan,) * 3
    if paired:
        return paired_diff(va, vb)
    d = float(vb.mean() - va.mean())
    se = math.sqrt(va.var(ddof=1) / len(va) + vb.var(ddof=1) / len(vb)) if min(len(va), len(vb)) > 1 else math.inf
    return d, d - Z95 * se, d + Z95 * se
