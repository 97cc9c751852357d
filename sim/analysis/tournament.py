"""Policy tournaments: every pairing of the listed policies of each side.

A policy is a dict placed at `sides.<side>.policy`, merged over the side's own policy
from the scenario (so a preset that sets only `target` keeps the side's morale
parameters; give every parameter to replace it outright). Presets are the shared
targeting modes (random, weakest, strongest, focus), `scenario` (the side's policy as
written), and any presets a ruleset declares in an optional `policy_presets` dict, so
a new ruleset's policy family works the same way without changes here.
"""
from __future__ import annotations

import itertools
import json

import pandas as pd

from sim.analysis.common import (as_scenario, check_side, frame, play_variants, provenance_columns, variant,
                                 win_matrix)
from sim.analysis.optimize_play import best_entrants, check_play
from sim.errors import ScenarioError, closest
from sim.english import sides_possessive
from sim.overrides import parse_value, side_path
from sim.policy import TARGET_MODES
from sim.stats import wilson

MAX_PAIRINGS = 400


def presets(scen) -> dict[str, dict]:
    out = {m: {"target": m} for m in TARGET_MODES}
    out.update(getattr(scen.ruleset, "policy_presets", {}) or {})
    out["scenario"] = {}
    return out


def parse_policy_list(text: str, side: str = "") -> list:
    """`random,weakest`, a YAML/JSON list `[random, {target: focus, flee_below: 0.5}]`, one
    inline dict `{target: focus}`, or a labelled mapping `{brave: {...}, timid: {...}}`."""
    text = text.strip()
    if text.startswith("[") or text.startswith("{"):
        value = parse_value(text)
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            return [(str(k), v) for k, v in value.items()]
        return value if isinstance(value, list) else [value]
    return [p.strip() for p in text.split(",") if p.strip()]


def resolve_policies(scen, side: str, items: list) -> list[tuple[str, dict]]:
    """(label, policy dict) per entry: preset names, dicts, or (label, dict) pairs."""
    table = presets(scen)
    out = []
    for item in items:
        if isinstance(item, tuple):
            label, spec = item
        elif isinstance(item, str):
            if item not in table:
                raise ScenarioError(f"--policies {side}: no preset '{item}'.{closest(item, table)} Presets: "
                                    f"{', '.join(table)}; or give a policy inline, e.g. "
                                    "'{target: weakest, flee_below: 0.5}'.", file=scen.source)
            label, spec = item, table[item]
        elif isinstance(item, dict):
            label, spec = json.dumps(item, sort_keys=True, separators=(",", ":")), item
        else:
            raise ScenarioError(f"--policies {side}: {item!r} is neither a preset name nor a policy mapping.",
                                file=scen.source)
        out.append((label, spec))
    labels = [lab for lab, _ in out]
    if len(set(labels)) != len(labels):
        raise ScenarioError(f"--policies {side}: the same policy is listed twice.", file=scen.source)
    return out


def tournament(scenario, policies: dict[str, list], n: int | None = 20000, seed: int | None = None,
               jobs: int = 1, max_rounds: int | None = None, overrides: dict | None = None,
               play: str = "as-written", progress=None) -> pd.DataFrame:
    """Play every combination of the listed policies (one list per side; sides not listed keep
    their scenario policy) on common random numbers.

    `policies` maps a side to a list of preset names, policy dicts or (label, dict)
    pairs. Returns one row per pairing: `policy.<side>` labels, each side's win rate
    with its interval, draws, and provenance. See `matrix`, `best_responses`, `verdicts`.
    `play="best"`: every side's strongest play found joins its entrants as `best`.
    """
    base = as_scenario(scenario, overrides)
    for side in policies:
        check_side(base, side, "--policies")
    per_side = {}
    for side in base.side_names:
        items = policies.get(side) or ["scenario"]
        per_side[side] = resolve_policies(base, side, items)
    if check_play(play):
        for side, entry in best_entrants(base, base.side_names, seed, jobs, max_rounds, progress).items():
            per_side[side].append(entry)
    combos = list(itertools.product(*(per_side[s] for s in base.side_names)))
    if len(combos) > MAX_PAIRINGS:
        raise ScenarioError(f"{len(combos)} pairings; list fewer policies (at most {MAX_PAIRINGS} pairings).")
    variants = []
    for combo in combos:
        ov = {}
        for side, (_, spec) in zip(base.side_names, combo):
            if spec:
                own = base.data["sides"][side].get("policy") or {}
                ov[side_path(side, "policy")] = {**own, **spec}
        variants.append(variant(base, ov))
    played = play_variants(variants, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, crn=True,
                           reduce=lambda r: (win_matrix(r), int((r.skirmishes["winner"] == "draw").sum())),
                           progress=progress)
    rows = []
    for combo, scen, (w, draws) in zip(combos, variants, played.results):
        row = {f"policy.{side}": label for side, (label, _) in zip(base.side_names, combo)}
        row["skirmishes"] = len(w)
        for s, side in enumerate(base.side_names):
            k = int(w[:, s].sum())
            lo, hi = wilson(k, len(w))
            row[f"{side}.win_rate"], row[f"{side}.win_lo"], row[f"{side}.win_hi"] = k / len(w), float(lo), float(hi)
        row["draw_rate"] = draws / len(w)
        row.update(provenance_columns(base, scen, played.seed))
        rows.append(row)
    return frame(rows, {"command": "tournament", "sides": list(base.side_names), "skirmishes": played.skirmishes,
                        "policies": {s: [lab for lab, _ in per_side[s]] for s in base.side_names},
                        "specs": {s: {lab: spec for lab, spec in per_side[s]} for s in base.side_names}})


def _sides(df: pd.DataFrame) -> list[str]:
    return [c[len("policy."):] for c in df.columns if c.startswith("policy.")]


def matrix(df: pd.DataFrame, side: str) -> pd.DataFrame:
    """`side`'s win rate with its policies as rows and the other sides' combined policies as columns."""
    sides = _sides(df)
    others = [s for s in sides if s != side]
    col = df[[f"policy.{s}" for s in others]].astype(str).agg(" / ".join, axis=1) if others else "-"
    m = df.assign(_opp=col).pivot_table(index=f"policy.{side}", columns="_opp", values=f"{side}.win_rate",
                                         sort=False)
    m.index.name = f"{side} policy"
    m.columns.name = " / ".join(others) + " policy"
    return m


def best_responses(df: pd.DataFrame) -> pd.DataFrame:
    """For each side and each profile of the others' policies, the side's best policy,
    and whether it is clearly best (its interval does not overlap the runner-up's)."""
    sides = _sides(df)
    rows = []
    for side in sides:
        others = [f"policy.{s}" for s in sides if s != side]
        groups = df.groupby(others, sort=False) if others else [((), df)]
        for key, g in groups:
            g = g.sort_values(f"{side}.win_rate", ascending=False)
            best = g.iloc[0]
            second = g.iloc[1] if len(g) > 1 else None
            key = key if isinstance(key, tuple) else (key,)
            rows.append({
                "side": side,
                "against": " / ".join(f"{o[len('policy.'):]}: {k}" for o, k in zip(others, key)),
                "best_policy": best[f"policy.{side}"],
                "win_rate": best[f"{side}.win_rate"],
                "win_lo": best[f"{side}.win_lo"],
                "win_hi": best[f"{side}.win_hi"],
                "runner_up": None if second is None else second[f"policy.{side}"],
                "runner_up_rate": None if second is None else second[f"{side}.win_rate"],
                "clearly_best": bool(second is None or best[f"{side}.win_lo"] > second[f"{side}.win_hi"]),
            })
            rows[-1]["verdict"] = _best_words(rows[-1], g[f"{side}.win_rate"])
    return pd.DataFrame(rows)


NO_CLEAR_BEST = "no clear best"


def _best_words(row: dict, rates: pd.Series) -> str:
    """The best policy's name only when its interval clears the runner-up's."""
    if row["clearly_best"]:
        return str(row["best_policy"])
    if rates.nunique() == 1:
        return f"{NO_CLEAR_BEST}: every policy listed gives the same fights here"
    return f"{NO_CLEAR_BEST}: {row['best_policy']} and {row['runner_up']} are within each other's intervals"


def verdicts(df: pd.DataFrame) -> list[str]:
    """One robustness sentence per side: the range of its win rate across the others' tactics
    (playing its best response to each), and its maximin policy."""
    sides = _sides(df)
    out = []
    for side in sides:
        others = [s for s in sides if s != side]
        rate = f"{side}.win_rate"
        if others:
            best = df.loc[df.groupby([f"policy.{s}" for s in others], sort=False)[rate].idxmax()]
        else:
            best = df.loc[[df[rate].idxmax()]]
        lo_row, hi_row = best.loc[best[rate].idxmin()], best.loc[best[rate].idxmax()]
        def opp(r, others=others):
            return ", ".join(f"{s} {r[f'policy.{s}']}" for s in others) or "-"
        worst_case = df.groupby(f"policy.{side}", sort=False)[rate].min()
        robust = worst_case.idxmax()
        safest = (f"its safest policy is {robust} (at worst {worst_case[robust]:.1%})" if worst_case.nunique() > 1
                  else f"its policies do equally well at worst ({worst_case[robust]:.1%})")
        tactics = f"{', '.join(others)} tactics"
        if len(best) == 1:
            spread = f"is {lo_row[rate]:.1%} (against {opp(lo_row)})"
        elif f"{lo_row[rate]:.1%}" == f"{hi_row[rate]:.1%}":
            # A range from 0.0% to 0.0% reads as a misprint; say the tactics made no difference.
            spread = f"is {lo_row[rate]:.1%} against every one of the {tactics}"
        else:
            spread = (f"ranges from {lo_row[rate]:.1%} (against {opp(lo_row)}) to {hi_row[rate]:.1%} "
                      f"(against {opp(hi_row)}) across {tactics}")
        text = f"The {sides_possessive(side)} win rate {spread}, playing its best response to each; {safest}."
        n_own = df[f"policy.{side}"].nunique()
        if n_own > 1:
            br = best_responses(df)
            br = br[br["side"] == side]
            if not br["clearly_best"].any():
                text += f" No clear best: against every {', '.join(others) or 'setting'} tactic its policies' " \
                        "intervals overlap."
            elif others and br["clearly_best"].all() and br["best_policy"].nunique() == 1:
                text += f" {br['best_policy'].iloc[0]} is its clear best response to every tactic listed."
        out.append(text)
    return out
