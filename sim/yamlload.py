"""Reading YAML a person wrote, without letting it change meaning or exhaust the machine.

Plain `yaml.safe_load` keeps the last of two equal keys (a pasted second `party:` side
silently replaces the first), expands aliases without limit (a 2.5 KB "billion laughs"
file fills memory once anything walks it), recurses once per nesting level (500 levels
crash it) and will read any file it is given (a FIFO blocks forever). `load_text`
refuses each of these with a one-paragraph ScenarioError, in time and memory bounded
by MAX_BYTES, and keeps the parsed node tree so errors can name the line of a field.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

from sim.errors import ScenarioError

MAX_BYTES = 1_000_000  # a hand-written scenario is a few KB; 1 MB is generous
MAX_DEPTH = 64  # deepest nesting of mappings and lists; scenarios need about 8
MAX_NODES = 250_000  # values after expanding aliases (anchors may be reused, not multiplied)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml parses a 1 MB file in well under a second


class _StrictLoader(_Loader):
    """SafeLoader that refuses a key given twice in one mapping."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<: *anchor` may be overridden by the keys beside it; that is its purpose
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    continue  # an unhashable key; the base constructor reports it
                if first is not key_node:
                    raise _Duplicate(key, first.start_mark.line + 1, key_node.start_mark.line + 1)
        return super().construct_mapping(node, deep=deep)


class _Duplicate(Exception):
    def __init__(self, key, first: int, second: int):
        self.key, self.first, self.second = key, first, second


# Told of every file read, as (path, text): sim/recipe.py records a command's inputs so a
# page can be played again from itself. A hook, not an import: every kernel reads this file,
# and what it imports joins their compile fingerprint.
READERS: list = []


def read_file(path) -> str:
    """The text of a scenario file, refusing what is not a small regular UTF-8 file."""
    p = Path(path)
    try:
        info = p.stat()  # stat, not open: opening a FIFO blocks until someone writes to it
    except FileNotFoundError:
        raise ScenarioError("no such file. Check the path; shipped scenarios live under scenarios/.",
                            file=str(p)) from None
    except OSError as e:
        raise ScenarioError(f"cannot be read ({e.strerror}); check the path and its permissions.",
                            file=str(p)) from None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError("is a folder; give a scenario file (.yaml).", file=str(p))
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError("is not a regular file (a pipe, socket or device); save the scenario to a "
                            "file and give its path.", file=str(p))
    if info.st_size > MAX_BYTES:
        raise _too_big(p, info.st_size)
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the check, open returns at once.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ScenarioError("is not a regular file; save the scenario to a file and give its path.",
                                    file=str(p))
            raw = fh.read(MAX_BYTES + 1)
    except OSError as e:
        raise ScenarioError(f"cannot be read ({e.strerror}); check its permissions "
                            "(it must be readable by you).", file=str(p)) from None
    if len(raw) > MAX_BYTES:
        raise _too_big(p, len(raw))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"is not UTF-8 text (bad byte at position {e.start}); save it as UTF-8.",
                            file=str(p)) from None
    for told in READERS:
        told(p, text)
    return text


def _too_big(p, size: int) -> ScenarioError:
    return ScenarioError(f"is {size:,} bytes; scenario files may be at most {MAX_BYTES:,} bytes. Define "
                         "repeated combatants once with `count:` or a YAML anchor instead of copying them.",
                         file=str(p))


def load_text(text: str, file: str | None = None, what: str = "is not valid YAML", lenient: bool = False):
    """(data, root node) of one YAML document, with the limits of this module.
    `lenient`: text that is not YAML at all comes back as itself (for command-line values)."""
    if len(text) > MAX_BYTES:
        raise ScenarioError(f"is {len(text):,} characters of YAML; at most {MAX_BYTES:,} are allowed.", file=file)
    try:
        _check_depth(text, file)
        loader = _StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, None
            _check_size(node, file)
            return loader.construct_document(node), node
        finally:
            loader.dispose()
    except _Duplicate as d:
        raise ScenarioError(f"the key '{d.key}' is given twice in one mapping (lines {d.first} and {d.second}); "
                            "YAML would silently keep only the second. Rename or merge one of them.",
                            file=file) from None
    except yaml.YAMLError as e:
        if lenient:
            return text, None
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ScenarioError(f"{what}{where}: {problem}. Check indentation and that every "
                            "'key: value' pair has a space after the colon.", file=file) from None


def _check_depth(text: str, file) -> None:
    # Events stream without recursion, so depth is measured before anything recursive runs.
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(event.start_mark.line + 1, file)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError as e:
        if "nesting depth" in str(e):  # libyaml's own limit, met while scanning ahead of the events
            mark = getattr(e, "problem_mark", None)
            raise _too_deep(mark.line + 1 if mark else 1, file) from None
        raise


def _too_deep(line: int, file) -> ScenarioError:
    return ScenarioError(f"nests mappings and lists more than {MAX_DEPTH} deep (line {line}); a scenario "
                         "needs far fewer levels.", file=file)


def _check_size(root, file) -> None:
    """Refuse documents whose aliases expand to more than MAX_NODES values, or that hold
    a value containing itself (`&a [*a]`: it expands forever, and every later step that
    walks the data, from hashing the scenario on, would fail on it)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack = [(root, iter(_children(root)))]
    open_nodes.add(id(root))
    while stack:  # depth first without recursion; an alias is a shared node, sized once
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            open_nodes.discard(id(node))
            total = 1 + sum(sizes[id(c)] for c in _children(node))
            if total > MAX_NODES:
                raise ScenarioError(f"expands to more than {MAX_NODES:,} values once its aliases (*name) are "
                                    f"filled in (line {node.start_mark.line + 1}); an alias may reuse an anchor, "
                                    "not multiply it.", file=file)
            sizes[id(node)] = total
        elif id(child) in open_nodes:
            raise ScenarioError(f"a value contains an alias to itself (the anchor on line {child.start_mark.line + 1} "
                                "is used inside its own value), so it would never end; write the value out, or "
                                "anchor a part of it that does not hold the alias.", file=file)
        elif id(child) not in sizes:
            open_nodes.add(id(child))
            stack.append((child, iter(_children(child))))


def _children(node):
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def parse_scalar_text(text: str):
    """A `--set` or `--vary` value read as YAML under the same limits; plain text if not YAML."""
    return load_text(text, lenient=True)[0]


def line_of(root, parts) -> int | None:
    """The line (1-based) of the value at the path `parts` (see sim.overrides.split_path),
    or of the deepest part of it that exists."""
    node, line = root, None
    if root is None:
        return None
    line = root.start_mark.line + 1
    for key in parts:
        nxt = _child(node, key)
        if nxt is None:
            break
        node = nxt
        line = node.start_mark.line + 1
    return line


def _child(node, key):
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
        for k, v in node.value:  # a key brought in by `<<: *anchor`
            if k.tag == "tag:yaml.org,2002:merge":
                found = _child(v, key)
                if found is not None:
                    return found
    if isinstance(node, yaml.SequenceNode):
        if isinstance(key, int) and -len(node.value) <= key < len(node.value):
            return node.value[key]
        if isinstance(key, tuple):
            for item in node.value:
                if isinstance(item, yaml.MappingNode):
                    for field in ("name", "use"):
                        v = _child(item, field)
                        if isinstance(v, yaml.ScalarNode) and v.value == key[1]:
                            return item
    return None
