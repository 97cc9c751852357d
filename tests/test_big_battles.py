"""Big battles (issue 32): Lifeforce's set-up no longer grows as C^3, a battle of 300 a
side builds in bounded memory and plays, and the compact damage table holds exactly the
values of the full one it replaced."""
from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import sim
from benchmarks.big_battles import battle
from sim.rulesets.lifeforce import kstunts
from sim.rulesets.lifeforce import layout as L

DUEL = "scenarios/lifeforce/duel.yaml"
SHIPPED = sorted(Path(__file__).resolve().parent.parent.glob("scenarios/lifeforce/*.yaml"))


def full_table(K, W, SBW, crit_before):
    """The table as it was built before issue 32, the slow way: a row per attacker and
    weapon, a column per target and critical."""
    C, nw = K.shape[0], W.shape[0]
    out = np.zeros((C * nw, C * 3))
    for w in range(nw):
        faces, pmf = kstunts._dice_pmf(int(W[w, L.W_D_COUNT]), int(W[w, L.W_D_SIDES]), int(W[w, L.W_D_BONUS]))
        for a in range(C):
            rolled = np.maximum(faces, 0) + SBW[a, w]
            for t in range(C):
                armour = max(int(K[t, L.K_ARMOR]) - int(W[w, L.W_AP]), 0) if W[w, L.W_ARMOURED] else 0
                for m, mult2 in enumerate(kstunts.MULTS):
                    if crit_before:
                        dmg = np.maximum(kstunts._times_half(rolled, mult2) - armour, 0)
                    else:
                        dmg = kstunts._times_half(np.maximum(rolled - armour, 0), mult2)
                    out[a * nw + w, t * 3 + m] = float(pmf @ dmg)
    return out


def _mixed():
    # Strengths, armours, armour piercing, two-handed and bare-handed blows, a bow and a
    # dice bonus all differ between the combatants, so that no two share a row by chance.
    d = battle(DUEL, 3)
    for i, c in enumerate(d["sides"]["red"]["combatants"] + d["sides"]["blue"]["combatants"]):
        c.update(strength=20 + 15 * i, armor=i % 4)
        c["weapons"] = [{"name": "maul", "skill": 20, "damage": f"{1 + i % 2}d6+{i % 3}",
                         "damage_type": ("slashing", "bludgeoning", "piercing")[i % 3],
                         "armor_penetration": i % 3, "two_handed": bool(i % 2)}]
        if i % 3 == 0:
            c["weapons"].append({"name": "bow", "skill": 15, "damage": "d6", "damage_type": "piercing",
                                 "range": 30})
    return d


@pytest.mark.parametrize("source", SHIPPED + ["mixed"], ids=lambda p: getattr(p, "stem", p))
@pytest.mark.parametrize("crit_before", [False, True])
def test_the_compact_table_holds_the_full_tables_values(source, crit_before):
    scen = sim.load_scenario(_mixed() if source == "mixed" else str(source))
    T = scen.ruleset.build(scen).tables
    K, W, SBW = T[0], T[1], T[4]
    EV, EVR, EVC = kstunts.damage_table(K, W, SBW, crit_before)
    full = full_table(K, W, SBW, crit_before)
    C, nw = K.shape[0], W.shape[0]
    a, w, t, m = (ix.reshape(-1) for ix in np.meshgrid(np.arange(C), np.arange(nw), np.arange(C), np.arange(3),
                                                        indexing="ij"))
    assert np.array_equal(EV[EVR[a, w], EVC[t] * 3 + m], full[a * nw + w, t * 3 + m])
    assert np.array_equal(kstunts.expected_damage(K, W, SBW, crit_before), full)


def test_the_kernel_reads_the_table_the_rules_option_chose():
    scen = sim.load_scenario(_mixed(), {"rules.critical_applies": "before_armor"})
    T = scen.ruleset.build(scen).tables
    EV, EVR, EVC = T[19:22]
    assert np.array_equal(EV, kstunts.damage_table(T[0], T[1], T[4], True)[0])
    assert (EVR.shape, EVC.shape) == ((T[0].shape[0], T[1].shape[0]), (T[0].shape[0],))


def _built(k):
    scen = sim.load_scenario(battle(DUEL, k, stunts="expected"))
    tracemalloc.start()
    try:
        setup = scen.ruleset.build(scen)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return scen, setup, peak


def test_set_up_grows_no_faster_than_the_pair_tables():
    # Twice the combatants: the damage table keeps its size (a row for the sword and one
    # for bare hands, one column triple for the one Armor), and the tables and the build's memory at most quadruple,
    # as the (C, weapons) and (C, C) pair tables do. The full table grew eightfold.
    (_, small, peak50), (_, big, peak100) = _built(50), _built(100)
    assert big.tables[19].shape == small.tables[19].shape == (2, 3)
    size = lambda s: sum(np.asarray(t).nbytes for t in s.tables)
    assert size(big) <= 4.2 * size(small)
    assert peak100 <= 4.5 * peak50


def test_300_a_side_builds_in_bounded_memory_and_plays():
    scen, setup, peak = _built(300)
    assert setup.tables[19].nbytes <= 1024
    assert peak < 100e6  # the full table alone was (720,000, 1,800): 9.66 GiB
    out = scen.ruleset.play(setup, 7, 0, 2, 3)
    assert out.rounds.tolist() == [3, 3]
    assert out.per_combatant["hits"].shape == (2, 600)
    assert out.per_combatant["hits"].sum() > 0
