"""Day files: a party, the fights and rests it goes through, and how often to play it.

Loading a day builds every fight as a plain scenario (sim.scenario), the party put in
place of the side it replaces, so each fight is checked and played exactly as
`skirmish run` would play it.
"""
from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from sim import rulesets
from sim.errors import ScenarioError
from sim.schema import Field, validate_record
from sim.scenario import build_scenario, read_scenario_file

DAY_RUN_FIELDS = {
    "days": Field("int", 10000, "how many days `skirmish day` plays", min=1, max=10**8),
    "seed": Field("int", 0, "random seed; every fight's and rest's dice are keyed by it and their names",
                  min=0, max=2**63 - 1),
    "max_rounds": Field("int", None, "rounds before a fight counts as unfinished (default: each fight's "
                        "own `run.max_rounds`, 100 for inline fights)", min=1, max=10**6),
}
PARTY_FIELDS = {
    "side": Field("str", "party", "the party's side name in every fight"),
    "combatants": Field("list", None, "the party's combatants, as in a scenario's side",
                        item=Field("any", shape="a stat block, or {use: NAME, ...} of `bestiary:`")),
    "from": Field("record", None, "instead of `combatants`: a side of a scenario file (relative to the day "
                  "file), its combatants and policy", fields={
                      "scenario": Field("str", doc="the scenario file"),
                      "side": Field("str", doc="the side whose combatants are the party")}),
    "policy": Field("any", None, "the party's policy, as a side's (default: each fight's replaced side's)"),
}
DAY_FIELDS = {
    "name": Field("str", doc="what the day is called in summaries"),
    "description": Field("str", None, "free text for the reader"),
    "ruleset": Field("choice", doc="the rule system of every fight", choices=rulesets.names()),
    "include": Field("any", None, "library files the party and inline fights use, as in a scenario"),
    "armory": Field("any", None, "weapons defined once by name, as in a scenario"),
    "bestiary": Field("any", None, "stat blocks defined once by name, as in a scenario"),
    "policies": Field("any", None, "policies defined once by name, as in a scenario"),
    "rules": Field("any", {}, "rule options for every fight, over each scenario file's own"),
    "party": Field("record", doc="the side that lives through the day", fields=PARTY_FIELDS),
    "steps": Field("list", doc="fights and rests in order", item=Field("any", shape="{fight: NAME, ...} or "
                   "{rest: NAME, kind: short|night|full}")),
    "day_rules": Field("any", {}, "the ruleset's day options (docs/day.md); each has a documented default"),
    "stop_when": Field("choice", "party_out", "party_out: a lost fight ends the day; never: the day goes on "
                       "with whoever is left", choices=("party_out", "never")),
    "run": Field("record", {k: f.default for k, f in DAY_RUN_FIELDS.items()}, "run settings",
                 fields=DAY_RUN_FIELDS),
}
FIGHT_FIELDS = {
    "fight": Field("str", doc="the fight's name: it keys the fight's dice and labels every output"),
    "scenario": Field("str", None, "a scenario file (relative to the day file) to fight"),
    "party_side": Field("str", None, "the side of that scenario the party replaces"),
    "sides": Field("any", None, "the party's opponents, as a scenario's `sides` (instead of `scenario`)"),
    "chance": Field("float", 1.0, "the chance the fight happens on a day (its own keyed draw)", min=0, max=1),
    "battlefield": Field("any", None, "an inline fight's battlefield, as in a scenario"),
}
REST_KINDS = ("short", "night", "full")
REST_FIELDS = {
    "rest": Field("str", doc="the rest's name: it keys the rest's dice"),
    "kind": Field("choice", doc="short, night or full (what each gives back: the ruleset's day rules)",
                  choices=REST_KINDS),
}
FALLEN = Field("choice", "wakes", "what becomes of members down at the end of a won fight: wakes (they get up "
               "with what they have), out_until_rest (down until the next rest) or out_for_day; the dead stay "
               "dead", choices=("wakes", "out_until_rest", "out_for_day"))
INLINE_MAX_ROUNDS = 100


@dataclass
class Fight:
    name: str
    scenario: object  # sim.scenario.Scenario, the party in place
    party_index: int  # the party's side in scenario.side_names
    columns: dict[str, int]  # member name -> its column in the fight
    chance: float
    seed: int
    max_rounds: int
    source: str


@dataclass
class Rest:
    name: str
    kind: str
    seed: int


@dataclass
class Day:
    name: str
    ruleset_name: str
    source: str
    data: dict
    members: list[str]
    stats: dict[str, dict]
    steps: list
    day_rules: dict
    stop_when: str
    run: dict
    hash: str = ""
    fights: list[Fight] = field(default_factory=list)

    @property
    def rules_module(self):
        return day_rules_module(self.ruleset_name)

    @property
    def resources(self) -> tuple[str, ...]:
        """The carried resources the tables and pages show: the ruleset's, less those
        no member's stat block has (Gods & Monsters spell uses in a party of no caster)."""
        mod = self.rules_module
        optional = getattr(mod, "HELD_ONLY_BY_STATS", ())
        fulls = [mod.full(self.stats[m]) for m in self.members]
        return tuple(r for r in mod.RESOURCES if r not in optional or any(f[r] for f in fulls))

    def member_resources(self, member: str) -> tuple[str, ...]:
        """The resources `member`'s own stat block has, of those the day shows."""
        optional = getattr(self.rules_module, "HELD_ONLY_BY_STATS", ())
        held = self.rules_module.full(self.stats[member])
        return tuple(r for r in self.resources if r not in optional or held[r])


def day_rules_module(ruleset_name: str):
    """The ruleset's day rules (sim/rulesets/<name>/day.py): its carried resources and rests."""
    return importlib.import_module(f"sim.rulesets.{ruleset_name}.day")


def day_rule_fields(ruleset_name: str) -> dict[str, Field]:
    return {"fallen": FALLEN, **day_rules_module(ruleset_name).DAY_RULES}


def derived_seed(seed: int, kind: str, name: str) -> int:
    """The seed of one fight's or rest's dice: a pure function of the day's seed and the
    step's name, so moving or changing another step leaves it where it was."""
    digest = hashlib.blake2b(f"{int(seed)}\x00{kind}\x00{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # within a scenario's run.seed range


def load_day(path, days: int | None = None, seed: int | None = None) -> Day:
    """A validated Day from a day file; every problem is a ScenarioError naming the file."""
    from sim.yamlload import load_text, read_file
    p = Path(path)
    data, _ = load_text(read_file(p), file=str(p))
    if not isinstance(data, dict):
        raise ScenarioError("must be a YAML mapping with at least name, ruleset, party and steps.", file=str(p))
    try:
        return build_day(data, p, days, seed)
    except ScenarioError as e:
        if e.file is None:
            e.file = str(p)
            e._refresh()
        raise


def build_day(data: dict, path: Path, days, seed) -> Day:
    """A validated Day from a day file's data; `path` places it (relative names are read
    from its folder) and names it in messages."""
    top = validate_record(data, DAY_FIELDS, "")
    run = dict(top["run"])
    if days is not None:
        run["days"] = int(days)
    if seed is not None:
        run["seed"] = int(seed)
    rules_fields = day_rule_fields(top["ruleset"])
    if not isinstance(top["day_rules"], dict):
        raise ScenarioError("must be a mapping of day option: value.", path="day_rules")
    day_rules = validate_record(top["day_rules"], rules_fields, "day_rules")
    if not top["steps"]:
        raise ScenarioError("lists no step; give at least one {fight: NAME, ...}.", path="steps")
    party = _resolved_party(top, data, path.parent)
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    day = Day(name=top["name"], ruleset_name=top["ruleset"], source=str(path), data=data, members=[], stats={},
              steps=[], day_rules=day_rules, stop_when=top["stop_when"], run=run,
              hash=hashlib.sha256(text.encode()).hexdigest()[:16])
    seen: dict[str, int] = {}
    for i, raw in enumerate(top["steps"]):
        where = f"steps[{i}]"
        if not isinstance(raw, dict) or ("fight" in raw) == ("rest" in raw):
            raise ScenarioError("each step is either {fight: NAME, ...} or {rest: NAME, kind: short|night|full}.",
                                path=where)
        name = str(raw.get("fight", raw.get("rest")))
        if name in seen:
            raise ScenarioError(f"the name {name!r} is used by steps[{seen[name]}] too; every fight and rest "
                                "needs its own name (the name keys its dice).", path=where)
        seen[name] = i
        if "rest" in raw:
            spec = validate_record(raw, REST_FIELDS, where)
            day.steps.append(Rest(name, spec["kind"], derived_seed(run["seed"], "rest", name)))
        else:
            fight = _fight(validate_record(raw, FIGHT_FIELDS, where), where, top, data, party, path, run)
            day.steps.append(fight)
            day.fights.append(fight)
    if not day.fights:
        raise ScenarioError("has no fight; a day needs at least one {fight: NAME, ...} step.", path="steps")
    # The day's hash covers every fight as played, so an edited scenario file changes it.
    played = [text] + [f.scenario.hash for f in day.fights]
    day.hash = hashlib.sha256("\x00".join(played).encode()).hexdigest()[:16]
    first = day.fights[0].scenario
    day.members = list(day.fights[0].columns)
    day.stats = {c.name: c.stats for c in first.combatants if c.name in day.fights[0].columns}
    return day


def _definitions(data: dict) -> dict:
    return {k: data[k] for k in ("include", "armory", "bestiary", "policies") if data.get(k) is not None}


def _resolved_party(top: dict, data: dict, base: Path) -> dict:
    """The party's side with its `use:` references filled from the day's definitions."""
    from sim.library import resolve
    spec = top["party"]
    if (spec["combatants"] is None) == (spec["from"] is None):
        raise ScenarioError("give the party either `combatants:` or `from: {scenario: FILE, side: NAME}`.",
                            path="party")
    if spec["from"] is not None:
        file = (base / spec["from"]["scenario"]).resolve()
        raw, _ = read_scenario_file(file)
        found = resolve(raw, file.parent, str(file))
        sides = found.get("sides") if isinstance(found.get("sides"), dict) else {}
        if spec["from"]["side"] not in sides or not isinstance(sides[spec["from"]["side"]], dict):
            raise ScenarioError(f"names {spec['from']['side']!r}, which is not a side of {spec['from']['scenario']} "
                                f"(its sides: {', '.join(map(str, sides))}).", path="party.from.side")
        side = {k: v for k, v in sides[spec["from"]["side"]].items() if k in ("combatants", "policy")}
        if spec["policy"] is not None:
            side["policy"] = resolve({"ruleset": top["ruleset"], **_definitions(data),
                                      "sides": {"party": {"policy": spec["policy"]}}}, base)["sides"]["party"]["policy"]
        return {"side": side, "armory": found.get("armory") or {}}
    side = {"combatants": spec["combatants"]}
    if spec["policy"] is not None:
        side["policy"] = spec["policy"]
    if not side["combatants"]:
        raise ScenarioError("lists nobody; give the party at least one combatant.", path="party.combatants")
    out = resolve({"ruleset": top["ruleset"], **_definitions(data), "sides": {"party": side}}, base)
    return {"side": out["sides"]["party"], "armory": out.get("armory") or {}}


def _fight(spec: dict, where: str, top: dict, data: dict, party: dict, path: Path, run: dict) -> Fight:
    from sim.library import resolve
    name, side_name = spec["fight"], top["party"]["side"]
    if (spec["scenario"] is None) == (spec["sides"] is None):
        raise ScenarioError("give either `scenario:` (a file, with `party_side:`) or inline `sides:`, not both.",
                            path=where)
    if spec["scenario"] is not None:
        file = (path.parent / spec["scenario"]).resolve()
        raw, _ = read_scenario_file(file)
        fight = resolve(raw, file.parent, str(file))
        if fight.get("ruleset") != top["ruleset"]:
            raise ScenarioError(f"{spec['scenario']} is a {fight.get('ruleset')} scenario; a {top['ruleset']} "
                                f"day fights {top['ruleset']} scenarios only.", path=f"{where}.scenario")
        sides = fight.get("sides") if isinstance(fight.get("sides"), dict) else {}
        replaced = spec["party_side"]
        if replaced not in sides:
            raise ScenarioError(f"names {replaced!r}, which is not a side of {spec['scenario']} (its sides: "
                                f"{', '.join(map(str, sides))}); name the side the party replaces.",
                                path=f"{where}.party_side")
        mine = dict(sides[replaced]) if isinstance(sides[replaced], dict) else {}
        mine["combatants"] = party["side"]["combatants"]
        if "policy" in party["side"]:
            mine["policy"] = party["side"]["policy"]
        fight["sides"] = {(side_name if k == replaced else k): (mine if k == replaced else v) for k, v in sides.items()}
        if side_name != replaced and side_name in sides:
            raise ScenarioError(f"{spec['scenario']} has a side named {side_name!r} besides {replaced!r}; give the "
                                "party another `side:` name.", path=f"{where}.party_side")
        source = str(file)
        max_rounds = (fight.get("run") or {}).get("max_rounds", INLINE_MAX_ROUNDS)
    else:
        if spec["party_side"] is not None:
            raise ScenarioError("`party_side:` names a side of a `scenario:` file; an inline fight's party is the "
                                "day's party.", path=f"{where}.party_side")
        if not isinstance(spec["sides"], dict) or side_name in spec["sides"]:
            raise ScenarioError(f"must be a mapping of side name: side, the party's {side_name!r} not among them.",
                                path=f"{where}.sides")
        fight = resolve({"ruleset": top["ruleset"], **_definitions(data), "sides": spec["sides"]}, path.parent)
        fight = {"name": name, "ruleset": top["ruleset"], **fight,
                 "sides": {side_name: party["side"], **fight["sides"]}}
        if spec["battlefield"] is not None:
            fight["battlefield"] = spec["battlefield"]
        source = f"{path} {where}"
        max_rounds = INLINE_MAX_ROUNDS
    fight["rules"] = {**(fight.get("rules") or {}), **(top["rules"] or {})}
    if party["armory"]:
        fight["armory"] = {**party["armory"], **(fight.get("armory") or {})}
    fight.pop("sweep", None)
    try:
        scen = build_scenario(fight, source)
    except ScenarioError as e:
        raise ScenarioError(f"fight {name!r}: {e}", path=where) from None
    index = scen.side_names.index(side_name)
    columns = {c.name: k for k, c in enumerate(scen.combatants) if c.side == index}
    return Fight(name=name, scenario=scen, party_index=index, columns=columns, chance=spec["chance"],
                 seed=derived_seed(run["seed"], "fight", name), source=source,
                 max_rounds=int(run["max_rounds"] or max_rounds))
