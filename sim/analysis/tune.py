"""Solving for a stat: which integer value of a path gives a side a target win rate.

Method: bisection on the integer range with confidence-aware comparisons. Every
value is played on the same skirmishes (same seed, common random numbers), so
neighbouring values are compared on paired fights. A value whose win-rate interval
still contains the target is played on more skirmishes (fresh chunks, doubling)
until the interval excludes the target or `max_skirmishes` is reached; only then is
the point estimate used to pick the side of the bracket. When the two ends of the
range are both confidently on the same side of the target, a grid of the range is
scanned before declaring the target unreachable, so a non-monotone response with a
crossing inside the range is still found.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.common import (as_scenario, check_side, frame, paired_diff, provenance_columns, variant,
                                 win_matrix, _execute, _run_settings, _tasks)
from sim.analysis.optimize_play import check_play, tune_best
from sim.errors import ScenarioError
from sim.overrides import get_path, parse_range
from sim.progress import expect
from sim.runner import build_result, chunk_sizes
from sim.stats import wilson

SCAN_POINTS = 21


def parse_target(text: str) -> tuple[str, float]:
    """`party.win_rate=0.6` -> ("party", 0.6)."""
    if "=" not in str(text):
        raise ScenarioError(f"--target '{text}' needs the form SIDE.win_rate=RATE, e.g. party.win_rate=0.6.")
    left, right = str(text).split("=", 1)
    side, _, what = left.strip().rpartition(".")
    if what != "win_rate" or not side:
        raise ScenarioError(f"--target '{text}': only SIDE.win_rate=RATE can be tuned, e.g. party.win_rate=0.6.")
    return side, parse_rate(text, right, "0.6", "a win rate")


class _Evaluator:
    """Win indicators per value, played in blocks of the same chunks for every value."""

    def __init__(self, base, param, seed, n, jobs, max_rounds, max_skirmishes, progress=None, value_of=None):
        self.base, self.param, self.seed, self.jobs, self.max_rounds = base, param, seed, jobs, max_rounds
        self.value_of = value_of or (lambda v: v)  # search position -> the value written (a die on the ladder)
        self.progress, self.asked = progress, 0
        self.block = chunk_sizes(n)
        self.max = max(int(max_skirmishes), n)
        self.scen: dict[int, object] = {}
        self.outs: dict[int, list] = {}

    def wins(self, v: int) -> np.ndarray:
        r = build_result(self.scen[v], self.outs[v], self.seed, self.max_rounds)
        return win_matrix(r)

    def play(self, v: int, blocks: int = 1) -> None:
        if v not in self.scen:
            self.scen[v] = variant(self.base, {self.param: self.value_of(v)})
            self.outs[v] = []
        done = len(self.outs[v]) // len(self.block)
        tasks = []
        for b in range(done, done + blocks):
            tasks += _tasks(self.scen[v], self.block, b * len(self.block), self.seed, self.max_rounds, True)
        # The search decides as it goes how much to play, so the bar's total grows with it.
        self.asked += sum(t[3] for t in tasks)
        expect(self.progress, self.asked)
        self.outs[v].extend(_execute(tasks, self.jobs, self.progress))

    def equalize(self, values: list[int]) -> None:
        """Play each value on as many blocks as the most-played of them (same skirmishes)."""
        most = max(len(self.outs.get(v, [])) for v in values) // len(self.block)
        for v in values:
            have = len(self.outs.get(v, [])) // len(self.block)
            if have < max(most, 1):
                self.play(v, blocks=max(most, 1) - have)

    def n(self, v: int) -> int:
        return sum(len(o.winner) for o in self.outs.get(v, []))

    def rate(self, v: int, s: int) -> tuple[float, float, float, int]:
        w = self.wins(v)[:, s]
        k, n = int(w.sum()), len(w)
        lo, hi = wilson(k, n)
        return k / n, float(lo), float(hi), n

    def side_of_target(self, v: int, s: int, target: float) -> int:
        """+1 above, -1 below the target; played on more skirmishes while ambiguous.
        0 when still ambiguous at the maximum."""
        if v not in self.outs:
            self.play(v)
        while True:
            p, lo, hi, n = self.rate(v, s)
            sign = sign_against(lo, hi, target)
            if sign:
                return sign
            have = len(self.outs[v]) // len(self.block)
            if n + have * sum(self.block) > self.max:  # doubling would pass the maximum
                return 0
            self.play(v, blocks=have)


# Where a tuned value may live: stats, policies, weapons, rule options and the field.
# `run.seed` or `name` are not the scenario's balance, and "tuning" them finds noise.
TUNABLE_ROOTS = ("sides", "rules", "armory", "battlefield")


def check_params(params: list[str], source: str | None = None) -> None:
    """Refuse a parameter outside the scenario's stats and rules, and one given twice."""
    from sim.overrides import split_path
    for param in params:
        root = split_path(param)[0]
        if root not in TUNABLE_ROOTS:
            raise ScenarioError(f"--param {param}: tune solves for a stat, a policy number or a rule option "
                                f"(a path under {', '.join(TUNABLE_ROOTS)}), not `{root}`.", file=source, path=param)
    if len(params) == 2 and params[0] == params[1]:
        raise ScenarioError(f"--param {params[0]} is given twice; give two different stats for a grid, or one.",
                            file=source)


def tune(scenario, param: str, side: str, target: float, lo: int | None = None, hi: int | None = None,
         n: int | None = 20000, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
         overrides: dict | None = None, max_skirmishes: int | None = None, play: str = "as-written",
         progress=None) -> pd.DataFrame:
    """Find the integer value of `param` in lo..hi that gives `side` a win rate closest to `target`.

    Returns one row per value played (sorted by value) with the side's win rate and
    interval, `role` (answer, below, above, probe), the paired difference to the
    answer's win rate, and the columns `status` ("found" or "unreachable") and
    `message` (a sentence saying what was found). `df.attrs["analysis"]` repeats the
    verdict. The default range is the current value +- max(10, |value|), kept within
    the field's allowed range. `play="best"`: tuned under the strongest play, re-searched
    at the value found (sim.analysis.optimize_play.tune_best).
    """
    if check_play(play):
        return tune_best(tune, scenario, param, side, target, lo, hi, overrides=overrides, seed=seed, jobs=jobs,
                         max_rounds=max_rounds, progress=progress, n=n, max_skirmishes=max_skirmishes)
    base = as_scenario(scenario, overrides)
    check_params([param], base.source)
    check_side(base, side, "--target")
    s = base.side_names.index(side)
    try:
        current = get_path(base.data, param)
    except ScenarioError as e:
        raise e.located(base.source) from None
    value_of, lo, hi = search_space(base, param, current, lo, hi)
    n, seed, max_rounds = _run_settings(base, n, seed, max_rounds)
    ev = _Evaluator(base, param, seed, n, jobs, max_rounds, max_skirmishes if max_skirmishes else 8 * n, progress,
                    value_of)

    # Check each value's variant is valid before playing (e.g. survival 0 is not allowed).
    for v in (lo, hi):
        variant(base, {param: value_of(v)})
    cands, status = bracket(lambda v: ev.side_of_target(v, s, target), lo, hi)
    if status == "found":
        ev.equalize(cands)  # the final choice compares both on the same skirmishes
        answer = min(cands, key=lambda v: (abs(ev.rate(v, s)[0] - target), v))
    else:
        answer = min(ev.outs, key=lambda v: (abs(ev.rate(v, s)[0] - target), v))
    ev.equalize([v for v in (answer - 1, answer, answer + 1) if lo <= v <= hi])
    return _table(base, ev, param, side, s, target, lo, hi, answer, status)


def sign_against(lo: float, hi: float, target: float) -> int:
    """+1 when the interval lies above the target, -1 below, 0 while it holds it. A
    tolerance, since Wilson bounds at 0 or n successes are 0 or 1 only up to rounding."""
    return 1 if lo > target + 1e-9 else -1 if hi < target - 1e-9 else 0


def bracket(side_of, lo: int, hi: int, scan_points: int = SCAN_POINTS) -> tuple[list[int], str]:
    """(the one or two values that bracket the target, "found"), or ([], "unreachable").
    `side_of(v)`: +1 above the target, -1 below, 0 still holding it. Bisection on the
    sign; when both ends are on the same side a grid of the range is scanned first, so a
    crossing inside a non-monotone range is still found."""
    sa, sb = side_of(lo), side_of(hi)
    a, b = lo, hi
    if sa != 0 and sa == sb:
        grid = sorted(set(np.linspace(lo, hi, min(scan_points, hi - lo + 1)).round().astype(int).tolist()))
        signs = {lo: sa, hi: sb}
        for v in grid:
            if v not in signs:
                signs[v] = side_of(v)
        other = [v for v in grid if signs[v] != sa]
        if not other:
            return [], "unreachable"
        a, b = max(v for v in grid if v < other[0]), other[0]
        sb = signs[b]
    # Ambiguous ends count as on target.
    while b - a > 1 and sa != 0 and sb != 0:
        m = (a + b) // 2
        sm = side_of(m)
        if sm == 0:
            a = b = m
            break
        if sm == sa:
            a = m
        else:
            b, sb = m, sm
    return sorted({a, b}), "found"


def parse_rate(text: str, right: str, example: str, what: str = "a rate") -> float:
    """The number after `=` of a --target, a rate in 0..1."""
    try:
        rate = float(right)
    except ValueError:
        raise ScenarioError(f"--target '{text}': '{right}' is not a number; give a rate such as {example}.") from None
    if not 0 <= rate <= 1:
        raise ScenarioError(f"--target '{text}': {what} is between 0 and 1 ({example} means "
                            f"{100 * float(example):.0f}%).")
    return rate


def search_space(base, param: str, current, lo, hi):
    """(position -> value written, lo, hi): whole numbers are their own positions; a die
    (d8, 2d6+1) is searched along the die ladder d2-d4-...-d20, its count and bonus kept,
    and `lo`/`hi` may then be dice too."""
    from sim.analysis.sensitivity import DIE_LADDER
    from sim.dice import Dice, parse_dice
    if isinstance(current, str) and not isinstance(current, bool):
        try:
            d = parse_dice(current)
        except ValueError:
            d = None
        if d is not None and d.count:
            def value_of(i: int) -> str:
                return str(Dice(d.count, DIE_LADDER[i], d.bonus))

            def position(x, default: int) -> int:
                if x is None:
                    return default
                sides = parse_dice(str(x) if not str(x).lstrip("-").isdigit() else f"d{x}").sides
                if sides not in DIE_LADDER:
                    raise ScenarioError(f"--range: d{sides} is not on the die ladder "
                                        f"({', '.join(f'd{k}' for k in DIE_LADDER)}).", path=param)
                return DIE_LADDER.index(sides)
            return value_of, position(lo, 0), position(hi, len(DIE_LADDER) - 1)
    if isinstance(current, bool) or not isinstance(current, int):
        raise ScenarioError(f"holds {current!r}; tune solves for whole-number values (survival, defense, a "
                            "bonus) or a die stepped along the die ladder (d6, 2d8).", file=base.source, path=param)
    if lo is None or hi is None:
        span = max(10, abs(current))
        lo = current - span if lo is None else lo
        hi = current + span if hi is None else hi
        fmin, fmax = _field_bounds(base, param)
        lo, hi = max(lo, fmin) if fmin is not None else lo, min(hi, fmax) if fmax is not None else hi
    lo, hi = int(lo), int(hi)
    if hi <= lo:
        raise ScenarioError(f"the range {lo}..{hi} needs at least two values.", path=param)
    return (lambda v: v), lo, hi


def _field_bounds(base, param: str):
    # The last segment of a combatant path names a stat of the ruleset's schema.
    from sim.overrides import split_path
    from sim.scenario import CORE_COMBATANT_FIELDS
    parts = split_path(param)
    name = parts[-1] if isinstance(parts[-1], str) else None
    spec = {**CORE_COMBATANT_FIELDS, **base.ruleset.combatant_fields}.get(name) if "combatants" in parts else None
    if spec is None or spec.kind != "int":
        return None, None
    return spec.min, spec.max


def _rate_text(ev: _Evaluator, v: int, s: int) -> str:
    p, lo, hi, _ = ev.rate(v, s)
    return f"{ev.value_of(v)} gives {p:.1%} [{lo:.1%} .. {hi:.1%}]"


def found_message(ev: _Evaluator, param: str, side: str, s: int, target: float, answer: int) -> str:
    """The answer, or, when no value's interval holds the target and two neighbours lie
    on either side of it, between which two values it lies."""
    p, plo, phi, _ = ev.rate(answer, s)
    name = param.rsplit(".", 1)[-1]
    if not plo <= target <= phi:
        for a, b in ((answer - 1, answer), (answer, answer + 1)):
            if a in ev.outs and b in ev.outs:
                ra, rb = ev.rate(a, s), ev.rate(b, s)
                below, above = sorted((ra, rb), key=lambda r: r[0])
                if below[2] < target < above[1]:
                    return (f"no {'die' if ev.value_of(a) != a else 'whole'} {name} gives {side} {target:.0%}: "
                            f"{_rate_text(ev, a, s)}, {_rate_text(ev, b, s)}; the target lies between "
                            f"{ev.value_of(a)} and {ev.value_of(b)} (closest: {ev.value_of(answer)}).")
    message = (f"{param} = {ev.value_of(answer)} gives {side} a win rate of {p:.1%} [{plo:.1%} .. {phi:.1%}] "
               f"(target {target:.1%})")
    near = [f"{ev.value_of(v)}: {ev.rate(v, s)[0]:.1%}" for v in (answer - 1, answer + 1) if v in ev.outs]
    if near:
        message += "; neighbours " + ", ".join(near)
    return message + "."


def _table(base, ev: _Evaluator, param, side, s, target, lo, hi, answer, status) -> pd.DataFrame:
    ans_w = ev.wins(answer)[:, s]
    p, plo, phi, _ = ev.rate(answer, s)
    if status == "unreachable":
        rates = {v: ev.rate(v, s)[0] for v in ev.outs}
        message = (f"{side} win rate {target:.1%} is unreachable with {param} in {ev.value_of(lo)}.."
                   f"{ev.value_of(hi)}: the values played give {min(rates.values()):.1%} to "
                   f"{max(rates.values()):.1%}; closest is {ev.value_of(answer)} "
                   f"({p:.1%} [{plo:.1%} .. {phi:.1%}]). Widen --range or change something else.")
    else:
        message = found_message(ev, param, side, s, target, answer)
    rows = []
    for v in sorted(ev.outs):
        w = ev.wins(v)
        k = min(len(w), len(ans_w))
        d = paired_diff(ans_w[:k], w[:k, s]) if v != answer else (0.0, 0.0, 0.0)
        role = ("answer" if v == answer else "below" if v == answer - 1 else "above" if v == answer + 1
                else "probe")
        row = {"value": ev.value_of(v), "position": v, "role": role, "skirmishes": len(w)}
        for j, name in enumerate(base.side_names):
            kk = int(w[:, j].sum())
            lo_j, hi_j = wilson(kk, len(w))
            row[f"{name}.win_rate"], row[f"{name}.win_lo"], row[f"{name}.win_hi"] = (
                kk / len(w), float(lo_j), float(hi_j))
        row["diff_vs_answer"], row["diff_vs_answer_lo"], row["diff_vs_answer_hi"] = d
        row.update({"param": param, "target_side": side, "target": target, "status": status,
                    "on_target": bool(plo <= target <= phi), "message": message})
        row.update(provenance_columns(base, ev.scen[v], ev.seed))
        rows.append(row)
    return frame(rows, {"command": "tune", "param": param, "side": side, "target": target,
                        "range": [ev.value_of(lo), ev.value_of(hi)], "status": status,
                        "value": ev.value_of(answer), "win_rate": p, "ci95": [plo, phi],
                        "message": message})


def parse_tune_range(text: str | None):
    if text is None:
        return None, None
    if "d" in text.lower() and ".." in text:  # dice: d4..d12
        lo, _, hi = text.partition("..")
        return lo.strip(), hi.strip()
    r = parse_range(text, "--range")
    if r is None:
        raise ScenarioError(f"--range '{text}' needs the form LO..HI, e.g. 1..40.")
    return r
