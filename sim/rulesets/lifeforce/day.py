"""A Lifeforce party between fights: what it carries and what rests give back.

The Lifeforce skirmish text says nothing of rest or healing after a fight, so every
reading here is the designer's, said as such on docs/rules/lifeforce.md "The day".
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import DEAD
from sim.schema import Field

RESOURCES = ("hp",)

DAY_RULES = {
    "short_rest_hp": Field("int", 0, "hit points a short rest restores (a designer reading: the text has no rest)",
                           min=0, max=100000),
    "night_hp": Field("choice", "all", "what a night restores of hit points: all of them, or none",
                      choices=("all", "none")),
}


def full(stats: dict) -> dict[str, int]:
    return {"hp": int(stats["hp"])}


def after_fight(outcome, setup, col: int, rules: dict) -> dict[str, np.ndarray]:
    per_combatant = outcome.per_combatant
    return {"hp": per_combatant["hp_left"][:, col].astype(np.int64)}


def start(setup, n: int, C: int, members: dict[int, tuple[dict, np.ndarray]]) -> dict:
    """play()'s `start`: everybody else fresh; prone and disarmed are cleared between
    fights (a reading: the party stands up and picks up its weapons)."""
    hp = np.tile(np.asarray(setup.legacy.hp, dtype=np.int64), (n, 1))
    state = np.zeros((n, C), np.int64)
    for col, (res, status) in members.items():
        hp[:, col], state[:, col] = res["hp"], status
    return {"hp_left": hp, "final_state": state}


def wake(res: dict, rows: np.ndarray) -> None:
    """A fallen member stands up at 1 hit point at least (a reading)."""
    res["hp"][rows] = np.maximum(res["hp"][rows], 1)


def rest(kind: str, res: dict, status: np.ndarray, stats: dict, rules: dict, d20: np.ndarray) -> np.ndarray:
    alive = status != DEAD
    top = full(stats)["hp"]
    if kind == "full" or (kind == "night" and rules["night_hp"] == "all"):
        res["hp"][alive] = top
    elif kind == "short":
        res["hp"][alive] = np.minimum(res["hp"][alive] + rules["short_rest_hp"], top)
    return np.zeros(len(status), dtype=bool)
