"""The cell syntax of `skirmish import` (docs/import.md): a spreadsheet cell's text as the
value a library file would hold, and back.

A list cell separates entries with ';'. A record entry is `NAME: PARTS`, PARTS being
space-separated `field=value` pairs (`carried.damage=d4` for a field of a field, commas
between the items of a list: `tags=CRUSHING,HEAVY`) and shorthands: a dice expression for
the record's first dice field, a flag's name for true, a value only one choice field
takes, a word in capitals for a tag. `none` is the empty list.
"""
from __future__ import annotations

import re

from sim.dice import Dice, parse_dice
from sim.errors import closest
from sim.schema import Field, fmt

NONE_WORDS = ("none", "-", "\u2013", "\u2014")  # a word processor turns '-' into a dash
TRUE_WORDS, FALSE_WORDS = ("true", "yes", "y", "1"), ("false", "no", "n", "0")


class CellError(Exception):
    """A cell that cannot be read; the caller adds its row and column."""


def cell_value(text: str, spec: Field, bare: bool = False, sep: str = ";"):
    """The value (as a library file writes it) a cell's text stands for; `bare`: a list entry
    written as a name alone stays a name (a weapon of the ruleset's table or the armory)."""
    text = text.strip()
    kind = spec.kind
    if kind in ("int", "float"):
        return _number(text, spec)
    if kind == "bool":
        if text.lower() in TRUE_WORDS + FALSE_WORDS:
            return text.lower() in TRUE_WORDS
        raise CellError(f"'{text}' is not true or false (yes and no do too).")
    if kind == "choice":
        return _choice(text, spec)
    if kind == "dice":
        try:
            return str(parse_dice(text))
        except ValueError as e:
            raise CellError(f"{e}.") from None
    if kind == "list":
        if text.lower() in NONE_WORDS:
            return []
        entries = [e.strip() for e in text.split(sep) if e.strip()]
        return [_entry(e, spec.item, bare, i) for i, e in enumerate(entries)] if spec.item else entries
    if kind == "mapping":
        return _mapping(text, spec.item)
    if kind == "record":
        return _parts(text, spec.fields)
    return text


def _number(text: str, spec: Field):
    try:
        x = float(text.replace("\u2212", "-"))  # a typographic minus sign
    except ValueError:
        hint = " Write decimals with a point (2.5) and no thousands separator." if "," in text else ""
        raise CellError(f"'{text}' is not a number; expected {spec.describe()}.{hint}") from None
    return int(x) if spec.kind == "int" and x.is_integer() else x


def _choice(text: str, spec: Field):
    for c in spec.choices:
        if c is not None and str(c).lower() == text.lower():
            return c
    if None in spec.choices and text.lower() in NONE_WORDS:
        return None
    named = [str(c) for c in spec.choices if c is not None]
    raise CellError(f"'{text}' is not one of {', '.join(named)}{' (or none)' if None in spec.choices else ''}."
                    f"{closest(text, named)}")


def _entry(text: str, item: Field, bare: bool, i: int):
    try:
        if item.kind != "record":
            return cell_value(text, item)
        name, colon, rest = text.partition(":")
        if "name" not in item.fields:
            return _parts(text, item.fields)
        if not colon:
            return name.strip() if bare else {"name": name.strip()}
        return {"name": name.strip(), **_parts(rest, item.fields)}
    except CellError as e:
        raise CellError(f"entry {i + 1} ('{text}'): {e}") from None


def _mapping(text: str, item: Field | None) -> dict:
    out = {}
    for i, entry in enumerate(e.strip() for e in text.split(";") if e.strip()):
        key, _, rest = entry.partition(":")
        key = key.strip()
        if key in out:
            raise CellError(f"'{key}' is given twice; give each once.")
        try:
            out[key] = _parts(rest, item.fields) if item is not None and item.kind == "record" else rest.strip()
        except CellError as e:
            raise CellError(f"entry {i + 1} ('{entry}'): {e}") from None
    return out


def _parts(text: str, fields: dict) -> dict:
    """`d8 attack=1 missile tags=CRUSHING,HEAVY carried.damage=d4`: field=value pairs, plus
    shorthands: a dice expression for the first dice field, a flag's name for true, and a
    value that only one choice field takes."""
    out: dict = {}
    for token in text.split():
        key, eq, value = token.partition("=")
        name, v = _keyed(key, value, fields) if eq else _shorthand(token, fields)
        if name in out and not (type(out[name]) is type(v) and isinstance(v, (dict, list))):
            raise CellError(f"'{name}' is given twice; give it once.")
        out[name] = (out[name] + v if isinstance(v, list) else {**out[name], **v}) if name in out else v
    return out


def _keyed(key: str, value: str, fields: dict):
    head, dot, sub = key.lower().partition(".")
    if head not in fields or head == "name":
        allowed = [f for f in fields if f != "name"]
        raise CellError(f"unknown field '{key}'.{closest(head, allowed)} Fields here: {', '.join(allowed)}.")
    spec = fields[head]
    if dot:
        if spec.kind != "record":
            raise CellError(f"'{head}' has no fields of its own; write {head}=VALUE.")
        name, v = _keyed(sub, value, spec.fields)
        return head, {name: v}
    if not value:
        raise CellError(f"'{key}=' has no value; write {key}=VALUE with no space after '='.")
    return head, cell_value(value, spec, sep=",")


def _shorthand(token: str, fields: dict):
    word = token.lower().replace("-", "_")
    if word in fields and fields[word].kind == "bool":
        return word, True
    hits = [n for n, f in fields.items() if f.kind == "choice"
            and any(c is not None and str(c).lower() == token.lower() for c in f.choices)]
    if len(hits) == 1:
        return hits[0], _choice(token, fields[hits[0]])
    if len(hits) > 1:
        raise CellError(f"'{token}' could be {' or '.join(hits)}; write {hits[0]}={token}.")
    dice = next((n for n, f in fields.items() if f.kind == "dice"), None)
    failed = None
    if dice and re.search(r"[d\d]", word):
        try:
            return dice, str(parse_dice(token))
        except ValueError as e:
            failed = e
    if "tags" in fields and token.isupper():
        return "tags", [token]
    if failed is not None and re.search(r"\d", word):  # meant as dice: say what a dice expression is
        raise CellError(f"{failed} (or write field=value).")
    flags = [n for n, f in fields.items() if f.kind == "bool"]
    kinds = ["field=value", *([f"a dice expression ({dice})"] if dice else []),
             *([f"a flag ({', '.join(flags)})"] if flags else [])]
    raise CellError(f"'{token}' is not {' or '.join(kinds)}.{closest(word, flags)} Fields here: "
                    f"{', '.join(f for f in fields if f != 'name')}.")


def format_value(value, spec: Field, table: dict | None = None, sep: str = "; ") -> str:
    """The cell text of a validated value (the inverse of cell_value)."""
    kind = spec.kind
    if value is None:
        return "none"
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("int", "float"):
        return fmt(value)
    if kind == "list":
        return sep.join(_format_entry(e, spec.item, table) for e in value) if value else "none"
    if kind == "mapping":
        return "; ".join(f"{k}: {' '.join(_tokens(v, spec.item.fields))}".rstrip(": ") for k, v in value.items())
    if kind == "record":
        return " ".join(_tokens(value, spec.fields))
    return str(value)


def format_top(value, spec: Field, table) -> str:
    """A stat block's cell: empty for a field at its default."""
    if not spec.required and value == spec.default:
        return ""
    return format_value(value, spec, table)


def _format_entry(entry, item: Field | None, table) -> str:
    if item is None or item.kind != "record":
        return format_value(entry, item) if item else str(entry)
    if table is not None and table.get(str(entry.get("name")).lower()) == entry:
        return entry["name"]
    parts = _tokens(entry, item.fields)
    return f"{entry['name']}: {' '.join(parts)}" if parts else f"{entry['name']}:"


def _tokens(record: dict, fields: dict, prefix: str = "") -> list[str]:
    dice = next((n for n, f in fields.items() if f.kind == "dice"), None)
    out = []
    for n, spec in fields.items():
        v = record.get(n, spec.default)
        if n == "name" or (not spec.required and v == spec.default):
            continue
        if spec.kind == "record":
            out += _tokens(v, spec.fields, f"{prefix}{n}.")
        elif not prefix and n == dice and isinstance(v, Dice) and v.count:
            out.insert(0, str(v))
        elif not prefix and n == "tags" and v and all(str(t).isupper() and " " not in str(t) for t in v):
            out += [str(t) for t in v]
        elif not prefix and spec.kind == "choice" and v is not None and _alone(v, n, fields):
            out.append(str(v))
        elif not prefix and spec.kind == "bool" and v and spec.default is False:
            out.append(n)
        else:
            out.append(f"{prefix}{n}={format_value(v, spec, sep=',')}")
    return out


def _alone(value, name: str, fields: dict) -> bool:
    """Whether `value` written alone reads back as this choice field's (see _shorthand)."""
    word = str(value).lower()
    takers = [n for n, f in fields.items() if f.kind == "choice" and any(str(c).lower() == word for c in f.choices)]
    return takers == [name] and word not in fields and " " not in word
