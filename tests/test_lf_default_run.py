"""Lifeforce's default play Runs only when Running lands the attack sooner (issue 27): a
runner arrives with its 2 AP attack still to prepare, a walker brings it prepared."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

import sim
from sim.library import resolve
from sim.rulesets.lifeforce import kdecide as P
from sim.rulesets.lifeforce import layout as L
from sim.scenario import read_yaml
from tests.test_lf_duel import _both_paths, _edit, _setup

N = 4000


def _stripped(name: str) -> dict:
    """A shipped scenario with every policy removed: every side plays the default."""
    p = Path(f"scenarios/lifeforce/{name}.yaml")
    d = resolve(read_yaml(p), p.parent, str(p))
    for side in d["sides"].values():
        side.pop("policy", None)
        for c in side["combatants"]:
            c.pop("policy", None)
    return d


def _axemen(policy: dict | None) -> tuple[float, float]:
    d = _stripped("shield_wall")
    if policy is not None:
        d["sides"]["axemen"]["policy"] = policy
    w = float((sim.run(d, n=N, seed=21).skirmishes["winner"] == "axemen").mean())
    return w, np.sqrt(w * (1 - w) / N)


def _splits(a: int, b: int) -> np.ndarray:
    K = np.zeros((2, L.NK), dtype=np.int64)
    K[0, L.K_SPLIT0:L.K_SPLIT0 + 4] = a
    K[1, L.K_SPLIT0:L.K_SPLIT0 + 4] = b
    return K


@pytest.mark.parametrize("gap, after, cap, pays", [
    (7, True, 0, False),   # walk 3+3+3 = 9 reaches in two phases; a run too: a tie walks
    (10, True, 0, True),   # walk 9 short at the second phase; run 6+3+3 = 12 reaches
    (10, True, 6, False),  # the enemy's 3 a phase: walk 6 + 3 reaches at the first
    (13, False, 1, True),  # it stops 1 square on: walk 9+1 short, run 12+1 reaches
])
def test_run_pays_counts_phases_exactly(gap, after, cap, pays):
    assert P.run_pays(_splits(3, 3), 0, 1, 0, gap, after, cap) == pays


def test_turns_to_close_starts_with_the_next_turn():
    K = _splits(3, 2)
    assert P.turns_to_close(K, 1, 0, True, 0) == 0
    assert P.turns_to_close(K, 1, 0, True, 4) == 2
    assert P.turns_to_close(K, 1, 0, False, 5) == 3


def test_default_axemen_do_as_well_as_never_running():
    base, se = _axemen(None)
    never, se_never = _axemen({"run": False})
    old, se_old = _axemen({"family": "steady"})  # the two-phase Run: the default before, 10.4%
    assert base >= never - 4 * np.hypot(se, se_never)
    assert base > old + 4 * np.hypot(se, se_old) + 0.15


def test_a_written_run_true_still_runs():
    d = _stripped("shield_wall")
    d["sides"]["axemen"]["policy"] = {"run": True}
    assert "Axeman 1 declares run." in sim.trace(d, skirmish=0, n=1)
    assert "declares run" not in sim.trace(_stripped("shield_wall"), skirmish=0, n=1)


def test_a_written_family_keeps_the_two_phase_run():
    raw = _edit("duel", battlefield={"start_distance": 20})
    written = sim.run(copy.deepcopy(raw), n=1000, seed=3).skirmishes
    raw2 = copy.deepcopy(raw)
    for side in raw2["sides"].values():
        side["policy"]["run"] = True
    np.testing.assert_array_equal(written["rounds"], sim.run(raw2, n=1000, seed=3).skirmishes["rounds"])


AOO = {"reactions": ["attack_of_opportunity"]}


def _default_duel(red=None, blue=None, policy=None, distance=20) -> dict:
    raw = _edit("duel", battlefield={"start_distance": distance}, red=red, blue=blue, policy=policy)
    for side in raw["sides"].values():
        side["policy"].pop("family")
    return raw


@pytest.mark.parametrize("shield", [False, True])
def test_the_duel_path_plays_the_default_run_as_the_general_round(shield):
    # Attacks of Opportunity on both sides: the default play does not Charge into them,
    # so the fused loop (which has no Charge) plays it.
    red = {**AOO, "shield": "d6", "reactions": ["shield_block", "attack_of_opportunity"]} if shield else AOO
    _both_paths(_setup(_default_duel(red=red, blue=red, policy={"answer_threats": True} if shield else None)),
                n=1500)


def test_the_default_charges_where_no_attack_of_opportunity_waits():
    raw = _default_duel(distance=6)
    assert not _setup(raw).duel  # it may Charge: the general round plays it
    assert "declares charge" in sim.trace(copy.deepcopy(raw), skirmish=0, n=1)
    guarded = _default_duel(red=AOO, blue=AOO, distance=6)
    assert "declares charge" not in sim.trace(guarded, skirmish=0, n=1)


def test_the_default_charges_past_the_fixed_steady_style_in_the_duel():
    raw = _default_duel(distance=6)
    base = float((sim.run(copy.deepcopy(raw), n=N, seed=7).skirmishes["winner"] == "red").mean())
    raw["sides"]["red"]["policy"]["family"] = "steady"  # the fixed style: walks, never charges
    fixed = float((sim.run(raw, n=N, seed=7).skirmishes["winner"] == "red").mean())
    se = np.sqrt(0.25 / N) * np.sqrt(2)
    assert abs(base - 0.5) < 4 * np.sqrt(0.25 / N)  # symmetric: both default
    assert base > fixed + 4 * se  # charging is worth about 5 points against walking in


def _lone_bearer(answer: bool) -> dict:
    """A shield bearer beside a 1 hp axeman it may fell at once, with a second axeman
    walking in from 23 m: once the first falls its Reaction may be spent while the only
    declared attack is still phases away, the one case `answer_threats` is in time for."""
    ax = {"hp": 30, "reaction": 40, "movement": 12, "dodge": 15, "reflex": 15, "armor": 2, "strength": 50,
          "reactions": [], "weapons": [{"name": "axe", "skill": 25, "damage": "d10", "damage_type": "slashing"}]}
    bearer = {"name": "Bearer", "hp": 44, "reaction": 25, "movement": 10, "dodge": 30, "reflex": 15, "armor": 4,
              "strength": 40, "shield": "d8", "reactions": ["shield_block"], "position": [11, 2],
              "weapons": [{"name": "short sword", "skill": 25, "damage": "d6", "damage_type": "slashing"}]}
    return {"name": "answer", "ruleset": "lifeforce", "battlefield": {"start_distance": 1, "width": 40, "height": 5},
            "sides": {"axes": {"policy": {"family": "steady", "run": False, "stunts": "none"},
                               "combatants": [{**ax, "name": "Near", "hp": 1, "armor": 0, "position": [10, 2]},
                                              {**ax, "name": "Far", "position": [34, 2]}]},
                      "wall": {"policy": {"family": "guardian", "use_reaction": "shield_block",
                                          "answer_threats": answer, "stunts": "none"}, "combatants": [bearer]}},
            "run": {"skirmishes": 60, "seed": 1, "max_rounds": 30}}


def test_answer_threats_readies_a_block_against_an_attacker_still_coming():
    def answered(answer):
        return sum("Bearer declares block" in sim.trace(_lone_bearer(answer), skirmish=k, n=30) for k in range(30))
    assert answered(False) == 0
    assert answered(True) >= 3  # P(block, then fell the 1 hp axeman, in phase 2) is about 0.2

