"""A Lens party between fights: what it carries and what rests give back.

The Lens text says nothing of rest, healing between scenes or death, so every reading
here is the designer's, said as such on docs/rules/lens.md "The day".
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import DEAD
from sim.schema import Field

RESOURCES = ("body", "void", "items")

DAY_RULES = {
    "short_rest_body": Field("int", 0, "Body a short rest restores (a designer reading: the text has no rest)",
                             min=0, max=100000),
    "night_body": Field("choice", "all", "what a night restores of Body: all of it, or none", choices=("all", "none")),
    "night_void": Field("choice", "keep", "Void after a night: keep it (harm beyond zero Body lasts) or clear it",
                        choices=("keep", "clear")),
    "items_back": Field("choice", "full_rest", "when used items come back: only at a full rest, or every night",
                        choices=("full_rest", "night")),
}


def full(stats: dict) -> dict[str, int]:
    uses = sum(int(item["uses"]) for item in stats["items"])
    return {"body": int(stats["body"]), "void": 0, "items": uses}


def after_fight(outcome, setup, col: int, rules: dict) -> dict[str, np.ndarray]:
    per_combatant = outcome.per_combatant
    return {"body": per_combatant["body_left"][:, col].astype(np.int64),
            "void": per_combatant["void"][:, col].astype(np.int64),
            "items": per_combatant["items_left"][:, col].astype(np.int64)}


def start(setup, n: int, C: int, members: dict[int, tuple[dict, np.ndarray]]) -> dict:
    """play()'s `start`: -1 everywhere is "as built" (a fresh combatant); conditions are
    cleared between fights. A member carried in at zero Body starts out of the fight."""
    out = {"body_left": np.full((n, C), -1, np.int64), "void": np.zeros((n, C), np.int64),
           "conditions": np.zeros((n, C), np.int64), "items_left": np.full((n, C), -1, np.int64)}
    for col, (res, status) in members.items():
        out["body_left"][:, col] = np.where(status == 0, np.maximum(res["body"], 1), 0)
        out["void"][:, col], out["items_left"][:, col] = res["void"], res["items"]
    return out


def wake(res: dict, rows: np.ndarray) -> None:
    """A fallen member stands up at 1 Body (a reading: the text has no recovery after a scene)."""
    res["body"][rows] = np.maximum(res["body"][rows], 1)


def rest(kind: str, res: dict, status: np.ndarray, stats: dict, rules: dict, d20: np.ndarray) -> np.ndarray:
    alive = status != DEAD
    top = full(stats)
    if kind == "full":
        for key, value in top.items():
            res[key][alive] = value
    elif kind == "short":
        res["body"][alive] = np.minimum(res["body"][alive] + rules["short_rest_body"], top["body"])
    else:
        if rules["night_body"] == "all":
            res["body"][alive] = top["body"]
        if rules["night_void"] == "clear":
            res["void"][alive] = 0
        if rules["items_back"] == "night":
            res["items"][alive] = top["items"]
    return np.zeros(len(status), dtype=bool)
