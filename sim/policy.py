"""One policy interface and one scripted-policy language for every ruleset.

A policy is written in the scenario under a side (or a combatant, which overrides its
side's). It has a built-in family with parameters (declared by the ruleset) and an
optional ordered list of if-then rules:

    policy:
      target: weakest
      rules:
        - if: "health < 0.3 and enemies_standing > 1"
          do: flee
        - if: "round == 1"
          do: attack
          target: strongest

Conditions are expressions over the observations a ruleset exposes (each an array
with one value per skirmish for the deciding combatant); `do` names one of the
ruleset's actions and `target` one of the targeting modes. The first rule whose
condition holds decides; where none holds the family's own choice stands. Everything
is evaluated with NumPy over the whole batch at once.
"""
from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

import numpy as np

from sim.errors import ScenarioError, closest
from sim.schema import Field

TARGET_MODES = ("random", "weakest", "strongest", "focus", "nearest")

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne}


# Rules of one policy: each is evaluated for every decision, so thousands of them make a
# run crawl (20,000 took 1.9 s for 200 skirmishes) long before any real policy needs them.
MAX_RULES = 200
# Bounds on one condition, so compiling and evaluating it stays shallow and quick.
MAX_CONDITION_CHARS, MAX_CONDITION_TERMS, MAX_CONDITION_DEPTH = 1000, 200, 30


def _check_condition_size(tree: ast.AST, path: str) -> None:
    stack, terms = [(tree, 0)], 0
    while stack:  # iterative: a recursive walk is what a deep condition would overflow
        node, depth = stack.pop()
        terms += 1
        if terms > MAX_CONDITION_TERMS or depth > MAX_CONDITION_DEPTH:
            raise ScenarioError(f"the condition is too large (more than {MAX_CONDITION_TERMS} terms or "
                                f"{MAX_CONDITION_DEPTH} levels of nesting); split it over several rules.",
                                path=path)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


# The largest number a condition may hold: the kernels evaluate conditions in float64,
# exact for integers to 2**53, and no observation comes near either.
MAX_CONDITION_NUMBER = 10 ** 15


def _check_number(value, text: str, path: str) -> None:
    if isinstance(value, bool):
        return
    if abs(value) > MAX_CONDITION_NUMBER or not math.isfinite(value):  # abs first: a 400-digit int is no float
        shown = str(value) if len(str(value)) <= 24 else f"a number of {len(str(value))} digits"
        raise ScenarioError(f"'{text[:80]}{'...' if len(text) > 80 else ''}': {shown} is out of range; a "
                            f"number in a condition is at most {MAX_CONDITION_NUMBER:.0e} in size.", path=path)


def compile_condition(text: str, names: dict[str, str], path: str,
                      aliases: dict[str, str] | None = None) -> Callable[[dict], np.ndarray]:
    """Compile a condition into a function of an observation dict.

    `names` maps each allowed observation to its description, for error messages;
    `aliases` maps an old name to the observation it now reads (see sim/vocabulary.py).
    Only arithmetic, comparisons, and/or/not, numbers, true/false and those names are
    allowed, so a scenario file can never run arbitrary code.
    """
    if isinstance(text, bool):
        return lambda obs, v=text: np.full(_batch_len(obs), v)
    if not isinstance(text, str) or not text.strip():
        raise ScenarioError("expected a condition such as \"health < 0.5 and round > 1\".", path=path)
    if len(text) > MAX_CONDITION_CHARS:
        raise ScenarioError(f"the condition is {len(text)} characters long; keep it under "
                            f"{MAX_CONDITION_CHARS} (split it over several rules).", path=path)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        raise ScenarioError(f"'{text}' is not a valid condition; write comparisons joined by "
                            "and/or/not, e.g. \"health < 0.5 and round > 1\".", path=path) from None
    _check_condition_size(tree, path)

    def build(node) -> Callable[[dict], object]:
        if isinstance(node, ast.Expression):
            return build(node.body)
        if isinstance(node, ast.BoolOp):
            parts = [build(v) for v in node.values]
            combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
            def f(obs, parts=parts, combine=combine):
                out = np.asarray(parts[0](obs), dtype=bool)
                for p in parts[1:]:
                    out = combine(out, p(obs))
                return out
            return f
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = build(node.operand)
            return lambda obs: np.logical_not(inner(obs))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = build(node.operand)
            return lambda obs: -np.asarray(inner(obs), dtype=float)  # -(a < b) is -1 or 0, not an error
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right, op = build(node.left), build(node.right), _BINOPS[type(node.op)]
            return lambda obs: op(np.asarray(left(obs), dtype=float), right(obs))
        if isinstance(node, ast.Compare):
            items = [build(node.left)] + [build(c) for c in node.comparators]
            ops = [_CMPOPS.get(type(o)) for o in node.ops]
            if None in ops:
                raise ScenarioError(f"'{text}': only <, <=, >, >=, ==, != compare values.", path=path)
            def f(obs, items=items, ops=ops):
                vals = [it(obs) for it in items]
                out = ops[0](vals[0], vals[1])
                for i in range(1, len(ops)):
                    out = np.logical_and(out, ops[i](vals[i], vals[i + 1]))
                return out
            return f
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
            _check_number(node.value, text, path)
            return lambda obs, v=node.value: v
        if isinstance(node, ast.Name):
            lowered = {"true": True, "false": False}
            if node.id.lower() in lowered:
                value = lowered[node.id.lower()]
                return lambda obs, v=value: v
            if node.id in aliases:
                return lambda obs, key=aliases[node.id]: obs[key]
            if node.id not in names:
                raise ScenarioError(
                    f"'{text}' uses '{node.id}', which this ruleset does not expose.{closest(node.id, names)} "
                    f"Allowed: {', '.join(sorted(names))}.", path=path)
            return lambda obs, key=node.id: obs[key]
        raise ScenarioError(f"'{text}': '{ast.unparse(node)}' is not allowed in a condition; use "
                            "numbers, observation names, arithmetic, comparisons and and/or/not.", path=path)

    aliases = aliases or {}
    fn = build(tree)
    return lambda obs: np.broadcast_to(np.asarray(fn(obs), dtype=bool), (_batch_len(obs),))


def _batch_len(obs: dict) -> int:
    return len(obs["round"])


class LazyObservations(Mapping):
    """Observations made when a condition first reads them.

    A ruleset names how to compute each one; a rule that tests `health` alone then pays
    nothing for distances to every enemy, which dominated scenarios with many scripted
    combatants when all observations were computed for each of them every round.
    """

    def __init__(self, makers: dict[str, Callable[[], np.ndarray]]):
        self._makers = makers
        self._made: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._made:
            self._made[key] = self._makers[key]()
        return self._made[key]

    def __iter__(self):
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


@dataclass
class Rule:
    condition: Callable[[dict], np.ndarray]
    action: int
    target: int  # index into TARGET_MODES, or -1 to keep the family's target
    text: str


@dataclass
class Policy:
    """A compiled policy for one combatant."""
    target: int
    params: dict
    rules: list[Rule]

    def decide(self, obs: dict, default_action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Action and target mode per skirmish: first matching rule, else the family's."""
        n = len(default_action)
        action = default_action.copy()
        target = np.full(n, self.target, dtype=np.int8)
        if not self.rules:
            return action, target
        undecided = np.ones(n, dtype=bool)
        for rule in self.rules:
            hit = rule.condition(obs) & undecided
            action[hit] = rule.action
            if rule.target >= 0:
                target[hit] = rule.target
            undecided &= ~hit
        return action, target


def policy_schema(family_fields: dict[str, Field]) -> dict[str, Field]:
    """The fields a policy block accepts: shared ones plus the ruleset's family parameters."""
    shared = {
        "target": Field("choice", "random", "how each attack picks its target: random among enemies able "
                        "to fight, weakest (least health left), strongest (most health left), focus (the "
                        "whole side sticks to one target until it falls)", choices=TARGET_MODES),
        "rules": Field("list", [], "ordered if-then rules; the first whose `if` holds decides",
                       item=Field("record", fields={
                           "if": Field("any", True, "condition over the ruleset's observations"),
                           "do": Field("str", doc="one of the ruleset's actions"),
                           "target": Field("choice", None, "targeting mode for this action",
                                           choices=TARGET_MODES + (None,)),
                       }), max_items=MAX_RULES),
    }
    return {**shared, **family_fields}


def compile_policy(spec: dict, actions: tuple[str, ...], observations: dict[str, str], path: str,
                   observation_aliases: dict[str, str] | None = None,
                   action_aliases: dict[str, str] | None = None,
                   target_modes: tuple[str, ...] = TARGET_MODES) -> Policy:
    """A policy from its validated spec; old names in `*_aliases` read as their new ones.

    `target_modes`: the modes the ruleset plays. A mode outside them is refused here, at
    load time, rather than played as something else (a ruleset without the side focus
    would otherwise play `focus` as random without a word).
    """
    rules = []
    action_aliases = action_aliases or {}
    _check_mode(spec.get("target"), target_modes, f"{path}.target")
    for i, r in enumerate(spec.get("rules", [])):
        rpath = f"{path}.rules[{i}]"
        r = {**r, "do": action_aliases.get(r["do"], r["do"])}
        if r["do"] not in actions:
            raise ScenarioError(f"unknown action '{r['do']}'.{closest(r['do'], actions)} "
                                f"Allowed: {', '.join(actions)}.", path=f"{rpath}.do")
        _check_mode(r.get("target"), target_modes, f"{rpath}.target")
        cond = compile_condition(r["if"], observations, f"{rpath}.if", observation_aliases)
        tgt = TARGET_MODES.index(r["target"]) if r.get("target") else -1
        rules.append(Rule(cond, actions.index(r["do"]), tgt, str(r["if"])))
    params = {k: v for k, v in spec.items() if k not in ("target", "rules")}
    return Policy(TARGET_MODES.index(spec["target"]), params, rules)


def _check_mode(mode, supported: tuple[str, ...], path: str) -> None:
    if mode is not None and mode not in supported:
        raise ScenarioError(f"this ruleset does not play the targeting mode '{mode}'; it plays "
                            f"{', '.join(supported)}. Choose one of those.", path=path)


def keep_focus(focus: np.ndarray, enemies: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """A side's focus target, (n,): kept while it is still among `enemies`, else a new one.

    focus (n,): the side's focus column or -1; enemies (n, C): whom the side may focus
    (its enemies able to fight); noise (n, C): uniforms. The new focus is the enemy with
    the largest noise (first column on ties), the very pick `choose_targets` makes in
    random mode from the same noise, so a ruleset that adopts its first random pick as
    the focus and one that draws the focus up front agree. -1 where no enemy is left.
    The one implementation of the side focus for every NumPy ruleset.
    """
    cur = np.asarray(focus)
    ok = (cur >= 0) & np.take_along_axis(enemies, np.maximum(cur, 0)[:, None].astype(np.intp), axis=1)[:, 0]
    if ok.all():
        return cur
    fresh, best = _first_best(enemies[:, None, :], lambda j: noise[:, None, j], enemies.shape[1], lower=False,
                              fill=-1.0)
    # Noise is >= 0, so a best score of -1 means no enemy is left to focus.
    return np.where(ok, cur, np.where(best[:, 0] >= 0, fresh[:, 0], -1)).astype(cur.dtype, copy=False)


def choose_targets(modes: np.ndarray, candidates: np.ndarray, health: np.ndarray,
                   focus: np.ndarray | None, noise: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
    """Pick a target column per attack slot, vectorised.

    modes: (n, slots) target mode codes; candidates: (n, slots, C) who may be attacked;
    health: (n, C) health left (weakest/strongest); focus: (n, slots) the side's focus
    target or -1 (see keep_focus); noise: (n, slots, C) uniforms for random choice and
    tie-breaks; distance: (n, slots, C) from the attacker, or None when every candidate is
    equally near (nothing is placed: everyone is engaged), where nearest picks at random.
    Returns (n, slots) target indices, -1 where no candidate exists.
    """
    if focus is None and (modes == 3).any():
        # A ruleset that keeps no side focus refuses `focus` at load time (compile_policy's
        # target_modes); reaching here is a ruleset bug, not a fight to play as random.
        raise ValueError("choose_targets: focus mode requested without the side's focus targets")
    # Random choice and tie-breaks share one draw so results do not depend on which
    # modes are in play (common random numbers across policy variants).
    c = candidates.shape[2]
    chosen, best = _first_best(candidates, lambda j: noise[..., j], c, lower=False, fill=-1.0)
    # Noise is >= 0, so a best score of -1 means there is no candidate at all.
    valid = best >= 0
    if (modes == 1).any() or (modes == 2).any():
        # noise < 1 only breaks ties between equal health
        h = lambda j: health[:, None, j] + noise[..., j] * 0.5
        weakest, _ = _first_best(candidates, h, c, lower=True, fill=np.inf)
        strongest, _ = _first_best(candidates, h, c, lower=False, fill=-np.inf)
        chosen = np.where(modes == 1, weakest, np.where(modes == 2, strongest, chosen))
    if distance is not None and (modes == 4).any():
        distance = np.broadcast_to(distance, candidates.shape)
        nearest, _ = _first_best(candidates, lambda j: distance[..., j] + noise[..., j] * 0.5, c, lower=True,
                                 fill=np.inf)
        chosen = np.where(modes == 4, nearest, chosen)
    if focus is not None and (modes == 3).any():
        ok = (focus >= 0) & np.take_along_axis(candidates, np.maximum(focus, 0)[..., None], axis=2)[..., 0]
        chosen = np.where((modes == 3) & ok, focus, chosen)
    return np.where(valid, chosen, -1).astype(np.intp, copy=False)


def _first_best(candidates: np.ndarray, column, c: int, lower: bool, fill: float):
    """argmin / argmax over the candidates of the last axis (non-candidates score `fill`),
    first index on ties, written as a loop over the few combatants: numpy reduces a
    short last axis slowly, and no (n, slots, C) score array is built.
    Returns the chosen column and its score."""
    best = np.where(candidates[..., 0], column(0), fill)
    small = np.int8 if c < 128 else np.intp  # less memory to pass over each column
    chosen = np.zeros(best.shape, dtype=small)
    keep = np.minimum if lower else np.maximum
    for j in range(1, c):
        v = np.where(candidates[..., j], column(j), fill)
        chosen = np.where((v < best) if lower else (v > best), small(j), chosen)
        keep(best, v, out=best)
    return chosen, best
