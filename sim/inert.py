"""Rules, gear and stats that had no effect in any skirmish of a run, and the ruleset's
own outcome columns as per-combatant means.

A balance answer holds only for the play behind it: a shield never used for a Block
or a stat the configured rules never read says the answer does not depend on it. Each
ruleset finds its own inert items (`ruleset.inert(scenario, table) -> list[dict]`,
computed from the combatant outcome table and the scenario; docs/architecture.md);
this module gathers, orders and words them, and knows no ruleset.

A finder reads `Totals` (per combatant, each column's sum over the run and its largest
value in one skirmish), never the rows, so a summary-only run lists the same items.
An item is a dict of three strings: `who` (a combatant or stat-block name, or "rules"),
`what` (the thing without effect, e.g. "shield never used for a Block") and `reason`
(why, in the designer's words, e.g. "the all_out policy never defends"; it reads after
"because").
"""
from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

ITEM_KEYS = ("who", "what", "reason")
# A group of at least this many columns sharing a prefix ("stunt_", "defended_") is shown
# as its own table, so a ruleset with a column per stunt stays readable.
GROUP_AT = 3
# Columns that are final states or indices, not figures to average.
_NOT_FIGURES = {"skirmish", "combatant", "side", "final_state", "down_round"}


# ----------------------------------------------------------------- what finders read

class Totals:
    """Per combatant, the sum over every skirmish and the largest value in one skirmish of
    each outcome column: all a finder reads, and what summary-only runs keep too
    (sim/aggregate.py), so both kinds of run list the same items."""

    def __init__(self, n: int, sums: dict, peaks: dict):
        self.n, self.sums, self.peaks = int(n), sums, peaks

    @property
    def columns(self) -> list[str]:
        return list(self.sums)

    @classmethod
    def from_table(cls, scenario, table: pd.DataFrame) -> "Totals":
        """From a combatant outcome table (one row per skirmish and combatant)."""
        c = len(scenario.combatants)
        sums, peaks = {}, {}
        for col in table.columns:
            if col in _NOT_FIGURES or not pd.api.types.is_numeric_dtype(table[col]):
                continue
            v = table[col].to_numpy().reshape(-1, c).astype(np.int64)
            sums[col] = v.sum(axis=0)
            peaks[col] = v.max(axis=0) if len(v) else np.zeros(c, np.int64)
        return cls(len(table) // max(c, 1), sums, peaks)


def as_totals(scenario, table) -> Totals:
    return table if isinstance(table, Totals) else Totals.from_table(scenario, table)


def blocks(scenario) -> list[tuple[str, list[int], object]]:
    """(label, combatant indices, first combatant) per stat block: copies made by `count`
    share one stat dict and are judged together (an item names the block once)."""
    seen: dict[int, list[int]] = {}
    for i, c in enumerate(scenario.combatants):
        seen.setdefault(id(c.stats), []).append(i)
    out = []
    for idx in seen.values():
        first = scenario.combatants[idx[0]]
        label = first.name if len(idx) == 1 else f"{first.stats.get('name', first.name)} (all {len(idx)})"
        out.append((label, idx, first))
    return out


def total(scenario, table, column: str, idx: list[int]) -> int:
    """Sum of a column over every skirmish and the given combatants."""
    return int(as_totals(scenario, table).sums[column][idx].sum())


def peak(scenario, table, column: str, idx: list[int]) -> int:
    """The largest value of a column in any one skirmish, among the given combatants."""
    return int(as_totals(scenario, table).peaks[column][idx].max())


def item(who: str, what: str, reason: str) -> dict:
    return {"who": str(who), "what": str(what), "reason": str(reason)}


def plural(word: str) -> str:
    return word if word.endswith("s") else word + "s"


# ----------------------------------------------------------------- gather and word

def check_items(items) -> list[dict]:
    """The documented shape, or a TypeError naming what is wrong (the conformance test
    holds every ruleset to it)."""
    if not isinstance(items, list):
        raise TypeError(f"inert() must return a list of dicts, not {type(items).__name__}")
    for it in items:
        if not isinstance(it, dict) or tuple(sorted(it)) != tuple(sorted(ITEM_KEYS)):
            raise TypeError(f"an inert item has exactly the keys {ITEM_KEYS}: {it!r}")
        if not all(isinstance(it[k], str) and it[k] for k in ITEM_KEYS):
            raise TypeError(f"an inert item's who, what and reason are non-empty strings: {it!r}")
    return items


def gather(scenario, table) -> list[dict]:
    """The ruleset's inert items for this run (from its combatant table or its Totals), in
    the scenario's combatant order (rules last); empty when the ruleset has no finder or
    nothing was played."""
    finder = getattr(scenario.ruleset, "inert", None)
    if finder is None or table is None:
        return []
    totals = as_totals(scenario, table)
    if totals.n == 0:
        return []
    items = check_items(finder(scenario, totals))
    order = {c.name: i for i, c in enumerate(scenario.combatants)}
    for label, idx, _ in blocks(scenario):
        order[label] = idx[0]
    return sorted(items, key=lambda it: (order.get(it["who"], len(order)), it["what"]))


def inert_lines(items: list[dict], skirmishes: int) -> list[str]:
    """The summary's paragraph: one line per item, or nothing when every rule mattered."""
    if not items:
        return []
    lines = [f"No effect in any of the {skirmishes:,} skirmishes"]
    for it in items:
        lines += textwrap.wrap(f"{it['who']}: {it['what']}, because {it['reason']}", width=100,
                               initial_indent="  ", subsequent_indent="      ")
    return lines


# ----------------------------------------------------------------- the ruleset's own columns

def ruleset_means(scenario, table) -> dict[str, dict[str, float]]:
    """{combatant: {column: mean per skirmish}} of the ruleset's own outcome columns."""
    totals = as_totals(scenario, table)
    declared = getattr(scenario.ruleset, "outcome_columns", None) or ()
    cols = [c for c in declared if c in totals.sums and c not in _NOT_FIGURES]
    out: dict[str, dict[str, float]] = {c.name: {} for c in scenario.combatants}
    for col in cols:
        for c, total_ in zip(scenario.combatants, totals.sums[col]):
            out[c.name][col] = float(total_) / totals.n if totals.n else float("nan")
    return out


def column_groups(columns: list[str]) -> list[tuple[str, list[str]]]:
    """(title, columns) per table: columns sharing a prefix with GROUP_AT or more others
    get their own table (titled by the prefix), the rest share the first."""
    prefix = {c: c.split("_", 1)[0] for c in columns if "_" in c}
    counts = pd.Series(list(prefix.values()), dtype=object).value_counts() if prefix else pd.Series(dtype=int)
    grouped = {p for p, k in counts.items() if k >= GROUP_AT}
    plain = [c for c in columns if prefix.get(c) not in grouped]
    out = [("", plain)] if plain else []
    for p in dict.fromkeys(prefix[c] for c in columns if prefix.get(c) in grouped):
        out.append((p, [c for c in columns if prefix.get(c) == p]))
    return out


def means_lines(scenario, means: dict[str, dict[str, float]], title: str, width: int = 100) -> list[str]:
    """Per-combatant tables of the means, split so no line is wider than `width`; a
    column that is zero for everyone is left out (the inert list says why)."""
    names = [c.name for c in scenario.combatants]
    columns = [col for col in dict.fromkeys(k for m in means.values() for k in m)
               if any(means[n].get(col, 0.0) != 0.0 for n in names)]
    if not columns:
        return []
    name_w = max(len("combatant"), *(len(n) for n in names)) + 2
    lines = [f"{title}, means per skirmish (columns zero for everyone left out)"]
    for group, cols in column_groups(columns):
        heads = [c[len(group) + 1:] if group else c for c in cols]
        col_w = max(8, max(map(len, heads)) + 2)
        per_line = max(1, (width - name_w - 2) // col_w)
        for start in range(0, len(cols), per_line):
            chunk, hchunk = cols[start:start + per_line], heads[start:start + per_line]
            label = f"{group}:" if group else "combatant"
            lines.append("  " + f"{label:<{name_w}}" + "".join(f"{h:>{col_w}}" for h in hchunk))
            for n in names:
                lines.append("  " + f"{n:<{name_w}}" + "".join(f"{means[n].get(c, 0.0):>{col_w}.2f}" for c in chunk))
    return lines


def means_frame(scenario, means: dict[str, dict[str, float]]) -> pd.DataFrame:
    """The means as a table for the report: one row per combatant."""
    rows = [{"combatant": c.name, "side": scenario.side_names[c.side],
             **{k: round(v, 2) for k, v in means[c.name].items()}} for c in scenario.combatants]
    return pd.DataFrame(rows)
