"""Pursuit within the round (rule option `pursuit`): "A character can attack any target who
comes within their movement, in feet, at any time during the round"."""
import numpy as np
import pytest

import sim
from tests.test_gm_util import assert_rate, fighter, run, scenario

FIELD = {"width": 60, "height": 5}
BOW = {"name": "bow", "damage": 0, "range": 150}


def chase(rider_feet: int, gap: int, pursuit=None, archer_move="withdraw"):
    """A rider (club, reach 5 ft) at x 0 against an archer `gap` cells away who backs off
    at 30 ft a round, with 48 cells of room behind it."""
    rider = fighter("Rider", movement=rider_feet, position=[12 - gap, 2])
    archer = fighter("Archer", movement=30, weapons=[BOW], position=[12, 2])
    return scenario([rider], [archer], rules={"pursuit": pursuit} if pursuit else None,
                    pa={"move": "advance"}, pb={"move": archer_move}, battlefield=FIELD)


@pytest.mark.parametrize("rounds", [1, 5])
def test_a_faster_pursuer_catches_a_withdrawer_every_round(rounds):
    # 12 cells apart: the archer steps 6 away (18), the rider's 18 cells bring it next to it.
    r = run(chase(90, 12), rounds=rounds, n=4000)
    assert (r["Rider"]["attacks"] == rounds).all()
    assert_rate(r["Rider"]["hits"].sum() / (rounds * 4000), 11 / 20, n=rounds * 4000)


def test_an_equal_pursuer_keeps_the_gap_and_never_strikes():
    # 30 ft each: the gap of 12 cells stays 12 (6 away, 6 closer) while the archer has room.
    r = run(chase(30, 12), rounds=6, n=500)
    assert (r["Rider"]["attacks"] == 0).all()
    assert (r["Archer"]["attacks"] == 6).all()  # the bow reaches all along


def test_an_equal_pursuer_in_reach_follows_and_strikes():
    # Next to each other at the start: the archer's step of 6 is matched by the rider's.
    r = run(chase(30, 1), rounds=5, n=500)
    assert (r["Rider"]["attacks"] == 5).all()


def test_start_positions_lets_every_withdrawer_escape():
    # The old reading: the rider walks to where the archer stood, then the archer steps off.
    r = run(chase(90, 12, pursuit="start_positions"), rounds=5, n=500)
    assert (r["Rider"]["attacks"] == 0).all()
    r = run(chase(30, 1, pursuit="start_positions"), rounds=5, n=500)
    assert (r["Rider"]["attacks"] == 0).all()


def test_a_holding_archer_and_a_withdrawing_one_meet_the_same_rider():
    # Caught in round 1 either way, so the keyed dice give the same fights.
    hold = run(chase(90, 12, archer_move="hold"), rounds=5, n=500)
    away = run(chase(90, 12), rounds=5, n=500)
    np.testing.assert_array_equal(hold["Rider"]["hits"], away["Rider"]["hits"])


def _probe(pursuit=None):
    # The probe: a 90 ft rider (sabre) against a 30 ft archer who withdraws.
    rider = {"name": "Rider", "survival": 9, "verve": 12, "fortitude": 11, "combat": 2, "defense": 4,
             "movement": 90, "archetypes": ["warrior"], "weapons": [{"name": "sabre", "damage": "d8"}]}
    archer = {"name": "Archer", "survival": 7, "verve": 10, "fortitude": 9, "combat": 1, "defense": 3,
              "movement": 30, "archetypes": ["warrior"],
              "weapons": [{"name": "long bow", "damage": "d6", "range": 150}, {"name": "short sword", "damage": "d6"}]}
    d = scenario([rider], [archer], rules={"pursuit": pursuit} if pursuit else None, pb={"move": "withdraw"},
                 battlefield={"width": 40, "height": 8, "start_distance": 60})
    return sim.run(d, n=4000, seed=5, max_rounds=60)


def test_the_withdraw_probe():
    res = _probe()
    rider = res.combatants[res.combatants["combatant"] == "Rider"]
    assert rider["attacks"].mean() > 2
    assert (res.skirmishes["winner"] == "a").mean() > 0.5
    old = _probe("start_positions")
    assert (old.combatants[old.combatants["combatant"] == "Rider"]["attacks"] == 0).all()
    assert (old.skirmishes["winner"] == "a").mean() == 0
