"""One day blow by blow: `skirmish day FILE --trace-day K` or `sim.day.trace.trace_day(path, K)`.

Day K is played alone (its dice are keyed by the day, so it is day K of every run of
the file); each fight it reaches is traced by the same kernel from the party's state
at entry, and the rests between say what they gave back. `representative_days` picks
the days at the 5th, 50th and 95th percentile of how the day went.
"""
from __future__ import annotations

import numpy as np

from sim.day.play import is_fresh, play_days
from sim.day.spec import Day, Fight, Rest, load_day
from sim.rulesets.base import DRAW, FINAL_STATES, STANDING, UNFINISHED


def _state_text(res: dict, status: int) -> str:
    parts = [FINAL_STATES[int(status)]] + [f"{k} {int(v)}" for k, v in res.items()]
    return ", ".join(parts)


def _party_text(day: Day, res: dict, status: dict, indent: str = "    ") -> list[str]:
    return [f"{indent}{m}: {_state_text({k: res[m][k][0] for k in day.member_resources(m)}, status[m][0])}"
            for m in day.members]


def _fight_trace(day: Day, fight: Fight, k: int, entry: dict) -> tuple[list[str], int]:
    """The fight's kernel trace from the party's state at entry (one row), and its winner."""
    from sim.day.play import _setup
    scen = fight.scenario
    setup = _setup(scen)
    fresh = is_fresh(day, {m: entry[m][0] for m in day.members}, {m: entry[m][1] for m in day.members})
    start = None if fresh else day.rules_module.start(setup, 1, len(scen.combatants),
                                                      {fight.columns[m]: entry[m] for m in day.members})
    scen.ruleset.warm(setup)
    out, lines = scen.ruleset.trace(setup, fight.seed, k, fight.max_rounds, start=start)
    return ["      " + part for line in lines for part in line.split("\n")], int(out.winner[0])


def trace_day(path, day_index: int, days: int | None = None, seed: int | None = None) -> str:
    """The text of day `day_index` (0-based) of the day file at `path`."""
    day = path if isinstance(path, Day) else load_day(path, days=days, seed=seed)
    n = int(day.run["days"])
    if not 0 <= day_index < n:
        raise ValueError(f"day {day_index} is outside the run of {n} days (0..{n - 1})")
    snapshots = []

    def keep(index, step, party, going):
        snapshots.append(({m: {r: v.copy() for r, v in party.res[m].items()} for m in day.members},
                          {m: party.status[m].copy() for m in day.members}, bool(going[0])))

    chunk = play_days(day, day_index, 1, on_step=keep)
    full = {m: {r: np.array([v]) for r, v in day.rules_module.full(day.stats[m]).items()} for m in day.members}
    before = (full, {m: np.array([STANDING]) for m in day.members}, True)
    lines = [f"{day.name}: day {day_index} of {n} with seed {day.run['seed']} ({day.ruleset_name}), "
             f"stop when {day.stop_when.replace('_', ' ')}", "  the party sets out:"]
    lines += _party_text(day, before[0], before[1])
    for index, step in enumerate(day.steps):
        after = snapshots[index]
        if isinstance(step, Rest):
            lines += _rest_lines(day, step, chunk, before, after)
        else:
            lines += _fight_lines(day, step, chunk, day_index, before, after)
        before = after
    lost_at = int(chunk.lost_at[0])
    lines.append("")
    lines.append("The day: " + ("the party lived through it." if lost_at < 0 else
                                f"lost at {day.steps[lost_at].name!r}."))
    return "\n".join(lines)


def _rest_lines(day: Day, rest: Rest, chunk, before, after) -> list[str]:
    lines = ["", f"== rest {rest.name!r} ({rest.kind})"]
    if not before[2]:
        return lines + ["    the day is already over"]
    for m in day.members:
        roll = chunk.rests.get((rest.name, m))
        said = ""
        if roll is not None and roll["rested"][0]:
            said = " (the night's health roll " + ("succeeded" if roll["night_roll_succeeded"][0] else "failed") + ")"
        was, now = (_state_text({k: res[m][k][0] for k in day.member_resources(m)}, status[m][0])
                    for res, status, _ in (before, after))
        lines.append(f"    {m}: {was} -> {now}{said}")
    return lines


def _fight_lines(day: Day, fight: Fight, chunk, k: int, before, after) -> list[str]:
    got = {key: bool(v[0]) for key, v in chunk.fights[fight.name].items() if key != "rounds"}
    head = f"== fight {fight.name!r}: skirmish {k} with seed {fight.seed}"
    if not got["met"]:
        why = "the day is already over" if not before[2] else f"not met today (met on {fight.chance:.0%} of days)"
        return ["", head, f"    {why}"]
    if not got["reached"]:
        return ["", head, "    nobody in the party is standing to fight it"]
    entry = {m: (before[0][m], before[1][m]) for m in day.members}
    body, winner = _fight_trace(day, fight, k, entry)
    if (winner == fight.party_index) != got["won"]:  # the trace must be the batch's skirmish
        raise RuntimeError(f"the trace of {fight.name!r} on day {k} disagrees with the day's play; "
                           "this is a bug, please report it with the day file")
    names = fight.scenario.side_names
    verdict = {DRAW: "a draw", UNFINISHED: "unfinished"}.get(winner, f"{names[winner] if winner >= 0 else ''} wins")
    return (["", head, "    the party enters:"] + _party_text(day, before[0], before[1], "      ") + body
            + [f"    -> {verdict} in {int(chunk.fights[fight.name]['rounds'][0])} rounds; "
               f"{'won' if got['won'] else 'lost'}. The party after it:"]
            + _party_text(day, after[0], after[1], "      "))


def day_score(result) -> np.ndarray:
    """How a day went, for ranking days: fights won, then the members standing at its end."""
    d = result.days.sort_values("day")
    return d["fights_won"].to_numpy(float) + d["standing_at_end"].to_numpy(float) / (len(result.day.members) + 1)


def representative_days(result, percentiles=(5, 50, 95)) -> dict[int, int]:
    """percentile -> the first day whose score is that percentile of all days' scores."""
    from sim.stats import first_at_percentiles
    return first_at_percentiles(day_score(result), np.sort(result.days["day"].to_numpy()), percentiles)
