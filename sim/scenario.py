"""Scenario files: YAML a designer writes by hand, validated into a `Scenario`.

Every failure is a ScenarioError naming the file, the field path and what is allowed.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sim import rulesets
from sim.armory import expand, weapon_table
from sim.errors import ScenarioError
from sim.formations import BATTLEFIELD_FIELDS, FORMATIONS, MAX_GRID
from sim.policy import Policy, compile_policy, policy_schema
from sim.schema import Field, validate, validate_record

MAX_COMBATANTS = 1000

RUN_FIELDS = {
    "skirmishes": Field("int", 10000, "how many skirmishes `skirmish run` plays", min=1, max=10**9),
    "seed": Field("int", 0, "random seed; the same scenario and seed give the same results", min=0, max=2**63 - 1),
    "max_rounds": Field("int", 100, "a fight still going after this many rounds counts as unfinished",
                        min=1, max=10**6),
}

TOP_FIELDS = {
    "name": Field("str", doc="what the scenario is called in summaries and reports"),
    "description": Field("str", None, "free text for the reader"),
    "ruleset": Field("choice", doc="which rule system plays the fight", choices=rulesets.names()),
    "rules": Field("any", {}, "rule options of the ruleset; every option has a documented default"),
    "sides": Field("any", doc="the sides, by name, each with its combatants and policy"),
    "armory": Field("any", None, "weapons defined once by name, used by name in any combatant's weapon list"),
    "battlefield": Field("any", None, "the grid, distance rule and starting distance (default: melee contact)"),
    "run": Field("record", {k: f.default for k, f in RUN_FIELDS.items()}, "run settings", fields=RUN_FIELDS),
    "sweep": Field("any", None, "variants for `skirmish sweep`: {vary: {PATH: VALUES}} (checked by sim/analysis/sweep.py)"),
}

SIDE_FIELDS = {
    "combatants": Field("list", doc="the side's combatants (at least one)", item=Field("any")),
    "policy": Field("any", None, "the side's policy, see \"Policies\""),
    "formation": Field("choice", "line", "how the side is drawn up at the start (see \"Battlefield\")",
                       choices=FORMATIONS),
}

# Fields the core adds to every ruleset's stat block.
CORE_COMBATANT_FIELDS = {
    "name": Field("str", doc="the combatant's name; copies made with `count` get ' 1', ' 2'... appended"),
    "count": Field("int", 1, "how many identical copies fight", min=1, max=MAX_COMBATANTS),
    "policy": Field("any", None, "a policy for this combatant alone, overriding its side's"),
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
    p = Path(path)
    if not p.exists():
        raise ScenarioError("no such file. Check the path; shipped scenarios live under scenarios/.", file=str(p))
    if p.is_dir():
        raise ScenarioError("is a folder; give a scenario file (.yaml).", file=str(p))
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"is not UTF-8 text (bad byte at position {e.start}); save it as UTF-8.",
                            file=str(p)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ScenarioError(f"is not valid YAML{where}: {problem}. Check indentation and that every "
                            "'key: value' pair has a space after the colon.", file=str(p)) from None
    if not isinstance(data, dict):
        raise ScenarioError("must be a YAML mapping with at least name, ruleset and sides.", file=str(p))
    return data


def load_scenario(source, overrides: dict | None = None) -> Scenario:
    """Load a scenario from a path or an already-parsed dict; `overrides` maps paths to values."""
    if isinstance(source, dict):
        data, name = copy.deepcopy(source), "<scenario>"
    else:
        name = str(source)
        data = read_yaml(source)
    try:
        if overrides:
            from sim.overrides import apply_overrides
            data = apply_overrides(data, overrides)
        return build_scenario(data, name)
    except ScenarioError as e:
        raise e.located(name) from None


def build_scenario(data: dict, source: str = "<scenario>") -> Scenario:
    top = validate_record(data, TOP_FIELDS, "")
    ruleset = rulesets.get(top["ruleset"])
    rules = validate(top["rules"] if top["rules"] is not None else {},
                     Field("record", fields=ruleset.rule_options), "rules")
    sides_raw = top["sides"]
    if not isinstance(sides_raw, dict) or len(sides_raw) < 2:
        raise ScenarioError("needs at least two sides, written as a mapping of side name to "
                            "{combatants: [...]}.", path="sides")
    check_side_names(sides_raw)
    stat_fields = {**CORE_COMBATANT_FIELDS, **ruleset.combatant_fields}
    pol_fields = policy_schema(ruleset.policy_fields)
    table = weapon_table(ruleset, top["armory"])
    weapon_lists = getattr(ruleset, "weapon_lists", ("weapons", "attacks"))
    combatants: list[Combatant] = []
    formations: list[str] = []
    battlefield = validate(top["battlefield"] if top["battlefield"] is not None else {},
                           Field("record", fields=BATTLEFIELD_FIELDS), "battlefield")
    total = 0
    for s, (side_name, side_raw) in enumerate(sides_raw.items()):
        spath = f"sides.{side_name}"
        side = validate_record(side_raw, SIDE_FIELDS, spath)
        if not side["combatants"]:
            raise ScenarioError("has no combatants; list at least one.", path=f"{spath}.combatants")
        formations.append(side["formation"])
        side_policy = side["policy"] or {}
        for i, raw in enumerate(side["combatants"]):
            cpath = f"{spath}.combatants[{i}]"
            stats = validate_record(expand(raw, weapon_lists, table, cpath), stat_fields, cpath)
            total += stats["count"]
            if total > MAX_COMBATANTS:
                raise ScenarioError(f"brings the total to more than {MAX_COMBATANTS} combatants; "
                                    "lower `count`.", path=f"{cpath}.count")
            merged = {**_as_mapping(side_policy, f"{spath}.policy"),
                      **_as_mapping(stats["policy"] or {}, f"{cpath}.policy")}
            ppath = f"{cpath}.policy" if stats["policy"] else f"{spath}.policy"
            pspec = validate_record(merged, pol_fields, ppath)
            policy = compile_policy(pspec, ruleset.actions, ruleset.observations, ppath)
            for k in range(stats["count"]):
                name = stats["name"] if stats["count"] == 1 else f"{stats['name']} {k + 1}"
                combatants.append(Combatant(name, s, stats, policy, pspec))
    names = [c.name for c in combatants]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ScenarioError(f"two combatants are called {sorted(dupes)[0]!r}; give each a distinct name.",
                            path="sides")
    scen = Scenario(name=top["name"], ruleset_name=top["ruleset"], rules=rules, side_names=list(sides_raw),
                    combatants=combatants, run=top["run"], data=data, source=source,
                    description=top["description"], battlefield_spec=battlefield, formations=formations)
    scen.layout  # places everyone now so a bad layout is reported at load time
    ruleset.check(scen)
    return scen


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
                                "rename the side.", path=f"sides.{name}")


def _as_mapping(value, path) -> dict:
    if not isinstance(value, dict):
        raise ScenarioError("expected a mapping such as {target: random}.", path=path)
    return value
