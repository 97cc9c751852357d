"""How a report page is played again: the command that wrote it and every file it read.

While a command runs, `recording` notes its arguments and the text of every scenario,
library and day file it reads (sim/yamlload.py's read_file calls `note_read`). A page
written meanwhile embeds that recipe (sim/report/html.py), so `skirmish rerun PAGE`
(sim/rerun.py) can lay the same files out in a fresh folder and play the same command,
needing nothing but the page. No kernel reads this file.
"""
from __future__ import annotations

import contextvars
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

_CURRENT: contextvars.ContextVar[dict | None] = contextvars.ContextVar("skirmish_recipe", default=None)

# Options whose value is where a command writes, not what it plays: a replay writes its
# page to a folder of its own and no tables.
REPORT_OPTIONS = ("--report",)
DROPPED_OPTIONS = ("--out", "--run-dir", "-o")
# `skirmish report` draws a saved table, which no recipe holds: its page says how it was
# played in its provenance, not how to play it again.
NOT_REPLAYED = ("report",)


@contextmanager
def recording(argv: list[str], cwd: str | os.PathLike | None = None):
    """Note, until the block ends, the files read by the command `skirmish ARGV` run in `cwd`."""
    token = _CURRENT.set({"argv": [str(a) for a in argv], "cwd": str(Path(cwd or os.getcwd()).resolve()),
                          "files": {}})
    try:
        yield
    finally:
        _CURRENT.reset(token)


def note_read(path, text: str) -> None:
    current = _CURRENT.get()
    if current is not None:
        current["files"][str(Path(path).resolve())] = text


def _listen() -> None:
    from sim.yamlload import READERS
    if note_read not in READERS:
        READERS.append(note_read)


_listen()


def current() -> dict | None:
    """The recipe of the running command, with its files relative to one folder holding them
    all and the command's own folder (no machine's absolute paths), or None outside a command."""
    rec = _CURRENT.get()
    if rec is None or (rec["argv"][:1] and rec["argv"][0] in NOT_REPLAYED):
        return None
    paths = [Path(p) for p in rec["files"]]
    anchor = Path(os.path.commonpath([rec["cwd"], *map(str, paths)])) if paths else Path(rec["cwd"])
    return {
        "argv": [_relative(a, anchor, rec["cwd"]) for a in rec["argv"]],
        "cwd": Path(rec["cwd"]).relative_to(anchor).as_posix(),
        "files": {p.relative_to(anchor).as_posix(): rec["files"][str(p)] for p in sorted(paths)},
        "versions": versions(),
    }


def _relative(arg: str, anchor: Path, cwd: str) -> str:
    """An absolute path under the anchor, written from the command's folder, as a replay
    in another folder reads it; any other argument as given."""
    if os.path.isabs(arg) and Path(arg).resolve().is_relative_to(anchor):
        return Path(os.path.relpath(Path(arg).resolve(), cwd)).as_posix()
    return arg


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    import sim
    out = {"skirmish-sim": sim.__version__, "python": ".".join(map(str, sys.version_info[:3]))}
    for package in ("numpy", "numba", "pandas", "matplotlib"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = "not installed"
    out["sources"] = source_digest()
    return out


def source_digest() -> str:
    """A hash of the simulator's own Python files: two builds of one version number differ here."""
    import hashlib
    root = Path(__file__).resolve().parent
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


SCRIPT_ID = "skirmish-recipe"


def _embedded(recipe: dict) -> str:
    # "</" inside a script element would end it early; JSON reads "<\/" as "</".
    return json.dumps(recipe, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


def script_tag(recipe: dict) -> str:
    return f'<script type="application/json" id="{SCRIPT_ID}">{_embedded(recipe)}</script>'


def recipe_span(page_text: str) -> tuple[int, int] | None:
    """Where a page's embedded recipe (its JSON) starts and ends, or None for a page without one."""
    tag = f'id="{SCRIPT_ID}">'
    start = page_text.find(tag)
    if start < 0:
        return None
    start += len(tag)
    end = page_text.find("</script>", start)
    return (start, end) if end >= 0 else None


def with_recipe(page_text: str, recipe: dict) -> str:
    """The page with its recipe replaced (tests, and a page edited on purpose)."""
    start, end = recipe_span(page_text)
    return page_text[:start] + _embedded(recipe) + page_text[end:]
