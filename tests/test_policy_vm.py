"""The instruction table decides exactly as the NumPy evaluation of the same rules."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from sim.errors import ScenarioError
from sim.policy import compile_policy
from sim.policy_vm import build_table, evaluate

OBS = {"round": "", "health": "", "enemies_standing": "", "took_damage": ""}
VALUES = {"round": [1, 2, 3, 4], "health": [0.0, 0.1, 0.3, 0.5, 1.0], "enemies_standing": [0, 1, 2],
          "took_damage": [0, 1, 2, 5]}


def _random_expression(rng, depth=0) -> str:
    leaf = lambda: str(rng.choice(list(OBS) + ["0", "1", "0.3", "2", "true", "False", "-1"]))
    if depth > 3 or rng.random() < 0.25:
        return leaf()
    kind = rng.integers(6)
    a, b = _random_expression(rng, depth + 1), _random_expression(rng, depth + 1)
    if kind == 0:
        return f"({a} {rng.choice(['and', 'or'])} {b})"
    if kind == 1:
        return f"(not {a})"
    if kind == 2:
        return f"({a} {rng.choice(['+', '-', '*', '/', '//', '%'])} {b})"
    if kind == 3:
        return f"(-{a})" if a not in ("true", "False") else f"({a})"
    if kind == 4:
        c = _random_expression(rng, depth + 1)
        return f"({a} < {b} <= {c})"
    return f"({a} {rng.choice(['<', '<=', '>', '>=', '==', '!='])} {b})"


def _observations(n: int, rng) -> dict:
    return {k: rng.choice(v, n).astype(float) for k, v in VALUES.items()}


def _numpy_choice(policy, obs, n):
    chosen = np.full(n, -1)
    undecided = np.ones(n, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, rule in enumerate(policy.rules):
            hit = rule.condition(obs) & undecided
            chosen[hit] = i
            undecided &= ~hit
    return chosen


def _rules(texts):
    return {"target": "random", "rules": [{"if": t, "do": "attack", "target": None} for t in texts]}


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_decide_as_numpy_does(seed):
    rng = np.random.default_rng(seed)
    texts = [_random_expression(rng) for _ in range(4)]
    try:
        policy = compile_policy(_rules(texts), ("attack", "hold"), OBS, "p")
    except ScenarioError:
        pytest.skip("generated an expression the language refuses")
    table = build_table([policy], list(OBS))
    n = 3000
    obs = _observations(n, rng)
    rows = np.stack([obs[k] for k in OBS], axis=1)
    got = evaluate(table.op, table.arg, table.const, table.rule_code, table.rule_first, 0, rows,
                   np.zeros(table.stack_size))
    np.testing.assert_array_equal(got, _numpy_choice(policy, obs, n), err_msg=" | ".join(texts))


def test_edge_values_follow_numpy():
    texts = ["health / 0 > 100", "took_damage // 0 < -1", "round % 0 == round % 0", "0 / 0", "-health",
             "1 < round < 3", "not took_damage and true", "False or enemies_standing"]
    policy = compile_policy(_rules(texts), ("attack",), OBS, "p")
    table = build_table([policy], list(OBS))
    rng = np.random.default_rng(0)
    obs = _observations(500, rng)
    rows = np.stack([obs[k] for k in OBS], axis=1)
    for c in range(len(texts)):
        single = compile_policy(_rules([texts[c]]), ("attack",), OBS, "p")
        t1 = build_table([single], list(OBS))
        got = evaluate(t1.op, t1.arg, t1.const, t1.rule_code, t1.rule_first, 0, rows, np.zeros(t1.stack_size))
        np.testing.assert_array_equal(got, _numpy_choice(single, obs, 500), err_msg=texts[c])
    assert table.rule_first.tolist() == [0, len(texts)]


def test_each_combatant_has_its_own_rules_and_reads():
    a = compile_policy(_rules(["health < 0.5"]), ("attack",), OBS, "a")
    b = compile_policy({"target": "weakest", "rules": []}, ("attack",), OBS, "b")
    c = compile_policy(_rules(["round > 2", "enemies_standing == 1"]), ("attack",), OBS, "c")
    table = build_table([a, b, c], list(OBS))
    assert table.rule_first.tolist() == [0, 1, 1, 3]
    assert table.reads.tolist() == [[False, True, False, False], [False] * 4, [True, False, True, False]]
    row = np.array([[3.0, 0.2, 1.0, 0.0]])
    stack = np.zeros(table.stack_size)
    args = (table.op, table.arg, table.const, table.rule_code, table.rule_first)
    assert evaluate(*args, 0, row, stack).tolist() == [0]
    assert evaluate(*args, 1, row, stack).tolist() == [-1]
    assert evaluate(*args, 2, row, stack).tolist() == [1]


def test_aliases_read_the_canonical_observation():
    p = compile_policy(_rules(["nearest_enemy < 10"]), ("attack",), {**OBS, "nearest_enemy": ""}, "p")
    table = build_table([p], list(OBS) + ["distance"], aliases={"nearest_enemy": "distance"})
    assert table.reads[0].tolist() == [False, False, False, False, True]
