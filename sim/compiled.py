"""Where the compiled rules are cached, and telling the user while they are compiled.

Numba checks only the source file of the function it compiled, and files its cache by
that file's full path. Both are wrong for kernels: a kernel inlines helpers from other
modules (keyed randomness, targeting, a ruleset's rule tables, module constants frozen
into the machine code), and the same sources imported from site-packages, an editable
install or a fresh clone should compile once. So every kernel file's functions are
cached in a folder named after the file's place in the package and a hash of the
contents of every file it can read (`file_fingerprint`: the file and, through its import
graph, every `sim` module it imports). An edit of one file lands its importers in fresh
folders and nobody else: editing a Lens rule recompiles the Lens only. The locator that
files Numba's cache this way is in sim/kernel_cache.py (it needs numba; this module
does not, so `--help` and `validate` never import it).

Pure Python: nothing here imports numba.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import threading
import time
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
_ENV = "SKIRMISH_CACHE_DIR"
_JIT_MODULES = frozenset({"sim.jit", "numba"})
# The machinery that files the cache: every kernel file imports it through sim/jit.py,
# but no kernel reads it, so editing the compile notice recompiles nothing.
_NOT_READ_BY_KERNELS = ("compiled.py", "kernel_cache.py")


def cache_root() -> Path:
    explicit = os.environ.get(_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "skirmish-sim"


def _module_name(path: Path, package: Path) -> str:
    rel = path.relative_to(package.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _module_file(dotted: str, package: Path) -> Path | None:
    """The file of a `sim...` module, or None if the name is not a module of the package."""
    parts = dotted.split(".")
    if parts[0] != package.name:
        return None
    rel = Path(*parts[1:]) if len(parts) > 1 else Path()
    for candidate in (package / rel.with_suffix(".py") if len(parts) > 1 else None, package / rel / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str | None:
    if node.level == 0:
        return node.module
    base = here.split(".") if is_package else here.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else [])) or None


def imported_modules(tree: ast.AST, here: str, is_package: bool, package: Path) -> set[Path]:
    """The package's files a source reads through its imports, relative ones resolved.
    `from X import Y` counts X.Y if that is a module and X only if it is not, so
    importing a rule module does not pull in its package's `__init__` (and with it the
    whole ruleset)."""
    found: set[Path | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, here, is_package)
            if not module:
                continue
            for alias in node.names:
                sub = _module_file(f"{module}.{alias.name}", package)
                found.add(sub if sub is not None else _module_file(module, package))
        elif isinstance(node, ast.Import):
            found.update(_module_file(alias.name, package) for alias in node.names)
    found.discard(None)
    return found


def _imports_jit(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else \
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if any(name in _JIT_MODULES or name.startswith("numba.") for name in names):
            return True
    return False


def _scan_text(text: str, path: Path, package: Path) -> tuple[list[str], bool]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return [], False
    deps = imported_modules(tree, _module_name(path, package), path.name == "__init__.py", package)
    return sorted(str(dep.relative_to(package)) for dep in deps), _imports_jit(tree)


@lru_cache(maxsize=None)
def _layout(package: Path) -> str:
    files = sorted(str(p.relative_to(package)) for p in package.rglob("*.py"))
    return hashlib.blake2b("\0".join(files).encode(), digest_size=6).hexdigest()


class _ScanIndex:
    """What each source imports, by the hash of its contents, kept beside the compile
    cache: parsing every kernel file on each start-up (and in each worker) cost about
    0.3 CPU-s; hashing them costs a few ms."""

    def __init__(self):
        self.path = cache_root() / "imports.json"
        try:
            self.known = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.known = {}
        if not isinstance(self.known, dict):
            self.known = {}
        self.added = False

    def scan(self, path: Path, package: Path) -> tuple[tuple[Path, ...], bool]:
        data = path.read_bytes()
        # What an import names depends on which modules exist, so the package's file list
        # is part of the key as well as the source.
        key = f"{_module_name(path, package)}:{_layout(package)}:{hashlib.blake2b(data, digest_size=12).hexdigest()}"
        entry = self.known.get(key)
        if not (isinstance(entry, list) and len(entry) == 2):
            entry = list(_scan_text(data.decode(errors="replace"), path, package))
            self.known[key] = entry
            self.added = True
        deps = tuple(package / rel for rel in entry[0] if (package / rel).is_file())
        return deps, bool(entry[1])

    def save(self) -> None:
        if not self.added:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.known))
            os.replace(tmp, self.path)
            self.added = False
        except OSError:
            pass  # a read-only cache: parse again next time


_INDEX: _ScanIndex | None = None


@lru_cache(maxsize=None)
def _scan(path: Path, package: Path) -> tuple[tuple[Path, ...], bool]:
    global _INDEX
    if _INDEX is None:
        _INDEX = _ScanIndex()
    return _INDEX.scan(path, package)


def _imports(path: Path, package: Path) -> tuple[Path, ...]:
    return _scan(path, package)[0]


def closure(path: Path, package: Path = PACKAGE) -> tuple[Path, ...]:
    """Every package file a file can read: itself and, transitively, what it imports."""
    seen = {path}
    todo = [path]
    while todo:
        for dep in _imports(todo.pop(), package):
            if dep not in seen and str(dep.relative_to(package)) not in _NOT_READ_BY_KERNELS:
                seen.add(dep)
                todo.append(dep)
    if _INDEX is not None:
        _INDEX.save()
    return tuple(sorted(seen))


def _digest(files, package: Path) -> str:
    h = hashlib.blake2b(digest_size=8)
    for file in files:
        h.update(str(file.relative_to(package)).encode() + b"\0")
        h.update(file.read_bytes() + b"\0")
    return h.hexdigest()


def file_fingerprint(path: Path, package: Path = PACKAGE) -> str:
    """A hash of the contents of every file a kernel file can read (never their paths or
    times), so the same sources anywhere share one compile and any edit makes a new one."""
    return _digest(closure(path, package), package)


def is_kernel_file(path: Path, package: Path = PACKAGE) -> bool:
    """A file that compiles rules: it imports sim.jit or numba (read from its import
    statements, not from a word anywhere in the text)."""
    return _scan(path, package)[1]


def ruleset_sources(name: str, package: Path = PACKAGE) -> tuple[Path, ...]:
    """Every file a ruleset's compiled rules can read: the closure of each kernel file of
    its package (a file that compiles rules: it imports sim.jit or numba)."""
    folder = package / "rulesets" / name
    files: set[Path] = set()
    for path in sorted(folder.glob("*.py")):
        if is_kernel_file(path, package):
            files.update(closure(path, package))
    return tuple(sorted(files))


def ruleset_fingerprint(name: str, package: Path = PACKAGE) -> str:
    return _digest(ruleset_sources(name, package), package)


def _marker(name: str) -> Path:
    from sim.kernel_cache import machine_folder
    return machine_folder() / "compiled" / f"{name}-{ruleset_fingerprint(name)}"


def is_compiled(name: str) -> bool:
    """Whether this machine holds a ruleset's compiled rules for these very sources."""
    return _marker(name).exists()


def about(seconds: float) -> str:
    """How long a compile will take, as a person waiting would say it."""
    return f"about {seconds:.0f} s" if seconds < 90 else f"about {seconds / 60:.0f} minutes"


def _clock(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _timings() -> Path:
    from sim.kernel_cache import machine_folder
    return machine_folder() / "compiled" / "timings.txt"


def machine_estimate(name: str, shipped_estimate_s: float) -> float:
    """Seconds a compile of this ruleset will take here now: its CPU-seconds (this
    machine's last cold compile of it, else the shipped estimate scaled by how this
    machine did against the shipped estimate of another ruleset), stretched by the
    load on the machine's cores (a busy machine gives each compile a share of one)."""
    seen = {}
    try:
        for line in _timings().read_text().splitlines():
            ruleset, measured, shipped = line.split()
            seen[ruleset] = (float(measured), float(shipped))
    except (OSError, ValueError):
        seen = {}
    if name in seen:
        cpu = seen[name][0]
    else:
        ratios = [measured / shipped for measured, shipped in seen.values() if shipped > 0]
        cpu = shipped_estimate_s * (max(ratios) if ratios else 1.0)
    return cpu * _load_stretch()


def _load_stretch() -> float:
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, (load + 1) / (os.cpu_count() or 1))


def _record_timing(name: str, cpu_s: float, shipped_estimate_s: float) -> None:
    path = _timings()
    lines = [line for line in (path.read_text().splitlines() if path.exists() else [])
             if line.split()[:1] != [name]]
    lines.append(f"{name} {cpu_s:.1f} {shipped_estimate_s:.1f}")
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)


class _Ticker:
    """Elapsed time against the estimate on stderr while a compile runs, so a waiting
    designer sees it move: one line rewritten in place on a terminal, a line every
    30 s elsewhere (a log, CI)."""

    def __init__(self, title: str, estimate_s: float, stream=None, period_s: float | None = None):
        self.title, self.estimate_s = title, estimate_s
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.period_s = period_s if period_s is not None else 1.0 if self.tty else 30.0
        self.started = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def line(self, elapsed: float) -> str:
        head = f"compiling the {self.title} rules, once: {_clock(elapsed)} so far, {about(self.estimate_s)} in all"
        if elapsed > self.estimate_s * 1.2:
            head += " (longer than expected: the machine may be busy)"
        return head

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            text = self.line(time.perf_counter() - self.started)
            try:
                self.stream.write(f"\r{text}\x1b[K" if self.tty else text + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                return

    def __enter__(self):
        self.stream.write(f"compiling the {self.title} rules, once: {about(self.estimate_s)} "
                          "(later runs load them from the cache)\n")
        self.stream.flush()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if exc[0] is None:
            done = f"compiled the {self.title} rules in {_clock(time.perf_counter() - self.started)}"
            self.stream.write(f"\r{done}\x1b[K\n" if self.tty else done + "\n")
            self.stream.flush()
        elif self.tty:
            self.stream.write("\n")


def warm(name: str, title: str, estimate_s: float, compile_now, quiet: bool = False) -> None:
    """Compile (or load) a ruleset's kernel in this process, showing progress on stderr
    the first time it is really compiled on this machine for these sources."""
    marker = _marker(name)
    if marker.exists():
        compile_now()
        return
    started, cpu_started = time.perf_counter(), time.process_time()
    if quiet:
        compile_now()
    else:
        with _Ticker(title, machine_estimate(name, estimate_s)):
            compile_now()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(f"{time.perf_counter() - started:.1f}\n")
        _record_timing(name, time.process_time() - cpu_started, estimate_s)
    except OSError:
        pass  # an unwritable cache only costs the notice next time
