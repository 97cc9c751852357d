"""Playing days: each chunk of days goes through the steps, the party's state carried
from each fight's outcome columns into the next fight's `start`.

Day k plays skirmish k of every fight (with that fight's derived seed), so a fight's
dice depend on (day seed, fight name, day) only. Every fight is played for all days of
a chunk, which keeps skirmish ids contiguous; the days that do not reach it keep
nothing of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.day.dice import SITE_CHANCE, SITE_NIGHT, actor_key, dice_by_day, uniforms_by_day
from sim.day.spec import Day, Fight, Rest
from sim.rulesets.base import DEAD, FLED, STANDING, UNCONSCIOUS


@dataclass
class DayChunk:
    first: int
    n: int
    fights: dict = field(default_factory=dict)  # fight name -> {met, reached, won, rounds}
    members: dict = field(default_factory=dict)  # (fight, member) -> {entry_*, exit_*, ...}
    rests: dict = field(default_factory=dict)  # (rest, member) -> {"night_roll_succeeded"}
    lost_at: np.ndarray | None = None  # step index of the fight that ended the day, -1 none
    end_status: dict = field(default_factory=dict)  # member -> final status at the day's end
    died_in: dict = field(default_factory=dict)  # member -> fight index of death, -1 none


class _Party:
    """The party's carried state over the days of one chunk."""

    def __init__(self, day: Day, n: int):
        self.mod = day.rules_module
        self.res = {m: {k: np.full(n, v, np.int64) for k, v in self.mod.full(day.stats[m]).items()}
                    for m in day.members}
        self.status = {m: np.full(n, STANDING, np.int64) for m in day.members}

    def fresh(self, day: Day) -> bool:
        return is_fresh(day, self.res, self.status)

    def stand(self, m: str, rows: np.ndarray) -> None:
        rows = rows & (self.status[m] == UNCONSCIOUS)
        self.status[m][rows] = STANDING
        self.mod.wake(self.res[m], rows)


def is_fresh(day: Day, res: dict, status: dict) -> bool:
    """Every member standing with every carried resource full, on every row: a fight then
    plays exactly the skirmishes `skirmish run` plays (no start is passed)."""
    return all((status[m] == STANDING).all() and all((res[m][k] == v).all() for k, v in
               day.rules_module.full(day.stats[m]).items()) for m in day.members)


def play_days(day: Day, first: int, n: int, on_step=None) -> DayChunk:
    """`on_step(index, step, party, going)`, if given, sees the party after each step
    (the day's trace reads it)."""
    party, chunk = _Party(day, n), DayChunk(first, n)
    going = np.ones(n, dtype=bool)
    chunk.lost_at = np.full(n, -1, np.int64)
    chunk.died_in = {m: np.full(n, -1, np.int64) for m in day.members}
    fallen = day.day_rules["fallen"]
    for index, step in enumerate(day.steps):
        if isinstance(step, Rest):
            _rest(day, step, party, going, chunk, first, n, fallen)
        else:
            lost = _fight(day, step, party, going, chunk, first, n, index, fallen)
            chunk.lost_at[lost & (chunk.lost_at < 0)] = index
            if day.stop_when == "party_out":
                going &= ~lost
        if on_step is not None:
            on_step(index, step, party, going)
    chunk.end_status = {m: party.status[m].copy() for m in day.members}
    chunk.end_resources = {m: {k: v.copy() for k, v in party.res[m].items()} for m in day.members}
    return chunk


def _rest(day: Day, rest: Rest, party: _Party, going, chunk: DayChunk, first: int, n: int, fallen: str) -> None:
    for m in day.members:
        d20 = (dice_by_day(20, rest.seed, first, n, SITE_NIGHT, actor_key(m)) if rest.kind == "night"
               else np.zeros(n, np.int64))
        # Days already over keep what they ended with: rested as if dead.
        status = np.where(going, party.status[m], DEAD)
        mattered = _roll_mattered(day, rest, party.res[m], status, m) if rest.kind == "night" else None
        succeeded = party.mod.rest(rest.kind, party.res[m], status, day.stats[m], day.day_rules, d20)
        if rest.kind == "night":
            chunk.rests[(rest.name, m)] = {"rested": status != DEAD, "night_roll_succeeded": succeeded & going,
                                           "night_roll_mattered": mattered & going}
        if fallen != "out_for_day" or rest.kind == "full":
            party.stand(m, going)


def _roll_mattered(day: Day, rest: Rest, res: dict, status, m: str) -> np.ndarray:
    """The rows where the night's roll changed what the member wakes with: the rest as if
    the d20 showed 1 and as if it showed 20 leave different resources."""
    n = len(status)
    if not getattr(day.rules_module, "NIGHT_ROLL", False):
        return np.zeros(n, dtype=bool)
    ways = []
    for face in (1, 20):
        copy = {k: v.copy() for k, v in res.items()}
        day.rules_module.rest(rest.kind, copy, status, day.stats[m], day.day_rules, np.full(n, face, np.int64))
        ways.append(copy)
    mattered = np.zeros(n, dtype=bool)
    for k in res:
        mattered |= ways[0][k] != ways[1][k]
    return mattered


def _fight(day: Day, fight: Fight, party: _Party, going, chunk: DayChunk, first: int, n: int, index: int,
           fallen: str) -> np.ndarray:
    """Play one fight for the chunk; returns the days on which the party lost it."""
    scen = fight.scenario
    met = (np.ones(n, dtype=bool) if fight.chance >= 1 else
           uniforms_by_day(fight.seed, first, n, SITE_CHANCE, 0) < fight.chance)
    can_fight = np.zeros(n, dtype=bool)
    for m in day.members:
        can_fight |= party.status[m] == STANDING
    reached = going & met & can_fight
    setup = _setup(scen)
    before = getattr(party.mod, "before_fight", None)
    if before is not None:
        for m in day.members:
            before(party.res[m], day.stats[m], day.day_rules)
    out = None
    if reached.any():  # else no day of the chunk gets here (a gauntlet's far end): nothing to play
        start = None
        if not party.fresh(day):  # a fresh party plays exactly the skirmishes `skirmish run` plays
            members = {fight.columns[m]: (party.res[m], party.status[m]) for m in day.members}
            start = party.mod.start(setup, n, len(scen.combatants), members)
        out = scen.ruleset.play(setup, fight.seed, first, n, fight.max_rounds, start)
    won = reached & (out.winner == fight.party_index) if out is not None else np.zeros(n, dtype=bool)
    chunk.fights[fight.name] = {"met": going & met, "reached": reached, "won": won,
                                "rounds": np.where(reached, out.rounds, 0) if out is not None
                                else np.zeros(n, np.int32)}
    for m in day.members:
        chunk.members[(fight.name, m)] = _member_record(day, fight, party, m, out, setup, reached, index, chunk)
        if fallen == "wakes":
            party.stand(m, won)
    return going & met & ~won


def _member_record(day: Day, fight: Fight, party: _Party, m: str, out, setup, reached, index: int,
                   chunk: DayChunk) -> dict:
    """Member m through the fight: its entry and exit, the party's state carried on from
    the outcome columns (`out` None: nobody reached it, the member leaves as it came)."""
    shown, col = day.resources, fight.columns[m]
    record = {f"entry_{k}": party.res[m][k].copy() for k in shown}
    record["entry_state"] = party.status[m].copy()
    if out is not None:
        per = out.per_combatant
        final = per["final_state"][:, col].astype(np.int64)
        final = np.where(final == FLED, STANDING, final)  # who fled a won fight rejoins the party
        for k, v in party.mod.after_fight(out, setup, col, day.day_rules).items():
            party.res[m][k][reached] = v[reached]
        died = reached & (final == DEAD) & (party.status[m] != DEAD)
        chunk.died_in[m][died] = index
        party.status[m][reached] = final[reached]
    record.update({f"exit_{k}": party.res[m][k].copy() for k in shown})
    record["exit_state"] = party.status[m].copy()
    for k in ("damage_dealt", "damage_taken"):
        record[k] = (np.where(reached, out.per_combatant[k][:, col], 0) if out is not None
                     else np.zeros(len(reached), np.int32))
    return record


_SETUPS: dict = {}


def _setup(scen):
    """The fight's compiled tables, built once per scenario (fights share no setup)."""
    key = (scen.source, scen.hash)
    if key not in _SETUPS:
        if len(_SETUPS) > 64:
            _SETUPS.clear()
        _SETUPS[key] = scen.ruleset.build(scen)
    return _SETUPS[key]
