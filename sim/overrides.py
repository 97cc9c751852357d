"""Addressing any scenario value by a path, e.g. `sides.yeti.combatants[Yeti].defense`.

Segments are separated by dots; `[i]` indexes a list by position and `[Name]` picks
the list entry whose `name` is Name. A name holding a dot, a bracket or a double quote,
or one that looks like a number, is written in double quotes (a quote or backslash in
it after a backslash): `sides."Orcs [elite]".policy.focus`, `combatants["3"].defense`.
Values given as text are parsed as YAML scalars, so `--set rules.resolution=sequential`
and `--set ...defense=4` both do what they say.
"""
from __future__ import annotations

import copy
import re

from sim.errors import ScenarioError, closest

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
# A quoted key, a quoted name in brackets, a plain key, anything else in brackets.
_SEGMENT = re.compile(rf'{_QUOTED}|\[{_QUOTED}\]|([^.\[\]"]+)|\[([^\]"]*)\]')
# What a segment may hold unquoted; `=` is quoted too, or `--set PATH=VALUE` would end
# the path there.
_PLAIN = re.compile(r'[^.\[\]"\\=]+')


def split_path(path: str) -> list:
    parts: list = []
    pos = 0
    text = path.strip()
    while pos < len(text):
        if text[pos] == ".":
            pos += 1
            continue
        m = _SEGMENT.match(text, pos)
        if not m:
            raise ScenarioError(f"cannot read the path '{path}'; write it like "
                                "sides.yeti.combatants[Yeti].defense or rules.resolution.", path=path)
        quoted_key, quoted_name, key, picked = m.groups()
        if quoted_key is not None:
            parts.append(_unescape(quoted_key))
        elif quoted_name is not None:
            parts.append(("name", _unescape(quoted_name)))
        elif key is not None:
            parts.append(key)
        else:
            parts.append(int(picked) if picked.lstrip("-").isdigit() else ("name", picked))
        pos = m.end()
    if not parts:
        raise ScenarioError("an empty path; name the value to change, e.g. rules.resolution.", path=path)
    return parts


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def key_segment(name) -> str:
    """A mapping key as a path segment: `name`, or quoted where it would not read back.
    A key that is not text (a side named null in a bad file) is shown as Python prints it."""
    if not isinstance(name, str):
        return str(name)
    return name if _PLAIN.fullmatch(name) and name.strip() == name else _quoted(name)


def pick_segment(name: str) -> str:
    """`[name]` picking a list entry by name, quoted where it would not read back (a
    bracket in it, or a number, which would read as a position)."""
    plain = _PLAIN.fullmatch(name) and name.strip() == name and not name.lstrip("-").isdigit()
    return f"[{name}]" if plain else f"[{_quoted(name)}]"


def side_path(side: str, *rest: str) -> str:
    """`sides.<side>` and what follows, the side's name quoted where it must be."""
    return ".".join(["sides", key_segment(side), *rest])


def split_assignment(item: str) -> tuple[str, str] | None:
    """`PATH=VALUE` at its first `=` outside a quoted segment; None without one."""
    quoted, escaped = False, False
    for i, ch in enumerate(item):
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "=" and not quoted:
            return item[:i], item[i + 1:]
    return None


def parse_value(text):
    if not isinstance(text, str):
        return text
    from sim.yamlload import parse_scalar_text  # the file loader's limits: no alias bombs via --set
    return parse_scalar_text(text)


def _resolve(container, key, path, create: bool):
    if isinstance(key, tuple):  # [Name]
        if not isinstance(container, list):
            raise ScenarioError(f"'[{key[1]}]' picks from a list, but this is not a list.", path=path)
        names = [e.get("name") for e in container if isinstance(e, dict)]
        for i, e in enumerate(container):
            if isinstance(e, dict) and e.get("name") == key[1]:
                return i
        raise ScenarioError(f"no entry named '{key[1]}'.{closest(key[1], names)} "
                            f"Entries: {', '.join('null' if n is None else str(n) for n in names)}.",
                            path=path)
    if isinstance(key, int):
        if not isinstance(container, list) or not -len(container) <= key < len(container):
            raise ScenarioError(f"index [{key}] is out of range.", path=path)
        return key
    if not isinstance(container, dict):
        raise ScenarioError(f"'{key}' names a field, but the value here is not a mapping.", path=path)
    if key not in container and not create:
        raise ScenarioError(f"no field '{key}' here.{closest(key, container)}", path=path)
    return key


def get_path(data: dict, path: str):
    node = data
    for key in split_path(path):
        node = node[_resolve(node, key, path, create=False)]
    return node


# Optional blocks a path may bring into being, so options left at their defaults can be
# set; any other missing key is a typo, reported with a suggestion.
CREATABLE = {"rules", "run", "battlefield", "policy", "armory", "sweep"}


def set_path(data: dict, path: str, value) -> dict:
    """A copy of `data` with the value at `path` replaced."""
    out = copy.deepcopy(data)
    parts = split_path(path)
    node = out
    for _, key in enumerate(parts[:-1]):
        k = _resolve(node, key, path, create=isinstance(key, str) and key in CREATABLE)
        if isinstance(node, dict) and (k not in node or node[k] is None):
            node[k] = {}
        node = node[k]
    last = _resolve(node, parts[-1], path, create=True)
    node[last] = parse_value(value)
    return out


# Read when the file is read, before any override: a --set of them would change nothing.
RESOLVED_ON_READING = ("include", "bestiary", "policies")


def apply_overrides(data: dict, overrides: dict) -> dict:
    for path, value in overrides.items():
        first = split_path(path)[0]
        if first in RESOLVED_ON_READING:
            raise ScenarioError(f"`{first}:` is resolved when the file is read, before any --set, so setting it "
                                "would change nothing; edit the file, or set the fields of the combatants or "
                                "policies it supplies (e.g. sides.party.combatants[Ogre].defense).", path=path)
        data = set_path(data, path, value)
    return data


_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*(\d+)\s*)?$")


def parse_range(text: str, what: str = "range") -> tuple[int, int] | None:
    """`LO..HI` as a pair of ints, or None when the text is not a range."""
    m = _RANGE.match(str(text))
    if not m:
        return None
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < lo:
        raise ScenarioError(f"the {what} '{text}' runs backwards; write the low end first, e.g. 0..6.")
    return lo, hi


MAX_SWEEP_VALUES = 10000


def parse_values(spec, path: str = "") -> list:
    """The values a sweep tries: `0..6` (inclusive), `0..20:5` (with a step), `d6,d8,d10`,
    a YAML list `[1, 2]`, an actual list, or one value."""
    if isinstance(spec, list):
        values = list(spec)
    elif isinstance(spec, str):
        text = spec.strip()
        m = _RANGE.match(text)
        if m:
            lo, hi = parse_range(text, f"range for {path}" if path else "range")
            step = int(m.group(3) or 1)
            if step < 1:
                raise ScenarioError(f"the step in '{text}' must be at least 1.", path=path or None)
            span = range(lo, hi + 1, step)
            # Counted before listing (0..10**9 would not fit in memory), and arithmetically:
            # len() of a range past 2**63 values overflows.
            count = max(0, (hi - lo) // step + 1)
            if count > MAX_SWEEP_VALUES:
                raise ScenarioError(f"'{text}' gives {count} values; keep a sweep under {MAX_SWEEP_VALUES} "
                                    "per path (a narrower range or a step, e.g. 0..1000:100).", path=path or None)
            values = list(span)
        elif text.startswith("["):
            values = parse_value(text)
            if not isinstance(values, list):
                raise ScenarioError(f"'{text}' is not a list; write it like [1, 2, 3].", path=path or None)
        elif text.startswith("{"):
            values = [parse_value(text)]
        else:
            values = [parse_value(v.strip()) for v in text.split(",") if v.strip()]
    else:
        values = [spec]
    if not values:
        raise ScenarioError("lists no values; give a range like 0..6 or a list like d6,d8,d10.", path=path or None)
    if len(values) > MAX_SWEEP_VALUES:
        raise ScenarioError(f"lists {len(values)} values; keep a sweep under {MAX_SWEEP_VALUES} per path.",
                            path=path or None)
    return values


def entry_path(path: str, entries: list, i: int) -> str:
    """`path[Name]` for a list entry with a distinct name (what `--set` accepts), else `path[i]`."""
    entry = entries[i]
    name = entry.get("name", entry.get("use")) if isinstance(entry, dict) else None
    if isinstance(name, str) and name.strip():
        same = [e for e in entries if isinstance(e, dict) and e.get("name", e.get("use")) == name]
        if len(same) == 1:
            return f"{path}{pick_segment(name)}"
    return f"{path}[{i}]"
