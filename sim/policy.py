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


def compile_condition(text: str, names: dict[str, str], path: str) -> Callable[[dict], np.ndarray]:
    """Compile a condition into a function of an observation dict.

    `names` maps each allowed observation to its description, for error messages.
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
            return lambda obs: -np.asarray(inner(obs))
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
            return lambda obs, v=node.value: v
        if isinstance(node, ast.Name):
            lowered = {"true": True, "false": False}
            if node.id.lower() in lowered:
                return lambda obs, v=lowered[node.id.lower()]: v
            if node.id not in names:
                raise ScenarioError(
                    f"'{text}' uses '{node.id}', which this ruleset does not expose.{closest(node.id, names)} "
                    f"Allowed: {', '.join(sorted(names))}.", path=path)
            return lambda obs, key=node.id: obs[key]
        raise ScenarioError(f"'{text}': '{ast.unparse(node)}' is not allowed in a condition; use "
                            "numbers, observation names, arithmetic, comparisons and and/or/not.", path=path)

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
                       })),
    }
    return {**shared, **family_fields}


def compile_policy(spec: dict, actions: tuple[str, ...], observations: dict[str, str], path: str) -> Policy:
    rules = []
    for i, r in enumerate(spec.get("rules", [])):
        rpath = f"{path}.rules[{i}]"
        if r["do"] not in actions:
            raise ScenarioError(f"unknown action '{r['do']}'.{closest(r['do'], actions)} "
                                f"Allowed: {', '.join(actions)}.", path=f"{rpath}.do")
        cond = compile_condition(r["if"], observations, f"{rpath}.if")
        tgt = TARGET_MODES.index(r["target"]) if r.get("target") else -1
        rules.append(Rule(cond, actions.index(r["do"]), tgt, str(r["if"])))
    params = {k: v for k, v in spec.items() if k not in ("target", "rules")}
    return Policy(TARGET_MODES.index(spec["target"]), params, rules)


def choose_targets(modes: np.ndarray, candidates: np.ndarray, health: np.ndarray,
                   focus: np.ndarray | None, noise: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
    """Pick a target column per attack slot, vectorised.

    modes: (n, slots) target mode codes; candidates: (n, slots, C) who may be attacked;
    health: (n, C) health left (weakest/strongest); focus: (n, slots) the side's focus
    target or -1; noise: (n, slots, C) uniforms for random choice and tie-breaks.
    Returns (n, slots) target indices, -1 where no candidate exists.
    """
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
