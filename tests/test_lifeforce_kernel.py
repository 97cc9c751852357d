"""The Lifeforce kernel: keyed and JIT-independent, the fixes of the port, competent default play."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import sim
from sim.rulesets.lifeforce.kplay import phase_cells
from tests.test_lifeforce_engine import duel, fighter


def _per(r, name):
    return r.combatants[r.combatants["combatant"] == name]


def _win(r, side):
    return float((r.skirmishes["winner"] == side).mean())


def _se(p, q, n):
    return np.sqrt(p * (1 - p) / n + q * (1 - q) / n)


def test_one_trace_is_the_same_with_and_without_jit():
    code = ("import sim; print(sim.trace('scenarios/lifeforce/grappler_vs_duellist.yaml', skirmish=3, n=10))")
    texts = []
    for jit_off in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit_off}
        texts.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                    env=env).stdout)
    assert texts[0] == texts[1] and "Grappling check" in texts[0]


def test_a_skirmish_is_the_same_fight_in_any_run():
    a = sim.run("scenarios/lifeforce/shield_wall.yaml", n=300, seed=5)
    b = sim.run("scenarios/lifeforce/shield_wall.yaml", n=40, seed=5)
    cols = ["skirmish", "combatant", "attacks", "hits", "damage_dealt", "shield_blocks"]
    assert a.combatants[a.combatants["skirmish"] < 40][cols].reset_index(drop=True).equals(
        b.combatants[cols].reset_index(drop=True))


def _held_duel(rules):
    wrestler = fighter("W", athletics=300, reaction=90)
    victim = fighter("D", hp=400)
    return duel(wrestler, victim, rules=rules, pa={"family": "grappler", "contest_grapple": "always"},
                pb={"family": "steady", "stunts": "none", "contest_grapple": "never",
                    "rules": [{"if": True, "do": "attack"}]})


def test_scripted_rules_do_not_lift_held_or_pinned():
    # Held from the wrestler's phase-2 check on; a creature that cannot begin physical
    # actions makes no attack however its rules insist (the NumPy engine let it make 4 in 2 rounds).
    r = sim.run(_held_duel({"held_keeps_preparation": True}), n=200, seed=1, max_rounds=2)
    assert _per(r, "D")["attacks"].sum() == 0
    assert (_per(r, "W")["grapple_checks_won"] >= 1).all()


def test_a_readied_block_declared_again_is_kept():
    shield = fighter("B", shield="d6", reactions=[], hp=400)
    r = sim.run(duel(fighter("A", hp=400), shield, pb={"family": "steady", "stunts": "none",
                                                       "rules": [{"if": True, "do": "block"}]}),
                n=300, seed=2, max_rounds=3)
    # Readied after its second phase and kept until a hit uses it: most rounds block a hit.
    assert _per(r, "B")["shield_blocks"].sum() > 0.3 * _per(r, "A")["hits"].sum()
    text = sim.trace(duel(fighter("A", hp=400), shield, pb={"family": "steady", "stunts": "none",
                                                           "rules": [{"if": True, "do": "block"}]}), n=3)
    assert "keeps its readied block" in text


def test_the_reaction_block_waits_for_a_blow_armour_does_not_stop():
    # A d4 never gets through Armor 5: no block is spent on it. Without armour every hit is blocked once a round.
    tank = fighter("B", armor=5, shield="d6", reactions=["shield_block"], hp=60)
    weak = fighter("A", weapons=[{"name": "knife", "skill": 20, "damage": "d4"}])
    r = sim.run(duel(weak, tank), n=200, seed=3, max_rounds=4)
    assert _per(r, "B")["shield_blocks"].sum() == 0
    bare = fighter("B", armor=0, shield="d6", reactions=["shield_block"], hp=60)
    r = sim.run(duel(weak, bare), n=200, seed=3, max_rounds=4)
    assert _per(r, "B")["shield_blocks"].sum() > 0


def test_a_prepared_shot_turns_on_the_next_target_when_its_target_falls():
    texts = "".join(sim.trace("scenarios/lifeforce/crossbow_ambush.yaml", skirmish=k, n=30) for k in range(30))
    assert "its target fell" in texts
    for line in texts.splitlines():
        assert not re.search(r"drops attack with \d AP: $", line)


def test_the_skirmish_step_provokes_an_attack_of_opportunity():
    ace = fighter("Ace", offence=130, reaction=90, weapons=[{"name": "blade", "skill": 20, "damage": "d2"}])
    guard = fighter("Guard", hp=300, reactions=["attack_of_opportunity"],
                    weapons=[{"name": "spear", "skill": 20, "damage": "d2", "reach": 2}])
    text = sim.trace(duel(ace, guard, pa={"family": "steady", "stunt_order": ["skirmish"]}), n=3, max_rounds=2)
    assert "as Ace steps back" in text


def test_surprise_keeps_a_negative_dodge():
    clumsy = fighter("B", dodge=-20, surprised=True)
    text = sim.trace(duel(fighter("A", reaction=90), clumsy), n=3, max_rounds=1)
    assert "vs Touch 30" in text and "vs Touch 50" not in text


def test_rerolled_grapple_ties_are_rerolled_until_decided():
    # d2 attack die, equal Athletics: a tie half the time. Nobody contests, so the grapple lapses
    # every phase and is engaged anew: 4 engagements a round, each won with probability 1/2
    # when ties are rolled again until decided (3/8 if a second tie stood).
    w = fighter("W", reaction=90)
    data = duel(w, fighter("D"), rules={"grapple_ties": "reroll", "attack_die": 2, "grapple_offence_bonus": "none"},
                pa={"family": "grappler", "contest_grapple": "never"},
                pb={"family": "steady", "contest_grapple": "never", "rules": [{"if": True, "do": "hold"}]})
    n = 2000
    r = sim.run(data, n=n, seed=4, max_rounds=1)
    won = _per(r, "W")["grapples_won"]
    assert abs(won.mean() - 2.0) < 4 * np.sqrt(1.0 / n)


def test_movement_on_a_coarse_grid_never_exceeds_the_metres():
    assert phase_cells(13, 1.0) == [3, 3, 3, 4]
    assert sum(phase_cells(13, 2.0)) == 6  # 12 m: a 7th cell would be 14 m
    walker = fighter("A", movement=13)
    data = duel(walker, fighter("B", movement=0), pa={"family": "steady", "run": False, "stunts": "none"})
    data["battlefield"] = {"start_distance": 60, "width": 60, "height": 5, "cell_size": 2}
    text = sim.trace(data, n=2, max_rounds=1)
    moved = [int(b) - int(a) for a, b in re.findall(r"A moves from \((\d+), \d+\) to \((\d+), \d+\)", text)]
    assert sum(moved) == 6


def test_the_shield_wall_finishes_what_it_prepares():
    # Answering threats used to throw away the prepared attack every phase (30% against 50%).
    n = 4000
    on = sim.run("scenarios/lifeforce/shield_wall.yaml", n=n, seed=1)
    off = sim.run("scenarios/lifeforce/shield_wall.yaml", n=n, seed=1,
                  overrides={"sides.wall.policy.answer_threats": False})
    p, q = _win(on, "wall"), _win(off, "wall")
    assert abs(p - q) <= 4 * _se(p, q, n)
    bearer = _per(on, "Shield bearer").merge(on.skirmishes[["skirmish", "rounds"]], on="skirmish")
    assert bearer["attacks"].sum() / bearer["rounds"].sum() > 1.3


def test_no_preparation_is_dropped_without_a_reason_the_trace_names():
    text = "".join(sim.trace("scenarios/lifeforce/shield_wall.yaml", skirmish=k, n=20) for k in range(20))
    drops = re.findall(r"\(drops (\w+) with (\d+) AP: ([^)]*)\)", text)
    assert all(reason for _, _, reason in drops)


@pytest.mark.parametrize("change, side", [
    ({"shield": "d6", "reactions": ["shield_block"]}, "b"),
    ({"armor": 3}, "b"),
])
def test_equipment_helps_under_the_default_play(change, side):
    n = 4000
    base = sim.run(duel(), n=n, seed=6)
    better = sim.run(duel(b=fighter("B", **change)), n=n, seed=6)
    p, q = _win(better, side), _win(base, side)
    assert p - q > 4 * _se(p, q, n)


def test_buying_stunts_helps_under_the_default_play():
    n = 4000
    none = sim.run(duel(), n=n, seed=7)
    greedy = sim.run(duel(pa={"family": "steady", "stunts": "greedy"}), n=n, seed=7)
    p, q = _win(greedy, "a"), _win(none, "a")
    assert p - q > 4 * _se(p, q, n)


def test_flee_leaves_the_fight():
    data = duel(pb={"family": "steady", "stunts": "none", "rules": [{"if": "health < 0.5", "do": "flee"}]})
    r = sim.run(data, n=300, seed=8)
    states = set(_per(r, "B")["final_state"].astype(str))
    assert "fled" in states and "unconscious" not in states


def test_a_skirmish_may_start_from_carried_damage():
    from sim.scenario import load_scenario
    scen = load_scenario(duel())
    rs = scen.ruleset
    setup = rs.build(scen)
    n = 400
    fresh = rs.play(setup, 3, 0, n, 40)
    hurt = rs.play(setup, 3, 0, n, 40, start={"damage_taken": np.tile([0, 30], (n, 1))})
    # B starts with 10 of its 40 hit points: A wins far more often, and B's carried hit
    # points show in hp_left where it never got hit.
    assert (hurt.winner == 0).mean() > (fresh.winner == 0).mean() + 0.2
    assert hurt.per_combatant["hp_left"][:, 1].max() <= 10
    with pytest.raises(ValueError, match="can start from"):
        rs.play(setup, 3, 0, 4, 40, start={"morale": np.zeros((4, 2))})
