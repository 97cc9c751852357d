"""A Gods & Monsters party between fights: what it carries and what rests give back.

The readings, with the text they read (godsmonsters.com, Play the Game: Survival), are
on docs/rules/gods_and_monsters.md "The day"; sim/day plays the steps.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import DEAD
from sim.schema import Field

RESOURCES = ("verve", "survival", "injuries", "spell_uses")
# Listed only for a party that has them: spell_uses counts the casts left of the spells
# given `uses` (each such spell is also carried on its own, _spell_key).
HELD_ONLY_BY_STATS = ("spell_uses",)
HEALTH = ("verve", "survival")  # both take the blows: a member's health at a fight's entry
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
    "spell_uses": Field(
        "choice", "per_day",
        "how a spell's `uses` count over a day: per_day (a cast spell is \"used up\", the text says of a "
        "disrupted one that it is not; a night or a full rest gives the uses back, as a night gives verve) "
        "or per_fight (every fight starts with each spell's `uses`).", choices=("per_day", "per_fight")),
}


def _spell_key(j: int) -> str:
    return f"spell_uses[{j}]"


def _limited_uses(stats: dict) -> list[int]:
    return [int(x["uses"]) for x in stats.get("spells", []) if x.get("uses") is not None]


def _limited_spells(setup, col: int) -> list[int]:
    """The fight's spell indices of combatant `col`'s spells with `uses`, in its list's
    order (the order _limited_uses counts them)."""
    from sim.rulesets.gods_and_monsters.tables import NEVER, P_OWNER, P_USES
    return [s for s in range(len(setup.spell_names))
            if setup.sp[P_OWNER, s] == col and setup.sp[P_USES, s] < NEVER]


def full(stats: dict) -> dict[str, int]:
    """The stat block's resources: what a full rest restores."""
    uses = _limited_uses(stats)
    return {"verve": int(stats["verve"]), "survival": int(stats["survival"]), "injuries": 0,
            "spell_uses": sum(uses), **{_spell_key(j): u for j, u in enumerate(uses)}}


def before_fight(res: dict, stats: dict, rules: dict) -> None:
    """Under `spell_uses: per_fight` every fight starts with each spell's `uses`."""
    if rules["spell_uses"] == "per_fight":
        for key, value in full(stats).items():
            if key.startswith("spell_uses"):
                res[key][:] = value


def after_fight(outcome, setup, col: int, rules: dict) -> dict[str, np.ndarray]:
    """A member's resources at the end of a fight, from the outcome columns."""
    per = outcome.per_combatant
    out = {"verve": per["verve_left"][:, col].astype(np.int64),
           "survival": per["survival_left"][:, col].astype(np.int64),
           "injuries": per["injuries"][:, col].astype(np.int64)}
    spells = _limited_spells(setup, col)
    left = outcome.per_spell["spell_uses_left"][:, spells].astype(np.int64)
    for j in range(len(spells)):
        out[_spell_key(j)] = left[:, j]
    out["spell_uses"] = left.sum(axis=1)
    return out


def start(setup, n: int, C: int, members: dict[int, tuple[dict, np.ndarray]]) -> dict:
    """play()'s `start` for a fight: the party members ({column: (resources, status)})
    carried in, everybody else fresh, and surprise rolled for all as in a fresh fight.
    Spell uses are carried only where some differ from a fresh fight's."""
    from sim.rulesets.gods_and_monsters.play import START_KEYS, initial_state
    fresh = initial_state(setup, n)
    out = {k: fresh[k] for k in START_KEYS}
    out["surprised"][:] = -1
    uses = fresh["spell_uses"].copy()
    for col, (res, status) in members.items():
        out["verve"][:, col], out["survival"][:, col] = res["verve"], res["survival"]
        out["injuries"][:, col], out["status"][:, col] = res["injuries"], status
        for j, s in enumerate(_limited_spells(setup, col)):
            uses[:, s] = res[_spell_key(j)]
    if (uses != fresh["spell_uses"]).any():
        out["spell_uses"] = uses
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
    # "Toromeen's verve will fully restore to 17 tomorrow."; spells used up come back with it.
    for key in top:
        if key == "verve" or key.startswith("spell_uses"):
            res[key][alive] = top[key]
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
