"""Gods & Monsters stat tables pasted as text, for `skirmish import --stat-table` (docs/import.md).

The Conflicts chapter lays its table out one cell a line, each ending in ' |', with a
line holding only '|' between rows and the first row naming the columns (`Combatant |`,
`Survival |`, ...). Also read: one-line rows (`| Yeti | 20 | - | 6 |`, as a web page or a
markdown file gives them) and `Survival | 20` lines under a creature's name. Prose
between the tables, and tables of anything else (the chapter's cover table), are skipped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sim.errors import ScenarioError, closest
from sim.import_cells import NONE_WORDS
from sim.schema import synonym_hint

NAME_WORDS = ("name", "combatant", "monster", "creature", "character", "npc")


@dataclass
class Record:
    """One stat block's cell texts by column, and where each was read (for messages)."""
    where: str
    cells: dict[str, str]
    cell_where: dict[str, str] = field(default_factory=dict)

    def at(self, col: str) -> str:
        return self.cell_where.get(col, self.where)


def normal(label: str) -> str:
    """A column label as the schema names it: `Damage bonus` is damage_bonus, `Combatant` name."""
    word = re.sub(r"[\s\-]+", "_", label.strip().rstrip(":").strip().lower())
    return "name" if word in NAME_WORDS else word


def stat_records(text: str, fields: dict, source: str) -> list[Record]:
    records = []
    for heading, rows in _pipe_tables(text):
        head = [normal(c) for _, c in rows[0]]
        if len(head) >= 2 and head[0] == "name" and (len(head) > 2 or head[1] in fields):
            records += _across(rows, head, fields, source)
        elif all(len(r) == 2 for r in rows) and any(normal(r[0][1]) in fields for r in rows):
            records += _down(rows, heading, fields, source)
    if not records:
        raise ScenarioError("holds no stat table: expected the chapter's layout (a header row `Combatant | Survival "
                            "| Verve | ...`, then a row per combatant) or `Survival | 12` lines under the creature's "
                            "name.", file=source)
    return records


def _pipe_tables(text: str):
    """(heading, rows) of each table in `text`: rows of (line, cell) lists; a line without '|'
    ends a table, and the last one before it is its heading."""
    tables, rows, row, heading, last_prose = [], [], [], None, None

    def end_row():
        if row:
            rows.append(list(row))
            row.clear()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or re.fullmatch(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?", line):
            continue  # blank, or a markdown rule under a header
        if "|" not in line:
            end_row()
            if rows:
                tables.append((heading, rows))
                rows = []
            last_prose = line
            continue
        if not rows and not row:
            heading = last_prose
        parts = [p.strip() for p in line.split("|")]
        cells = parts[1:] if line.startswith("|") else parts
        cells = cells[:-1] if line.endswith("|") and cells else cells
        if not cells:
            end_row()  # a '|' line between rows
        elif len(cells) == 1:
            row.append((n, cells[0]))  # the chapter's layout: one cell a line
        else:
            end_row()
            rows.append([(n, c) for c in cells])
    end_row()
    if rows:
        tables.append((heading, rows))
    return tables


def _across(rows, head, fields, source) -> list[Record]:
    for (n, label), col in zip(rows[0], head):
        if col not in fields:
            raise _unknown_label(n, label, col, fields, source)
    records = []
    for cells in rows[1:]:
        if len(cells) == len(head) - 1 and "verve" in head:
            # The chapter's Yeti row: seven numbers under eight columns, read without verve, as
            # docs/rules/gods_and_monsters.md, Gaps and contradictions, 'Yeti row' reads it.
            cells = cells[:head.index("verve")] + [(cells[0][0], "")] + cells[head.index("verve"):]
        if len(cells) != len(head):
            raise ScenarioError(f"line {cells[0][0]} ({cells[0][1]}): {len(cells)} cells under {len(head)} columns; "
                                "give one cell per column ('-' for the default).", file=source)
        records.append(Record(f"line {cells[0][0]}", {c: _dash(v) for c, (_, v) in zip(head, cells)},
                               {c: f"line {n}" for c, (n, _) in zip(head, cells)}))
    return records


def _down(rows, heading, fields, source) -> list[Record]:
    records: list[Record] = []
    for (n, label), (_, value) in rows:
        col = normal(label)
        if col == "name":
            records.append(Record(f"line {n}", {"name": value}))
            continue
        if col not in fields:
            raise _unknown_label(n, label, col, fields, source)
        if not records:
            if not heading or len(heading) > 60 or heading.endswith("."):
                raise ScenarioError(f"line {n}: `{label} | {value}` comes before any creature is named; start the "
                                    "stat block with a line `Name | Yeti` (or the name alone on a line).", file=source)
            records.append(Record(f"line {n}", {"name": heading.rstrip(":").strip()}))
        if col in records[-1].cells:
            raise ScenarioError(f"line {n} ({records[-1].cells['name']}): a second '{label}'; give each stat once.",
                                file=source)
        records[-1].cells[col], records[-1].cell_where[col] = _dash(value), f"line {n}"
    return records


def _unknown_label(n, label, col, fields, source) -> ScenarioError:
    hint = closest(col, fields) or synonym_hint(col, fields)
    return ScenarioError(f"line {n}: '{label}' is not a stat of a Gods & Monsters stat block.{hint} Stats: "
                         f"{', '.join(fields)}.", file=source)


def _dash(text: str) -> str:
    return "" if text.strip() in NONE_WORDS else text.strip()


