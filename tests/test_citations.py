"""Every citation in the docs and help strings points at something a reader can open.

The rule texts the rulesets read, and the companion notes on them, do not ship with the
project; what a reader can open is each ruleset's rules page (docs/rules/X.md) and its
"Gaps and contradictions" section. So:

- no file under docs/, sim/, README.md or notebooks/ names the notes ("NOTES 3",
  "NOTES.md", "shared/rules") or a contradiction by the notes' number ("contradiction 5");
- every pointer names a heading or bullet that exists on the page it names:
  `docs/rules/X.md, 'Heading'` (or "Heading") a heading of X;
  `docs/rules/X.md, Gaps and contradictions, 'Name'` a bullet of X's section, and on a
  rules page itself `Gaps and contradictions, 'Name'` a bullet of that page;
  on a rules page `See 'Heading'` a heading of that page;
- each rules page has the section, each bullet there quotes the text, and an option's
  default named there is the option's declared default.
"""
from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from sim import rulesets
from sim.schema import _default_text

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
PAGES = ("gods_and_monsters", "lens", "lifeforce")
GAPS = "Gaps and contradictions"

BANNED = {
    "NOTES followed by a number": re.compile(r"NOTES \d"),
    "NOTES.md": re.compile(r"NOTES\.md"),
    "shared/rules": re.compile(r"shared/rules"),
    "the notes by name": re.compile(r"\bNOTES\b"),
    "a contradiction by number": re.compile(r"\bcontradictions? \d", re.IGNORECASE),
}

# Pointers, matched on text whose whitespace runs are one space.
PAGE_POINTER = re.compile(r"docs/rules/(\w+)\.md,? (?:'([^']+)'|\"([^\"]+)\")")
GAP_POINTER = re.compile(r"(?:docs/rules/(\w+)\.md, )?" + GAPS + r", '([^']+)'")
SEE_POINTER = re.compile(r"\b[Ss]ee '([^']+)'")
DEFAULT = re.compile(r"`(\w+)` \(default `([^`]+)`\)")


def shipped_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in ("docs", "sim", "notebooks"):
        files += [p for p in (ROOT / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted(files)


def read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None  # images


def _string_value(token: str) -> str:
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):  # an f-string: its literal text is what a reader sees
        value = re.sub(r"^[a-zA-Z]*('''|\"\"\"|'|\")|('''|\"\"\"|'|\")$", "", token)
    return value if isinstance(value, str) else ""


def python_chunks(text: str) -> list[str]:
    """The strings (adjacent literals joined, as Python joins them) and the comments
    (consecutive comment lines joined) of a Python source."""
    chunks, strings, comments = [], [], []

    def flush(parts):
        if parts:
            chunks.append(" ".join(parts) if parts is comments else "".join(parts))
            parts.clear()

    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING:
            flush(comments)
            strings.append(_string_value(tok.string))
        elif tok.type == tokenize.COMMENT:
            flush(strings)
            comments.append(tok.string.lstrip("#").strip())
        elif tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            if tok.type == tokenize.NEWLINE:
                flush(strings)
        else:
            flush(strings)
            flush(comments)
    flush(strings)
    flush(comments)
    return chunks


def reader_text(path: Path, text: str) -> list[str]:
    """What a reader of the file sees, as pieces whose whitespace runs are one space."""
    if path.suffix == ".py":
        chunks = python_chunks(text)
    elif path.suffix == ".ipynb":
        chunks = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                  for c in json.loads(text)["cells"]]
    else:
        chunks = [text]
    return [re.sub(r"\s+", " ", c) for c in chunks]


def headings(page: str) -> set[str]:
    """Each heading of a page, whole and without a trailing parenthesis."""
    names, fenced = set(), False
    for line in page.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = re.match(r"#{1,6} (.+?)\s*$", line)
        if m and not fenced:
            names |= {m.group(1), m.group(1).split(" (")[0]}
    return names


def gaps_section(page: str) -> str:
    start = page.index(f"\n## {GAPS}\n")
    end = page.find("\n## ", start + 1)
    return page[start:end if end >= 0 else len(page)]


def gap_bullets(page: str) -> dict[str, str]:
    """The section's bullets by name (`- **Name**: ...`), each with its text."""
    bullets = re.split(r"\n(?=- \*\*)", gaps_section(page))[1:]
    out = {}
    for b in bullets:
        m = re.match(r"- \*\*(.+?)\*\*", b)
        out[m.group(1)] = b.split("\n\n")[0]
    return out


PAGE_TEXT = {name: (RULES / f"{name}.md").read_text(encoding="utf-8") for name in PAGES}


def test_the_shipped_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in shipped_files()}
    assert {"README.md", "docs/scenarios.md", "sim/rulesets/lifeforce/schema.py"} <= names
    assert {f"docs/rules/{name}.md" for name in PAGES} <= names
    assert any(n.startswith("notebooks/") and n.endswith(".ipynb") for n in names)


def test_no_file_cites_what_does_not_ship():
    found = []
    for path in shipped_files():
        text = read_text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()[:100]}"
                      for what, pattern in BANNED.items() if pattern.search(line)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", PAGES)
def test_each_rules_page_lists_its_gaps_and_contradictions(name):
    page = PAGE_TEXT[name]
    assert page.count(f"\n## {GAPS}\n") == 1
    bullets = gap_bullets(page)
    assert len(bullets) >= 10, sorted(bullets)
    for bullet_name, text in bullets.items():
        assert "'" not in bullet_name, f"{bullet_name}: a pointer quotes the name in single quotes"
        assert re.search(r'"[^"]{3,}"', text), f"{bullet_name}: quotes no words of the text"


@pytest.mark.parametrize("name", PAGES)
def test_defaults_named_on_a_rules_page_are_the_declared_ones(name):
    options = rulesets.get(name).rule_options
    named = [(o, d) for o, d in DEFAULT.findall(re.sub(r"\s+", " ", gaps_section(PAGE_TEXT[name])))
             if o in options]
    assert named
    wrong = [(o, d, _default_text(options[o].default)) for o, d in named if d != _default_text(options[o].default)]
    assert not wrong, wrong


def pointers() -> list[tuple[str, str, str, str]]:
    """(where, page, kind, name) of every pointer in the shipped files."""
    out = []
    for path in shipped_files():
        text = read_text(path)
        if text is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        own = path.stem if path.parent == RULES else None
        for chunk in reader_text(path, text):
            out += [(rel, m.group(1), "heading", m.group(2) or m.group(3)) for m in PAGE_POINTER.finditer(chunk)]
            out += [(rel, m.group(1) or own, "bullet", m.group(2)) for m in GAP_POINTER.finditer(chunk)]
            if own:
                out += [(rel, own, "heading", m.group(1)) for m in SEE_POINTER.finditer(chunk)]
    return out


def test_every_pointer_names_a_heading_or_bullet_that_exists():
    found = pointers()
    assert sum(kind == "bullet" for _, _, kind, _ in found) >= 30
    bad = []
    for where, page, kind, name in found:
        if page is None:
            bad.append(f"{where}: '{GAPS}, {name!r}' names no page (write docs/rules/X.md, {GAPS}, ...)")
        elif page not in PAGE_TEXT:
            bad.append(f"{where}: docs/rules/{page}.md does not exist")
        elif kind == "heading" and name not in headings(PAGE_TEXT[page]):
            bad.append(f"{where}: docs/rules/{page}.md has no heading {name!r}")
        elif kind == "bullet" and name not in gap_bullets(PAGE_TEXT[page]):
            bad.append(f"{where}: docs/rules/{page}.md, {GAPS} has no bullet {name!r}")
    assert not bad, "\n".join(bad)


def test_the_pointer_patterns_catch_what_they_should():
    assert python_chunks('x = ("a (docs/rules/lens.md, "\n     "\'The day\')")  # c\n# d\n') == [
        "a (docs/rules/lens.md, 'The day')", "c d"]
    chunk = "see (docs/rules/lens.md, Gaps and contradictions, 'Parry rows') and docs/rules/lens.md \"Pools\""
    assert [m.groups() for m in GAP_POINTER.finditer(chunk)] == [("lens", "Parry rows")]
    assert [m.groups() for m in PAGE_POINTER.finditer(chunk)] == [("lens", None, "Pools")]
    assert "Conditions" in headings("## Conditions (data: `tables.CONDITIONS`)\n")
