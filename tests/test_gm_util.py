"""Helpers for the Gods & Monsters situation tests: tiny scenarios and exact-probability checks."""
from __future__ import annotations

import math

import numpy as np

import sim
from sim.engine import Batch
from sim.runner import chunk_rng
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


def play(data, rounds, n=N, seed=1):
    """(setup, state) after `rounds` rounds of one batch, for looking at conditions directly."""
    scen = load_scenario(data)
    rs = scen.ruleset
    setup = rs.build(scen)
    batch = Batch(chunk_rng(seed, 0), n)
    state = rs.init(setup, batch)
    for r in range(1, rounds + 1):
        batch.round = r
        rs.step(setup, state, batch)
    return setup, state


def assert_rate(observed, p: float, n: int | None = None) -> None:
    """A share within 4 standard errors of the exact probability p."""
    obs = np.asarray(observed, dtype=float)
    if obs.ndim == 0:
        rate = float(obs)  # a share already computed over n trials
    else:
        rate, n = obs.mean(), n or obs.size
    tol = 4 * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12
    assert abs(rate - p) <= tol, f"rate {rate:.4f}, expected {p:.4f} +- {tol:.4f}"


def start(data, n=N, seed=1):
    """(setup, state, batch) right after init, for tests that set a condition by hand."""
    scen = load_scenario(data)
    setup = scen.ruleset.build(scen)
    batch = Batch(chunk_rng(seed, 0), n)
    return setup, scen.ruleset.init(setup, batch), batch


def advance(setup, state, batch, rnd) -> None:
    from sim.rulesets.gods_and_monsters import engine
    batch.round = rnd
    engine.step(setup, state, batch)
