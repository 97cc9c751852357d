"""The registry of rulesets, by the name scenario files use."""
from __future__ import annotations

import importlib

# Imported lazily so loading one ruleset never pays for the others.
_MODULES = {
    "gods_and_monsters": "sim.rulesets.gods_and_monsters",
    "lens": "sim.rulesets.lens",
    "lifeforce": "sim.rulesets.lifeforce",
}


def deferred(module: str, name: str) -> staticmethod:
    """A ruleset's entry point (build, play, trace, warm, ...) whose module is imported on
    the first call: reading a ruleset's fields and options (`validate`, `rules`) then does
    not load its compiled kernels and Numba."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{module}.{name}, imported on first use."
    return staticmethod(call)


def names() -> tuple[str, ...]:
    return tuple(_MODULES)


def get(name: str):
    return importlib.import_module(_MODULES[name]).RULESET
