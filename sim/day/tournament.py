"""`skirmish tournament DAY --policies party=...`: tactics over a whole day.

An entrant is a policy for the party in every fight of the day (`party=`), or for one
fight's other side (`FIGHT.SIDE=`, e.g. `ogre.ogre=bold,cautious`). Each policy is merged
over the policy the side has in that fight, as the fight tournament does
(sim/analysis/tournament.py). Every combination is played on the same days (day k of
each meets the same dice), so the figures of two entrants differ by their play alone;
the ranking is by day survival, with the paired difference to the best and a verdict that
names a clear best only when that difference's interval excludes zero.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd

from sim.analysis.common import frame, paired_diff
from sim.analysis.compare import _estimate
from sim.analysis.tournament import MAX_PAIRINGS, resolve_policies
from sim.day.spec import Day
from sim.day.variants import day_variant, join_path
from sim.errors import ScenarioError, closest

PARTY = "party"


def _entrant_keys(day: Day, key: str) -> list[tuple[str, str]]:
    """(fight name, side of its scenario) pairs an entrant key sets: every fight's party side
    for `party`, one fight's side for FIGHT.SIDE."""
    if key == PARTY:
        return [(f.name, f.scenario.side_names[f.party_index]) for f in day.fights]
    fight, _, side = key.rpartition(".")
    fights = {f.name: f for f in day.fights}
    if fight not in fights:
        raise ScenarioError(f"--policies {key}: give `party=` for the party in every fight, or FIGHT.SIDE= for one "
                            f"fight's side.{closest(fight, fights)} Fights: {', '.join(fights)}.", file=day.source)
    f = fights[fight]
    if side not in f.scenario.side_names or side == f.scenario.side_names[f.party_index]:
        others = [s for s in f.scenario.side_names if s != f.scenario.side_names[f.party_index]]
        raise ScenarioError(f"--policies {key}: fight {fight!r} has no other side {side!r} (the party's policy is "
                            f"`party=`).{closest(side, others)} Its other sides: {', '.join(others)}.",
                            file=day.source)
    return [(fight, side)]


def _overrides(day: Day, key: str, spec: dict) -> dict:
    out = {}
    fights = {f.name: f for f in day.fights}
    for fight, side in _entrant_keys(day, key):
        own = fights[fight].scenario.data["sides"][side].get("policy") or {}
        out[join_path(["steps", fight, "sides", side, "policy"])] = {**own, **spec}
    return out


def tournament_day(path, policies: dict[str, list], days: int | None = None, seed: int | None = None,
                   jobs: int = 1, overrides: dict | None = None, progress=None) -> pd.DataFrame:
    """Every combination of the listed entrants over the day, on the same days: one row per
    combination with its labels (`policy.<key>`), day survival, nobody dies, deaths and
    fights won with 95% intervals, and the paired change of day survival against the best."""
    import sim.day
    from sim.day.compare import per_day
    base = path if isinstance(path, Day) else sim.day.load_day(path, days=days, seed=seed)
    base = day_variant(base, overrides or {})
    if not policies:
        raise ScenarioError("--policies: list the party's policies, e.g. --policies party=random,focus.",
                            file=base.source)
    first = base.fights[0].scenario
    per_key = {}
    for key, items in policies.items():
        _entrant_keys(base, key)
        scen = first if key == PARTY else next(f.scenario for f in base.fights if f.name == key.rpartition(".")[0])
        per_key[key] = resolve_policies(scen, key, items)
    combos = list(itertools.product(*per_key.values()))
    if len(combos) > MAX_PAIRINGS:
        raise ScenarioError(f"{len(combos)} combinations; list fewer policies (at most {MAX_PAIRINGS}).")
    variants = []
    for combo in combos:  # every path checked before anything is played
        ov = {}
        for key, (_, spec) in zip(per_key, combo):
            ov.update(_overrides(base, key, spec) if spec else {})
        variants.append(day_variant(base, ov))
    figures = [per_day(sim.day.run(d, jobs=jobs, progress=progress)) for d in variants]
    return _table(base, per_key, combos, variants, figures)


SHOWN = ("day.survival", "day.nobody_dies", "day.deaths", "day.fights_won")


def _table(base: Day, per_key: dict, combos: list, variants: list, figures: list) -> pd.DataFrame:
    survival = [f["day.survival"][2] for f in figures]
    best = int(np.argmax([s.mean() for s in survival]))
    rows = []
    for i, (combo, d, fig) in enumerate(zip(combos, variants, figures)):
        row = {f"policy.{key}": label for key, (label, _) in zip(per_key, combo)}
        for key in SHOWN:
            row[key], row[f"{key}_lo"], row[f"{key}_hi"] = _estimate(fig[key][2], fig[key][1])
        row["vs_best"], row["vs_best_lo"], row["vs_best_hi"] = (
            paired_diff(survival[best], survival[i]) if i != best else (0.0, 0.0, 0.0))
        row.update(day=base.name, day_file=base.source, day_hash=d.hash, seed=int(d.run["seed"]),
                   days=int(d.run["days"]), day_rules=json.dumps(d.day_rules, default=str))
        rows.append(row)
    df = frame(rows, {})
    df = df.sort_values("day.survival", ascending=False, kind="stable").reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    meta = {"command": "tournament", "what": "day", "day": base.name, "days": int(base.run["days"]),
            "seed": int(base.run["seed"]), "policies": {k: [lab for lab, _ in v] for k, v in per_key.items()},
            "specs": {k: dict(v) for k, v in per_key.items()}, "verdict": verdict(df, list(per_key))}
    df.attrs["analysis"] = meta
    return df


def _labels(row, keys) -> str:
    return ", ".join(f"{k} {row[f'policy.{k}']}" for k in keys)


def verdict(df: pd.DataFrame, keys: list[str]) -> str:
    top = df.iloc[0]
    lead = (f"{_labels(top, keys)} survives the day most often: {top['day.survival']:.1%} "
            f"[{top['day.survival_lo']:.1%} .. {top['day.survival_hi']:.1%}]")
    if len(df) == 1:
        return lead + "."
    second = df.iloc[1]
    change = (f"{100 * second['vs_best']:+.1f} points [{100 * second['vs_best_lo']:+.1f} .. "
              f"{100 * second['vs_best_hi']:+.1f}]")
    if second["vs_best_hi"] < 0:
        return f"{lead}; a clear best: the runner-up, {_labels(second, keys)}, gives {change} on the same days."
    return f"{lead}; no clear best: the runner-up, {_labels(second, keys)}, is within {change} on the same days."


def tournament_day_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    keys = list(meta["policies"])
    lines = [f"{meta['day']}: {len(df)} combinations x {meta['days']:,} days, seed {meta['seed']}, the same days.",
             ""]
    head = f"  {'#':>3}  {'policies':<40} {'survives the day':<26} {'vs best (points)':<24} {'deaths/day':>10}"
    lines.append(head)
    for r in df.to_dict("records"):
        surv = f"{r['day.survival']:.1%} [{r['day.survival_lo']:.1%} .. {r['day.survival_hi']:.1%}]"
        vs = "-" if r["rank"] == 1 else (f"{100 * r['vs_best']:+.1f} [{100 * r['vs_best_lo']:+.1f} .. "
                                         f"{100 * r['vs_best_hi']:+.1f}]")
        lines.append(f"  {r['rank']:>3}  {_labels(r, keys):<40} {surv:<26} {vs:<24} {r['day.deaths']:>10.2f}")
    lines += ["", meta["verdict"]]
    return "\n".join(lines)
