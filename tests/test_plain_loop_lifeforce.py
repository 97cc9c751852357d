"""The batch engine and benchmarks/plain_loop_lifeforce.py (one skirmish at a time, Python's
`random`) play the same Lifeforce duel: their figures agree within sampling error."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

import sim
from benchmarks import plain_loop_lifeforce as plain_loop
from sim.scenario import load_scenario

SIGMAS = 4
DUEL = Path(__file__).resolve().parents[1] / "scenarios" / "lifeforce" / "duel.yaml"


def disagreements(path, n_engine: int, n_plain: int, seed: int) -> list[tuple]:
    """(figure, engine, plain loop, z) for every figure whose |z| exceeds SIGMAS.

    Rates use the pooled binomial standard error of the difference; means (rounds and
    per-combatant tallies) the engine's standard deviation."""
    plain = plain_loop.play(path, n_plain, seed=seed)
    r = sim.run(path, n=n_engine, seed=seed)
    sk, cb = r.skirmishes, r.combatants
    n_e, n_p = len(sk), plain["n"]
    assert n_e == n_engine and n_p == n_plain
    bad = []

    def rate(what, k_e, k_p):
        pooled = (k_e + k_p) / (n_e + n_p)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n_e + 1 / n_p))
        diff = k_e / n_e - k_p / n_p
        if abs(diff) > SIGMAS * se + 1e-12:  # where nothing happens (draws here) both must be 0
            bad.append((what, k_e / n_e, k_p / n_p, diff / se if se else np.inf))

    def mean(what, values, plain_mean):
        se = values.std() * np.sqrt(1 / n_e + 1 / n_p)
        diff = values.mean() - plain_mean
        if abs(diff) > SIGMAS * se + 1e-12:
            bad.append((what, values.mean(), plain_mean, diff / se if se else np.inf))

    for label in [*load_scenario(path).side_names, "draw", "unfinished"]:
        rate(f"{label} wins", int((sk["winner"] == label).sum()), plain["wins"].get(label, 0))
    for name, states in plain["states"].items():
        mine = cb[cb["combatant"] == name]
        assert len(mine) == n_e
        rate(f"{name} down", int((mine["final_state"] != "standing").sum()), n_p - states["standing"])
        for col, total in plain["totals"][name].items():
            mean(f"{name} {col}", mine[col].to_numpy(float), total / n_p)
    mean("rounds", sk["rounds"].to_numpy(float), plain["mean_rounds"])
    return bad


def test_engine_agrees_with_the_plain_loop_on_the_duel():
    assert disagreements(DUEL, 60000, 30000, seed=3) == []


def unequal_duel() -> dict:
    """The duel made unequal on every count the loop plays, so a symmetric coincidence cannot pass.

    Blue hits more often with a longer spear, has better Armor and a shield, and buys Seize
    the Initiative (a stunt point per 10) to take the first turn from the Hastened Red; Red
    dodges better, wields a two-handed weapon, starts surprised and runs in, while Blue
    walks and holds its fully prepared attack until Red is in reach."""
    data = yaml.safe_load(DUEL.read_text(encoding="utf-8"))
    red, blue = data["sides"]["red"]["combatants"][0], data["sides"]["blue"]["combatants"][0]
    red.update(dodge=30, movement=13, hastened=1, surprised=True,
               weapons=[{"name": "greatsword", "skill": 25, "damage": "2d6", "two_handed": True}])
    blue.update(armor=4, shield="d4", movement=10, reaction=35,
                weapons=[{"name": "spear", "skill": 45, "damage": "d6", "reach": 2, "damage_type": "piercing",
                          "armor_penetration": 1}])
    data["sides"]["blue"]["policy"].update(run=False, stunt_order=["seize_the_initiative", "minor_critical",
                                                                    "defensive_stance"])
    data["battlefield"]["start_distance"] = 24
    data["rules"] = {"stunt_step": 10}
    return data


def test_engine_agrees_with_the_plain_loop_on_an_unequal_duel(tmp_path):
    path = tmp_path / "unequal.yaml"
    path.write_text(yaml.safe_dump(unequal_duel(), allow_unicode=True), encoding="utf-8")
    assert disagreements(path, 40000, 20000, seed=5) == []


@pytest.mark.parametrize("change, message", [
    ({"sides": {"red": {"policy": {"family": "charger"}}}}, "steady"),
    ({"sides": {"red": {"policy": {"stunts": "control"}}}}, "knock_prone"),
    ({"rules": {"at_zero_hp": "dead", "grapple_ties": "reroll", "attack_die": 20, "stunt_step": 5}}, None),
    ({"rules": {"reaction_actions": "ap", "conditions": {"prone": {"offence": -20}}}}, "condition"),
])
def test_the_plain_loop_refuses_what_it_does_not_play(tmp_path, change, message):
    data = yaml.safe_load(DUEL.read_text(encoding="utf-8"))

    def merge(into, new):
        for k, v in new.items():
            if isinstance(v, dict) and isinstance(into.get(k), dict):
                merge(into[k], v)
            else:
                into[k] = copy.deepcopy(v)
    merge(data, change)
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    if message is None:  # options it plays or that cannot matter one on one: accepted
        assert plain_loop.play(path, 10, seed=1)["n"] == 10
    else:
        with pytest.raises(ValueError, match=message):
            plain_loop.play(path, 10, seed=1)


def test_the_plain_loop_refuses_a_shipped_scenario_with_more_combatants():
    with pytest.raises(ValueError, match="one combatant against one"):
        plain_loop.play(DUEL.parent / "charge_spear_wall.yaml", 10)
