"""Gods & Monsters core combat against numbers that can be worked out by hand.

Random results use fixed seeds and 4-sigma binomial tolerances, so a failure means a
rule changed, not bad luck (a false alarm is about 1 in 15,000 per check).
"""
from __future__ import annotations

import copy
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import yaml

import sim
from sim.dice import parse_dice
from sim.rulesets.gods_and_monsters import tables as T

YETI = Path("scenarios/gods_and_monsters/yeti.yaml")
SIGMAS = 4


@lru_cache(maxsize=1)
def _yeti_data() -> dict:
    return yaml.safe_load(YETI.read_text(encoding="utf-8"))


def yeti_data() -> dict:
    return copy.deepcopy(_yeti_data())


def all_aware(data: dict) -> dict:
    for side in data["sides"].values():
        for c in side["combatants"]:
            c["awareness"] = "aware"
    return data


def only(data: dict, party_member: str) -> dict:
    """The Yeti against one member of the party, so each attacker has a single possible target."""
    party = data["sides"]["party"]["combatants"]
    data["sides"]["party"]["combatants"] = [c for c in party if c["name"] == party_member]
    return data


def assert_rate(k: float, n: float, p: float, what: str = "") -> None:
    se = np.sqrt(p * (1 - p) / n)
    assert abs(k / n - p) <= SIGMAS * se + 1e-12, \
        f"{what}: {k}/{n} = {k / n:.5f}, expected {p:.5f} +- {SIGMAS * se:.5f}"


def totals(result, name: str) -> dict:
    cb = result.combatants
    rows = cb[cb["combatant"] == name]
    return {k: float(rows[k].sum()) for k in ("attacks", "hits", "damage_dealt", "damage_taken")}


# --- the worked example's numbers -------------------------------------------------------------

def test_worked_example_targets_from_the_built_setup():
    scen = sim.load_scenario(YETI)
    setup = T.build(scen)
    idx = {n: i for i, n in enumerate(setup.names)}
    owner = setup.st[T.S_OWNER]

    def need(attacker: str, target: str) -> set[int]:
        slots = np.flatnonzero(owner == idx[attacker])[:1 if setup.st[T.S_ALT, owner == idx[attacker]].all() else None]
        return {int(setup.st[T.S_BASE, a] - setup.ct[T.C_DEFENSE, idx[target]]) for a in slots}

    assert need("Sam Stevens", "Yeti") == {9}      # 11 + 1 + 0 - 3
    assert need("Toromeen", "Yeti") == {12}        # 11 + 2 + 2 - 3
    assert need("Charlotte Kordé", "Yeti") == {9}  # 11 + 1 + 0 - 3, once no longer surprised
    assert need("Yeti", "Sam Stevens") == {11}     # 11 + 4 + 0 - 4
    # Two claws, each a separate slot; Charlotte fights with her first weapon only.
    assert list(owner).count(idx["Yeti"]) == 2 and not setup.st[T.S_ALT, owner == idx["Yeti"]].any()
    assert setup.st[T.S_ALT, owner == idx["Charlotte Kordé"]].all()  # alternatives: the first that reaches
    # Strength 18 gives +4 on Toromeen's d8 axe.
    tor = np.flatnonzero(owner == idx["Toromeen"])[0]
    assert setup.slot_dice[tor] == "d8+4" and setup.st[T.S_DBONUS, tor] == 4


def test_worked_example_numbers_in_the_trace():
    """First-round lines, when nobody has injuries or surprise yet, quote the example's numbers."""
    data = all_aware(yeti_data())
    seen = set()
    for k in range(12):
        text = sim.trace(data, seed=7, skirmish=k, n=12)
        round1 = text.split("--- Round 1 ---")[1].split("--- Round 2 ---")[0]
        for attacker, target, need in re.findall(r"(\w[\w ]*?) attacks ([\w é]+?) with [\w ]+: needs (-?\d+) or lower",
                                                 round1):
            expected = {("Sam Stevens", "Yeti"): 9, ("Toromeen", "Yeti"): 12, ("Charlotte Kordé", "Yeti"): 9,
                        ("Yeti", "Sam Stevens"): 11, ("Yeti", "Toromeen"): 10, ("Yeti", "Charlotte Kordé"): 14}
            assert int(need) == expected[(attacker, target)], (attacker, target, need)
            seen.add((attacker, target))
    assert {("Sam Stevens", "Yeti"), ("Toromeen", "Yeti"), ("Yeti", "Sam Stevens")} <= seen


@pytest.mark.parametrize("member, party_need, yeti_need", [
    ("Sam Stevens", 9, 11),
    ("Toromeen", 12, 10),
    ("Charlotte Kordé", 9, 14),
])
def test_hit_rates_match_k_over_20(member, party_need, yeti_need):
    # Injuries would lower later attack rolls; charge them to health rolls only so every
    # attack of the fight has the same k. One member against the Yeti: one target each.
    data = only(all_aware(yeti_data()), member)
    r = sim.run(data, n=40000, seed=11, overrides={"rules.injury_penalty": "health_rolls"})
    mine, yeti = totals(r, member), totals(r, "Yeti")
    assert mine["attacks"] > 20000 and yeti["attacks"] > 20000
    assert_rate(mine["hits"], mine["attacks"], party_need / 20, f"{member} vs Yeti")
    assert_rate(yeti["hits"], yeti["attacks"], yeti_need / 20, f"Yeti vs {member}")


def assert_mean_damage(result, name: str, dice: str) -> None:
    d = parse_dice(dice)
    dist = d.distribution()
    var = sum(p * (x - d.mean) ** 2 for x, p in dist.items())
    t = totals(result, name)
    se = np.sqrt(var / t["hits"])
    mean = t["damage_dealt"] / t["hits"]
    assert abs(mean - d.mean) <= SIGMAS * se, f"{name}: mean damage {mean:.4f}, expected {d.mean} +- {SIGMAS * se:.4f}"


def test_mean_damage_per_hit_is_die_mean_plus_bonus():
    r = sim.run(all_aware(yeti_data()), n=40000, seed=12)
    assert_mean_damage(r, "Toromeen", "d8+4")  # 8.5: the axe plus Strength 18
    assert_mean_damage(r, "Sam Stevens", "d8")
    assert_mean_damage(r, "Charlotte Kordé", "d4")
    assert_mean_damage(r, "Yeti", "d6")


def test_damage_is_applied_to_verve_then_survival_then_injuries():
    r = sim.run(all_aware(yeti_data()), n=5000, seed=13)
    cb = r.combatants
    for name, verve, survival in (("Sam Stevens", 15, 6), ("Toromeen", 17, 7), ("Charlotte Kordé", 0, 5)):
        rows = cb[cb["combatant"] == name]
        # Charlotte is a monk: fighting is not archetypal, so her 14 verve is never touched.
        start_verve = 14 if name == "Charlotte Kordé" else verve
        spent = (start_verve - rows["verve_left"]) + (survival - rows["survival_left"]) + rows["injuries"]
        assert (spent == rows["damage_taken"]).all(), name
        if name == "Charlotte Kordé":
            assert (rows["verve_left"] == 14).all()
        else:
            # Survival is only touched once verve is gone.
            assert ((rows["survival_left"] == survival) | (rows["verve_left"] == 0)).all()
        assert ((rows["injuries"] == 0) | (rows["survival_left"] == 0)).all()


# --- surprise --------------------------------------------------------------------------------

def surprise_rates(awareness: str, perception: int, n: int = 20000, **rules) -> tuple[float, int]:
    data = yeti_data()
    for c in data["sides"]["party"]["combatants"]:
        c["awareness"] = awareness
        c["perception"] = perception
    data["rules"] = rules
    r = sim.run(data, n=n, seed=21, max_rounds=1)
    party = r.combatants[r.combatants["side"] == "party"]
    return float(party["surprised"].sum()), len(party)


@pytest.mark.parametrize("awareness, perception, expected", [
    ("unaware", 5, 15 / 20),
    ("unaware", 14, 6 / 20),
    ("asleep", 10, 16 / 20),   # Perception 10 - 6
    ("asleep", 3, 1.0),        # 3 - 6 < 1: always surprised
    ("aware", 5, 0.0),
])
def test_surprise_rate(awareness, perception, expected):
    k, n = surprise_rates(awareness, perception)
    if expected in (0.0, 1.0):
        assert k == expected * n
    else:
        assert_rate(k, n, expected, f"{awareness} perception {perception}")


def test_aware_combatants_roll_at_plus_four_when_the_option_says_so():
    k, n = surprise_rates("aware", 5, surprise_roll_for_aware=True)
    assert_rate(k, n, (20 - 9) / 20, "aware +4")


def test_surprised_combatants_lose_the_first_round():
    data = yeti_data()  # the party is unaware, the Yeti aware
    r = sim.run(data, n=20000, seed=22, max_rounds=1)
    cb = r.combatants
    party = cb[cb["side"] == "party"]
    assert (party.loc[party["surprised"], "attacks"] == 0).all()
    assert (party.loc[~party["surprised"], "attacks"] == 1).all()
    yeti = cb[cb["combatant"] == "Yeti"]
    assert (yeti["attacks"] == 2).all() and not yeti["surprised"].any()


def test_surprised_attack_at_penalty_option():
    data = only(yeti_data(), "Toromeen")
    data["sides"]["party"]["combatants"][0]["perception"] = -20  # always surprised
    r = sim.run(data, n=40000, seed=23, max_rounds=1,
                overrides={"rules.surprised_first_round": "attack_at_penalty",
                           "rules.surprised_first_round_penalty": 6})
    t = totals(r, "Toromeen")
    assert t["attacks"] == 40000
    assert_rate(t["hits"], t["attacks"], (12 - 6) / 20, "Toromeen surprised at -6")


# --- morale ----------------------------------------------------------------------------------

def test_yeti_only_flees_by_its_morale_rules():
    r = sim.run(yeti_data(), n=20000, seed=24)
    cb = r.combatants
    yeti = cb[cb["combatant"] == "Yeti"]
    assert (yeti["final_state"] == "fled").mean() > 0.3
    # Nobody in the party has a morale rule.
    assert not (cb.loc[cb["side"] == "party", "final_state"] == "fled").any()
    # With its morale rules switched off, it never flees.
    r2 = sim.run(yeti_data(), n=5000, seed=24, overrides={"sides.yeti.policy.flee_below": 0,
                                                           "sides.yeti.policy.flee_after_bad_round": False})
    assert not (r2.combatants["final_state"] == "fled").any()


def test_fled_side_loses():
    r = sim.run(yeti_data(), n=20000, seed=25)
    sk = r.skirmishes
    fled = r.combatants.loc[(r.combatants["combatant"] == "Yeti") & (r.combatants["final_state"] == "fled"),
                            "skirmish"]
    assert (sk.set_index("skirmish").loc[fled.to_numpy(), "winner"] == "party").all()


# --- a duel solved exactly -------------------------------------------------------------------

DUEL = {
    "a": dict(survival=6, fortitude=5, combat=1, defense=1, damage=3),
    "b": dict(survival=8, fortitude=3, combat=2, defense=2, damage=2),
}


def duel_scenario(max_rounds: int) -> dict:
    sides = {}
    for side, p in DUEL.items():
        sides[side] = {"combatants": [{
            "name": side.upper(), "survival": p["survival"], "fortitude": p["fortitude"], "combat": p["combat"],
            "defense": p["defense"], "weapons": [{"name": "club", "damage": p["damage"]}]}]}
    return {"name": "exact duel", "ruleset": "gods_and_monsters", "sides": sides,
            "run": {"max_rounds": max_rounds}}


def exact_duel(max_rounds: int) -> dict[str, float]:
    """Win/draw/unfinished probabilities by dynamic programming over (damage taken by a, by b).

    Encodes the documented defaults: simultaneous rounds, no verve, damage off survival then
    into injuries, to hit d20 <= 11 + combat - target's defense - own injuries, a roll to
    stay conscious (d20 <= Fortitude - injuries) on reaching 0 survival or gaining
    injuries, death when injuries exceed Fortitude.
    """
    a, b = DUEL["a"], DUEL["b"]
    p20 = lambda x: min(max(x, 0), 20) / 20

    def down_prob(me: dict, before: int, after: int) -> float:
        s0, s1 = max(me["survival"] - before, 0), max(me["survival"] - after, 0)
        inj0, inj1 = before - (me["survival"] - s0), after - (me["survival"] - s1)
        owed = (s0 > 0 and s1 == 0 and after > before) or inj1 > inj0
        if not owed:
            return 0.0
        if inj1 > me["fortitude"]:
            return 1.0
        return 1 - p20(me["fortitude"] - inj1)

    injuries = lambda me, taken: max(taken - me["survival"], 0)
    dist = {(0, 0): 1.0}
    out = {"a": 0.0, "b": 0.0, "draw": 0.0}
    for _ in range(max_rounds):
        nxt: dict[tuple[int, int], float] = {}
        for (ta, tb), p in dist.items():
            hit_a = p20(11 + a["combat"] - b["defense"] - injuries(a, ta))
            hit_b = p20(11 + b["combat"] - a["defense"] - injuries(b, tb))
            for ha in (0, 1):
                for hb in (0, 1):
                    q = p * (hit_a if ha else 1 - hit_a) * (hit_b if hb else 1 - hit_b)
                    if q == 0:
                        continue
                    na, nb = ta + hb * b["damage"], tb + ha * a["damage"]
                    da, db = down_prob(a, ta, na), down_prob(b, tb, nb)
                    out["a"] += q * (1 - da) * db
                    out["b"] += q * da * (1 - db)
                    out["draw"] += q * da * db
                    nxt[(na, nb)] = nxt.get((na, nb), 0.0) + q * (1 - da) * (1 - db)
        dist = nxt
    out["unfinished"] = sum(dist.values())
    return out


@pytest.mark.parametrize("max_rounds", [3, 60])
def test_duel_matches_exact_solution(max_rounds):
    exact = exact_duel(max_rounds)
    assert abs(sum(exact.values()) - 1) < 1e-12
    n = 100000
    r = sim.run(duel_scenario(max_rounds), n=n, seed=31)
    counts = r.skirmishes["winner"].value_counts()
    for outcome in ("a", "b", "draw", "unfinished"):
        assert_rate(int(counts.get(outcome, 0)), n, exact[outcome], outcome)
    if max_rounds == 3:  # the short fight leaves plenty unfinished: the check has teeth
        assert exact["unfinished"] > 0.2
    else:
        assert exact["draw"] > 0.01 and exact["unfinished"] < 1e-6


GLASS_CANNONS = {
    "name": "glass cannons", "ruleset": "gods_and_monsters",
    # Everyone hits (need 20) and 5 damage on 1 survival leaves 4 injuries > Fortitude 0: death.
    "sides": {s: {"combatants": [{"name": s, "survival": 1, "fortitude": 0, "combat": 9,
                                  "weapons": [{"name": "spear", "damage": 5}]}]} for s in ("x", "y")},
}


def test_simultaneous_resolution_lets_both_fall_in_one_round():
    r = sim.run(GLASS_CANNONS, n=1000, seed=1)
    assert (r.skirmishes["winner"] == "draw").all() and (r.skirmishes["rounds"] == 1).all()
    assert (r.combatants["final_state"] == "dead").all()


def test_sequential_with_end_of_round_checks_still_lets_the_second_side_strike():
    # The text: both sides act, then unconsciousness and death are applied. (Injuries
    # penalise only health rolls here, so the wounded second side still hits on a 20.)
    r = sim.run(GLASS_CANNONS, n=1000, seed=1, overrides={"rules.resolution": "sequential",
                                                          "rules.health_check": "end_of_round",
                                                          "rules.injury_penalty": "health_rolls"})
    assert (r.skirmishes["winner"] == "draw").all()


def test_sequential_second_side_attacks_with_the_injuries_of_the_first_phase():
    # The fix: y took 4 injuries from x's blow before it strikes, so it needs 20 - 4 = 16.
    r = sim.run(GLASS_CANNONS, n=4000, seed=1, overrides={"rules.resolution": "sequential",
                                                          "rules.health_check": "end_of_round"})
    draws = (r.skirmishes["winner"] == "draw").mean()
    assert abs(draws - 16 / 20) <= 4 * (0.8 * 0.2 / 4000) ** 0.5


def test_sequential_immediate_the_fallen_do_not_strike_back():
    r = sim.run(GLASS_CANNONS, n=1000, seed=1, overrides={"rules.resolution": "sequential"})
    assert (r.skirmishes["winner"] == "x").all()  # the side listed first strikes first
    states = r.combatants["final_state"].astype(str).to_numpy().reshape(-1, 2)
    assert (states == ["standing", "dead"]).all()


def test_count_copies_get_distinct_names():
    data = {"name": "pack", "ruleset": "gods_and_monsters", "sides": {
        "goblins": {"combatants": [{"name": "Goblin", "count": 3, "survival": 3,
                                    "weapons": [{"name": "knife", "damage": "d4"}]}]},
        "hero": {"combatants": [{"name": "Hero", "survival": 20, "weapons": [{"name": "sword", "damage": "d8"}]}]}}}
    scen = sim.load_scenario(data)
    assert scen.names() == ["Goblin 1", "Goblin 2", "Goblin 3", "Hero"]
    r = sim.run(data, n=200, seed=1)
    assert list(r.combatants["combatant"].cat.categories) == ["Goblin 1", "Goblin 2", "Goblin 3", "Hero"]
    assert {s["name"] for s in r.summary()["combatants"]} == {"Goblin 1", "Goblin 2", "Goblin 3", "Hero"}


def test_shipped_scenarios_load_and_run():
    files = sorted(Path("scenarios/gods_and_monsters").glob("*.yaml"))
    assert len(files) >= 3
    for f in files:
        r = sim.run(f, n=2000, seed=3)
        s = r.summary()
        total = sum(v["win_rate"] for v in s["sides"].values()) + s["draw_rate"] + s["unfinished_rate"]
        assert abs(total - 1) < 1e-9, f
        assert r.skirmishes["rounds"].min() >= 1, f


# --- an independent implementation ------------------------------------------------------------

# The unaware party: the plain loop plays issue 18's readings (tests/test_plain_loop_gm.py).
@pytest.mark.parametrize("aware", [False, True])
def test_engine_agrees_with_the_plain_python_loop(tmp_path, aware):
    """benchmarks/plain_loop_gm.py plays the default rules one skirmish at a time with `random`."""
    from benchmarks import plain_loop_gm as plain_loop
    data = all_aware(yeti_data()) if aware else yeti_data()
    path = tmp_path / "yeti.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    plain = plain_loop.play(path, 15000, seed=3)
    r = sim.run(path, n=60000, seed=3)
    n_e, n_p = len(r.skirmishes), plain["n"]
    cb = r.combatants
    checks = {
        "party wins": ((r.skirmishes["winner"] == "party").sum(), plain["wins"].get("party", 0)),
        "Yeti fled": (((cb["combatant"] == "Yeti") & (cb["final_state"] == "fled")).sum(),
                      plain["states"]["Yeti"]["fled"]),
        "Yeti unconscious": (((cb["combatant"] == "Yeti") & (cb["final_state"] == "unconscious")).sum(),
                             plain["states"]["Yeti"]["unconscious"]),
        "Charlotte down": (((cb["combatant"] == "Charlotte Kordé") & (cb["final_state"] != "standing")).sum(),
                           n_p - plain["states"]["Charlotte Kordé"]["standing"]),
    }
    for what, (k_e, k_p) in checks.items():
        pooled = (k_e + k_p) / (n_e + n_p)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n_e + 1 / n_p))
        assert abs(k_e / n_e - k_p / n_p) <= SIGMAS * se + 1e-12, (what, k_e / n_e, k_p / n_p)
    rounds = r.skirmishes["rounds"]
    se = rounds.std() * np.sqrt(1 / n_e + 1 / n_p)
    assert abs(rounds.mean() - plain["mean_rounds"]) <= SIGMAS * se


# --- snapping out of surprise, surprised defense, staying conscious, death ---------------------

def one_on_one(a: dict, b: dict, policy_a: dict | None = None, **run) -> dict:
    base = {"survival": 100, "fortitude": 10, "weapons": [{"name": "club", "damage": 1}]}
    return {"name": "one on one", "ruleset": "gods_and_monsters", "run": run, "sides": {
        "a": {"policy": policy_a or {}, "combatants": [{**base, "name": "A", **a}]},
        "b": {"combatants": [{**base, "name": "B", **b}]}}}


@pytest.mark.parametrize("snap_out_roll, target", [("best", 8), ("willpower", 8), ("fortitude", 5)])
def test_snapping_out_of_surprise(snap_out_roll, target):
    # A is always surprised; a scripted rule makes it flee in round 2 if it is still surprised
    # after its snap-out roll (d20 <= the chosen score). B cannot hit, so nothing else happens.
    data = one_on_one({"awareness": "unaware", "perception": -20, "willpower": 8, "fortitude": 5},
                      {"combat": -20}, {"rules": [{"if": "surprised == 1 and round >= 2", "do": "flee"}]},
                      max_rounds=2)
    r = sim.run(data, n=20000, seed=41, overrides={"rules.snap_out_roll": snap_out_roll})
    a = r.combatants[r.combatants["combatant"] == "A"]
    assert a["surprised"].all()
    fled = a["final_state"] == "fled"
    assert (a.loc[fled, "down_round"] == 2).all() and (a.loc[fled, "attacks"] == 0).all()
    assert (a.loc[~fled, "attacks"] == 1).all()  # snapped out: lost round 1, attacked in round 2
    assert_rate(int(fled.sum()), len(a), (20 - target) / 20, snap_out_roll)


@pytest.mark.parametrize("unaware", [True, False])
def test_surprised_defense_and_attack_penalties_after_the_first_round(unaware):
    # B never snaps out (scores -20) and has survival enough never to roll. Round 1: A needs 11
    # (no defense penalty yet; +4 against a defender not defending, the default), B loses the
    # round. Round 2: A needs 11 + 2 = 13; B attacks at -3.
    data = one_on_one({}, {"awareness": "unaware", "perception": -20, "willpower": -20, "fortitude": -20},
                      max_rounds=2)
    r = sim.run(data, n=40000, seed=42, overrides={"rules.surprised_are_unaware": unaware})
    a, b = totals(r, "A"), totals(r, "B")
    assert a["attacks"] == 80000 and b["attacks"] == 40000
    assert_rate(a["hits"], a["attacks"], (11 + 4 * unaware + 13) / 40, "A against surprised B")
    assert_rate(b["hits"], b["attacks"], (11 - 3) / 20, "surprised B")


@pytest.mark.parametrize("death_rule", ["injuries_exceed_fortitude", "guide_roll"])
def test_staying_conscious_and_dying(death_rule):
    # A always hits for 3 (needs 20); B (survival 3, Fortitude 5) cannot hit back.
    # Round 1: survival reaches 0 exactly, roll d20 <= 5 or fall unconscious.
    # Round 2: injuries 3, roll d20 <= 5 - 3. Round 3: injuries 6 > 5.
    data = one_on_one({"combat": 9, "weapons": [{"name": "club", "damage": 3}]},
                      {"combat": -20, "survival": 3, "fortitude": 5})
    n = 40000
    r = sim.run(data, n=n, seed=43, overrides={"rules.death_rule": death_rule})
    b = r.combatants[r.combatants["combatant"] == "B"]
    state, rnd = b["final_state"].astype(str), b["down_round"]
    if death_rule == "injuries_exceed_fortitude":
        expected = {("unconscious", 1): 15 / 20, ("unconscious", 2): 5 / 20 * 18 / 20, ("dead", 3): 5 / 20 * 2 / 20}
    else:
        # Each gain of injuries: the Guide rolls d20 <= injuries, then the victim d20 <= Fortitude or dies.
        die2 = 3 / 20 * 15 / 20
        die3 = 6 / 20 * 15 / 20
        expected = {("unconscious", 1): 15 / 20,
                    ("dead", 2): 5 / 20 * die2, ("unconscious", 2): 5 / 20 * (1 - die2) * 18 / 20,
                    ("dead", 3): 5 / 20 * (1 - die2) * 2 / 20 * die3,
                    # injuries 6 > Fortitude 5 leaves nothing to roll under: always unconscious
                    ("unconscious", 3): 5 / 20 * (1 - die2) * 2 / 20 * (1 - die3)}
    assert abs(sum(expected.values()) - 1) < 1e-12
    for (s, k), p in expected.items():
        assert_rate(int(((state == s) & (rnd == k)).sum()), n, p, f"{s} in round {k}")
    assert (r.skirmishes["winner"] == "a").all()
