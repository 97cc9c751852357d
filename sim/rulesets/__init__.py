"""The registry of rulesets, by the name scenario files use."""
from __future__ import annotations

import importlib

# Imported lazily so loading one ruleset never pays for the others.
_MODULES = {
    "gods_and_monsters": "sim.rulesets.gods_and_monsters",
    "lens": "sim.rulesets.lens",
    "lifeforce": "sim.rulesets.lifeforce",
}


def names() -> tuple[str, ...]:
    return tuple(_MODULES)


def get(name: str):
    return importlib.import_module(_MODULES[name]).RULESET
