"""What was played: each side's policy and each combatant's stat block and weapons, as the
scenario file wrote them (after any `--set`), so a reader of the report never has to
open the YAML to know which Yeti this was.

The scenario comes from the run itself (a RunResult carries it) or, for tables read
back from disk, from the `scenario_text` their provenance records; tables from before
that was recorded simply get no design section.
"""
from __future__ import annotations

import pandas as pd

from sim.report.adapt import analysis_info
from sim.report.html import Section

# Stat-block keys that are not stats: shown elsewhere, or bookkeeping.
NOT_STATS = ("name", "count", "policy", "position")


def scenario_of(t):
    """The Scenario a RunTables was played from, or None when it cannot be known."""
    scen = getattr(t, "scenario", None)
    if scen is not None:
        return scen
    text = (getattr(t, "meta", None) or {}).get("scenario_text")
    if not text:
        return None
    try:
        import yaml

        from sim.scenario import build_scenario
        return build_scenario(yaml.safe_load(text), str(t.meta.get("scenario_file") or "<scenario>"))
    except Exception:  # an old or foreign record: the report goes on without the designs
        return None


def text(value) -> str:
    """A stat as a designer reads it: lists joined, small mappings inline."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {text(v)}" if not isinstance(v, dict) else f"{k} ({text(v)})"
                         for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def gear(item) -> str:
    """One weapon (or attack, spell, item): its name, then what the file says about it."""
    if not isinstance(item, dict):
        return str(item)  # a name from the armory
    rest = ", ".join(f"{k} {text(v)}" for k, v in item.items() if k != "name" and v is not None)
    return f"{item.get('name', '?')} ({rest})" if rest else str(item.get("name", "?"))


def _is_gear(value) -> bool:
    return isinstance(value, list) and value and all(isinstance(v, (dict, str)) for v in value) \
        and any(isinstance(v, dict) for v in value)


GEAR = ("weapons", "attacks", "spells", "items")


def side_table(raw_combatants: list, played: dict | None = None) -> pd.DataFrame:
    """One row per stat block of a side: its stats in one column (rulesets name different
    stats, and a column each would run off the page), then its weapons and the like.
    `played` (stat block name -> policy fields away from the defaults) adds, for a block
    with a policy of its own, the policy it plays: its own fields over the side's, which a
    reader of the own fields alone would not see (an ogre written {target: strongest,
    flee_below: 0.1} inherited its side's rout_below: 0.5 and fled in 60.6% of fights)."""
    rows = []
    for raw in raw_combatants:
        name = str(raw.get("name", "?")) + (f" ×{raw['count']}" if int(raw.get("count", 1) or 1) > 1 else "")
        stats, kit = [], []
        for key, value in raw.items():
            if key in NOT_STATS:
                continue
            if key in GEAR or _is_gear(value):
                kit.append(f"{key}: " + ("; ".join(gear(v) for v in value) or "none"))
            else:
                stats.append(f"{key} {text(value)}")
        row = {"combatant": name, "stats": ", ".join(stats), "weapons and attacks": " | ".join(kit) or "none"}
        if raw.get("policy"):
            row["own policy"] = text(raw["policy"])
            if played and raw.get("name") in played:
                row["policy as played"] = text(played[raw["name"]]) if played[raw["name"]] else "the defaults"
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def design_section(scen, overrides: dict | None = None, title: str = "What was played", level: int = 2,
                   anchor: str = "") -> Section:
    """Policies and stat blocks of every side, plus the armory, as one report section."""
    paras = [f"As the scenario file sets them{' after the --set overrides' if overrides else ''}; "
             "anything not listed is at the ruleset's default (`skirmish rules "
             f"{scen.ruleset_name}` lists the rule options, docs/scenarios.md every stat)."]
    changed = changed_rules(scen)
    paras.append("Rule options changed from the ruleset's defaults: " + text(changed) + "." if changed
                 else "Every rule option at the ruleset's default.")
    tables = []
    played = policies_as_played(scen)
    for side in scen.side_names:
        block = scen.data["sides"][side]
        policy = block.get("policy")
        how = f"policy: {text(policy)}" if policy else "policy: the ruleset's default"
        if block.get("formation"):
            how += f"; formation {block['formation']}"
        tables.append((f"Side {side} — {how}", side_table(block.get("combatants", []), played)))
    armory = scen.data.get("armory")
    if isinstance(armory, dict) and armory:
        tables.append(("Armory (weapons used by name)",
                       pd.DataFrame({"weapon": list(armory),
                                     "as defined": [gear({"name": k, **v}) if isinstance(v, dict) else text(v)
                                                    for k, v in armory.items()]})))
    if overrides:
        paras.insert(0, "Played with " + overrides_text(overrides) + ".")
    return Section(title, paras, [], tables, level=level, anchor=anchor)


def policies_as_played(scen) -> dict:
    """Stat block name -> the fields of the policy it plays that differ from the ruleset's
    defaults (its own fields over its side's)."""
    from sim.policy import policy_schema
    defaults = {k: f.default for k, f in policy_schema(scen.ruleset.policy_fields).items()}
    out = {}
    for c in scen.combatants:
        spec = getattr(c, "policy_spec", None) or {}
        out.setdefault(c.stats.get("name", c.name), {k: v for k, v in spec.items()
                                                      if k not in defaults or defaults[k] != v})
    return out


def changed_rules(scen) -> dict:
    """The rule options that differ from the ruleset's documented defaults."""
    specs = getattr(scen.ruleset, "rule_options", {}) or {}
    return {k: v for k, v in scen.rules.items() if k not in specs or specs[k].default != v}


def overrides_text(overrides: dict) -> str:
    return ", ".join(f"--set {k}={text(v)}" for k, v in overrides.items())


def frame_scenario(frame, meta: dict | None = None, scenario=None):
    """The base Scenario an analysis table was played on, or None when it cannot be known:
    the one given, the `scenario_text` its saved meta records, or its `scenario_file`
    read again when the file still hashes as the table says (a file since edited, or one
    played with --set, would show stat blocks that were not played)."""
    if scenario is not None:
        return scenario
    info = {**analysis_info(frame), **(meta or {})}
    if info.get("scenario_text"):
        from types import SimpleNamespace
        return scenario_of(SimpleNamespace(meta=info))
    if "scenario_file" not in frame.columns or "scenario_hash" not in frame.columns:
        return None
    files, hashes = set(frame["scenario_file"].astype(str)), set(frame["scenario_hash"].astype(str))
    if len(files) != 1 or len(hashes) != 1:
        return None
    from sim.errors import ScenarioError
    from sim.scenario import load_scenario
    try:
        scen = load_scenario(files.pop())
    except (ScenarioError, OSError):  # moved, deleted or broken since: the page goes on without the designs
        return None
    return scen if scen.hash == hashes.pop() else None


def analysis_designs(frame, meta: dict | None = None, scenario=None, note: str = "") -> list[Section]:
    """The "What was played" section of an analysis page (empty when the scenario is not
    known), with `note` saying how the page's variants differ from it."""
    scen = frame_scenario(frame, meta, scenario)
    if scen is None:
        return []
    info = {**analysis_info(frame), **(meta or {})}
    sec = design_section(scen, getattr(scen, "overrides", None) or info.get("overrides"),
                         title="What was played (the scenario as given)")
    if note:
        sec.paragraphs.insert(0, note)
    return [sec]


def policy_label_table(specs: dict, scen=None) -> pd.DataFrame:
    """Each policy label of a tournament with the fields it sets and the policy its side
    then plays (the label's fields over the side's own, as the tournament merges them), so
    a reader of the page alone knows what `focus` or a JSON label stood for."""
    rows = []
    for side, labels in (specs or {}).items():
        own = {}
        if scen is not None:
            own = (scen.data.get("sides", {}).get(side) or {}).get("policy") or {}
        for label, spec in (labels or {}).items():
            spec = spec or {}
            played = {**own, **spec} if spec else own
            row = {"side": side, "label": label,
                   "fields it sets": text(spec) if spec else "none: the side's policy as written"}
            if scen is not None:  # without the scenario the side's own policy is not known
                row["policy played"] = text(played) if played else "the ruleset's default"
            rows.append(row)
    return pd.DataFrame(rows)
