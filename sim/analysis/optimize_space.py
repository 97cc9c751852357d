"""The space a side's strongest play is searched in: read off the ruleset's declared
policy fields (sim.policy.policy_schema), never from a list of rulesets.

A dimension is one policy field and the values worth trying: every choice of a
`choice` field (the family itself is one), both values of a `bool`, a short grid of a
number within the field's min and max, and the targeting modes the ruleset plays.
`None` stays a value where the field allows it (it means "the family's default").
Lists (defence sets, stunt orders, tag orders), text and scripted `rules:` are not
searched: rules are the designer's script and stay as written.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from sim.policy import TARGET_MODES, policy_schema
from sim.schema import REQUIRED, Field

# A share in 0..1 (flee_below, heal_below): the grid a designer would try by hand.
SHARE_GRID = (0.0, 0.1, 0.25, 0.5, 0.75)
# Around a wider number's current value: a quarter of it up to four times it.
FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
SMALL_INT_SPAN = 6  # an int field with at most this span is tried at every value


@dataclass(frozen=True)
class Dimension:
    field: str
    values: tuple


def _numeric_grid(spec: Field, current) -> tuple:
    lo = spec.min if spec.min is not None else 0
    hi = spec.max if spec.max is not None else float("inf")
    whole = spec.kind == "int"
    if whole and hi - lo <= SMALL_INT_SPAN:
        return tuple(range(int(lo), int(hi) + 1))
    if not whole and lo >= 0 and hi <= 1:
        grid = list(SHARE_GRID)
    else:
        base = current if isinstance(current, (int, float)) and current else (1 if whole else 1.0)
        grid = [lo] + [base * f for f in FACTORS]
    if isinstance(current, (int, float)) and not isinstance(current, bool):
        grid.append(current)
    out = []
    for v in grid:
        v = min(max(v, lo), hi)
        v = int(round(v)) if whole else round(float(v), 3)
        if v not in out:
            out.append(v)
    return tuple(sorted(out))


def _values(name: str, spec: Field, current, target_modes: tuple) -> tuple:
    if name == "target":
        return tuple(target_modes)
    if spec.kind == "choice":
        return tuple(spec.choices)
    if spec.kind == "bool":
        return (False, True) + ((None,) if spec.default is None else ())
    if spec.kind in ("int", "float"):
        grid = _numeric_grid(spec, current)
        return grid + ((None,) if spec.default is None else ())
    return ()


def written_policy(scen, side: str) -> dict:
    """The side's policy block as the file writes it (after `use:` and --set), or {}."""
    return dict(scen.data["sides"][side].get("policy") or {})


def current_value(name: str, spec: Field, policy: dict):
    if name in policy:
        return policy[name]
    return None if spec.default is REQUIRED else spec.default


def space(scen, side: str) -> list[Dimension]:
    """The dimensions searched for `side`'s policy. A field that every combatant of the
    side sets in its own policy is left out: the side's value would never be read."""
    fields = policy_schema(scen.ruleset.policy_fields)
    modes = tuple(getattr(scen.ruleset, "target_modes", TARGET_MODES))
    policy = written_policy(scen, side)
    raws = [r for r in scen.data["sides"][side]["combatants"] if isinstance(r, dict)]
    shadowed = {k for k in fields if raws and all(k in (r.get("policy") or {}) for r in raws)}
    dims = []
    for name, spec in fields.items():
        if name == "rules" or name in shadowed:
            continue
        values = _values(name, spec, current_value(name, spec, policy), modes)
        if len(values) > 1:
            dims.append(Dimension(name, values))
    return dims


def key(policy: dict) -> str:
    """A policy's identity for caches and ties: its fields in a fixed order."""
    return json.dumps(policy, sort_keys=True, default=str)


def changes(written: dict, policy: dict, fields: dict) -> dict:
    """What `policy` sets differently from the written one (defaults filled in)."""
    out = {}
    for name, value in policy.items():
        if name == "rules":
            continue
        spec = fields.get(name)
        before = current_value(name, spec, written) if spec is not None else written.get(name)
        if value != before:
            out[name] = value
    return out


def neighbours(incumbent: dict, dims: list[Dimension], fields: dict) -> list[dict]:
    """Every policy one field away from the incumbent."""
    out = []
    for d in dims:
        now = current_value(d.field, fields[d.field], incumbent)
        for v in d.values:
            if v != now:
                out.append({**incumbent, d.field: v})
    return out


def random_policies(incumbent: dict, dims: list[Dimension], count: int, rng: np.random.Generator,
                    fields: dict) -> list[dict]:
    """`count` policies far from the incumbent: each field drawn afresh with probability
    one half, so the search can leave a basin that one-field steps cannot."""
    out = []
    for _ in range(count):
        p = dict(incumbent)
        for d in dims:
            if rng.random() < 0.5:
                p[d.field] = d.values[int(rng.integers(len(d.values)))]
        out.append(_tidy(p, incumbent, fields))
    return out


def _tidy(policy: dict, incumbent: dict, fields: dict) -> dict:
    # A field drawn at its default is left as the incumbent wrote it (absent stays absent).
    return {k: v for k, v in policy.items()
            if k in incumbent or k not in fields or v != current_value(k, fields[k], {})}


def yaml_text(policy: dict) -> str:
    """A policy as one line of YAML flow style, to paste under `policy:` in the scenario."""
    import yaml
    return yaml.safe_dump(policy, default_flow_style=True, sort_keys=False, width=10_000).strip()
