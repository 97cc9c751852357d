"""The strongest play over a day: `skirmish optimize DAY_FILE` (optimize_day).

The sides searched are the party (its one policy block, written into every fight, as
`party: policy:` does) and each fight's other sides, keyed FIGHT.SIDE (that side's
policy in that fight only). The search is scenario optimize's (sim.analysis.optimize:
alternating best responses, successive halving, a paired confirmation on fresh days,
the budget presets); only the evaluator differs: a profile of play is the day with
those policies written in, and its outcome on a block of days is, per day, whether the
party lived through it and, per fight, whether the party reached it and won it.

What each side wants:
- party: to live through the day (day.survival), always.
- a fight's side, objective `fight` (the default): to beat the party in its own fight
  as reached within the day, the party arriving with what the earlier fights left it:
  the party reaches the fight and loses it before its last round. A fight still going
  at its round limit is lost for the party's day ("lost if reached" of `skirmish day`
  counts it) but won by nobody, so a side that only stalls (withdraws round after
  round) gains nothing here; under `day` it does, as the day counts it. (A day keeps
  the party's side of each fight, not the winner code, so the rare fight decided in
  its very last round counts as stalled.)
- a fight's side, objective `day`: that the party falls by the day's end, whichever
  fight it falls in (a side may then do better to wear the party down than to win).

Day k of every candidate is day k of the file (every fight keyed by its name), so the
candidates are compared on the same days. The figures reported are played on days
0..n-1 of the day's seed, so "as written" is exactly `skirmish day`; the search plays
other days (chunk numbers from SEARCH_CHUNK on).
"""
from __future__ import annotations

import numpy as np

from sim.analysis import optimize_space as sp
from sim.analysis.optimize import PolicySearch, parse_budget
from sim.day.spec import Day
from sim.day.variants import day_variant, join_path
from sim.errors import ScenarioError, closest
from sim.policy import policy_schema
from sim.progress import expect

PARTY = "party"
OBJECTIVES = ("fight", "day")
DEFAULT_DAYS = 20000  # days per reported figure unless -n, at most the file's run.days


def check_objective(objective: str | None) -> str:
    if objective is None:
        return "fight"
    if objective not in OBJECTIVES:
        raise ScenarioError(f"--objective {objective!r}: give fight (each fight's side wins its own fight as the "
                            "party reaches it within the day) or day (each fight's side makes the party fall by "
                            "the day's end); the party's objective is always day survival.")
    return objective


def day_sides(day: Day) -> list[str]:
    """`party` and FIGHT.SIDE for every other side of every fight, in the day's order."""
    out = [PARTY]
    for f in day.fights:
        party_side = f.scenario.side_names[f.party_index]
        out += [f"{f.name}.{s}" for s in f.scenario.side_names if s != party_side]
    return out


def check_day_side(day: Day, key: str) -> str:
    known = day_sides(day)
    if key not in known:
        raise ScenarioError(f"--side {key!r} is not a side of this day: give `party` (the party's policy in every "
                            f"fight) or FIGHT.SIDE for one fight's other side.{closest(key, known)} Its sides: "
                            f"{', '.join(known)}.", file=day.source)
    return key


class DaySearch(PolicySearch):
    """The day's sides for the search; outcomes per (profile, chunk of days), played once
    and kept, as the scenario search keeps its winner codes."""

    def __init__(self, day: Day, objective: str, jobs: int, progress):
        super().__init__(progress)
        self.day, self.objective, self.jobs = day, objective, jobs
        self.sides = day_sides(day)
        self.fields = policy_schema(day.fights[0].scenario.ruleset.policy_fields)
        self.home = {PARTY: (day.fights[0], day.fights[0].scenario.side_names[day.fights[0].party_index])}
        for f in day.fights:
            for s in f.scenario.side_names:
                if s != f.scenario.side_names[f.party_index]:
                    self.home[f"{f.name}.{s}"] = (f, s)
        # The party's as written: its first fight's (every fight's, when the day writes `party: policy:`).
        self.written = {k: sp.written_policy(f.scenario, s) for k, (f, s) in self.home.items()}
        self.column = {f.name: 1 + 3 * i for i, f in enumerate(day.fights)}  # its reached; then won, ran out
        self.cache: dict[tuple[str, int], np.ndarray] = {}
        self.days: dict[str, Day | None] = {}

    def path(self, side: str) -> str:
        if side == PARTY:
            return join_path([PARTY, "policy"])
        fight, name = self.home[side]
        return join_path(["steps", fight.name, "sides", name, "policy"])

    def day_for(self, profile: dict) -> Day | None:
        """The day with the profile's policies written in; a side at its written policy is
        left exactly as the file has it (so the play as written is the file itself)."""
        k = sp.key(profile)
        if k not in self.days:
            changed = {self.path(s): dict(p) for s, p in profile.items() if sp.key(p) != sp.key(self.written[s])}
            try:
                self.days[k] = day_variant(self.day, changed)
            except ScenarioError:  # a combination the ruleset refuses
                self.days[k] = None
        return self.days[k]

    def space(self, side: str) -> list:
        fight, name = self.home[side]
        return sp.space(fight.scenario, name)

    def playable(self, profile: dict) -> bool:
        return self.day_for(profile) is not None

    def fight_of(self, side: str):
        return self.home[side][0]

    def score(self, outcome: np.ndarray, side: str) -> np.ndarray:
        if side == PARTY:
            return outcome[:, 0]
        if self.objective == "day":
            return 1 - outcome[:, 0]
        c = self.column[self.fight_of(side).name]
        return outcome[:, c] & (1 - outcome[:, c + 1]) & (1 - outcome[:, c + 2])

    def reached(self, outcome: np.ndarray, side: str) -> np.ndarray:
        """The days a side's figure is read on: every day, or the days its fight is reached."""
        if side == PARTY or self.objective == "day":
            return np.ones(len(outcome), dtype=bool)
        return outcome[:, self.column[self.fight_of(side).name]].astype(bool)

    def outcomes(self, profiles: list[dict], blocks: list[tuple[int, int]]) -> list[np.ndarray]:
        from sim.backends import local_workers
        from sim.day.play import _setup
        from sim.runner import warm
        from sim.threads import threaded
        tasks, where = [], []
        for p in profiles:
            k = sp.key(p)
            for chunk, size in blocks:
                if (k, chunk) not in self.cache and (k, chunk) not in where:
                    tasks.append((self.day_for(p), chunk, size))
                    where.append((k, chunk))
        self.asked += sum(t[2] for t in tasks)
        expect(self.progress, self.asked)
        if tasks:
            warm(self.day.fights[0].scenario)  # a cold cache compiles here, once, not in racing threads
            for d in {id(t[0]): t[0] for t in tasks}.values():
                for f in d.fights:
                    _setup(f.scenario)
        done = threaded(_play_block, tasks, local_workers(self.jobs, len(tasks)), ordered=True)
        for w, (i, out) in zip(where, done):
            self.cache[w] = out
            if self.progress is not None:
                self.progress(tasks[i][2])
        return [np.concatenate([self.cache[(sp.key(p), c)] for c, _ in blocks]) for p in profiles]


def _play_block(day: Day, chunk: int, size: int) -> np.ndarray:
    """Days chunk*CHUNK_SIZE.. of the day (as `skirmish day` plays its chunk `chunk`), one
    row per day: survived, then of each fight: reached, won, and ran to its round limit."""
    from sim.day.play import play_days
    from sim.runner import CHUNK_SIZE
    played = play_days(day, chunk * CHUNK_SIZE, size)
    cols = [played.lost_at < 0]
    for f in day.fights:
        got = played.fights[f.name]
        cols += [got["reached"], got["won"], got["rounds"] >= f.max_rounds]
    return np.column_stack(cols).astype(np.int8)


def optimize_day(path, sides: list[str] | None = None, objective: str | None = None, days: int | None = None,
                 seed: int | None = None, jobs: int = 1, budget="normal", progress=None,
                 overrides: dict | None = None):
    """Search the strongest play over a day and report the day as written beside it.

    `sides`: `party` and/or FIGHT.SIDE keys (default every side; the others keep their
    play as written). `objective`: what a fight's side searches for, `fight` (default)
    or `day` (see the module's docstring); the party's is always day survival.
    `days`: days per reported figure (default min(run.days, 20000)); `seed`: the day's
    seed (default its run.seed); `budget` as scenario optimize's (sim.analysis.optimize
    .parse_budget); `overrides`: day paths (sim.day.variants) applied first. One row
    per side: its objective's figure as written, under the strongest play found and
    with only its own play improved, each with its 95% interval; the paired shifts;
    the paired change of day survival its own play alone makes; the policies written
    and found. `df.attrs["analysis"]` holds the search's history, whether it
    converged, the found policies and a verdict `message`."""
    import sim.day
    from sim.day.optimize_table import day_table
    objective = check_objective(objective)
    budget = parse_budget(budget)
    if isinstance(path, Day):
        if seed is not None and int(seed) != int(path.run["seed"]):
            raise ScenarioError("a loaded day keeps the seed it was loaded with (its fights' dice are derived from "
                                "it); pass the day file's path, or load it with sim.day.load_day(path, seed=...).")
        base = path
    else:
        base = sim.day.load_day(path, seed=seed)
    base = day_variant(base, overrides or {})
    search = DaySearch(base, objective, jobs, progress)
    chosen = [check_day_side(base, s) for s in (sides or [])] or list(search.sides)
    n = int(days) if days is not None else min(int(base.run["days"]), DEFAULT_DAYS)
    day_seed = int(base.run["seed"])
    rng = np.random.default_rng([day_seed, 15])
    found, history, converged = search.alternate(list(dict.fromkeys(chosen)), budget, rng)
    found = search.simplify(found, budget)
    searched = search.asked
    df = day_table(search, found, history, converged, list(dict.fromkeys(chosen)), budget, n)
    df.attrs["analysis"]["search_days"] = searched
    return df


__all__ = ["OBJECTIVES", "PARTY", "DaySearch", "check_day_side", "check_objective", "day_sides", "optimize_day"]
