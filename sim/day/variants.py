"""A day with values changed by path, for the analyses over a day (sweep), and the sweep.

A day's paths:
    steps.FIGHT.PATH         PATH in that fight's scenario, e.g.
                             steps."the yeti".sides.yeti.combatants[Yeti].defense
    party.PATH               PATH in the party's side of every fight, e.g.
                             party.combatants[Toromeen].survival or party.policy.target
    rules.OPTION             a rule option of every fight
    day_rules.OPTION         a day option (docs/day.md)
Variants keep every fight's and rest's name, so day k of each meets the same dice: their
differences are paired day by day.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

import pandas as pd

from sim.analysis.common import frame, variant
from sim.day.spec import Day, Fight, day_rule_fields
from sim.errors import ScenarioError
from sim.overrides import key_segment, pick_segment, split_path
from sim.schema import validate_record

HEADS = ("steps", "party", "rules", "day_rules")


def join_path(parts: list) -> str:
    """Path segments (sim.overrides.split_path) written back as a path."""
    out = ""
    for p in parts:
        if isinstance(p, tuple):
            out += pick_segment(p[1])
        elif isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + key_segment(p)
    return out


def fight_overrides(day: Day, overrides: dict) -> tuple[dict[str, dict], dict]:
    """({fight name: {scenario path: value}}, the day options) the overrides make."""
    per_fight: dict[str, dict] = {f.name: {} for f in day.fights}
    day_rules = dict(day.day_rules)
    for path, value in overrides.items():
        parts = split_path(path)
        head, rest = parts[0], parts[1:]
        if head not in HEADS or not rest:
            raise ScenarioError(f"a day's path starts with steps.FIGHT., party., rules. or day_rules. (e.g. "
                                f"party.combatants[NAME].survival); {path!r} does not.", path=path)
        if head == "steps":
            name = rest[0][1] if isinstance(rest[0], tuple) else str(rest[0])
            if name not in per_fight or len(rest) < 2:
                raise ScenarioError(f"names no fight of the day; its fights: {', '.join(map(repr, per_fight))} "
                                    "(steps.FIGHT.PATH, PATH in that fight's scenario).", path=path)
            per_fight[name][join_path(rest[1:])] = value
        elif head == "party":
            for f in day.fights:
                per_fight[f.name][join_path(["sides", f.scenario.side_names[f.party_index], *rest])] = value
        elif head == "rules":
            for f in day.fights:
                per_fight[f.name][join_path(["rules", *rest])] = value
        else:
            if len(rest) != 1 or not isinstance(rest[0], str):
                raise ScenarioError("names a day option as day_rules.OPTION.", path=path)
            day_rules[rest[0]] = value
    return per_fight, day_rules


def day_variant(day: Day, overrides: dict) -> Day:
    """`day` with the overrides ({path: value}, the paths above) applied; the same names."""
    if not overrides:
        return day
    per_fight, day_rules = fight_overrides(day, overrides)
    from sim.overrides import parse_value
    day_rules = validate_record({k: parse_value(v) for k, v in day_rules.items()},
                                day_rule_fields(day.ruleset_name), "day_rules")
    fights = {}
    for f in day.fights:
        scen = variant(f.scenario, per_fight[f.name])
        columns = {c.name: k for k, c in enumerate(scen.combatants) if c.side == f.party_index}
        if set(columns) != set(f.columns):
            raise ScenarioError(f"changes who is in the party in fight {f.name!r} ({', '.join(columns)}); a day's "
                                "paths change stats and options, not the party's members: write another day file.")
        fights[f.name] = dataclasses.replace(f, scenario=scen, columns=columns)
    first = fights[day.fights[0].name].scenario
    stats = {c.name: c.stats for c in first.combatants if c.name in day.members}
    digest = hashlib.sha256((day.hash + json.dumps(overrides, sort_keys=True, default=str)).encode()).hexdigest()
    return dataclasses.replace(day, steps=[fights[s.name] if isinstance(s, Fight) else s for s in day.steps],
                               fights=[fights[f.name] for f in day.fights], stats=stats, day_rules=day_rules,
                               hash=digest[:16])


METRICS = ("day.survival", "day.nobody_dies", "day.deaths", "day.fights_won")


def sweep_day(path, vary: dict, days: int | None = None, seed: int | None = None, jobs: int = 1,
              overrides: dict | None = None, progress=None) -> pd.DataFrame:
    """Every combination of `vary` ({day path: values}) on the same days: one row per
    variant with each day figure (survival, nobody dies, deaths, fights won, each fight
    lost) and its 95% interval, and its paired difference to the first variant."""
    import sim.day
    from sim.analysis.compare import _difference, _estimate
    from sim.analysis.sweep import cell, grid
    from sim.day.compare import per_day
    from sim.overrides import parse_values
    base = day_variant(path if isinstance(path, Day) else sim.day.load_day(path, days=days, seed=seed),
                       overrides or {})
    vary = {str(p): parse_values(v, p) for p, v in vary.items()}
    if not vary:
        raise ScenarioError("nothing to vary; pass --vary PATH=VALUES (e.g. party.combatants[NAME].survival=5..9).",
                            file=base.source)
    points = grid(vary)
    variants = [day_variant(base, point) for point in points]  # every path checked before anything is played
    rows, first = [], None
    for i, (point, d) in enumerate(zip(points, variants)):
        figures = per_day(sim.day.run(d, jobs=jobs, progress=progress))
        first = first or figures
        row = {"variant": i, **{p: cell(v) for p, v in point.items()}}
        for key, (_, kind, values) in figures.items():
            row[key], row[f"{key}_lo"], row[f"{key}_hi"] = _estimate(values, kind)
            base_values = first.get(key, (None, None, None))[2]
            row[f"{key}.diff_base"], row[f"{key}.diff_base_lo"], row[f"{key}.diff_base_hi"] = (
                _difference(base_values, values, True) if i else (0.0, 0.0, 0.0))
        row.update(day=base.name, day_file=base.source, day_hash=d.hash, seed=int(d.run["seed"]),
                   days=int(d.run["days"]), day_rules=json.dumps(d.day_rules, default=str))
        rows.append(row)
    meta = {"command": "sweep", "what": "day", "day": base.name, "vary": {p: [cell(v) for v in vs]
            for p, vs in vary.items()}, "days": int(base.run["days"]), "seed": int(base.run["seed"])}
    df = frame(rows, meta)
    df.attrs["analysis"] = meta
    return df


def sweep_day_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    paths = list(meta["vary"])
    lines = [f"{meta['day']}: {len(df)} variants x {meta['days']:,} days, seed {meta['seed']}, the same days; "
             "differences to the first variant, paired, in percentage points (deaths: per day).", ""]
    lines += [f"  {p}" for p in paths]
    for r in df.to_dict("records"):
        lines.append(f"\n[{r['variant']}] " + ", ".join(str(r[p]) for p in paths))
        for key, label, scale, unit in (("day.survival", "survives the day", 100, "%"),
                                        ("day.deaths", "deaths per day", 1, "")):
            diff = ("" if not r["variant"] else f"   {scale * r[key + '.diff_base']:+.2f} "
                    f"[{scale * r[key + '.diff_base_lo']:+.2f}, {scale * r[key + '.diff_base_hi']:+.2f}]")
            lines.append(f"  {label:<18}{scale * r[key]:7.2f}{unit} [{scale * r[key + '_lo']:.2f}, "
                         f"{scale * r[key + '_hi']:.2f}]{diff}")
    return "\n".join(lines)


__all__ = ["day_variant", "sweep_day", "sweep_day_text"]
