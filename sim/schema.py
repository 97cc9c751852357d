"""A small declarative schema for hand-written scenario files.

Each field says its type, default, allowed range or choices and a one-line doc. The
same declarations validate input, fill defaults and generate the field reference in
`docs/scenarios.md`, so the docs cannot drift from what the loader accepts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sim.dice import Dice, parse_dice
from sim.errors import Problems, ScenarioError, closest

REQUIRED = object()


@dataclass
class Field:
    kind: str  # int | float | str | bool | dice | choice | list | record | mapping | any
    default: Any = REQUIRED
    doc: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    item: "Field | None" = None  # list items, mapping values
    fields: "dict[str, Field] | None" = None  # record fields
    check: Callable[[Any, str], Any] | None = None  # extra validation, returns the value
    max_items: int | None = None
    shape: str | None = None  # what an "any" field holds, in words, for messages and docs
    # A number the designer balances, stepped by `skirmish sensitivity`; False for a count
    # that sets how a thing works (the actions a weapon's use takes), not how strong it is.
    stat: bool = True

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        """Allowed values in words, used in error messages and generated docs."""
        if self.shape:
            return self.shape
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind in ("int", "float"):
            noun = "a whole number" if self.kind == "int" else "a number"
            if self.min is not None and self.max is not None:
                return f"{noun} from {fmt(self.min)} to {fmt(self.max)}"
            if self.min is not None:
                return f"{noun} of at least {fmt(self.min)}"
            if self.max is not None:
                return f"{noun} of at most {fmt(self.max)}"
            return noun
        return {
            "str": "text",
            "bool": "true or false",
            "dice": "a dice expression such as 'd8', '2d6+1', 'd4-1' or a whole number",
            "list": "a list",
            "record": "a mapping of field: value",
            "mapping": "a mapping",
            "any": "any value",
        }[self.kind]


def fmt(x) -> str:
    if isinstance(x, int) and not isinstance(x, bool):
        # A 400-digit number is a typo or an attack, and as a float it overflows.
        return str(x) if len(str(abs(x))) <= 20 else f"a number of {len(str(abs(x)))} digits"
    return str(int(x)) if float(x).is_integer() else str(x)


def _type_name(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"'{str(value).lower()}' (true/false)"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return f"'{value}'"


def validate(value, spec: Field, path: str):
    """Return the validated value with defaults filled; raise ScenarioError on bad input."""
    kind = spec.kind

    def fail(msg: str):
        raise ScenarioError(msg, path=path or None)

    if kind == "any":
        out = value
    elif kind == "int":
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or (isinstance(value, float) and not value.is_integer())):
            fail(f"got {_type_name(value)}; expected {spec.describe()}.")
        out = int(value)
        _check_range(out, spec, fail)
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail(f"got {_type_name(value)}; expected {spec.describe()}.")
        out = float(value)
        if out != out:
            fail(f"got NaN; expected {spec.describe()}.")
        _check_range(out, spec, fail)
    elif kind == "str":
        if not isinstance(value, str) or not value.strip():
            fail(f"got {_type_name(value)}; expected non-empty text.")
        out = value
    elif kind == "bool":
        if not isinstance(value, bool):
            fail(f"got {_type_name(value)}; expected true or false.")
        out = value
    elif kind == "dice":
        try:
            out = parse_dice(value)
        except ValueError as e:
            fail(str(e) + ".")
    elif kind == "choice":
        if isinstance(value, (dict, list)) or value not in spec.choices:
            fail(f"got {_type_name(value)}; expected {spec.describe()}.{closest(value, spec.choices)}")
        out = value
    elif kind == "list":
        if isinstance(value, (str, dict)) or not isinstance(value, list):
            if spec.item is not None and spec.item.kind in ("str", "choice") and isinstance(value, str):
                value = [value]
            else:
                fail(f"got {_type_name(value)}; expected a list.")
        if spec.max_items is not None and len(value) > spec.max_items:
            fail(f"has {len(value)} entries; at most {spec.max_items} are allowed.")
        out = _validate_items(value, spec.item, path) if spec.item else list(value)
    elif kind == "mapping":
        if not isinstance(value, dict):
            fail(f"got {_type_name(value)}; expected a mapping of name: value.")
        out = {k: (validate(v, spec.item, f"{path}.{k}") if spec.item else v) for k, v in value.items()}
    elif kind == "record":
        out = validate_record(value, spec.fields, path)
    else:  # pragma: no cover - a schema declaration error, not user input
        raise AssertionError(kind)
    if spec.check is not None:
        out = spec.check(out, path)
    return out


def _check_range(x, spec: Field, fail):
    if (spec.min is not None and x < spec.min) or (spec.max is not None and x > spec.max):
        fail(f"got {fmt(x)}; expected {spec.describe()}.")


def _validate_items(values: list, item: Field, path: str) -> list:
    problems = Problems()
    out = [problems.attempt(validate, v, item, f"{path}[{i}]") for i, v in enumerate(values)]
    problems.raise_any()
    return out


def validate_record(value, fields: dict[str, Field], path: str, problems: Problems | None = None) -> dict:
    """The record with defaults filled. Every bad field is reported: raised together, or,
    given `problems`, added to it (the bad fields are then None in the result)."""
    if not isinstance(value, dict):
        raise ScenarioError(f"got {_type_name(value)}; expected a mapping with the fields "
                            f"{', '.join(fields)}.", path=path or None)
    own = problems is None
    problems = Problems() if own else problems
    out = {}
    for key in value:
        if key not in fields:
            where = f"{path}.{key}" if path else str(key)
            hint = closest(key, fields) or synonym_hint(key, fields)
            problems.add(ScenarioError(f"unknown field '{key}'.{hint} Allowed here: {', '.join(fields)}.",
                                       path=where))
    for name, spec in fields.items():
        sub = f"{path}.{name}" if path else name
        if name in value:
            out[name] = problems.attempt(validate, value[name], spec, sub)
        elif spec.required:
            problems.add(ScenarioError(f"is missing; it must be {spec.describe()}"
                                       + (f" ({spec.doc})" if spec.doc else "") + ".", path=sub))
            out[name] = None
        else:
            out[name] = spec.default
    if own:
        problems.raise_any()
    return out


# Words a designer brings from another ruleset (or another game), and what each ruleset
# calls the same thing; `closest` cannot see that `hp` means `survival`.
SYNONYMS = {
    "hit points": ("survival", "body", "hp"),
    "defence": ("defense", "armor_rating", "dodge", "evasion"),
    "attack": ("attack", "attack_rating", "offence", "combat"),
    "speed": ("movement", "speed"),
    "armour": ("armor_rating", "armor", "head_protection"),
    "initiative": ("initiative", "reaction", "verve"),
    "dodge": ("evasion", "dodge", "defense"),
}
_WORDS = {
    "hit points": ("hp", "hit_points", "hitpoints", "health", "life", "wounds", "survival", "body", "lifeforce"),
    "defence": ("ac", "armor_class", "armour_class", "defence", "defense", "armor_rating", "dodge"),
    "attack": ("to_hit", "tohit", "attack_bonus", "offense", "offence", "attack", "attack_rating", "combat"),
    "speed": ("move", "speed", "movement"),
    "armour": ("armor", "armour", "protection", "armor_rating"),
    "initiative": ("init", "initiative", "reaction", "reflexes"),
    "dodge": ("evade", "evasion", "dodge", "parry"),
}


def synonym_hint(key, fields) -> str:
    """' This ruleset calls that 'survival'.' for a word another ruleset uses, else ''."""
    word = str(key).strip().lower().replace(" ", "_").replace("-", "_")
    for meaning, words in _WORDS.items():
        if word in words:
            for candidate in SYNONYMS[meaning]:
                if candidate in fields and candidate != key:
                    return f" This ruleset's name for {meaning} is '{candidate}'."
    return ""


def markdown_table(fields: dict[str, Field]) -> str:
    """A field reference table for the docs."""
    rows = ["| field | allowed | default | meaning |", "|---|---|---|---|"]
    for name, spec in fields.items():
        default = "required" if spec.required else f"`{_default_text(spec.default)}`"
        rows.append(f"| `{name}` | {spec.describe()} | {default} | {spec.doc} |")
    return "\n".join(rows)


def _default_text(value) -> str:
    if isinstance(value, Dice):
        return str(value)
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    return str(value)
