"""The compiled Gods & Monsters kernel: keyed results, traces, carried-in state, stalls, the fixes."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import sim
from sim import runner
from sim.rulesets.base import DEAD, STANDING

YETI = "scenarios/gods_and_monsters/yeti.yaml"


def duel(a: dict, b: dict, **rules) -> dict:
    base = {"survival": 100, "fortitude": 10, "weapons": [{"name": "club", "damage": 1}]}
    return {"name": "duel", "ruleset": "gods_and_monsters", "rules": rules, "sides": {
        "a": {"combatants": [{**base, "name": "A", **a}]}, "b": {"combatants": [{**base, "name": "B", **b}]}}}


def test_round_one_roll_to_stay_conscious_has_no_surprise_penalty():
    # A always hits for 3; B (survival 3, Fortitude 5, surprised: Perception -20) rolls d20 <= 5
    # in round 1 ("in subsequent rounds" the -3 applies), so falls with 15/20, not 18/20.
    data = duel({"combat": 9, "weapons": [{"name": "club", "damage": 3}]},
                {"combat": -20, "survival": 3, "fortitude": 5, "awareness": "unaware", "perception": -20})
    r = sim.run(data, n=20000, seed=4, max_rounds=1)
    b = r.combatants[r.combatants["combatant"] == "B"]
    down = (b["final_state"].astype(str) == "unconscious").mean()
    assert abs(down - 15 / 20) <= 4 * (0.75 * 0.25 / 20000) ** 0.5


def test_results_do_not_depend_on_jobs_or_chunk_size(monkeypatch):
    one = sim.run(YETI, n=2500, seed=9)
    two = sim.run(YETI, n=2500, seed=9, jobs=2)
    monkeypatch.setattr(runner, "CHUNK_SIZE", 700)
    small = sim.run(YETI, n=2500, seed=9)
    for other in (two, small):
        pd.testing.assert_frame_equal(one.combatants, other.combatants)
        pd.testing.assert_frame_equal(one.skirmishes, other.skirmishes)


def test_skirmish_k_is_the_same_fight_in_a_short_and_a_long_run():
    short = sim.run(YETI, n=1000, seed=2).combatants
    long = sim.run(YETI, n=40000, seed=2).combatants
    pd.testing.assert_frame_equal(short, long.iloc[: len(short)].reset_index(drop=True))


def test_a_trace_replays_skirmish_k_of_the_run():
    r = sim.run(YETI, n=40, seed=5)
    text = sim.trace(YETI, seed=5, skirmish=17, n=40)
    cb = r.combatants[r.combatants["skirmish"] == 17]
    for _, row in cb.iterrows():
        assert f"  {row['combatant']}: {row['final_state']}, dealt {row['damage_dealt']}, took " \
               f"{row['damage_taken']}" in text
    assert "--- Round 1 ---" in text and "attacks Yeti with" in text


def test_a_trace_says_why_a_combatant_flees():
    data = duel({"combat": 9, "weapons": [{"name": "club", "damage": 30}]},
                {"survival": 100, "combat": -20}, )
    data["sides"]["b"]["policy"] = {"flee_below": 0.9}
    text = sim.trace(data, seed=1, skirmish=0, n=1)
    assert "B flees the fight (health below flee_below 90%)." in text


def test_the_trace_is_the_same_with_and_without_jit():
    code = ("import sim; print(sim.trace('scenarios/gods_and_monsters/grappling_brute.yaml', seed=3, "
            "skirmish=2, n=5, max_rounds=6))")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    jit = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**env, "NUMBA_DISABLE_JIT": "1"}).stdout
    assert jit == plain and "--- Round 1 ---" in jit


def test_a_skirmish_starts_from_carried_in_state():
    scen = sim.load_scenario(duel({}, {}))
    setup = scen.ruleset.build(scen)
    n = 50
    start = {"verve": np.zeros((n, 2)), "survival": np.full((n, 2), 7), "injuries": np.full((n, 2), 2),
             "status": np.tile([STANDING, DEAD], (n, 1)), "surprised": np.zeros((n, 2))}
    out = scen.ruleset.play(setup, 1, 0, n, 10, start=start)
    assert (out.winner == 0).all() and (out.rounds == 1).all()
    assert (out.per_combatant["final_state"][:, 1] == DEAD).all()
    assert (out.per_combatant["injuries"] == 2).all()
    assert (out.per_combatant["survival_left"][:, 1] == 7).all()  # nobody strikes the dead
    fresh = scen.ruleset.play(setup, 1, 0, n, 10)
    assert (fresh.per_combatant["survival_left"] <= 100).all() and (fresh.rounds > 1).all()


def test_a_stalemate_stops_after_500_unchanged_rounds():
    data = duel({"combat": -20, "attack": -20}, {"combat": -20, "attack": -20})  # nobody can hit
    r = sim.run(data, n=20, seed=1, max_rounds=1_000_000)
    assert (r.skirmishes["winner"] == "unfinished").all()
    assert r.meta["stalled_skirmishes"] == 20 and (r.skirmishes["rounds"] <= 600).all()


def test_the_json_summary_keeps_its_contract():
    out = subprocess.run([sys.executable, "-m", "sim.cli", "run", YETI, "-n", "300", "--json"],
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    s = json.loads(out.stdout)
    assert set(s["sides"]) == {"party", "yeti"} and {"draw_rate", "rounds", "combatants"} <= set(s)
    assert {"attacks", "hits", "damage_dealt", "down_rate", "fled_rate"} <= set(s["combatants"][0])


@pytest.mark.parametrize("flag", ["sleepers_immobile", "surprised_are_unaware"])
def test_the_text_readings_are_the_defaults(flag):
    from sim.rulesets.gods_and_monsters.schema import RULE_OPTIONS
    assert RULE_OPTIONS[flag].default is True
