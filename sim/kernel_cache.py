"""Numba's cache, filed by what the sources say instead of where they sit (sim/compiled.py).

`SourceLocator` is put first in Numba's list of cache locators by sim/jit.py, before any
kernel is defined, so every function compiled from a file of this package is cached in

    <cache root>/numba-<version>-<cpu>/<module>-<fingerprint of what it can read>/

Numba's own index inside that folder still keys each entry by the function's bytecode,
its argument types and the machine, and checks the file's content hash; the folder name
adds the files the function inlines from, and drops the install path.
"""
from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

import numba
from numba.core import caching

from sim import compiled


@lru_cache(maxsize=1)
def machine_folder() -> Path:
    from llvmlite import binding
    return compiled.cache_root() / f"numba-{numba.__version__}-{binding.get_host_cpu_name()}"


@lru_cache(maxsize=None)
def _folder_for(path: Path) -> tuple[str, str]:
    module = compiled._module_name(path, compiled.PACKAGE)
    fingerprint = compiled.file_fingerprint(path)
    return str(machine_folder() / f"{module}-{fingerprint}"), fingerprint


class SourceLocator(caching._CacheLocator):
    def __init__(self, py_func, py_file):
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path, self._stamp = _folder_for(Path(py_file).resolve())

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        # The folder is the fingerprint already; Numba compares this with the stamp in
        # its index, so an entry copied into the wrong folder would still be refused.
        return self._stamp

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            path = Path(py_file).resolve()
            path.relative_to(compiled.PACKAGE)
        except (OSError, ValueError):
            return None  # not one of ours: Numba's own locators take it
        if not path.is_file():
            return None
        # Ours even when the folder cannot be written: a read-only warm cache is read
        # where it is, and a compile that cannot be saved serves this process only
        # (_unwritable), never silently landing in ~/.cache/numba or a __pycache__.
        return cls(py_func, py_file)


_SAID = "SKIRMISH_CACHE_NOTICE_GIVEN"  # inherited by workers, so one paragraph per run


def _say_once(text: str) -> None:
    if os.environ.get(_SAID):
        return
    os.environ[_SAID] = "1"
    print(text, file=sys.stderr, flush=True)


def _ours(cache) -> bool:
    return isinstance(getattr(getattr(cache, "_impl", None), "locator", None), SourceLocator)


def _ours_guarded(original, errors, recover):
    """Numba's cache method, with `recover(cache, error)` for our entries only."""
    def method(self, *args):
        if not _ours(self):
            return original(self, *args)
        try:
            return original(self, *args)
        except errors as e:
            return recover(self, e)
    return method


def _heal(cache, error) -> None:
    # A truncated or garbled index or entry: unpickling or rebuilding it failed.
    index = Path(cache._cache_file._index_path)
    try:
        index.unlink()  # else saving the fresh compile would read the damaged index again
    except OSError:
        pass
    _say_once(f"note: a damaged compile-cache entry in {index.parent} ({type(error).__name__}) was "
              "set aside; those rules are being compiled again and the entry rewritten.")
    return None  # Numba compiles when nothing was loaded


def _unwritable(cache, error) -> None:
    _say_once(f"note: the compile cache {compiled.cache_root()} cannot be written "
              f"({error.strerror or error}), so the rules compiled now serve this run only and the next run "
              "compiles them again. Point SKIRMISH_CACHE_DIR at a writable folder to keep them, "
              "e.g. SKIRMISH_CACHE_DIR=/tmp/skirmish-cache.")


def install() -> None:
    """Put the locator first, once (Numba reads the list when each function is defined),
    and let a cache entry of ours that cannot be read or written cost a compile, not a run."""
    classes = caching.CacheImpl._locator_classes
    if any(c.__name__ == SourceLocator.__name__ and c.__module__ == __name__ for c in classes):
        return
    classes.insert(0, SourceLocator)
    caching.Cache.load_overload = _ours_guarded(caching.Cache.load_overload, Exception, _heal)
    caching.Cache.save_overload = _ours_guarded(caching.Cache.save_overload, OSError, _unwritable)
