"""Stat blocks from a spreadsheet or a pasted stat table: `skirmish import` (docs/import.md).

A CSV holds one stat block a row and one column a field of the ruleset's stat-block
schema; list fields take a compact cell syntax (`long sword: d8 attack=1; dagger`). Every
cell goes through the schema and the ruleset check the scenario loader applies, so the
library written loads exactly as a hand-written one; a bad cell is a ScenarioError naming
its row and column, raised before anything is written.
"""
from __future__ import annotations

import codecs
import csv
import io
import re
import stat
from pathlib import Path

from sim import rulesets
from sim.armory import expand, weapon_table
from sim.errors import ScenarioError, closest
from sim.import_cells import CellError, cell_value, format_top, format_value
from sim.import_table import NAME_WORDS, Record, normal, stat_records
from sim.schema import Field, synonym_hint, validate

MAX_BYTES = 20_000_000
FILE_SUFFIXES = (".csv", ".txt", ".tsv", ".text")
SAVE_AS = "in Excel: File > Save As > 'CSV UTF-8 (Comma delimited)'"
# Said after a ruleset's message that shows a list as YAML ([{name: dagger, damage: d4}]).
CSV_NOTE = " (In the CSV that is a cell such as `dagger: d4` in its column; docs/import.md gives the cell syntax.)"
TABLE_NOTE = (" (In a stat table: add a `Weapons |` or `Attacks |` column with a cell such as `dagger: d4 |` in each "
              "row, or give --weapons 'dagger: d4'; docs/import.md.)")


# ----------------------------------------------------------------------------- entry points

def import_csv(path_or_text, ruleset: str) -> dict:
    """The library data (`library:`, `armory:` when weapons are shared, `bestiary:`) of a CSV
    file or text: one stat block a row; raises ScenarioError naming the row and column."""
    rs = _ruleset(ruleset)
    text, source = _source_text(path_or_text, "<csv>")
    return _build(_csv_records(text, _fields(rs), source), rs, source, CSV_NOTE)


def import_stat_table(path_or_text, weapons: str | None = None) -> dict:
    """The library data of Gods & Monsters stat tables pasted as text, in the Conflicts
    chapter's layout (each cell on its own line ending in ' |', a '|' line between rows,
    the first row naming the columns), or as `Survival | 12` lines under a creature's name,
    or as one-line rows `Yeti | 20 | - | 6 ...`. Prose around the tables is ignored.
    `weapons` (a weapons cell) arms every stat block whose table gives no weapons or attacks."""
    rs = _ruleset("gods_and_monsters")
    text, source = _source_text(path_or_text, "<stat table>")
    records = stat_records(text, _fields(rs), source)
    if weapons:
        for r in records:
            if not r.cells.get("weapons") and not r.cells.get("attacks"):
                r.cells["weapons"], r.cell_where["weapons"] = weapons, "--weapons"
    return _build(records, rs, source, TABLE_NOTE)


def write_library(data: dict, path) -> Path:
    """Write library data as YAML, atomically (an interrupted write leaves no file)."""
    import yaml
    from sim.io import atomic_write_text
    n = len(data.get("bestiary") or {})
    head = (f"# A {data['library']} library of {n} stat block{'s' if n != 1 else ''}, written by `skirmish import`.\n"
            "# A scenario lists this file under `include:` (the path relative to the scenario) and\n"
            "# uses a stat block as `combatants: [{use: NAME}]`; fields written beside `use` win.\n")
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)
    return atomic_write_text(path, head + body)


def template(ruleset: str) -> str:
    """A CSV with a header naming every column of the ruleset's stat block and two example
    rows (the first two stat blocks of its `skirmish new` starter, as the loader reads them)."""
    from sim.scenario import load_scenario
    from sim.starters import starter
    from sim.yamlload import load_text
    rs = _ruleset(ruleset)
    scen = load_scenario(load_text(starter(ruleset))[0])
    blocks = list({c.stats["name"]: c.stats for c in scen.combatants}.values())[:2]
    return export_csv(blocks, rs.name)


def export_csv(blocks: list[dict], ruleset: str) -> str:
    """Stat blocks as validated by the loader (`Combatant.stats`) as CSV in the import's
    layout; a field at its default is an empty cell. Importing the text gives them back."""
    rs = _ruleset(ruleset)
    fields = _fields(rs)
    table = {key: validate(row, _weapon_item(rs), key) for key, row in weapon_table(rs, None).items()}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(fields)
    for block in blocks:
        writer.writerow([block["name"] if col == "name" else
                         format_top(block.get(col, spec.default), spec, table if col in _weapon_lists(rs) else None)
                         for col, spec in fields.items()])
    return out.getvalue()


# ----------------------------------------------------------------------------- reading files

def _ruleset(name):
    if name not in rulesets.names():
        raise ScenarioError(f"unknown ruleset '{name}'.{closest(str(name), rulesets.names())} "
                            f"Known: {', '.join(rulesets.names())}.")
    return rulesets.get(name)


def _fields(rs) -> dict[str, Field]:
    from sim.scenario import CORE_COMBATANT_FIELDS
    return {"name": CORE_COMBATANT_FIELDS["name"], **rs.combatant_fields}


def _weapon_lists(rs) -> tuple[str, ...]:
    return getattr(rs, "weapon_lists", ("weapons", "attacks"))


def _weapon_item(rs) -> Field:
    return rs.combatant_fields[_weapon_lists(rs)[0]].item


def _source_text(path_or_text, default_name: str) -> tuple[str, str]:
    """(text, name for messages) of a path, bytes or the text itself."""
    if isinstance(path_or_text, bytes):
        return _decode(path_or_text, default_name), default_name
    if isinstance(path_or_text, str) and ("\n" in path_or_text or not _looks_like_path(path_or_text)):
        return path_or_text.lstrip("\ufeff"), default_name
    p = Path(path_or_text)
    return _decode(_read_bytes(p), str(p)), str(p)


def _looks_like_path(text: str) -> bool:
    try:
        return Path(text).suffix.lower() in FILE_SUFFIXES or Path(text).exists()
    except (OSError, ValueError):
        return False


def _read_bytes(p: Path) -> bytes:
    try:
        info = p.stat()
    except FileNotFoundError:
        raise ScenarioError("no such file; check the path.", file=str(p)) from None
    except OSError as e:
        raise ScenarioError(f"cannot be read ({e.strerror}); check the path and its permissions.",
                            file=str(p)) from None
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError("is a folder or a device, not a file; give the CSV file itself.", file=str(p))
    if info.st_size > MAX_BYTES:
        raise ScenarioError(f"is {info.st_size:,} bytes; an import reads at most {MAX_BYTES:,}. Split the "
                            "spreadsheet into several files.", file=str(p))
    try:
        return p.read_bytes()
    except OSError as e:
        raise ScenarioError(f"cannot be read ({e.strerror}); check its permissions.", file=str(p)) from None


def _decode(raw: bytes, source: str) -> str:
    if raw.startswith(b"PK\x03\x04"):
        raise ScenarioError(f"is an Excel workbook (.xlsx), not CSV; save the sheet as CSV ({SAVE_AS}).", file=source)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ScenarioError(f"is UTF-16 text (Excel's 'Unicode Text'); save it as CSV UTF-8 ({SAVE_AS}).", file=source)
    try:
        return raw.decode("utf-8-sig")  # a UTF-8 BOM, as Excel's 'CSV UTF-8' writes, is dropped
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ScenarioError(f"line {line}: byte 0x{raw[e.start]:02x} is not UTF-8 (Excel's plain 'CSV' writes the "
                            f"Windows code page); save the file as CSV UTF-8 ({SAVE_AS}).", file=source) from None


def _csv_records(text: str, fields: dict, source: str) -> list[Record]:
    rows = _csv_rows(text, source)
    header = rows[0][1]
    columns = _header(header, rows, fields, source)
    records = []
    for number, cells in rows[1:]:
        if not any(c.strip() for c in cells):
            continue  # a blank line or a spreadsheet's empty row
        if len(cells) > len(header) and not any(c.strip() for c in cells[len(header):]):
            cells = cells[:len(header)]  # trailing empty cells a spreadsheet adds
        if len(cells) != len(header):
            named = dict(zip(columns, cells)).get("name", "").strip()
            raise ScenarioError(f"row {number}{f' ({named})' if named else ''} has {len(cells)} cells but the header "
                                f"names {len(header)} columns; " + (
                                    "a cell holding a comma must be in double quotes (\"long sword: d8, dagger\")."
                                    if len(cells) > len(header) else
                                    "give every row one cell per column (an empty cell takes the default)."),
                                file=source)
        record = Record(f"row {number}", {c: v.strip() for c, v in zip(columns, cells) if c})
        records.append(record)
    if not records:
        raise ScenarioError("has a header row but no stat blocks; add one row per stat block below it.", file=source)
    return records


def _csv_rows(text: str, source: str) -> list[tuple[int, list[str]]]:
    if not text.strip():
        raise ScenarioError("is empty; its first row must name the columns (name, then the stat block's fields: "
                            "`skirmish import --template RULESET` prints them).", file=source)
    first, _, rest = text.partition("\n")
    sep = re.fullmatch(r"\s*sep=(.)\s*", first)
    if sep:  # Excel's delimiter hint line
        if sep.group(1) != ",":
            raise _delimiter_error(sep.group(1), source)
        text = rest
    rows = []
    try:
        for cells in csv.reader(io.StringIO(text), strict=True):
            rows.append((len(rows) + 1, cells))
    except csv.Error as e:
        raise ScenarioError(f"row {len(rows) + 1}: {e}; a cell that opens a double quote must close it, and a "
                            "quote inside a quoted cell is written twice (\"\").", file=source) from None
    while rows and not any(c.strip() for c in rows[0][1]):
        rows.pop(0)
    if not rows:
        raise ScenarioError("holds only empty rows; its first row must name the columns.", file=source)
    return rows


def _delimiter_error(sep: str, source: str) -> ScenarioError:
    word = {";": "semicolons (;)", "\t": "tabs"}.get(sep, f"'{sep}'")
    return ScenarioError(f"row 1: the columns are separated by {word}, not commas (Excel does this in some "
                         f"languages); save the file with commas ({SAVE_AS}), since ';' separates the entries of "
                         "a list cell.", file=source)


def _header(header: list[str], rows, fields: dict, source: str) -> list[str | None]:
    if len(header) == 1:
        for sep in (";", "\t"):
            if sep in header[0]:
                raise _delimiter_error(sep, source)
    columns: list[str | None] = []
    seen: dict[str, str] = {}
    for i, raw in enumerate(header):
        letter = _column_letter(i)
        if not raw.strip():
            used = next((n for n, cells in rows[1:] if i < len(cells) and cells[i].strip()), None)
            if used is not None:
                raise ScenarioError(f"row 1, column {letter}: has no name, but row {used} has a value in it; name "
                                    "the column in the header row, or delete the column.", file=source)
            columns.append(None)
            continue
        name = normal(raw)
        if name not in fields:
            raise _unknown_column(raw, name, letter, fields, header, source)
        if name in seen:
            raise ScenarioError(f"row 1: columns {seen[name]} and {letter} are both '{name}'; keep one of them.",
                                file=source)
        seen[name] = letter
        columns.append(name)
    missing = [n for n, spec in fields.items() if spec.required and n not in seen]
    if missing:
        spec = fields[missing[0]]
        what = "its name, which a scenario's `use:` gives" if missing[0] == "name" else f"{spec.describe()}, {spec.doc}"
        raise ScenarioError(f"row 1: there is no '{missing[0]}' column, which every stat block needs ({what}); "
                            "add it.", file=source)
    return columns


def _unknown_column(raw, name, letter, fields, header, source) -> ScenarioError:
    if not any(normal(h) in fields for h in header):
        return ScenarioError(f"row 1: names no column of the stat block ('{raw}' in column {letter}); the first row "
                             f"must be the header: {', '.join(fields)}.", file=source)
    hint = closest(name, fields) or synonym_hint(name, fields)
    if not hint and name in NAME_WORDS:
        hint = " The column of names is called 'name'."
    return ScenarioError(f"row 1, column {letter}: unknown column '{raw}'.{hint} Columns: {', '.join(fields)}.",
                         file=source)


def _column_letter(i: int) -> str:
    letters = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        letters = chr(65 + r) + letters
    return letters


# ----------------------------------------------------------------------------- checking and building

def _build(records: list[Record], rs, source: str, note: str) -> dict:
    fields, problems = _fields(rs), []
    parsed = _parse_records(records, rs, fields, problems)
    armory = _armory(parsed, rs, problems)
    table = weapon_table(rs, armory)
    for record, label, values in parsed:
        _validate_row(record, label, values, fields, table, rs, problems)
    _raise(problems, source)
    for record, label, values in parsed:
        _check_row(record, label, values, armory, rs, problems, note)
    _raise(problems, source)
    data = {"library": rs.name}
    if armory:
        data["armory"] = armory
    data["bestiary"] = {values["name"]: {k: v for k, v in values.items() if k != "name"} for _, _, values in parsed}
    return data


def _parse_records(records, rs, fields, problems) -> list:
    names: dict[str, str] = {}
    parsed = []
    for record in records:
        name = record.cells.get("name", "")
        if not name:
            problems.append((record.at("name"), "column 'name': is empty; every stat block needs a name (what a "
                             "scenario's `use:` calls it)."))
            continue
        label = f"{record.where} ({name})"
        if name in names:
            problems.append((label, f"column 'name': {names[name]} has the same name; give each stat block a "
                             "distinct name."))
            continue
        names[name] = record.where
        values = {"name": name}
        for col, spec in fields.items():
            text = record.cells.get(col, "")
            if col == "name" or not text:
                if col != "name" and spec.required:
                    problems.append((_at(record, col, label), f"column '{col}': is empty, but it has no default; "
                                     f"give {spec.describe()} ({spec.doc})."))
                continue
            try:
                values[col] = cell_value(text, spec, bare=col in _weapon_lists(rs))
            except CellError as e:
                problems.append((_at(record, col, label), f"column '{col}': {e}"))
        parsed.append((record, label, values))
    return parsed


def _at(record: Record, col: str, label: str) -> str:
    where = record.at(col)
    return label if where == record.where else f"{where} ({record.cells.get('name', '')})"


def _raise(problems: list, source: str) -> None:
    if not problems:
        return
    # Found stage by stage (cells, shared weapons, the schema); reported in the file's order.
    problems.sort(key=lambda p: int(re.search(r"\d+", p[0]).group()) if re.search(r"\d+", p[0]) else 0)
    (where, text), rest = problems[0], problems[1:]
    more = ""
    if rest:
        places = sorted({w.split(" (")[0] for w, _ in rest}, key=lambda w: (len(w), w))
        shown = ", ".join(places[:5]) + (f" and {len(places) - 5} more" if len(places) > 5 else "")
        more = f" ({len(rest)} more problem{'s' if len(rest) > 1 else ''}: {shown}.)"
    raise ScenarioError(f"{where}{', ' if text.startswith('column') else ': '}{text}{more}", file=source)


def _armory(parsed, rs, problems) -> dict:
    """Weapons written out once and named bare in other rows, or written out alike in several
    rows, as `armory:` entries the rows name; the ruleset's own weapons stay in the rows."""
    builtin = {k.lower() for k in getattr(rs, "weapon_table", {})}
    written: dict[str, list] = {}
    bare: dict[str, list] = {}
    for _, label, values in parsed:
        for col in _weapon_lists(rs):
            for entry in values.get(col, []):
                if isinstance(entry, str):
                    bare.setdefault(entry.lower(), []).append((label, col, entry))
                elif isinstance(entry.get("name"), str):
                    written.setdefault(entry["name"].lower(), []).append((label, col, entry))
    armory, unclear = {}, set()
    for key, uses in written.items():
        kinds = [e for i, (_, _, e) in enumerate(uses) if e not in [u[2] for u in uses[:i]]]
        if key in builtin or (key not in bare and len(uses) == 1):
            continue
        if len(kinds) == 1:
            armory[kinds[0]["name"]] = {k: v for k, v in kinds[0].items() if k != "name"}
        elif key in bare:
            unclear.add(key)
            other = next(u[0] for u in uses if u[2] != uses[0][2])
            label, col, entry = bare[key][0]
            problems.append((label, f"column '{col}': names '{entry}' alone, but {uses[0][0]} and {other} write it "
                             "out differently; write it out here too, or make those rows agree."))
    known = sorted({*(r for r in getattr(rs, "weapon_table", {})), *armory})
    for key, refs in bare.items():
        if key not in builtin and key not in armory and key not in unclear:
            label, col, entry = refs[0]
            listing = f" Known: {', '.join(known)}." if known else ""
            problems.append((label, f"column '{col}': names the weapon '{entry}', which is neither one of the "
                             f"ruleset's weapons nor written out in a row.{closest(entry, known)}{listing} Write it "
                             f"out with its fields after a colon, e.g. `{entry}: d6`."))
    shared = {k.lower(): {"name": k, **v} for k, v in armory.items()}
    for _, _, values in parsed:
        for col in _weapon_lists(rs):
            if col in values:
                values[col] = [e["name"] if isinstance(e, dict) and shared.get(str(e.get("name")).lower()) == e
                               else e for e in values[col]]
    return armory


def _validate_row(record, label, values, fields, table, rs, problems) -> None:
    try:
        expanded = expand(values, _weapon_lists(rs), table, "")
    except ScenarioError:
        return  # a weapon named that nothing defines, reported already (_armory)
    for col, value in expanded.items():
        try:
            validate(value, fields[col], col)
        except ScenarioError as e:
            for p in e.problems:
                problems.append((_at(record, col, label), _place(p.path or col, values) + p.message +
                                 _default_hint(p.path or col, fields)))


def _check_row(record, label, values, armory, rs, problems, note: str) -> None:
    """The ruleset's own checks across fields (sim.scenario.build_scenario: ruleset.check), on
    the stat block alone in a trial fight."""
    from sim.scenario import load_scenario
    name = values["name"]
    trial = {"name": "import check", "ruleset": rs.name, "bestiary": {name: values},
             "sides": {"imported": {"combatants": [{"use": name}]},
                       "foe": {"combatants": [{"use": name, "name": f"{name} (foe)"}]}}}
    if armory:
        trial["armory"] = armory
    try:
        load_scenario(trial)
    except ScenarioError as e:
        first = e.problems[0]
        m = re.match(r'^sides\.(?:imported|foe)\.combatants\[(?:"(?:[^"\\]|\\.)*"|[^\]]*)\]\.?(.*)$', first.path or "")
        inner = m.group(1) if m else ""
        where = _at(record, inner.split(".")[0].split("[")[0], label) if inner else label
        problems.append((where, (_place(inner, values) if inner else "") + first.message +
                         (note if "[{" in first.message else "")))


def _place(path: str, values: dict) -> str:
    """"column 'weapons', entry 2 (dagger), field 'damage': " for the path weapons[1].damage."""
    m = re.match(r"^([A-Za-z_]+)(?:\[(\d+)\])?\.?(.*)$", path)
    if not m:
        return ""
    col, index, rest = m.groups()
    text = f"column '{col}'"
    if index is not None:
        entry = (values.get(col) or [None] * (int(index) + 1))[int(index)]
        named = entry if isinstance(entry, str) else (entry or {}).get("name") if isinstance(entry, dict) else None
        text += f", entry {int(index) + 1}" + (f" ({named})" if named else "")
    if rest:
        text += f", field '{rest}'"
    return text + ": "


def _default_hint(path: str, fields: dict) -> str:
    spec = fields.get(path)
    if spec is None or spec.required or spec.kind in ("list", "mapping", "record"):
        return ""
    shown = "none" if spec.default is None else format_value(spec.default, spec)
    return f" Or leave the cell empty for the default ({shown})."


