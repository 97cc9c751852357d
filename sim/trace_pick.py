"""`skirmish trace --percentile 5,50,95`: representative fights of a run, to read blow by blow.

The run is played once; each skirmish gets a score for one side (how it went for that
side, or how long it lasted), and for each percentile the first skirmish holding that
percentile's score is traced: skirmish k of the trace is skirmish k of the run.
"""
from __future__ import annotations

import numpy as np

from sim.errors import ScenarioError
from sim.stats import first_at_percentiles

BY = ("outcome", "rounds")


def percentiles(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(p) for p in str(text).split(",") if p.strip())
    except ValueError:
        values = ()
    if not values or any(not 0 <= p <= 100 for p in values):
        raise ScenarioError(f"--percentile {text!r}: give percentiles from 0 to 100 separated by commas, "
                            "e.g. --percentile 5,50,95.")
    return values


def fight_score(result, side: str, by: str) -> np.ndarray:
    """Per skirmish, in skirmish order. outcome: 1 a win for `side`, 0.5 a draw, 0 a loss or
    unfinished, plus half the share of the side's combatants standing at the end (a win
    with everyone up ranks above a win over fallen friends), plus a tenth of the side's
    share of the damage dealt in the fight (a close loss ranks above a rout)."""
    sk = result.skirmishes.sort_values("skirmish")
    if by == "rounds":
        return sk["rounds"].to_numpy(float)
    won = np.where(sk["winner"].to_numpy() == side, 1.0, np.where(sk["winner"].to_numpy() == "draw", 0.5, 0.0))
    mine = result.combatants[result.combatants["side"] == side]
    by_fight = mine.assign(up=mine["final_state"] == "standing").groupby("skirmish")
    standing = by_fight["up"].mean().reindex(sk["skirmish"]).to_numpy(float)
    dealt = by_fight["damage_dealt"].sum().reindex(sk["skirmish"]).to_numpy(float)
    taken = by_fight["damage_taken"].sum().reindex(sk["skirmish"]).to_numpy(float)
    share = np.divide(dealt, dealt + taken, out=np.full_like(dealt, 0.5), where=dealt + taken > 0)
    return won + 0.5 * standing + 0.1 * share


def representative(result, side: str, by: str, wanted: tuple[float, ...]) -> list[tuple[float, int]]:
    """(percentile, skirmish): the first skirmish whose score is that percentile of all scores."""
    ids = np.sort(result.skirmishes["skirmish"].to_numpy())
    return list(first_at_percentiles(fight_score(result, side, by), ids, wanted).items())


def describe(result, skirmish: int, side: str) -> str:
    row = result.skirmishes.set_index("skirmish").loc[skirmish]
    mine = result.combatants[(result.combatants["skirmish"] == skirmish) & (result.combatants["side"] == side)]
    standing = int((mine["final_state"] == "standing").sum())
    ending = {"draw": "a draw", "unfinished": "unfinished"}.get(row["winner"], f"{row['winner']} won")
    return (f"{ending} in {int(row['rounds'])} rounds, {standing} of {len(mine)} of {side} standing, "
            f"{side} dealt {int(mine['damage_dealt'].sum())} and took {int(mine['damage_taken'].sum())}")


def traces(scenario, wanted: tuple[float, ...], side: str | None = None, by: str = "outcome", seed=None, n=None,
           max_rounds=None, overrides=None) -> str:
    from sim.analysis.common import as_scenario, check_side
    from sim.runner import run
    from sim.trace import trace
    scen = as_scenario(scenario, overrides)
    side = check_side(scen, side, "--side") if side else scen.side_names[0]
    result = run(scen, n=n, seed=seed, max_rounds=max_rounds)
    n = len(result.skirmishes)
    seed = int(result.meta["seed"])
    kind = f"how it went for {side}" if by == "outcome" else "fight length"
    parts = []
    for p, k in representative(result, side, by, wanted):
        head = (f"=== {_ordinal(p)} percentile by {kind}: skirmish {k} of {n} ({describe(result, k, side)}) "
                f"===")
        parts.append(head + "\n" + trace(scen, seed=seed, skirmish=k, n=n, max_rounds=max_rounds))
    return "\n\n".join(parts)


def _ordinal(p: float) -> str:
    whole = int(p) if float(p).is_integer() else None
    if whole is None:
        return f"{p:g}th"
    suffix = "th" if 10 <= whole % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(whole % 10, "th")
    return f"{whole}{suffix}"
