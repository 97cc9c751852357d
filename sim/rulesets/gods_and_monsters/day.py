"""A Gods & Monsters party between fights: what it carries and what rests give back.

The readings, with the text they read (godsmonsters.com, Play the Game: Survival), are
on docs/rules/gods_and_monsters.md "The day"; sim/day plays the steps.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import DEAD
from sim.schema import Field

RESOURCES = ("verve", "survival", "injuries")
NIGHT_ROLL = True  # a night's rest rolls the health roll (sim.day asks whether it mattered)

DAY_RULES = {
    "short_rest": Field(
        "choice", "nothing",
        "what a short rest gives back: nothing (the text restores survival only by a night or a day of "
        "rest, and verve \"tomorrow\") or verve (a house rule: a breather restores verve).",
        choices=("nothing", "verve")),
    "night_roll": Field(
        "choice", "fortitude_less_injuries",
        "the night's \"successful health roll\": d20 <= Fortitude less the injury points (the roll to stay "
        "conscious, penalised as every roll is under injury_penalty: all_rolls), d20 <= Fortitude, or "
        "always (every night succeeds).", choices=("fortitude_less_injuries", "fortitude", "always")),
    "night_heals": Field(
        "choice", "injury_first",
        "what a successful night does when both are possible: injury_first removes one injury point while "
        "any are left, else restores level survival points; survival_first restores level survival points "
        "while below the maximum, else removes an injury point.",
        choices=("injury_first", "survival_first")),
}


def full(stats: dict) -> dict[str, int]:
    """The stat block's resources: what a full rest restores."""
    return {"verve": int(stats["verve"]), "survival": int(stats["survival"]), "injuries": 0}


def after_fight(per_combatant: dict, col: int) -> dict[str, np.ndarray]:
    """A member's resources at the end of a fight, from the outcome columns."""
    return {"verve": per_combatant["verve_left"][:, col].astype(np.int64),
            "survival": per_combatant["survival_left"][:, col].astype(np.int64),
            "injuries": per_combatant["injuries"][:, col].astype(np.int64)}


def start(setup, n: int, C: int, members: dict[int, tuple[dict, np.ndarray]]) -> dict:
    """play()'s `start` for a fight: the party members ({column: (resources, status)})
    carried in, everybody else fresh, and surprise rolled for all as in a fresh fight."""
    from sim.rulesets.gods_and_monsters.play import START_KEYS, initial_state
    fresh = initial_state(setup, n)
    out = {k: fresh[k] for k in START_KEYS}
    out["surprised"][:] = -1
    for col, (res, status) in members.items():
        out["verve"][:, col], out["survival"][:, col] = res["verve"], res["survival"]
        out["injuries"][:, col], out["status"][:, col] = res["injuries"], status
    return out


def wake(res: dict, rows: np.ndarray) -> None:
    """A fallen member stands up with what it has: being unconscious is not a count of
    survival points (it follows a failed roll to stay conscious), so none are added."""


def rest(kind: str, res: dict, status: np.ndarray, stats: dict, rules: dict, d20: np.ndarray) -> np.ndarray:
    """One rest of `kind` for one member, in place on rows not dead; `d20` is its keyed
    night roll per row. Returns the rows whose night's health roll succeeded."""
    alive = status != DEAD
    top = full(stats)
    if kind == "full":
        for key, value in top.items():
            res[key][alive] = value
        return alive
    if kind == "short":
        if rules["short_rest"] == "verve":
            res["verve"][alive] = top["verve"]
        return np.zeros(len(status), dtype=bool)
    # "Toromeen's verve will fully restore to 17 tomorrow."
    res["verve"][alive] = top["verve"]
    target = {"fortitude_less_injuries": stats["fortitude"] - res["injuries"],
              "fortitude": np.full(len(status), stats["fortitude"]),
              "always": np.full(len(status), 99)}[rules["night_roll"]]
    success = alive & (d20 <= target)
    injured, hurt = res["injuries"] > 0, res["survival"] < top["survival"]
    cure = injured & ~hurt if rules["night_heals"] == "survival_first" else injured
    cure = success & cure
    res["injuries"][cure] -= 1
    gain = np.where(success & ~cure, int(stats["level"]), np.where(alive & ~success, 1, 0))
    res["survival"][:] = np.minimum(res["survival"] + gain, np.maximum(res["survival"], top["survival"]))
    return success
