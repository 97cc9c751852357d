"""Scripted policies as an instruction table that a compiled kernel evaluates.

`sim.policy` parses a rule's condition (and refuses anything but numbers, observation
names, arithmetic, comparisons and and/or/not). Here the same syntax tree becomes a
short postfix program over a stack of floats, and every combatant's rules are laid
end to end in flat arrays, so one kernel evaluates any scenario's rules without Python
objects: the kernel fills the deciding combatant's observations (only those its rules
read, see `PolicyTable.reads`) and asks `first_rule` which rule holds.

Values follow NumPy's semantics, which the batch evaluation of `sim.policy` uses: a
comparison or a logical operation gives 0 or 1, a number is true when it is not 0
(NaN included), and division by zero gives inf or NaN rather than an error.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.errors import ScenarioError
from sim.jit import once

(OP_CONST, OP_OBS, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_NEG,
 OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR, OP_NOT) = range(18)

_BINARY = {ast.Add: OP_ADD, ast.Sub: OP_SUB, ast.Mult: OP_MUL, ast.Div: OP_DIV, ast.FloorDiv: OP_FLOORDIV,
           ast.Mod: OP_MOD}
_COMPARE = {ast.Lt: OP_LT, ast.LtE: OP_LE, ast.Gt: OP_GT, ast.GtE: OP_GE, ast.Eq: OP_EQ, ast.NotEq: OP_NE}


@dataclass
class PolicyTable:
    """Every scripted rule of a scenario, combatant by combatant, as flat arrays.

    Rules of combatant c are rule_first[c] .. rule_first[c + 1] - 1, in the order written;
    rule r's program is op / arg[rule_code[r] : rule_code[r + 1]]. `arg` is an observation
    index for OP_OBS and a constant index for OP_CONST. `reads[c, o]` says whether any
    rule of c reads observation o, so the kernel computes nothing else.
    """
    op: np.ndarray  # (P,) int32
    arg: np.ndarray  # (P,) int32
    const: np.ndarray  # (K,) float64
    rule_code: np.ndarray  # (R + 1,) int32
    rule_action: np.ndarray  # (R,) int32
    rule_target: np.ndarray  # (R,) int32, -1: keep the family's target
    rule_first: np.ndarray  # (C + 1,) int32
    reads: np.ndarray  # (C, O) bool
    stack_size: int

    def arrays(self) -> tuple:
        return (self.op, self.arg, self.const, self.rule_code, self.rule_action, self.rule_target,
                self.rule_first)


def compile_program(text, index: dict[str, int], ops: list, consts: list) -> int:
    """Append the postfix program of one condition to `ops`; returns the stack depth it needs.

    `index` maps every observation name (and alias) a condition may use to its column.
    The condition was validated by sim.policy.compile_condition, so only allowed nodes occur.
    """
    if isinstance(text, bool):
        return _emit(ast.Constant(text), index, ops, consts)
    return _emit(ast.parse(str(text).strip(), mode="eval").body, index, ops, consts)


def _const(value: float, ops: list, consts: list) -> int:
    consts.append(float(value))
    ops.append((OP_CONST, len(consts) - 1))
    return 1


def _emit(node, index, ops, consts) -> int:
    if isinstance(node, ast.BoolOp):
        depth = _emit(node.values[0], index, ops, consts)
        code = OP_AND if isinstance(node.op, ast.And) else OP_OR
        for v in node.values[1:]:
            depth = max(depth, 1 + _emit(v, index, ops, consts))
            ops.append((code, 0))
        return depth
    if isinstance(node, ast.UnaryOp):
        depth = _emit(node.operand, index, ops, consts)
        ops.append((OP_NOT if isinstance(node.op, ast.Not) else OP_NEG, 0))
        return depth
    if isinstance(node, ast.BinOp):
        depth = max(_emit(node.left, index, ops, consts), 1 + _emit(node.right, index, ops, consts))
        ops.append((_BINARY[type(node.op)], 0))
        return depth
    if isinstance(node, ast.Compare):
        # a < b < c is (a < b) and (b < c); b is evaluated twice, which is harmless (no side effects).
        items = [node.left] + list(node.comparators)
        depth = 0
        for i, op in enumerate(node.ops):
            d = max(_emit(items[i], index, ops, consts), 1 + _emit(items[i + 1], index, ops, consts))
            ops.append((_COMPARE[type(op)], 0))
            if i:
                ops.append((OP_AND, 0))
                d += 1
            depth = max(depth, d)
        return depth
    if isinstance(node, ast.Constant):
        return _const(float(node.value), ops, consts)
    if isinstance(node, ast.Name):
        lowered = {"true": 1.0, "false": 0.0}
        if node.id.lower() in lowered:
            return _const(lowered[node.id.lower()], ops, consts)
        ops.append((OP_OBS, index[node.id]))
        return 1
    raise ScenarioError(f"'{ast.unparse(node)}' cannot be compiled for the kernel")  # validated earlier


def build_table(policies: list, observations: list[str], aliases: dict[str, str] | None = None) -> PolicyTable:
    """The table of every combatant's rules; `policies[c]` is a sim.policy.Policy."""
    aliases = aliases or {}
    index = {name: i for i, name in enumerate(observations)}
    index.update({alias: index[target] for alias, target in aliases.items() if target in index})
    ops: list = []
    consts: list = []
    rule_code, rule_action, rule_target, rule_first = [0], [], [], [0]
    reads = np.zeros((len(policies), len(observations)), dtype=bool)
    depth = 1
    for c, policy in enumerate(policies):
        for rule in policy.rules:
            start = len(ops)
            depth = max(depth, compile_program(rule.text, index, ops, consts))
            for code, arg in ops[start:]:
                if code == OP_OBS:
                    reads[c, arg] = True
            rule_code.append(len(ops))
            rule_action.append(rule.action)
            rule_target.append(rule.target)
        rule_first.append(len(rule_action))
    i32 = lambda xs: np.array(xs, dtype=np.int32)
    return PolicyTable(
        op=i32([o for o, _ in ops]) if ops else np.zeros(1, np.int32),
        arg=i32([a for _, a in ops]) if ops else np.zeros(1, np.int32),
        const=np.array(consts if consts else [0.0], dtype=np.float64),
        rule_code=i32(rule_code), rule_action=i32(rule_action or [0]), rule_target=i32(rule_target or [-1]),
        rule_first=i32(rule_first), reads=reads, stack_size=depth + 1)


@once
def _apply(code, a, b):
    if code == OP_ADD:
        return a + b
    if code == OP_SUB:
        return a - b
    if code == OP_MUL:
        return a * b
    if code == OP_DIV:
        if b == 0.0:
            return np.nan if a == 0.0 or a != a else np.copysign(np.inf, a) * np.copysign(1.0, b)
        return a / b
    if code == OP_FLOORDIV:
        if b == 0.0:
            return np.nan if a == 0.0 or a != a else np.copysign(np.inf, a) * np.copysign(1.0, b)
        return a // b
    if code == OP_MOD:
        if b == 0.0:
            return np.nan
        return a % b
    if code == OP_LT:
        return 1.0 if a < b else 0.0
    if code == OP_LE:
        return 1.0 if a <= b else 0.0
    if code == OP_GT:
        return 1.0 if a > b else 0.0
    if code == OP_GE:
        return 1.0 if a >= b else 0.0
    if code == OP_EQ:
        return 1.0 if a == b else 0.0
    if code == OP_NE:
        return 1.0 if a != b else 0.0
    if code == OP_AND:
        return 1.0 if (a != 0.0 and b != 0.0) else 0.0
    return 1.0 if (a != 0.0 or b != 0.0) else 0.0  # OP_OR


@once
def holds(op, arg, const, start, end, obs, stack):
    """Whether the program op/arg[start:end] is true for the observations `obs`."""
    top = 0
    for p in range(start, end):
        code = op[p]
        if code == OP_CONST:
            stack[top] = const[arg[p]]
            top += 1
        elif code == OP_OBS:
            stack[top] = obs[arg[p]]
            top += 1
        elif code == OP_NEG:
            stack[top - 1] = -stack[top - 1]
        elif code == OP_NOT:
            stack[top - 1] = 1.0 if stack[top - 1] == 0.0 else 0.0
        else:
            stack[top - 2] = _apply(code, stack[top - 2], stack[top - 1])
            top -= 1
    return stack[0] != 0.0


@once
def first_rule(op, arg, const, rule_code, rule_first, c, obs, stack):
    """The index of combatant c's first rule whose condition holds, or -1."""
    for r in range(rule_first[c], rule_first[c + 1]):
        if holds(op, arg, const, rule_code[r], rule_code[r + 1], obs, stack):
            return r
    return -1


@njit(cache=True, nogil=True)
def evaluate(op, arg, const, rule_code, rule_first, c, obs_rows, stack):
    """first_rule for each row of obs_rows (n, O): for tests against sim.policy."""
    out = np.empty(obs_rows.shape[0], dtype=np.int64)
    for i in range(obs_rows.shape[0]):
        out[i] = first_rule(op, arg, const, rule_code, rule_first, c, obs_rows[i], stack)
    return out
