"""Exact odds of one exchange: what a ruleset's `odds(scenario)` returns, and the tables made of it.

A ruleset states, for one attack of one attacker on one defender, the chance it lands,
its outcome distribution and the distribution of the damage that reaches the defender
after armour, Mitigate or verve, all by enumerating the dice (no sampling), as exact
fractions. The core only pairs the combatants a scenario can meet and lays the answers
out as tables (sim/analysis/odds.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import pandas as pd

from sim.scenario import Combatant, Scenario


@dataclass(frozen=True)
class Exchange:
    """One attack of `attacker` with `attack` on `defender`, from a standing start."""
    attacker: str
    attacker_side: str
    defender: str
    defender_side: str
    attack: str
    hit: Fraction
    """The chance the attack lands: any damage or effect reaches the defender."""
    damage: dict[int, Fraction]
    """damage[k]: the chance that exactly k points reach the defender (0 for a miss); sums to 1."""
    outcomes: dict[str, Fraction] = field(default_factory=dict)
    """The ruleset's outcome distribution of the attack, e.g. the Lens' four outcomes; sums to 1."""
    reading: str = ""
    """What the figure assumes, in a few words (no Momentum spent, the defender unhurt, ...)."""


def matchups(scenario: Scenario) -> list[tuple[Combatant, Combatant]]:
    """Every attacker / defender pair of stat blocks the scenario can meet, once each: a
    side's copies of one stat block (four Goblins) are one attacker and one defender."""
    blocks: list[Combatant] = []
    seen: set[tuple[int, str]] = set()
    for c in scenario.combatants:
        key = (c.side, c.stats["name"])
        if key not in seen:
            seen.add(key)
            blocks.append(c)
    return [(a, d) for a in blocks for d in blocks if a.side != d.side]


def indexed_matchups(scenario: Scenario) -> list[tuple[Combatant, Combatant, int, int]]:
    """`matchups` with each one's index in `scenario.combatants`, where the tables a
    ruleset builds keep them."""
    index = {id(c): i for i, c in enumerate(scenario.combatants)}
    return [(a, d, index[id(a)], index[id(d)]) for a, d in matchups(scenario)]


def side_name(scenario: Scenario, combatant: Combatant) -> str:
    return scenario.side_names[combatant.side]


def exchange(scenario: Scenario, attacker: Combatant, defender: Combatant, attack: str, hit: Fraction,
             damage: dict[int, Fraction], outcomes: dict[str, Fraction], reading: str) -> Exchange:
    """The checked Exchange of one attack between two of the scenario's stat blocks, named
    as the stat blocks are (four Goblins attack as 'Goblin')."""
    return check(Exchange(attacker.stats["name"], side_name(scenario, attacker), defender.stats["name"],
                          side_name(scenario, defender), attack, hit, damage, outcomes, reading))


def check(exchange: Exchange) -> Exchange:
    """An exchange whose distributions are distributions; a ruleset's enumeration that
    loses or double-counts a case fails here, not in a designer's table."""
    where = f"{exchange.attacker} with {exchange.attack} on {exchange.defender}"
    if sum(exchange.damage.values()) != 1:
        raise AssertionError(f"the damage distribution of {where} sums to {sum(exchange.damage.values())}")
    if exchange.outcomes and sum(exchange.outcomes.values()) != 1:
        raise AssertionError(f"the outcomes of {where} sum to {sum(exchange.outcomes.values())}")
    if not 0 <= exchange.hit <= 1 or any(k < 0 for k in exchange.damage):
        raise AssertionError(f"the odds of {where} are not probabilities of damage")
    return exchange


def mean(pmf: dict[int, Fraction]) -> Fraction:
    return sum((k * p for k, p in pmf.items()), Fraction(0))


def at_least(pmf: dict[int, Fraction]) -> dict[int, Fraction]:
    """at_least[k]: the chance of k points or more, for every k from 0 to the largest."""
    top = max(pmf)
    out, running = {}, Fraction(0)
    for k in range(top, -1, -1):
        running += pmf.get(k, Fraction(0))
        out[k] = running
    return dict(sorted(out.items()))


_KEYS = ["attacker_side", "attacker", "attack", "defender_side", "defender"]


def pairs_table(exchanges: list[Exchange]) -> pd.DataFrame:
    """One row per exchange: the hit chance, the damage's mean, chance of any and most, and
    one `outcome.<name>` column per outcome the ruleset names."""
    rows = []
    for e in map(check, exchanges):
        row = {k: getattr(e, k) for k in _KEYS}
        row.update(hit=float(e.hit), damage_mean=float(mean(e.damage)),
                   damage_any=float(sum((p for k, p in e.damage.items() if k > 0), Fraction(0))),
                   damage_max=max((k for k, p in e.damage.items() if p > 0), default=0))
        row.update({f"outcome.{name}": float(p) for name, p in e.outcomes.items()})
        row["reading"] = e.reading
        rows.append(row)
    df = pd.DataFrame(rows, columns=None if rows else [*_KEYS, "hit", "damage_mean", "damage_any", "damage_max",
                                                       "reading"])
    outcome_cols = [c for c in df.columns if c.startswith("outcome.")]
    return df[[*_KEYS, "hit", "damage_mean", "damage_any", "damage_max", *outcome_cols, "reading"]].fillna(
        {c: 0.0 for c in outcome_cols})


def damage_table(exchanges: list[Exchange]) -> pd.DataFrame:
    """The whole damage distribution of every exchange, long: one row per (exchange, points)
    with the chance of exactly that many and of at least that many."""
    rows = []
    for e in map(check, exchanges):
        keys = {k: getattr(e, k) for k in _KEYS}
        tail = at_least(e.damage)
        for points in range(max(e.damage) + 1):
            rows.append({**keys, "damage": points, "p": float(e.damage.get(points, Fraction(0))),
                         "p_at_least": float(tail[points])})
    return pd.DataFrame(rows, columns=[*_KEYS, "damage", "p", "p_at_least"])
