"""`skirmish rerun PAGE`: play a report page's command again from the page alone and say
whether every figure came out the same (sim/recipe.py holds what a page embeds).

The files the command read are laid out in a fresh folder as they lay around it, the
command runs there in a fresh process of this installation, writing its page into that
folder, and the two pages' words and numbers (verdict, sections, tables; not the
provenance, which names the versions, nor the pictures' pixels) are compared line by line.
"""
from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from sim.errors import ScenarioError
from sim.recipe import DROPPED_OPTIONS, REPORT_OPTIONS, recipe_span, versions


@dataclass
class Rerun:
    page: str
    command: str
    identical: bool
    figures: int
    """Lines of words and numbers compared."""
    differences: list[tuple[str, str, str]] = field(default_factory=list)
    """(section, as written, as replayed); '' where a line is only on one side."""
    versions_then: dict = field(default_factory=dict)
    versions_now: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def changed_versions(self) -> dict:
        keys = sorted(set(self.versions_then) | set(self.versions_now))
        return {k: (self.versions_then.get(k, "?"), self.versions_now.get(k, "?")) for k in keys
                if self.versions_then.get(k) != self.versions_now.get(k)}


def read_recipe(page) -> dict:
    path = _page_file(page)
    text = path.read_text(encoding="utf-8", errors="replace")
    span = recipe_span(text)
    if span is None:
        raise ScenarioError(
            "holds no replay recipe: it was written by `skirmish report` from a saved table, or by a version "
            "older than `skirmish rerun`. Write the page again with the command that made it (its provenance "
            "names the scenario, seed and skirmishes), e.g. `skirmish run SCENARIO --report DIR`, then rerun "
            "that page.", file=str(path))
    try:
        return json.loads(text[span[0]:span[1]])
    except (ValueError, json.JSONDecodeError):
        raise ScenarioError("has a replay recipe that is not valid JSON (was the page edited?); write the page "
                            "again with the command that made it.", file=str(path)) from None


def _page_file(page) -> Path:
    path = Path(page)
    if path.is_dir():
        path = path / "index.html"
    if not path.is_file():
        raise ScenarioError("no such report page; give a report's index.html or its folder.", file=str(path))
    return path


def rerun(page, keep=None, timeout: float | None = None) -> Rerun:
    """Replay PAGE's command in a fresh folder (kept at `keep` if given) and compare."""
    recipe = read_recipe(page)
    with tempfile.TemporaryDirectory(prefix="skirmish-rerun-") as scratch:
        root = Path(keep) if keep else Path(scratch)
        for rel, text in recipe["files"].items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        cwd = root / recipe["cwd"]
        cwd.mkdir(parents=True, exist_ok=True)
        out = (root / "_replayed_page").resolve()
        argv = replay_argv(recipe["argv"], out)
        started = time.perf_counter()
        _play(argv, cwd, timeout)
        seconds = time.perf_counter() - started
        old, new = page_lines(_page_file(page).read_text(encoding="utf-8")), page_lines(
            (out / "index.html").read_text(encoding="utf-8"))
    return Rerun(page=str(_page_file(page)), command="skirmish " + " ".join(recipe["argv"]), identical=old == new,
                 figures=len(old), differences=_differences(old, new), versions_then=recipe.get("versions", {}),
                 versions_now=versions(), seconds=seconds)


def replay_argv(argv: list[str], page_dir: Path) -> list[str]:
    """The command with its page going to `page_dir` and no tables written elsewhere."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in REPORT_OPTIONS + DROPPED_OPTIONS:
            skip = "=" not in arg
            if name in REPORT_OPTIONS:
                out += [name, str(page_dir)]
            continue
        out.append(arg)
    if not any(a.split("=", 1)[0] in REPORT_OPTIONS for a in argv):
        raise ScenarioError(f"the page's command `skirmish {' '.join(argv)}` wrote no page (no --report); it "
                            "cannot be replayed as a page.")
    return out


def _play(argv: list[str], cwd: Path, timeout: float | None) -> None:
    # The replay runs this installation's code, whichever folder it starts in.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "sim", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode not in (0, 3):
        said = done.stderr.strip().splitlines()[-3:]
        raise ScenarioError(f"replaying `skirmish {' '.join(argv)}` stopped with exit status {done.returncode}: "
                            f"{' '.join(said)} This version cannot play the page's files as they were; "
                            "see the message above, or replay with the version the page names.")


class _Text(HTMLParser):
    """The lines a reader reads: headings, paragraphs and table cells, each under its
    section, until the provenance; script, style and pictures are not words."""
    BLOCKS = {"h1", "h2", "h3", "h4", "p", "th", "td", "li", "figcaption", "pre", "summary"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[str, str]] = []
        self.section, self.buffer, self.skip, self.done = "", [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "h2" and dict(attrs).get("id") == "provenance":
            self.done = True
        if tag in self.BLOCKS:
            self._flush()

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if tag in self.BLOCKS:
            line = self._flush()
            if tag in ("h2", "h3") and line:
                self.section = line

    def handle_data(self, data):
        if not self.skip and not self.done:
            self.buffer.append(data)

    def _flush(self) -> str:
        line = " ".join("".join(self.buffer).split())
        self.buffer = []
        if line:
            self.lines.append((self.section, line))
        return line


def page_lines(html_text: str) -> list[tuple[str, str]]:
    parser = _Text()
    parser.feed(html_text)
    parser.close()
    return parser.lines


def _differences(old, new, most: int = 20) -> list[tuple[str, str, str]]:
    out = []
    matcher = difflib.SequenceMatcher(a=[t for _, t in old], b=[t for _, t in new], autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        for k in range(max(a1 - a0, b1 - b0)):
            was = old[a0 + k] if a0 + k < a1 else None
            now = new[b0 + k] if b0 + k < b1 else None
            out.append(((was or now)[0], was[1] if was else "", now[1] if now else ""))
    return out[:most]


def rerun_text(r: Rerun) -> str:
    head = f"replayed `{r.command}` in {r.seconds:.0f} s"
    if r.identical:
        return f"identical: all {r.figures} lines of figures and words of {r.page} came out the same ({head})."
    lines = [f"different: {len(r.differences)}{'+' if len(r.differences) >= 20 else ''} of {r.figures} lines of "
             f"{r.page} came out otherwise ({head}):"]
    for section, was, now in r.differences:
        lines.append(f"  [{section or 'top'}] {was or '(not on the page)'}\n      now: {now or '(gone)'}")
    changed = r.changed_versions
    if changed:
        lines.append("Why: another version plays it: " + ", ".join(f"{k} {a} then, {b} now" for k, (a, b) in
                                                                  changed.items()) + ".")
    else:
        lines.append("Why: not another version: the page names the same versions and sources as this installation, "
                     "so its files and command should give the same figures. Either the page was edited after it "
                     "was written, or this is a fault; please report it with the page.")
    return "\n".join(lines)
