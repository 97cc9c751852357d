"""Helpers for the Gods & Monsters situation tests: tiny scenarios, exact-probability checks,
and fights started from a hand-set state (the kernel's `start=`)."""
from __future__ import annotations

import math

import numpy as np

import sim
from sim.rulesets.gods_and_monsters.play import initial_state
from sim.scenario import load_scenario

N = 20000


def fighter(name, **kw) -> dict:
    """A combatant who never falls in a short test and whose club does no damage."""
    base = {"name": name, "survival": 1000, "fortitude": 10, "evasion": 10, "agility": 10, "defense": 0,
            "weapons": [{"name": "club", "damage": 0}]}
    base.update(kw)
    return base


def scenario(a: list, b: list, rules=None, pa=None, pb=None, battlefield=None) -> dict:
    data = {"name": "test", "ruleset": "gods_and_monsters", "rules": rules or {},
            "sides": {"a": {"policy": pa or {}, "combatants": a}, "b": {"policy": pb or {}, "combatants": b}}}
    if battlefield:
        data["battlefield"] = battlefield
    return data


def run(data, rounds=1, n=N, seed=1):
    """The combatants table, one row per (skirmish, combatant), indexed by name."""
    cb = sim.run(data, n=n, seed=seed, max_rounds=rounds).combatants
    return {name: g.reset_index(drop=True) for name, g in cb.groupby("combatant", observed=True)}


def setup_of(data):
    scen = load_scenario(data)
    return scen.ruleset, scen.ruleset.build(scen)


def play_from(data, rounds=1, n=N, seed=1, **carried):
    """Play n skirmishes from a fresh start (nobody surprised) with the `carried` keys of
    `start=` replaced (one row per key, given per combatant / slot / spell); the outcome's
    columns per combatant name, each an array over the skirmishes."""
    ruleset, setup = setup_of(data)
    start = initial_state(setup, n)
    start.update(carried)
    out = ruleset.play(setup, seed, 0, n, rounds, start=start)
    return {name: {k: v[:, i] for k, v in out.per_combatant.items()} for i, name in enumerate(setup.names)}


def trace_from(data, skirmish, rounds=1, seed=1, **carried) -> list[str]:
    """The trace lines of one skirmish played from the same start as play_from."""
    ruleset, setup = setup_of(data)
    start = initial_state(setup, 1)
    start.update(carried)
    return ruleset.trace(setup, seed, skirmish, rounds, start=start)[1]


def assert_rate(observed, p: float, n: int | None = None) -> None:
    """A share within 4 standard errors of the exact probability p."""
    obs = np.asarray(observed, dtype=float)
    if obs.ndim == 0:
        rate = float(obs)  # a share already computed over n trials
    else:
        rate, n = obs.mean(), n or obs.size
    tol = 4 * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12
    assert abs(rate - p) <= tol, f"rate {rate:.4f}, expected {p:.4f} +- {tol:.4f}"
