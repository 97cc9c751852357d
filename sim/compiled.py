"""Where the compiled rules are cached, and telling the user when they are compiled.

Numba's own cache checks only the source file of the function it compiled: a kernel
that inlines helpers from other modules (keyed randomness, targeting, the policy
machine, a ruleset's rule tables) kept its old machine code after one of those was
edited. So the cache lives in a folder named after the package version and a hash of
every source file the compiled rules can read (`kernel_sources`): any edit of one, or
an upgrade, lands in a fresh folder and the rules are compiled anew. The folder is chosen before any kernel is defined
(`sim/__init__.py` calls `configure_cache` first thing).
"""
from __future__ import annotations

import ast
import hashlib
import os
import sys
import time
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_ENV = "SKIRMISH_CACHE_DIR"


def _sim_modules(text: str) -> list[str]:
    """The dotted `sim...` names a source imports (a module, or a name that may be one)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                (node.module == "sim" or node.module.startswith("sim.")):
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name == "sim" or a.name.startswith("sim.")]
    return names


def _imported_files(text: str, package: Path) -> list[Path]:
    # Read with ast, not a pattern: a pattern over `from ... import (...)` ran across line
    # ends and swallowed the next import, so a module imported there went unfingerprinted.
    found = []
    for dotted in _sim_modules(text):
        parts = dotted.split(".")[1:]
        if not parts:
            continue
        rel = Path(*parts)
        found += [p for p in (package / rel.with_suffix(".py"), package / rel / "__init__.py") if p.exists()]
    return found


def kernel_sources(package: Path = _PACKAGE) -> list[Path]:
    """Every file compiled code can depend on: the files that use Numba and, transitively,
    every `sim` module they import (module constants are frozen into the machine code).
    Reports, the CLI and the analyses are left out, so editing them compiles nothing."""
    files = {p for p in package.rglob("*.py") if "numba" in p.read_text(errors="replace")}
    todo = list(files)
    while todo:
        for path in _imported_files(todo.pop().read_text(errors="replace"), package):
            if path not in files:
                files.add(path)
                todo.append(path)
    return sorted(files)


def source_fingerprint(package: Path = _PACKAGE) -> str:
    h = hashlib.blake2b(digest_size=8)
    # Numba files its cache entries by the source's full path, so the same sources
    # installed elsewhere (a fresh clone, site-packages) compile anew: their own folder,
    # so the "compiling, once" notice and the compiled markers stay true there too.
    h.update(str(package).encode())
    for path in kernel_sources(package):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_root() -> Path:
    explicit = os.environ.get(_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "skirmish-sim"


def configure_cache(version: str) -> Path:
    """Point Numba's cache at this version's and these sources' own folder."""
    folder = cache_root() / f"{version}-{source_fingerprint()}"
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us (a notebook): its config was read already
        numba.config.CACHE_DIR = str(folder)
    return folder


def _marker(name: str) -> Path:
    return Path(os.environ["NUMBA_CACHE_DIR"]) / f"{name}.compiled"


def about(seconds: float) -> str:
    """How long a compile will take, as a person waiting would say it."""
    return f"about {seconds:.0f} s" if seconds < 90 else f"about {seconds / 60:.0f} minutes"


def warm(name: str, title: str, estimate_s: float, compile_now, quiet: bool = False) -> None:
    """Compile (or load) a ruleset's kernel in this process, saying so once on stderr
    the first time it is really compiled on this machine for these sources."""
    marker = _marker(name)
    fresh = not marker.exists()
    if fresh and not quiet:
        print(f"compiling the {title} rules, once: {about(estimate_s)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    compile_now()
    if fresh:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(f"{time.perf_counter() - started:.1f}\n")
        except OSError:
            pass  # an unwritable cache only costs the notice next time
