"""Definitions written once and used by name: `include:`, `bestiary:`, `policies:`.

The merge rule: included files only provide named definitions (weapons under `armory:`,
stat blocks under `bestiary:`, policies under `policies:`); a scenario uses a stat block
with `{use: NAME, ...}` in a combatant list and a policy with `policy: {use: NAME, ...}`,
and fields written beside `use` win over the definition's. When a name is defined twice,
the scenario's own definition wins over any included one, and a later include wins over
an earlier one. Include paths are relative to the file that includes them.

`resolve` returns the scenario with every reference filled in and the definitions
removed (except `armory:`, which the loader reads as before), so the result is a plain,
self-contained scenario: its hash covers the figures actually played and worker
processes need no files.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from sim.errors import ScenarioError, closest
from sim.overrides import entry_path, side_path

DEFINITIONS = ("armory", "bestiary", "policies")
LIBRARY_FIELDS = ("library", "description", "include", *DEFINITIONS)
MAX_FILES = 32


def resolve(data: dict, base: Path, file: str | None = None, unresolved: list | None = None) -> dict:
    """`data` (a parsed scenario) with its includes and `use:` references resolved.

    A bad include raises at once. With `unresolved` (a list), a `use:` naming nothing is
    appended to it as (path, ScenarioError) and its entry is kept without `use`, so the
    rest of the file can still be checked; otherwise it raises."""
    bad = [] if unresolved is None else unresolved
    own = {k: _mapping(data.get(k), k, file) for k in DEFINITIONS}
    found = _included(data.get("include"), base, [str(file or "<scenario>")], [0], data.get("ruleset"))
    defs = {k: {**found[k], **own[k]} for k in DEFINITIONS}
    out = {k: v for k, v in data.items() if k not in ("include", "bestiary", "policies")}
    if defs["armory"]:
        out["armory"] = defs["armory"]
    sides = out.get("sides")
    if isinstance(sides, dict):
        out["sides"] = {name: _resolve_side(side, defs, side_path(name), bad) for name, side in sides.items()}
    if bad and unresolved is None:
        raise bad[0][1]
    return out


def _resolve_side(side, defs: dict, path: str, bad: list):
    if not isinstance(side, dict):
        return side
    side = dict(side)
    if isinstance(side.get("policy"), dict):
        side["policy"] = _use(side["policy"], defs["policies"], "policies", f"{path}.policy", bad)
    if isinstance(side.get("combatants"), list):
        entries = side["combatants"]
        side["combatants"] = [_resolve_combatant(c, defs, entry_path(f"{path}.combatants", entries, i), bad)
                              for i, c in enumerate(entries)]
    return side


def _resolve_combatant(raw, defs: dict, path: str, bad: list):
    if not isinstance(raw, dict):
        return raw
    out = _use(raw, defs["bestiary"], "bestiary", path, bad, name_from_use=True)
    if isinstance(out.get("policy"), dict):
        out["policy"] = _use(out["policy"], defs["policies"], "policies", f"{path}.policy", bad)
    return out


def _use(entry: dict, table: dict, kind: str, path: str, bad: list, name_from_use: bool = False) -> dict:
    if "use" not in entry:
        return entry
    name = entry["use"]
    definition = table.get(name) if isinstance(name, str) else None
    if not isinstance(definition, dict):
        known = ", ".join(map(str, table)) or "none"
        why = (f"`use: {name}` names no entry of `{kind}:`.{closest(name, table)} Known: {known}. "
               f"Define it under `{kind}:` in this file or in a file listed under `include:`."
               if definition is None else f"the `{kind}:` entry '{name}' must be a mapping of fields.")
        bad.append((path, ScenarioError(why, path=f"{path}.use")))
        kept = {k: v for k, v in entry.items() if k != "use"}
        if name_from_use and isinstance(name, str):
            kept.setdefault("name", name)  # keeps the entry's path, so its follow-on errors are dropped
        return kept
    merged = {**copy.deepcopy(definition), **{k: v for k, v in entry.items() if k != "use"}}
    if name_from_use:
        merged.setdefault("name", name)
        merged = {"name": merged.pop("name"), **merged}  # name first, as people write it
    return merged


def _mapping(value, key: str, file) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ScenarioError(f"expected a mapping of name: definition under `{key}:`.", file=file, path=key)
    return value


def _included(spec, base: Path, chain: list[str], count: list[int], ruleset) -> dict:
    """The definitions of the files listed in `include:`, later files winning."""
    from sim.yamlload import load_text, read_file
    out = {k: {} for k in DEFINITIONS}
    if spec is None:
        return out
    paths = [spec] if isinstance(spec, str) else spec
    if not isinstance(paths, list) or not all(isinstance(p, str) and p.strip() for p in paths):
        raise ScenarioError("expected a file path or a list of them, relative to this file, e.g. "
                            "include: [../library/gods_and_monsters.yaml].", file=chain[-1], path="include")
    for rel in paths:
        try:
            target = (base / rel).resolve()
        except (RuntimeError, OSError) as e:  # a symlink loop (RuntimeError before Python 3.13), a bad name
            raise ScenarioError(f"includes '{rel}', which cannot be followed ({e}); point `include:` at the "
                                "library file itself.", file=chain[-1], path="include") from None
        if str(target) in chain:
            loop = " -> ".join([*(Path(c).name for c in chain[chain.index(str(target)):]), target.name])
            raise ScenarioError(f"includes itself in a circle ({loop}); remove one of these includes.",
                                file=chain[-1], path="include")
        count[0] += 1
        if count[0] > MAX_FILES:
            raise ScenarioError(f"includes more than {MAX_FILES} files in all; merge some libraries.",
                                file=chain[-1], path="include")
        if not target.exists():
            raise ScenarioError(f"includes '{rel}', which does not exist (looked for {target}); include "
                                "paths are relative to the file that includes them.", file=chain[-1], path="include")
        if target.is_dir():  # read_file would name the folder, not the file whose include it is
            raise ScenarioError(f"includes '{rel}', which is a folder ({target}); name the library file "
                                "itself, e.g. include: [../library/gods_and_monsters.yaml].",
                                file=chain[-1], path="include")
        data, _ = load_text(read_file(target), file=str(target))
        lib = _check_library(data, str(target), ruleset)
        nested = _included(lib.get("include"), target.parent, [*chain, str(target)], count, ruleset)
        for k in DEFINITIONS:
            out[k].update(nested[k])
            out[k].update(_mapping(lib.get(k), k, str(target)))
    return out


def _check_library(data, file: str, ruleset) -> dict:
    if not isinstance(data, dict):
        raise ScenarioError("an included file must be a mapping with armory:, bestiary: or policies:.", file=file)
    for key in data:
        if key not in LIBRARY_FIELDS:
            raise ScenarioError(f"unknown field '{key}' in an included file.{closest(key, LIBRARY_FIELDS)} "
                                f"Included files provide definitions only: {', '.join(LIBRARY_FIELDS)}.",
                                file=file, path=str(key))
    declared = data.get("library")
    if declared is not None and ruleset is not None and declared != ruleset:
        raise ScenarioError(f"is a library for the ruleset '{declared}', but the scenario including it plays "
                            f"'{ruleset}'; include the {ruleset} library instead.", file=file, path="library")
    return data


def is_library(data) -> bool:
    """A library's parsed data: `library:` and no `sides:` at the top."""
    return isinstance(data, dict) and "library" in data and "sides" not in data


def check_library_file(path) -> str:
    """Check a library file as a scenario would use it: its fields as `include:` reads
    them, then each stat block of `bestiary:` (with its weapons from `armory:`) and each
    policy of `policies:` in a two-sided fight of the library's ruleset. Returns what it
    holds, in words; a problem raises ScenarioError naming the definition."""
    from sim import rulesets
    from sim.scenario import load_scenario
    from sim.yamlload import load_text, read_file
    path = Path(path)
    data, _ = load_text(read_file(path), file=str(path))
    data = _check_library(data, str(path), None)
    ruleset = data.get("library")
    if ruleset not in rulesets.names():
        raise ScenarioError(f"names no ruleset ({ruleset!r}); start a library with `library: RULESET`, one of "
                            f"{', '.join(rulesets.names())}.", file=str(path), path="library")
    found = _included(str(path.resolve()), path.parent, ["<library check>"], [0], ruleset)
    bestiary, policies = found["bestiary"], found["policies"]
    for name in bestiary:
        _check_definition(load_scenario, path, ruleset, f"bestiary.{name}", {"use": name}, None)
    for name in policies:
        if bestiary:
            _check_definition(load_scenario, path, ruleset, f"policies.{name}", {"use": next(iter(bestiary))},
                              {"use": name})
    counts = [(len(bestiary), "stat block"), (len(found["armory"]), "weapon"), (len(policies), "policy")]
    held = ", ".join(f"{k} {word if k == 1 else word.replace('policy', 'policie') + 's'}" for k, word in counts)
    return f"a {ruleset} library: {held}"


def _check_definition(load_scenario, path: Path, ruleset: str, where: str, combatant: dict, policy) -> None:
    side = {"combatants": [combatant], **({"policy": policy} if policy else {})}
    foe = {"combatants": [{**combatant, "name": "the other side"}]}
    trial = {"name": "library check", "ruleset": ruleset, "include": [str(path.resolve())],
             "sides": {"checked": side, "foe": foe}}
    try:
        load_scenario(trial)
    except ScenarioError as e:
        first = e.problems[0]
        # The trial's path to the field (sides.checked.combatants[Ogre].defense) as the library's own.
        m = re.match(r'^sides\.(?:checked|foe)\.(?:combatants\[(?:"(?:[^"\\]|\\.)*"|[^\]]*)\]|policy)\.?(.*)$',
                     first.path or "")
        inner = m.group(1) if m else ""
        raise ScenarioError(first.message, file=str(path), path=f"{where}.{inner}" if inner else where) from None
