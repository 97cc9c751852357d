"""Scenario files: YAML a designer writes by hand, validated into a `Scenario`.

Every failure is a ScenarioError naming the file, the field path and what is allowed.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from sim import rulesets
from sim.armory import expand, weapon_table
from sim.errors import Problems, ScenarioError, combine
from sim.formations import BATTLEFIELD_FIELDS, FORMATIONS, MAX_GRID
from sim.overrides import entry_path, side_path
from sim.policy import TARGET_MODES, Policy, compile_policy, policy_schema
from sim.schema import Field, validate, validate_record

MAX_COMBATANTS = 1000

RUN_FIELDS = {
    "skirmishes": Field("int", 10000, "how many skirmishes `skirmish run` plays", min=1, max=10**9),
    "seed": Field("int", 0, "random seed; the same scenario and seed give the same results", min=0, max=2**63 - 1),
    "max_rounds": Field("int", 100, "a fight still going after this many rounds counts as unfinished",
                        min=1, max=10**6),
}

POLICY_SHAPE = "a policy: {target: ..., rules: [...]} (see \"Policies\"), or {use: NAME} of `policies:`"
TOP_FIELDS = {
    "name": Field("str", doc="what the scenario is called in summaries and reports"),
    "description": Field("str", None, "free text for the reader"),
    "ruleset": Field("choice", doc="which rule system plays the fight", choices=rulesets.names()),
    "include": Field("any", None, "library files whose `armory:`, `bestiary:` and `policies:` this file uses "
                     "(see \"Libraries\")", shape="a file path or a list of them, relative to this file"),
    "rules": Field("any", {}, "rule options of the ruleset; every option has a documented default",
                   shape="a mapping of rule option: value (the ruleset's \"Rule options\" below)"),
    "sides": Field("any", doc="the sides, by name, each with its combatants and policy",
                   shape="a mapping of side name: {combatants, policy, formation} (two or more)"),
    "armory": Field("any", None, "weapons defined once by name, used by name in any combatant's weapon list",
                    shape="a mapping of weapon name: the fields of one weapon entry of the ruleset"),
    "bestiary": Field("any", None, "stat blocks defined once by name, used as {use: NAME} in a combatant list",
                      shape="a mapping of name: a stat block of the ruleset"),
    "policies": Field("any", None, "policies defined once by name, used as policy: {use: NAME}",
                      shape="a mapping of name: a policy"),
    "battlefield": Field("any", None, "the grid, distance rule and starting distance (default: melee contact)",
                         shape="a mapping of the fields under \"Battlefield\""),
    "run": Field("record", {k: f.default for k, f in RUN_FIELDS.items()}, "run settings", fields=RUN_FIELDS),
    "sweep": Field("any", None,
                   "variants for `skirmish sweep`: {vary: {PATH: VALUES}} (checked by sim/analysis/sweep.py)",
                   shape="{vary: {PATH: VALUES}}, VALUES as `0..6`, `0..20:5`, `d6,d8` or a list"),
}

SIDE_FIELDS = {
    "combatants": Field("list", doc="the side's combatants (at least one)",
                        item=Field("any", shape="a stat block, or {use: NAME, ...} of `bestiary:`"),
                        shape="a list of stat blocks (see below), each a mapping"),
    "policy": Field("any", None, "the side's policy, see \"Policies\"", shape=POLICY_SHAPE),
    "formation": Field("choice", "line", "how the side is drawn up at the start (see \"Battlefield\")",
                       choices=FORMATIONS),
}

# Fields the core adds to every ruleset's stat block.
CORE_COMBATANT_FIELDS = {
    "name": Field("str", doc="the combatant's name; copies made with `count` get ' 1', ' 2'... appended"),
    "count": Field("int", 1, "how many identical copies fight", min=1, max=MAX_COMBATANTS),
    "policy": Field("any", None, "a policy for this combatant alone, overriding its side's", shape=POLICY_SHAPE),
    "position": Field("list", None, "starting cell [x, y] on the battlefield, overriding the side's formation",
                      item=Field("int", min=0, max=MAX_GRID - 1), check=lambda v, path: _pair(v, path)),
}


def _pair(value, path):
    if value is not None and len(value) != 2:
        raise ScenarioError(f"expected two whole numbers [x, y], got {len(value)}.", path=path)
    return value


@dataclass
class Combatant:
    name: str
    side: int
    stats: dict
    policy: Policy
    policy_spec: dict


@dataclass
class Scenario:
    name: str
    ruleset_name: str
    rules: dict
    side_names: list[str]
    combatants: list[Combatant]
    run: dict
    data: dict  # the scenario as parsed (after overrides), the source of truth for the hash
    source: str = "<scenario>"
    description: str | None = None
    battlefield_spec: dict = field(default_factory=dict)
    formations: list = field(default_factory=list)
    _layout: object = field(default=None, repr=False)
    _hash: str | None = field(default=None, repr=False)
    overrides: dict = field(default_factory=dict)  # the --set values applied, as given

    @property
    def text(self) -> str:
        """The scenario as played (after includes and overrides), as YAML."""
        import yaml
        # libyaml's emitter writes the same text about 4x faster; every run's provenance has it.
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        return yaml.dump(self.data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=None)

    @property
    def ruleset(self):
        return rulesets.get(self.ruleset_name)

    @property
    def hash(self) -> str:
        if self._hash is None:
            canonical = json.dumps(self.data, sort_keys=True, default=str, separators=(",", ":"))
            self._hash = hashlib.sha256(canonical.encode()).hexdigest()[:16]
        return self._hash

    @property
    def layout(self):
        if self._layout is None:
            from sim.formations import Layout
            self._layout = Layout(self)
        return self._layout

    @property
    def battlefield(self):
        return self.layout.grid

    def side_of(self) -> list[int]:
        return [c.side for c in self.combatants]

    def names(self) -> list[str]:
        return [c.name for c in self.combatants]


def read_yaml(path) -> dict:
    return read_scenario_file(path)[0]


def read_scenario_file(path):
    """(data, root node) of a scenario file, within the limits of sim/yamlload.py."""
    from sim.yamlload import load_text, read_file
    p = Path(path)
    data, node = load_text(read_file(p), file=str(p))
    if not isinstance(data, dict):
        raise ScenarioError("must be a YAML mapping with at least name, ruleset and sides.", file=str(p))
    from sim.library import is_library
    if is_library(data):
        raise ScenarioError("is a library (definitions for `include:`), not a scenario; list it under "
                            "`include:` in a scenario and use its names there.", file=str(p))
    return data, node


# What a scenario loaded from a dict is called where a file name would be.
DATA_SOURCE = "<scenario>"


def load_scenario(source, overrides: dict | None = None) -> Scenario:
    """Load a scenario from a path or an already-parsed dict; `overrides` maps paths to values.

    A bad scenario raises one ScenarioError for its first problem, carrying all the
    others (`err.problems`), each with its line in the file where it is known."""
    from sim.library import resolve
    node = None
    if isinstance(source, dict):
        data, name, base = copy.deepcopy(source), DATA_SOURCE, Path.cwd()
    else:
        name = str(source)
        data, node = read_scenario_file(source)
        base = Path(source).resolve().parent
    lines = _line_finder(node)
    unresolved: list = []  # `use:` references naming nothing; the rest of the file is still checked
    try:
        data = resolve(data, base, name, unresolved)
        if overrides:
            from sim.overrides import apply_overrides
            data = apply_overrides(data, overrides)
        scen = build_scenario(data, name)
    except ScenarioError as e:
        raise combine([err for _, err in unresolved] + _not_under(e.problems, unresolved)).located(name, lines) \
            from None
    if unresolved:
        raise combine([err for _, err in unresolved]).located(name, lines)
    if overrides:
        # As given: the text of each --set, or the value a notebook passed (kept if JSON can hold it).
        scen.overrides = {k: v if isinstance(v, (str, int, float, bool, type(None))) else str(v)
                          for k, v in overrides.items()}
    return scen


def _not_under(problems: list, unresolved: list) -> list:
    """The problems not inside an entry whose `use:` failed (those would only repeat it)."""
    roots = [path for path, _ in unresolved]
    kept = [p for p in problems
            if not any(p.path and (p.path == r or p.path.startswith(r + ".") or p.path.startswith(r + "["))
                       for r in roots)]
    for p in kept:
        p.also = []  # the list is flat now; the first must not bring the dropped ones back
    return kept


def _line_finder(node):
    if node is None:
        return None

    def line(path: str):
        from sim.overrides import split_path
        from sim.yamlload import line_of
        try:
            return line_of(node, split_path(path))
        except ScenarioError:
            return None
    return line


def build_scenario(data: dict, source: str = "<scenario>") -> Scenario:
    problems = Problems()
    top = validate_record(data, TOP_FIELDS, "", problems)
    if top["ruleset"] is None:
        problems.raise_any()  # without a ruleset no stat block can be checked
    ruleset = rulesets.get(top["ruleset"])
    rules = problems.attempt(validate, top["rules"] if top["rules"] is not None else {},
                             Field("record", fields=ruleset.rule_options), "rules")
    sides_raw = top["sides"]
    if not isinstance(sides_raw, dict) or len(sides_raw) < 2:
        problems.add(ScenarioError("needs at least two sides, written as a mapping of side name to "
                                   "{combatants: [...]}.", path="sides"))
        problems.raise_any()
    problems.attempt(check_side_names, sides_raw)
    table = problems.attempt(weapon_table, ruleset, top["armory"]) or weapon_table(ruleset, None)
    battlefield = problems.attempt(validate, top["battlefield"] if top["battlefield"] is not None else {},
                                   Field("record", fields=BATTLEFIELD_FIELDS), "battlefield")
    combatants, formations = _build_sides(sides_raw, ruleset, table, problems)
    problems.raise_any()
    names = [c.name for c in combatants]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ScenarioError(f"two combatants are called {sorted(dupes)[0]!r}; give each a distinct name.",
                            path="sides")
    scen = Scenario(name=top["name"], ruleset_name=top["ruleset"], rules=rules, side_names=list(sides_raw),
                    combatants=combatants, run=top["run"], data=data, source=source,
                    description=top["description"], battlefield_spec=battlefield, formations=formations)
    _ = scen.layout  # places everyone now so a bad layout is reported at load time
    ruleset.check(scen)
    return scen


def _build_sides(sides_raw: dict, ruleset, table, problems: Problems):
    stat_fields = {**CORE_COMBATANT_FIELDS, **ruleset.combatant_fields}
    pol_fields = policy_schema(ruleset.policy_fields)
    weapon_lists = getattr(ruleset, "weapon_lists", ("weapons", "attacks"))
    combatants: list[Combatant] = []
    formations: list[str] = []
    total = 0
    for s, (side_name, side_raw) in enumerate(sides_raw.items()):
        spath = side_path(side_name)
        side = problems.attempt(validate_record, side_raw, SIDE_FIELDS, spath)
        if side is None:
            continue
        if not side["combatants"]:
            problems.add(ScenarioError("has no combatants; list at least one.", path=f"{spath}.combatants"))
            continue
        formations.append(side["formation"])
        side_policy = side["policy"] or {}
        for i, raw in enumerate(side["combatants"]):
            cpath = entry_path(f"{spath}.combatants", side["combatants"], i)
            made = problems.attempt(_combatant, raw, s, cpath, spath, side_policy, stat_fields, pol_fields,
                                    weapon_lists, table, ruleset)
            if made is None:
                continue
            total += len(made)
            if total > MAX_COMBATANTS:
                problems.add(ScenarioError(f"brings the total to more than {MAX_COMBATANTS} combatants; "
                                           "lower `count`.", path=f"{cpath}.count"))
                return combatants, formations
            combatants.extend(made)
    return combatants, formations


def _combatant(raw, s, cpath, spath, side_policy, stat_fields, pol_fields, weapon_lists, table, ruleset):
    """The copies (`count`) of one stat block of the file, each with its compiled policy."""
    problems = Problems()
    failed = object()
    expanded = problems.attempt(expand, raw, weapon_lists, table, cpath, default=failed)
    if expanded is failed:  # an unknown weapon: still check the other fields, to report them too
        expanded = {k: v for k, v in raw.items() if k not in weapon_lists}
    stats = problems.attempt(validate_record, expanded, stat_fields, cpath)
    problems.raise_any()
    merged = {**_as_mapping(side_policy, f"{spath}.policy"),
              **_as_mapping(stats["policy"] or {}, f"{cpath}.policy")}
    ppath = f"{cpath}.policy" if stats["policy"] else f"{spath}.policy"
    pspec = validate_record(merged, pol_fields, ppath)
    policy = compile_policy(pspec, ruleset.actions, ruleset.observations, ppath,
                            getattr(ruleset, "observation_aliases", None),
                            getattr(ruleset, "action_aliases", None),
                            getattr(ruleset, "target_modes", TARGET_MODES))
    if stats["count"] == 1:
        return [Combatant(stats["name"], s, stats, policy, pspec)]
    return [Combatant(f"{stats['name']} {k + 1}", s, stats, policy, pspec) for k in range(stats["count"])]


# Outcome labels that share the winner column with the side names.
RESERVED_SIDE_NAMES = ("draw", "unfinished")


def check_side_names(sides: dict) -> None:
    """Side names label the winner column next to 'draw' and 'unfinished', so they must be
    distinct text that is neither of those."""
    for name in sides:
        if not isinstance(name, str) or not name.strip():
            shown = "nothing (null)" if name is None else repr(name)
            raise ScenarioError(f"a side is named {shown}; name every side with text, e.g. party: or "
                                "monsters: (quote numbers and true/false).", path="sides")
        if name.strip().lower() in RESERVED_SIDE_NAMES:
            raise ScenarioError(f"a side is named {name!r}, which the results use for "
                                f"{'a draw' if name.strip().lower() == 'draw' else 'an unfinished fight'}; "
                                "rename the side.", path=side_path(name))


def _as_mapping(value, path) -> dict:
    if not isinstance(value, dict):
        raise ScenarioError("expected a mapping such as {target: random}.", path=path)
    return value
