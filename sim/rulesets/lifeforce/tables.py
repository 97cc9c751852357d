"""Lifeforce rule tables as data: stunts, conditions, movement split, the base numbers.

A new stunt or condition is a row here; the engine reads the columns, never the names,
except where a stunt's effect is a distinct mechanic (see attacks.apply_stunts).
"""
from __future__ import annotations

import numpy as np

DEFENCE_BASE = 50  # "adding 50 to your Dodge, Reflex, Fortitude, and Will Skills"
PHASES = 4  # "Each Round ... is made up of 4 Action Phases"
CHARGE_OFFENCE = 10  # "This Attack roll has a +10 bonus to Offence"
CHARGE_DAMAGE = 2  # "and a +2 bonus to damage"
ROLL_OFF_DIE = 10  # "roll off with a d10 until one of them rolls higher"
ARMOURED_TYPES = ("bludgeoning", "piercing", "slashing")  # what Armor reduces
DAMAGE_TYPES = ARMOURED_TYPES + ("fire", "cold", "lightning", "acid", "force", "other")

DEFENCES = ("touch", "reflex", "fortitude", "will")
TOUCH, REFLEX, FORTITUDE, WILL = range(4)

# Stunts: (name, weapon-table cost, spell-table cost or None, repeatable).
# Spell costs follow the text's spell table read row by row; the rule option
# `spell_stunt_costs: weapon` replaces them with the weapon costs
# (docs/rules/lifeforce.md, Gaps and contradictions, 'Spell stunt table').
STUNTS = (
    ("rapid_reload", 1, None, False),
    ("skirmish", 1, 1, True),
    ("defensive_stance", 1, 1, False),
    ("disarm", 1, 1, False),
    ("minor_critical", 1, 2, False),
    ("threaten", 2, None, False),
    ("knock_prone", 3, None, False),
    ("dual_strike", 4, None, False),
    ("major_critical", 4, 4, False),
    ("seize_the_initiative", 5, 5, False),
)
STUNT_NAMES = tuple(s[0] for s in STUNTS)
STUNT = {name: i for i, name in enumerate(STUNT_NAMES)}
CRITICAL_MULTIPLIER = {"minor_critical": 1.5, "major_critical": 2.0}  # "does not stack"

# The stunt orders a policy buys in, cheapest decision first: greedy goes for damage,
# control for taking the target out of the fight.
STUNT_PRIORITIES = {
    # The default: the kernel buys by expected worth (kstunts.py). The NumPy engine, which
    # has no such buyer, plays it as greedy (its old default).
    "expected": ("major_critical", "dual_strike", "minor_critical", "rapid_reload", "defensive_stance"),
    "greedy": ("major_critical", "dual_strike", "minor_critical", "rapid_reload", "defensive_stance"),
    "control": ("knock_prone", "disarm", "threaten", "major_critical", "minor_critical", "defensive_stance"),
    "defensive": ("defensive_stance", "major_critical", "minor_critical"),
    "none": (),
}


def stunt_costs(table: str, spell_costs: str) -> np.ndarray:
    """Cost per stunt for the weapon or spell table; -1 where the table lacks the stunt."""
    if table == "weapon" or spell_costs == "weapon":
        costs = [s[1] if (table == "weapon" or s[2] is not None) else None for s in STUNTS]
    else:
        costs = [s[2] for s in STUNTS]
    return np.array([-1 if c is None else c for c in costs], dtype=np.int16)


# Conditions and what they do, as columns. offence: to the bearer's attack rolls;
# melee_defence / ranged_defence: to the bearer's Defence against melee / ranged
# attacks; moves: whether the bearer may move; begins: whether it may begin physical
# actions other than contesting a grapple. Values come from the reading of Prone
# (docs/rules/lifeforce.md, Gaps and contradictions, 'Prone') and the text (Held,
# Pinned, Defensive Stance); the rest only order turns or force targets.
CONDITION_FIELDS = ("offence", "melee_defence", "ranged_defence", "moves", "begins")
CONDITIONS = {
    #                   offence melee ranged moves begins
    "prone":            (-10, -10, 0, False, True),
    "hastened":         (0, 0, 0, True, True),
    "slowed":           (0, 0, 0, True, True),
    "defensive_stance": (0, 10, 10, True, True),
    "grappling":        (0, 0, 0, False, True),
    "held":             (0, 0, 0, False, False),
    "pinned":           (0, 0, 0, False, False),
    "threatened":       (0, 0, 0, True, True),
    "disarmed":         (0, 0, 0, True, True),
}
CONDITION_NAMES = tuple(CONDITIONS)
COND = {name: i for i, name in enumerate(CONDITION_NAMES)}


def condition_table(overrides: dict | None = None) -> dict[str, np.ndarray]:
    """Columns of the condition table (one entry per condition), with scenario overrides."""
    rows = {k: list(v) for k, v in CONDITIONS.items()}
    for name, change in (overrides or {}).items():
        for col, value in change.items():
            rows[name][CONDITION_FIELDS.index(col)] = value
    return {col: np.array([rows[n][i] for n in CONDITION_NAMES],
                          dtype=bool if col in ("moves", "begins") else np.int16)
            for i, col in enumerate(CONDITION_FIELDS)}


# The grapple track. NONE means not in a grapple.
TRACK = ("none", "grappling", "held", "pinned")
NONE, GRAPPLING, HELD, PINNED = range(4)


def movement_split(movement, phase):
    """Metres moved in action phase `phase` (0..3) out of `movement` a round.

    "any left over movement is added ... starting with the last Action Phase": 13 moves
    3/3/3/4 and 14 moves 3/3/4/4. Works on scalars and arrays.
    """
    movement = np.asarray(movement)
    base, rest = np.divmod(movement, PHASES)
    return base + (phase >= PHASES - rest)


def strength_benefit(strength, divisor: int):
    """Default Strength Benefit, floor(Strength / divisor).

    docs/rules/lifeforce.md, Gaps and contradictions, 'Strength Benefit'.
    """
    return np.floor_divide(strength, divisor)
