"""Numba's cache, filed by what the sources say instead of where they sit (sim/compiled.py).

`SourceLocator` is put first in Numba's list of cache locators by sim/jit.py, before any
kernel is defined, so every function compiled from a file of this package is cached in

    <cache root>/numba-<version>-<cpu>/<module>-<fingerprint of what it can read>/

Numba's own index inside that folder still keys each entry by the function's bytecode,
its argument types and the machine, and checks the file's content hash; the folder name
adds the files the function inlines from, and drops the install path.
"""
from __future__ import annotations

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
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


def install() -> None:
    """Put the locator first, once (Numba reads the list when each function is defined)."""
    classes = caching.CacheImpl._locator_classes
    if not any(c.__name__ == SourceLocator.__name__ and c.__module__ == __name__ for c in classes):
        classes.insert(0, SourceLocator)
