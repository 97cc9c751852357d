"""The targets and the budget of `skirmish balance` (sim/analysis/balance.py).

A target is a measure of a run, a comparison and a band:

    party.win_rate=0.6         party.win_rate>=0.5       party.win_rate=0.55..0.65
    rounds.median=4..6         rounds.mean<=6
    party.any_death<=0.1       party.any_down<=0.5       party.deaths.mean<=0.3

Measures, each with a 95% interval, read from a run's outcome tables
(RunResult.skirmishes and .combatants):

- `SIDE.win_rate`: share of fights SIDE wins; Wilson interval.
- `SIDE.any_death`: share of fights in which at least one combatant of SIDE ends dead;
  `SIDE.any_down`: dead or unconscious (fled is neither). Wilson intervals.
- `SIDE.deaths.mean`: combatants of SIDE dead at the end of a fight, on average;
  normal interval (the mean of thousands of small bounded counts).
- `rounds.mean`: rounds a fight lasts (unfinished fights count their max_rounds);
  normal interval.
- `rounds.median`: the middle fight's length; distribution-free order-statistic
  interval: the sorted lengths at ranks n/2 -+ 1.96 sqrt(n)/2 (the binomial's normal
  approximation), so its ends are rounds that fights actually lasted.

A target is met when its 95% interval meets the band (the data do not rule the band
out), or when the interval lies within the tolerance of the band: 0.02 for shares by
default (--tolerance), scaled as the score is for rounds (0.2 of a round) and deaths
(0.04). So `party.win_rate=0.6` is met by 59.1% [57.2 .. 61.0] and, at a million
fights, by 60.9% [60.8 .. 61.0], but not by 63.0% [62.0 .. 64.0].

A budget is one comparison of a sum of the params: `attack + defense <= 10`. Names are
the params' last path segments (or the whole path when two share a name), numbers,
+ - * and parentheses; a die counts as its mean (2d6+1 as 8). It is read with `ast` and
evaluated node by node: nothing in it is ever run as Python.
"""
from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.errors import ScenarioError, closest
from sim.stats import Z95, mean_ci, wilson

SHARES = ("win_rate", "any_death", "any_down")
SIDE_MEASURES = SHARES + ("deaths.mean",)
ROUND_MEASURES = ("rounds.median", "rounds.mean")
# One unit of score when a target has no band width of its own: 5 points of a share,
# half a round, a tenth of a death a fight. The tolerance is scaled by the same ratio.
UNITS = {"share": 0.05, "rounds": 0.5, "deaths": 0.1}
TOLERANCE = 0.02
FORMS = ("SIDE.win_rate, SIDE.any_death, SIDE.any_down, SIDE.deaths.mean, rounds.median or rounds.mean")
EXAMPLES = "e.g. party.win_rate=0.6, party.win_rate>=0.5, rounds.median=4..6, party.any_death<=0.1"


@dataclass(frozen=True)
class Target:
    text: str
    measure: str  # win_rate, any_death, any_down, deaths.mean, rounds.median, rounds.mean
    side: str | None
    op: str  # "=", ">=", "<="
    lo: float  # the band; -inf / inf on an open side
    hi: float

    @property
    def key(self) -> str:
        """The measure's column: party.win_rate, rounds.median."""
        return self.measure if self.side is None else f"{self.side}.{self.measure}"

    @property
    def kind(self) -> str:
        return "share" if self.measure in SHARES else "rounds" if self.side is None else "deaths"

    @property
    def scale(self) -> float:
        width = self.hi - self.lo
        return width if math.isfinite(width) and width > 0 else UNITS[self.kind]

    def tolerance(self, tolerance: float) -> float:
        return tolerance * UNITS[self.kind] / UNITS["share"]

    def outside(self, x: float) -> float:
        """How far x lies outside the band (0 inside)."""
        return max(0.0, self.lo - x, x - self.hi)

    def met(self, lo: float, hi: float, tolerance: float) -> bool:
        """The interval meets the band, or lies within the tolerance of it."""
        tol = self.tolerance(tolerance)
        return bool((lo <= self.hi + 1e-12 and hi >= self.lo - 1e-12)
                    or (lo >= self.lo - tol - 1e-12 and hi <= self.hi + tol + 1e-12))

    def decided(self, lo: float, hi: float, tolerance: float) -> bool:
        """More fights would not change `met`: the interval lies inside the band widened
        by the tolerance, or wholly outside it."""
        tol = self.tolerance(tolerance)
        inside = lo >= self.lo - tol - 1e-12 and hi <= self.hi + tol + 1e-12
        apart = hi < self.lo - tol or lo > self.hi + tol
        return bool(inside or apart)


def parse_target(text: str) -> Target:
    """`rounds.median=4..6` -> Target(measure="rounds.median", op="=", lo=4, hi=6)."""
    raw = str(text).strip()
    m = re.fullmatch(r"(?P<what>[^<>=]+?)\s*(?P<op><=|>=|==|=|<|>)\s*(?P<value>.*)", raw)
    if not m:
        raise ScenarioError(f"--target '{text}' needs the form WHAT=VALUE, WHAT>=VALUE or WHAT<=VALUE ({EXAMPLES}); "
                            f"WHAT is {FORMS}.")
    what, op, value = m["what"].strip(), m["op"], m["value"].strip()
    if op in ("<", ">"):
        raise ScenarioError(f"--target '{text}': write {op}= ('{what}{op}={value}'); a target's band includes "
                            "its end.")
    op = "=" if op == "==" else op
    side, measure = _measure(text, what)
    if not value:
        raise ScenarioError(f"--target '{text}' gives no value after '{op}'; {EXAMPLES}.")
    if ".." in value:
        if op != "=":
            raise ScenarioError(f"--target '{text}': a range goes with '=', e.g. {what}={value}; or give one "
                                f"number after {op}.")
        a, _, b = value.partition("..")
        lo, hi = _number(text, a), _number(text, b)
        if not lo < hi:
            raise ScenarioError(f"--target '{text}': the range {value} needs LO < HI, e.g. {what}=0.55..0.65.")
    else:
        t = _number(text, value)
        lo, hi = {"=": (t, t), ">=": (t, math.inf), "<=": (-math.inf, t)}[op]
    for x in (lo, hi):
        if math.isfinite(x):
            _check_scale(text, measure, x)
    return Target(raw, measure, side, op, float(lo), float(hi))


def _measure(text: str, what: str) -> tuple[str | None, str]:
    if what.startswith("rounds."):
        rest = what[len("rounds."):]
        if rest in ("median", "mean"):
            return None, what
    for measure in SIDE_MEASURES:
        if what.endswith("." + measure) and len(what) > len(measure) + 1:
            return what[: -len(measure) - 1], measure
    side, _, name = what.rpartition(".")
    hint = closest(name, [*SIDE_MEASURES, "median", "mean"]) if name else ""
    raise ScenarioError(f"--target '{text}': '{what}' is not a measure.{hint} Give {FORMS} ({EXAMPLES}).")


def _number(text: str, value: str) -> float:
    try:
        x = float(value.strip())
    except ValueError:
        raise ScenarioError(f"--target '{text}': '{value.strip()}' is not a number; {EXAMPLES}.") from None
    if not math.isfinite(x):
        raise ScenarioError(f"--target '{text}': '{value.strip()}' is not a finite number; {EXAMPLES}.")
    return x


def _check_scale(text: str, measure: str, x: float) -> None:
    if measure in SHARES and not 0 <= x <= 1:
        raise ScenarioError(f"--target '{text}': {measure} is a share between 0 and 1 (0.6 means 60%).")
    if x < 0:
        raise ScenarioError(f"--target '{text}': {measure} counts {'rounds' if 'rounds' in measure else 'deaths'}, "
                            "so it is 0 or more.")


def check_target_sides(targets: list[Target], side_names, source=None) -> None:
    for t in targets:
        if t.side is not None and t.side not in side_names:
            raise ScenarioError(f"--target '{t.text}': no side '{t.side}'.{closest(t.side, side_names)} "
                                f"Sides: {', '.join(side_names)}.", file=source)


# ---- measuring ------------------------------------------------------------------------------------------------

@dataclass
class Fights:
    """Per fight of a run: the winner's code (the side's index; draws and unfinished
    fights past the sides), its rounds, and per side the combatants dead and down at the
    end. What the targets need of the outcome tables, small enough to keep per design."""
    sides: list
    winner: np.ndarray
    rounds: np.ndarray
    dead: np.ndarray  # (fights, sides)
    down: np.ndarray

    @classmethod
    def of(cls, result) -> "Fights":
        sk, cb = result.skirmishes, result.combatants
        sides = list(result.scenario.side_names)
        n, s = len(sk), len(sides)
        at = pd.Index(sk["skirmish"]).get_indexer(cb["skirmish"])
        side = cb["side"].cat.codes.to_numpy().astype(np.int64)
        state = cb["final_state"].astype(str).to_numpy()
        dead, down = state == "dead", np.isin(state, ("dead", "unconscious"))
        cells = at * s + side

        def count(which):
            return np.bincount(cells, weights=which, minlength=n * s).reshape(n, s).astype(np.int32)
        winner = sk["winner"].cat.codes.to_numpy().astype(np.int16)
        return cls(sides, winner, sk["rounds"].to_numpy(float), count(dead), count(down))

    @classmethod
    def join(cls, parts: list["Fights"]) -> "Fights":
        return cls(parts[0].sides, *(np.concatenate([getattr(p, k) for p in parts])
                                     for k in ("winner", "rounds", "dead", "down")))

    def __len__(self) -> int:
        return len(self.winner)


def measure(target: Target, fights) -> tuple[float, float, float]:
    """(estimate, 95% low, 95% high) of the target's measure over the fights (a Fights,
    or a RunResult)."""
    f = fights if isinstance(fights, Fights) else Fights.of(fights)
    n = len(f)
    if target.measure == "rounds.mean":
        return mean_ci(f.rounds)
    if target.measure == "rounds.median":
        return median_ci(f.rounds)
    s = f.sides.index(target.side)
    if target.measure == "deaths.mean":
        return mean_ci(f.dead[:, s])
    hits = {"win_rate": f.winner == s, "any_death": f.dead[:, s] > 0, "any_down": f.down[:, s] > 0}[target.measure]
    k = int(hits.sum())
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


def median_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """The median with its order-statistic interval: ranks n/2 -+ z sqrt(n)/2."""
    x = np.sort(np.asarray(values, float))
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    j = max(int(math.floor((n - z * math.sqrt(n)) / 2)), 1)
    k = min(int(math.ceil((n + z * math.sqrt(n)) / 2)), n)
    return float(np.median(x)), float(x[j - 1]), float(x[k - 1])


def score(target: Target, fights: Fights, estimate: float) -> float:
    """Distance outside the band in units of the target's scale; for the median also the
    share of fights that would have to change sides of the band, over 0.05, which keeps
    the score moving while the median stands still on a whole round."""
    s = target.outside(estimate) / target.scale
    if target.measure == "rounds.median":
        below, above = float(np.mean(fights.rounds < target.lo)), float(np.mean(fights.rounds > target.hi))
        s += (max(0.0, below - 0.5) + max(0.0, above - 0.5)) / UNITS["share"]
    return s


# ---- the budget ---------------------------------------------------------------------------------------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_COMPARE = {ast.LtE: ("<=", operator.le), ast.Lt: ("<", operator.lt), ast.GtE: (">=", operator.ge),
            ast.Gt: (">", operator.gt), ast.Eq: ("==", operator.eq)}
BUDGET_FORM = "e.g. --budget 'attack + defense <= 10' or --budget '2 * survival + attack <= 60'"


@dataclass(frozen=True)
class Budget:
    text: str
    tree: ast.Compare
    names: dict  # name in the expression -> param path

    def value(self, values: dict) -> float:
        """The left side's value for `values` (param path -> value), for the table."""
        return _eval(self.tree.left, self._numbers(values))

    def holds(self, values: dict) -> bool:
        nums = self._numbers(values)
        _, op = _COMPARE[type(self.tree.ops[0])]
        return bool(op(_eval(self.tree.left, nums), _eval(self.tree.comparators[0], nums)))

    def _numbers(self, values: dict) -> dict:
        return {name: number(values[path]) for name, path in self.names.items()}


def number(value) -> float:
    """A param's value in a budget: a whole number itself, a die its mean."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    from sim.dice import parse_dice
    return float(parse_dice(str(value)).mean)


def short_names(params: list[str]) -> dict:
    """param path -> the name it goes by in words and budgets: its last path segment,
    or the whole path when another param ends the same way."""
    from sim.overrides import split_path
    last = {}
    for p in params:
        seg = split_path(p)[-1]
        last[p] = seg if isinstance(seg, str) else p
    return {p: (name if list(last.values()).count(name) == 1 else p) for p, name in last.items()}


def parse_budget(text: str | None, params: list[str]) -> Budget | None:
    if text is None or not str(text).strip():
        return None
    raw = str(text).strip()
    listed = ", ".join(f"{n if n.isidentifier() else p}" for p, n in short_names(params).items())
    if len(raw) > 400:
        raise ScenarioError(f"--budget is {len(raw)} characters long; a budget is one short comparison, "
                            f"{BUDGET_FORM}.")
    # Whole paths hold brackets and spaces: each becomes a plain name before ast reads it.
    names, expr = {}, raw
    for i, p in enumerate(sorted(params, key=len, reverse=True)):
        if p in expr:
            names[f"param_{i}_"] = p
            expr = expr.replace(p, f" param_{i}_ ")
    for p, name in short_names(params).items():
        if name.isidentifier():
            names.setdefault(name, p)
    try:
        tree = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        raise ScenarioError(f"--budget '{raw}' does not read as a comparison; {BUDGET_FORM}. Names: {listed}.") \
            from None
    if not isinstance(tree, ast.Compare) or len(tree.ops) != 1 or type(tree.ops[0]) not in _COMPARE:
        raise ScenarioError(f"--budget '{raw}' needs exactly one comparison (<=, <, >=, > or ==); {BUDGET_FORM}.")
    used = set()
    for node in ast.walk(tree):
        _check_node(raw, node, names, used, listed, params)
    if not used:
        raise ScenarioError(f"--budget '{raw}' names no --param; it must weigh the params searched: {listed}.")
    return Budget(raw, tree, {n: names[n] for n in used})


def _check_node(raw, node, names, used, listed, params) -> None:
    if isinstance(node, ast.Name):
        if node.id not in names:
            ambiguous = [p for p, n in short_names(params).items() if n == p and p.endswith(node.id)]
            hint = (f" Two params end in '{node.id}': write the whole path ({', '.join(ambiguous)})."
                    if ambiguous else closest(node.id, [n for n in names if not n.startswith("param_")]))
            raise ScenarioError(f"--budget '{raw}': '{node.id}' is not a --param.{hint} Names: {listed}.")
        used.add(node.id)
        return
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ScenarioError(f"--budget '{raw}': {node.value!r} is not a number; {BUDGET_FORM}.")
        return
    allowed = (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Load, ast.USub, ast.UAdd, *_OPS, *_COMPARE)
    if not isinstance(node, allowed):
        raise ScenarioError(f"--budget '{raw}' may hold only the params' names ({listed}), numbers, + - * and "
                            f"one comparison; '{type(node).__name__.lower()}' is none of these. {BUDGET_FORM}.")


def _eval(node, nums: dict) -> float:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return nums[node.id]
    if isinstance(node, ast.UnaryOp):
        x = _eval(node.operand, nums)
        return -x if isinstance(node.op, ast.USub) else x
    return _OPS[type(node.op)](_eval(node.left, nums), _eval(node.right, nums))


# ---- words ---------------------------------------------------------------------------------------------------------

def estimate_words(target: Target, est: float, lo: float, hi: float) -> str:
    """A measure with its interval as a sentence says it: "party 60.4% [59.1 .. 61.6]"."""
    share = f"{est:.1%} [{100 * lo:.1f} .. {100 * hi:.1f}]"
    return {
        "win_rate": lambda: f"{target.side} {share}",
        "any_death": lambda: f"a death on {target.side} in {share} of fights",
        "any_down": lambda: f"{target.side} losing someone (dead or down) in {share} of fights",
        "deaths.mean": lambda: f"{est:.2f} [{lo:.2f} .. {hi:.2f}] {target.side} deaths a fight",
        "rounds.median": lambda: f"a median fight of {est:g} rounds [{lo:g} .. {hi:g}]",
        "rounds.mean": lambda: f"fights of {est:.2f} rounds on average [{lo:.2f} .. {hi:.2f}]",
    }[target.measure]()


def gap_words(target: Target, est: float) -> str:
    """How far the estimate lies from the band: "2.1 points", "1 round"."""
    gap = target.outside(est)
    if target.kind == "share":
        return f"{100 * gap:.1f} points"
    if target.kind == "rounds":
        return f"{gap:.2g} round{'' if gap == 1 else 's'}"
    return f"{gap:.2f} deaths a fight"
