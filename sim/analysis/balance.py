"""Balancing several stats at once against several targets: `skirmish balance`.

    balance("yeti.yaml", ["sides.yeti.combatants[Yeti].survival", "sides.yeti.combatants[Yeti].attack"],
            ["yeti.win_rate=0.08..0.14", "rounds.median=7"])

Targets and the budget are read and measured in sim/analysis/balance_targets.py.

Method: coordinate (compass) search on common random numbers. From the current
values, each param is stepped by +-1 position of its search space (tune's positions: a
whole number is its own position, a die moves along the die ladder, so dice stay dice),
every step is played, and the step that most lowers the score (the sum over targets of
the distance outside each target's band over its scale) is kept. A param whose step
helped doubles its step, so a long way is covered in few designs; when no step helps,
every step is halved, and the search ends when no step of one position helps. The best
few designs are then played on more skirmishes (doubling, fresh chunks, up to
`max_skirmishes`) until each target is decided (its interval inside the band widened
by the tolerance, or clear of it), and on as many skirmishes as one another, so their
intervals, not their luck, decide which design is named.

Why coordinate search: the params are few and take whole or dice values, so the
neighbours of a design are few and exactly those a designer would try; every design
is played on the same seed and chunks (crn=True), so a step is compared with the
design it leaves on the same fights and the comparison carries little noise; there is
no surrogate model (a Gaussian process, a response surface) to fit to that noise or to
tune, and no new dependency. Each step strictly lowers the score on the same fights,
so the search never cycles. A design breaking the budget is never played, and at most
`max_designs` designs are played (the message says when that cap ended the search).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import pandas as pd

from sim.analysis.balance_targets import (TOLERANCE, Fights, Target, check_target_sides, measure, parse_budget,
                                          parse_target, score, short_names)
from sim.analysis.common import _execute, _run_settings, _tasks, as_scenario, frame, provenance_columns, variant
from sim.analysis.tune import check_params, parse_tune_range, search_space
from sim.errors import ScenarioError
from sim.overrides import get_path
from sim.progress import expect
from sim.runner import build_result, chunk_sizes

MAX_DESIGNS = 60
FINALISTS = 3  # designs played on more skirmishes at the end
NAMED = 3  # designs meeting every target named in the message


@dataclass
class Param:
    path: str
    name: str
    value_of: object  # position -> value as written
    lo: int
    hi: int
    start: int


@dataclass
class Assessed:
    estimates: dict  # measure key -> (estimate, lo, hi)
    met: list  # per target
    decided: list
    score: float

    @property
    def meets_all(self) -> bool:
        return all(self.met)


class _Designs:
    """Designs (tuples of positions) played in blocks of the same chunks, so every
    design's skirmish k has the same dice, with what the targets need of each kept."""

    def __init__(self, base, params, targets, budget, tolerance, seed, n, jobs, max_rounds, max_designs, progress):
        self.base, self.params, self.targets, self.budget, self.tolerance = base, params, targets, budget, tolerance
        self.seed, self.jobs, self.max_rounds, self.max_designs, self.progress = (seed, jobs, max_rounds,
                                                                                  max_designs, progress)
        self.block = chunk_sizes(n)
        self.fights: dict[tuple, list[Fights]] = {}
        self.scen: dict[tuple, object] = {}
        self.refused: dict[tuple, str] = {}
        self.capped, self.asked = False, 0
        self._seen: dict = {}

    def values(self, pos: tuple) -> dict:
        return {p.path: p.value_of(i) for p, i in zip(self.params, pos)}

    def playable(self, pos: tuple) -> bool:
        """Inside the ranges, within the budget and a scenario the fields accept."""
        if pos in self.scen:
            return True
        if pos not in self.refused:
            self.refused[pos] = self._refusal(pos)
        return not self.refused[pos]

    def _refusal(self, pos: tuple) -> str:
        if any(not p.lo <= i <= p.hi for p, i in zip(self.params, pos)):
            return "outside the range"
        values = self.values(pos)
        if self.budget is not None and not self.budget.holds(values):
            return "breaks the budget"
        try:
            self.scen[pos] = variant(self.base, values)
        except ScenarioError as e:  # survival 0 and the like: not a design to play
            return e.message
        return ""

    def new(self, designs: list) -> list:
        """The designs not played yet, as many as the cap allows."""
        fresh = [d for d in dict.fromkeys(designs) if d not in self.fights]
        room = self.max_designs - len(self.fights)
        if len(fresh) > room:
            self.capped = True
        return fresh[:max(room, 0)]

    def play(self, designs: list, blocks: int = 1) -> None:
        tasks, spans = [], []
        for pos in designs:
            have = len(self.fights.get(pos, []))
            for b in range(have, have + blocks):
                more = _tasks(self.scen[pos], self.block, b * len(self.block), self.seed, self.max_rounds, True)
                spans.append((pos, len(tasks), len(more)))
                tasks += more
        if not tasks:
            return
        # The search decides as it goes how much to play, so the bar's total grows with it.
        self.asked += sum(t[3] for t in tasks)
        expect(self.progress, self.asked)
        outs = _execute(tasks, self.jobs, self.progress)
        for pos, first, k in spans:
            result = build_result(self.scen[pos], outs[first:first + k], self.seed, self.max_rounds)
            self.fights.setdefault(pos, []).append(Fights.of(result))

    def blocks(self, pos: tuple) -> int:
        return len(self.fights[pos])

    def skirmishes(self, pos: tuple) -> int:
        return sum(len(f) for f in self.fights[pos])

    def assess(self, pos: tuple) -> Assessed:
        key = (pos, self.blocks(pos))
        if key not in self._seen:
            f = Fights.join(self.fights[pos])
            est = {t.key: measure(t, f) for t in self.targets}
            self._seen[key] = Assessed(
                est, [t.met(*est[t.key][1:], self.tolerance) for t in self.targets],
                [t.decided(*est[t.key][1:], self.tolerance) for t in self.targets],
                sum(score(t, f, est[t.key][0]) for t in self.targets))
        return self._seen[key]

    def ranked(self) -> list:
        order = list(self.fights)
        return sorted(order, key=lambda p: (not self.assess(p).meets_all, self.assess(p).score, order.index(p)))


def balance(scenario, params: list[str], targets: list, budget: str | None = None, ranges: dict | None = None,
            tolerance: float = TOLERANCE, n: int | None = 4000, seed: int | None = None, jobs: int = 1,
            max_rounds: int | None = None, overrides: dict | None = None, max_designs: int = MAX_DESIGNS,
            max_skirmishes: int | None = None, progress=None) -> pd.DataFrame:
    """Search values of `params` that meet every target (see the module docstring).

    `targets`: texts such as "party.win_rate=0.6", "rounds.median=4..6",
    "party.any_death<=0.1" (or parsed Targets). `budget`: "attack + defense <= 10".
    `ranges`: param (path or short name) -> (lo, hi) or "LO..HI"; default tune's (the
    current value +- max(10, |value|) within the field's bounds; dice: the whole ladder).
    `max_skirmishes`: most skirmishes for one of the final designs (default 8 x n).

    One row per design played, in the order played (`design`): each param's value as
    written (dice as dice), per measure its estimate and 95% interval (`KEY`, `KEY.lo`,
    `KEY.hi`, KEY e.g. party.win_rate, rounds.median), per target `TEXT met`, `score`,
    `meets_all`, `rank` (1 = best: meeting every target first, then the lowest score),
    `skirmishes`, `start` (the design the search began from), `budget` (the left side's
    value, with a budget), provenance. `df.attrs["analysis"]` holds `status` ("met" or
    "unmet"), `message`, `best`, `designs`, `capped` and `cpu_seconds`.
    """
    cpu = time.process_time()
    base = as_scenario(scenario, overrides)
    params = list(params)
    _check_inputs(base, params, targets, tolerance, max_designs)
    targets = [t if isinstance(t, Target) else parse_target(t) for t in targets]
    check_target_sides(targets, base.side_names, base.source)
    spaces = _params(base, params, _ranges(ranges, params))
    plan = parse_budget(budget, params)
    n, seed, max_rounds = _run_settings(base, n, seed, max_rounds)
    ds = _Designs(base, spaces, targets, plan, tolerance, seed, n, jobs, max_rounds, max_designs, progress)
    start = tuple(p.start for p in spaces)
    if not ds.playable(start):
        values = ", ".join(f"{p.name} {v}" for p, v in zip(spaces, ds.values(start).values()))
        raise ScenarioError(f"the design to start from ({values}) {ds.refused[start]}"
                            + (f" '{plan.text}'" if ds.refused[start] == "breaks the budget" else "")
                            + "; start inside it with --set (or widen --range).", file=base.source)
    _search(ds, start)
    _settle(ds, 8 * n if max_skirmishes is None else int(max_skirmishes))
    return _table(base, ds, start, time.process_time() - cpu)


def _check_inputs(base, params, targets, tolerance, max_designs) -> None:
    if not params:
        raise ScenarioError("balance needs at least one --param PATH to search, e.g. "
                            "--param 'sides.yeti.combatants[Yeti].survival'.")
    if not targets:
        raise ScenarioError("balance needs at least one --target, e.g. --target party.win_rate=0.6.")
    twice = sorted({p for p in params if params.count(p) > 1})
    if twice:
        raise ScenarioError(f"--param {twice[0]} is given twice; give each stat once.", file=base.source)
    try:
        check_params(params, base.source)
    except ScenarioError as e:
        raise _reworded(e) from None
    if not 0 <= tolerance < 0.5:
        raise ScenarioError(f"--tolerance {tolerance} must be a share from 0 to 0.5, e.g. 0.02 (2 points).")
    if int(max_designs) < 1:
        raise ScenarioError("--max-designs must be at least 1.")


def _ranges(ranges, params: list[str]) -> dict:
    """param path -> (lo, hi), from paths or short names and tuples or LO..HI texts."""
    out = {}
    names = {name: p for p, name in short_names(params).items()}
    for key, r in (ranges or {}).items():
        path = key if key in params else names.get(key)
        if path is None:
            raise ScenarioError(f"--range {key}=...: '{key}' is not a --param; give one of "
                                f"{', '.join(short_names(params).values())}.")
        out[path] = parse_tune_range(r) if isinstance(r, str) else tuple(r)
    return out


def _params(base, params: list[str], ranges: dict) -> list[Param]:
    out = []
    names = short_names(params)
    for path in params:
        try:
            current = get_path(base.data, path)
        except ScenarioError as e:
            raise e.located(base.source) from None
        try:
            value_of, lo, hi = search_space(base, path, current, *ranges.get(path, (None, None)))
        except ScenarioError as e:
            e.path = e.path or path
            raise _reworded(e).located(base.source) from None
        start = _position(current, value_of, lo, hi, path)
        out.append(Param(path, names[path], value_of, lo, hi, min(max(start, lo), hi)))
    return out


def _reworded(e: ScenarioError) -> ScenarioError:
    """tune's checks of a param, in balance's words."""
    e.message = e.message.replace("tune solves for", "balance searches")
    e._refresh()
    return e


def _position(current, value_of, lo, hi, path) -> int:
    if value_of(lo) == lo:  # whole numbers are their own positions
        return int(current)
    from sim.analysis.sensitivity import DIE_LADDER
    from sim.dice import parse_dice
    sides = parse_dice(str(current)).sides
    if sides not in DIE_LADDER:
        raise ScenarioError(f"holds {current}; balance steps a die along the ladder "
                            f"{', '.join(f'd{k}' for k in DIE_LADDER)}, and d{sides} is not on it.", path=path)
    return DIE_LADDER.index(sides)


def _search(ds: _Designs, start: tuple) -> tuple:
    x, steps = start, [1] * len(ds.params)
    ds.play(ds.new([x]))
    while not ds.capped and ds.assess(x).score > 0:
        tried = {}
        for i, p in enumerate(ds.params):
            for d in (1, -1):
                j = min(max(x[i] + d * steps[i], p.lo), p.hi)
                y = x[:i] + (j,) + x[i + 1:]
                if j != x[i] and ds.playable(y):
                    tried.setdefault(y, i)
        ds.play(ds.new(list(tried)))
        played = [y for y in tried if y in ds.fights]
        best = min(played, key=lambda y: ds.assess(y).score, default=None)
        if best is not None and ds.assess(best).score < ds.assess(x).score - 1e-12:
            i = tried[best]
            steps[i] = min(2 * steps[i], max(ds.params[i].hi - ds.params[i].lo, 1))
            x = best
        elif max(steps) > 1:
            steps = [max(1, s // 2) for s in steps]
        else:
            break
    return x


def _settle(ds: _Designs, most: int) -> None:
    """The best designs doubled until each target is decided or the maximum is reached,
    then brought to the same skirmishes. A finalist can fall back once settled, so the
    new top few are settled in turn."""
    settled: set = set()
    while True:
        todo = [p for p in ds.ranked()[:FINALISTS] if p not in settled]
        if not todo:
            break
        for pos in todo:
            settled.add(pos)
            while not all(ds.assess(pos).decided) and 2 * ds.skirmishes(pos) <= most:
                ds.play([pos], blocks=ds.blocks(pos))
    top = ds.ranked()[:FINALISTS]
    want = max(ds.blocks(p) for p in top)
    for pos in top:
        if ds.blocks(pos) < want:
            ds.play([pos], blocks=want - ds.blocks(pos))


def _table(base, ds: _Designs, start: tuple, cpu: float) -> pd.DataFrame:
    ranked = ds.ranked()
    rows = []
    for k, pos in enumerate(ds.fights, 1):
        a = ds.assess(pos)
        values = ds.values(pos)
        row = {"design": k, **values}
        for key, (est, lo, hi) in a.estimates.items():
            row[key], row[f"{key}.lo"], row[f"{key}.hi"] = est, lo, hi
        for t, met in zip(ds.targets, a.met):
            row[f"{t.text} met"] = met
        row.update({"score": a.score, "meets_all": a.meets_all, "rank": ranked.index(pos) + 1,
                    "skirmishes": ds.skirmishes(pos), "start": pos == start})
        if ds.budget is not None:
            row["budget"] = ds.budget.value(values)
        row.update(provenance_columns(base, ds.scen[pos], ds.seed))
        rows.append(row)
    df = pd.DataFrame(rows).sort_values("rank", kind="stable").reset_index(drop=True)
    best = df.iloc[0]
    meta = {"command": "balance", "scenario": base.name, "params": [p.path for p in ds.params],
            "names": [p.name for p in ds.params], "targets": [t.text for t in ds.targets],
            "bands": [[t.key, _finite(t.lo), _finite(t.hi)] for t in ds.targets], "tolerance": ds.tolerance,
            "budget": ds.budget.text if ds.budget is not None else None,
            "ranges": {p.path: [p.value_of(p.lo), p.value_of(p.hi)] for p in ds.params},
            "status": "met" if bool(best["meets_all"]) else "unmet",
            "best": ds.values(ranked[0]), "designs": len(df), "max_designs": ds.max_designs,
            "capped": ds.capped, "skirmishes": sum(ds.block), "seed": ds.seed, "cpu_seconds": round(cpu, 2)}
    meta["message"] = message(df, ds.params, ds.targets, meta)
    df["message"] = meta["message"]
    return frame(df.to_dict("records"), meta)


def _finite(x: float):
    """An open end of a band as None: JSON has no infinity."""
    return x if math.isfinite(x) else None


def design_words(row, params: list[Param], targets: list[Target]) -> str:
    """"survival 34, defense 3 gives party 60.4% [59.1 .. 61.6] and a median fight of 5 rounds [5 .. 5]"."""
    from sim.analysis.balance_targets import estimate_words
    said = {}
    for t in targets:  # two targets on one measure say it once
        said.setdefault(t.key, estimate_words(t, row[t.key], row[f"{t.key}.lo"], row[f"{t.key}.hi"]))
    values = ", ".join(f"{p.name} {row[p.path]}" for p in params)
    return f"{values} gives " + _and(list(said.values()))


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def message(df: pd.DataFrame, params: list[Param], targets: list[Target], meta: dict) -> str:
    from sim.analysis.balance_targets import gap_words
    hits = df[df["meets_all"]]
    best = df.iloc[0]
    if len(hits):
        text = (f"{design_words(best, params, targets)}: every target met ({len(hits)} of {len(df)} designs "
                "played meet them all")
        others = [design_words(r, params, targets) for _, r in hits.iloc[1:NAMED].iterrows()]
        text += f"; also {'; '.join(others)})." if others else ")."
    else:
        within = f" within the budget '{meta['budget']}'" if meta.get("budget") else ""
        misses = [f"{t.text} by {gap_words(t, best[t.key])}" for t in targets if not best[f"{t.text} met"]]
        text = (f"no whole design in the range{within} meets every target; nearest: "
                f"{design_words(best, params, targets)}; it misses {_and(misses)} ({len(df)} designs played).")
    if meta["capped"]:
        text += (f" The search stopped at --max-designs {meta['max_designs']} designs before it had finished; "
                 "raise it to let the search go on.")
    return text + f" CPU time {meta['cpu_seconds']:.1f} s."
