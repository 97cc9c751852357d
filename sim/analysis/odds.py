"""`skirmish odds`: the exact odds of every exchange a scenario can meet (sim/odds.py).

No dice are rolled: each ruleset enumerates one attack's dice into exact fractions. The
tables carry the provenance columns of every analysis (seed is 0: nothing is random).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from sim.analysis.common import as_scenario, provenance_columns
from sim.errors import ScenarioError, closest
from sim.odds import damage_table, pairs_table
from sim.rulesets import get


@dataclass
class OddsResult:
    pairs: pd.DataFrame
    """One row per exchange: hit chance, damage mean / any / most, outcome columns."""
    damage: pd.DataFrame
    """The damage distribution of every exchange, long, with the chance of at least each."""


def odds(scenario, overrides: dict | None = None, attacker: str | None = None,
         defender: str | None = None) -> OddsResult:
    """Every attacker / defender / attack pair of SCENARIO (a path, dict or Scenario),
    optionally only those of one attacker or one defender stat block."""
    scen = as_scenario(scenario, overrides)
    exchanges = get(scen.ruleset_name).odds(scen)
    for role, name in (("attacker", attacker), ("defender", defender)):
        if name is not None:
            exchanges = _only(exchanges, role, name, scen)
    meta = provenance_columns(scen, scen, 0)
    pairs, damage = pairs_table(exchanges), damage_table(exchanges)
    for df in (pairs, damage):
        df.attrs["analysis"] = {"ruleset": scen.ruleset_name, **meta}
    return OddsResult(pairs, damage)


def _only(exchanges, role: str, name: str, scen) -> list:
    names = sorted({getattr(e, role) for e in exchanges})
    kept = [e for e in exchanges if getattr(e, role) == name]
    if not kept:
        raise ScenarioError(f"--{role} {name!r}: no stat block of that name meets an enemy in this scenario."
                            f"{closest(name, names)} Give one of: {', '.join(names)}.", file=scen.source)
    return kept


def odds_text(result: OddsResult, scenario_name: str = "") -> str:
    """The matchup table: one line per exchange, outcome chances after the damage."""
    df = result.pairs
    if df.empty:
        return "no exchanges: no side has an enemy with an attack to meet"
    outcome_cols = [c for c in df.columns if c.startswith("outcome.")]
    lines = [f"Exact odds of one exchange{f' in {scenario_name}' if scenario_name else ''} "
             "(enumerated, no sampling):"]
    width = max(len(f"{r.attacker} ({r.attack}) -> {r.defender}") for r in df.itertuples())
    head = f"  {'exchange':<{width}}  {'hit':>6}  {'dmg mean':>8}  {'any dmg':>7}  {'most':>4}"
    head += "".join(f"  {c[len('outcome.'):]:>{max(6, len(c) - 8)}}" for c in outcome_cols)
    lines.append(head)
    for r in df.to_dict("records"):
        label = f"{r['attacker']} ({r['attack']}) -> {r['defender']}"
        line = (f"  {label:<{width}}  {_pct(r['hit'])}  {r['damage_mean']:8.2f}  {_pct(r['damage_any'], 7)}  "
                f"{r['damage_max']:>4}")
        lines.append(line + "".join(f"  {_pct(r[c], max(6, len(c) - 8))}" for c in outcome_cols))
    readings = list(dict.fromkeys(r for r in df["reading"] if r))
    if readings:
        lines.append("What the rows assume:")
        lines.extend(f"  - {r}" for r in readings)
    return "\n".join(lines)


def _pct(x: float, width: int = 6) -> str:
    return f"{100 * x:{width - 1}.1f}%"
