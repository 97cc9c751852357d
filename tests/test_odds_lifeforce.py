"""`skirmish odds` for Lifeforce (sim/rulesets/lifeforce/odds.py): exact against icepool,
within sampling error of the engine, and a few values worked by hand from the text."""
from __future__ import annotations

import math
import random
import re
from fractions import Fraction

import icepool
import pytest

import sim
from sim.odds import mean
from sim.rulesets.lifeforce import odds as LO
from sim.scenario import load_scenario

# --- the rule as the text and the rule options state it, in icepool's dice algebra ---

# The option defaults (docs/rules/lifeforce.md); a case's `rules:` override them.
TEXT_DEFAULTS = {"attack_die": 100, "stunt_step": 15, "strength_benefit_divisor": 10, "two_handed_multiplier": 1.5,
                 "critical_applies": "before_armor", "spell_stunt_costs": "literal", "reaction_actions": "both",
                 "skirmish_stunt_cells": 1, "seize_the_initiative": "hastened", "unarmed_damage": "d3",
                 "conditions": {}}
# The Weapon Stunts and Spell Stunts tables, cost by stunt (the spell table read row by row).
WEAPON_COSTS = {"rapid_reload": 1, "skirmish": 1, "defensive_stance": 1, "disarm": 1, "minor_critical": 1,
                "threaten": 2, "knock_prone": 3, "dual_strike": 4, "major_critical": 4, "seize_the_initiative": 5}
SPELL_COSTS = {"skirmish": 1, "defensive_stance": 1, "disarm": 1, "minor_critical": 2, "major_critical": 4,
               "seize_the_initiative": 5}
# The policies' buying orders (schema: greedy for damage, control for taking the target out, defensive).
ORDERS = {"none": [], "greedy": ["major_critical", "dual_strike", "minor_critical", "rapid_reload", "defensive_stance"],
          "control": ["knock_prone", "disarm", "threaten", "major_critical", "minor_critical", "defensive_stance"],
          "defensive": ["defensive_stance", "major_critical", "minor_critical"]}
ARMOURED = ("bludgeoning", "piercing", "slashing")  # "Armor reduces all incoming Bludgeoning, Piercing and Slashing"


def text_dice(text: str) -> icepool.Die:
    m = re.fullmatch(r"(?:(\d*)d(\d+))?([+-]?\d+)?", str(text).replace(" ", ""))
    count, sides, bonus = m.groups()
    base = (int(count or 1) @ icepool.d(int(sides))) if sides else icepool.Die([0])
    return base + int(bonus or 0)


def text_multiplier(points: int, order: list[str], costs: dict, usable) -> Fraction:
    """Spend the points in the order; criticals do not stack; Skirmish as often as it can."""
    left, bought = points, set()
    for s in order:
        c = costs.get(s)
        if c is None or c > left or s in bought or not usable(s):
            continue
        if s in ("minor_critical", "major_critical") and bought & {"minor_critical", "major_critical"}:
            continue
        bought.add(s)
        left -= (left // c if s == "skirmish" else 1) * c
    return Fraction(2) if "major_critical" in bought else Fraction(3, 2) if "minor_critical" in bought else Fraction(1)


def text_exchange(spec: dict, weapon: dict, situation: str):
    """(hit, stunt points pmf with -1 a miss, damage pmf) of A's attack on B, from the text."""
    r = {**TEXT_DEFAULTS, **spec["rules"]}
    A, B, policy, bpolicy = spec["A"], spec["B"], spec["policy"], spec["bpolicy"]
    melee = not weapon.get("range")
    prone = r["conditions"].get("prone", {}).get("melee_defence" if melee else "ranged_defence", -10 if melee else 0)
    # Flat-Footed: "lose their bonuses to their Touch ... Defence that are gained from Skills".
    dodge = min(B["dodge"], 0) if situation == "defender flat-footed" else B["dodge"]
    defence = 50 + dodge + (prone if situation == "defender prone" else 0)
    charge = situation == "charge"  # "+10 bonus to Offence and a +2 bonus to damage"
    offence = weapon.get("skill", 0) + A.get("offence", 0) + 10 * charge
    generates = policy.get("stunts") != "none" or bool(policy.get("stunt_order"))

    def points(total):  # "must exceed the value of your Defence ... Ties go to the defender"; 1 per 15 more
        return -1 if total <= defence else (total - defence) // r["stunt_step"] if generates else 0

    pts = (icepool.d(r["attack_die"]) + offence).map(points)
    table = weapon.get("stunts", "weapon")
    costs = WEAPON_COSTS if table == "weapon" else (
        {k: WEAPON_COSTS[k] for k in SPELL_COSTS} if r["spell_stunt_costs"] == "weapon" else SPELL_COSTS)
    usable = {"rapid_reload": bool(weapon.get("loading")), "skirmish": r["skirmish_stunt_cells"] > 0,
              "disarm": bool(B["weapons"]), "knock_prone": situation != "defender prone", "dual_strike": False,
              "seize_the_initiative": r["seize_the_initiative"] != "none"}
    order = policy.get("stunt_order") or ORDERS[policy["stunts"]]
    sb = A.get("strength_benefit")
    sb = sb if sb is not None else A["strength"] // r["strength_benefit_divisor"] if "strength" in A else 0
    if weapon.get("two_handed"):
        sb = math.trunc(sb * Fraction(str(r["two_handed_multiplier"])))
    sb = sb if melee else 0  # "Whenever a creature attacks with a melee weapon attack"
    armour = max(B["armor"] - weapon.get("armor_penetration", 0), 0) if weapon.get("damage_type",
                                                                                     "slashing") in ARMOURED else 0
    by_reaction = (B.get("shield") is not None and "shield_block" in B["reactions"]
                   and bpolicy.get("use_reaction", "any") in ("any", "shield_block") and r["reaction_actions"] != "ap")
    block = {"Reaction spent": False, "readied Shield Block": True}.get(situation, by_reaction)
    shield = text_dice(B["shield"]) if block else icepool.Die([0])

    def damage(p, rolled, blocked):
        if p < 0:
            return 0
        raw = max(rolled, 0) + sb + 2 * charge
        m = text_multiplier(p, order, costs, lambda s: usable.get(s, True))
        if r["critical_applies"] == "before_armor":
            dealt = max(math.trunc(raw * m) - armour, 0)
        else:
            dealt = math.trunc(max(raw - armour, 0) * m)
        return max(dealt - max(blocked, 0), 0)

    dmg = icepool.map(damage, pts, text_dice(weapon["damage"]), shield)
    pmf = lambda die: {k: die.probability(k) for k in die.outcomes() if die.probability(k)}
    return 1 - pts.probability(-1), pmf(pts), pmf(dmg)


# --- generated duels: A attacks B ---

DAMAGE = ["d6", "d8", "2d6", "d10+1", "d4-2", "3d4", "d12", "2", "d3-1", "2d4+2"]
TYPES = ["slashing", "piercing", "bludgeoning", "fire", "cold"]
STUNTS = list(WEAPON_COSTS)


def _weapon(g: random.Random, ranged: bool) -> dict:
    w = {"name": "bow" if ranged else "blade", "skill": g.randint(0, 70), "damage": g.choice(DAMAGE),
         "damage_type": g.choice(TYPES), "armor_penetration": g.choice([0, 0, 1, 3])}
    if ranged:
        w.update(range=30, loading=g.random() < 0.4)
    else:
        w["two_handed"] = g.random() < 0.4
    if g.random() < 0.25:
        w["stunts"] = "spell"
    return w


def _rules(g: random.Random) -> dict:
    choices = [("attack_die", [20, 50, 60]), ("stunt_step", [5, 7, 10, 20]), ("critical_applies", ["after_armor"]),
               ("two_handed_multiplier", [1.0, 2.0, 1.25]), ("strength_benefit_divisor", [5, 20]),
               ("spell_stunt_costs", ["weapon"]), ("reaction_actions", ["reaction", "ap"]),
               ("skirmish_stunt_cells", [0]), ("seize_the_initiative", ["none"]),
               ("unarmed_damage", ["d4", "d2+1"]),
               ("conditions", [{"prone": {"melee_defence": -20}}, {"prone": {"ranged_defence": 5}}])]
    return {k: g.choice(v) for k, v in choices if g.random() < 0.3}


def case_spec(i: int) -> dict:
    g = random.Random(7000 + i)
    weapons = [_weapon(g, False)] if g.random() < 0.8 else []
    if g.random() < 0.45 or not weapons:
        weapons.append(_weapon(g, True))
    A = {"name": "A", "hp": 50, "offence": g.randint(-10, 30), "weapons": weapons, "reactions": []}
    A.update({"strength": g.randint(0, 80)} if g.random() < 0.6 else {"strength_benefit": g.randint(-3, 6)})
    policy = ({"stunts": g.choice(["none", "greedy", "control", "defensive"])} if g.random() < 0.6
              else {"stunts": "greedy", "stunt_order": g.sample(STUNTS, g.randint(1, 5))})
    if weapons[0].get("range") is None and g.random() < 0.3:
        policy["family"] = "charger"
    B = {"name": "B", "hp": 500, "dodge": g.randint(-20, 60), "armor": g.randint(0, 8),
         "shield": g.choice([None, None, "d4", "d6", "d4-2", "2d3", "3"]),
         "reactions": g.choice([["shield_block"], []]), "surprised": g.random() < 0.25,
         "weapons": [] if g.random() < 0.2 else [{"name": "mace", "skill": 10, "damage": "d6"}]}
    if B["shield"] is None:
        del B["shield"]
    bpolicy = {"stunts": "none", "use_reaction": g.choice(["any", "shield_block", "attack_of_opportunity"])}
    return {"rules": _rules(g), "A": A, "B": B, "policy": policy, "bpolicy": bpolicy}


def scenario_of(spec: dict):
    return load_scenario({"name": "odds case", "ruleset": "lifeforce", "rules": spec["rules"],
                          "sides": {"a": {"policy": spec["policy"], "combatants": [spec["A"]]},
                                    "b": {"policy": spec["bpolicy"], "combatants": [spec["B"]]}}})


def _split(label: str) -> tuple[str, str]:
    m = re.fullmatch(r"(.*?)(?: \((.*)\))?", label)
    return m.group(1), m.group(2) or ""


def _as_points(outcomes: dict) -> dict[int, Fraction]:
    return {(-1 if k == "miss" else int(k.split()[0])): p for k, p in outcomes.items() if p}


N_CASES = 80


@pytest.mark.parametrize("i", range(N_CASES))
def test_odds_equal_icepool(i):
    spec = case_spec(i)
    rules = {**TEXT_DEFAULTS, **spec["rules"]}
    exchanges = [e for e in LO.odds(scenario_of(spec)) if e.attacker == "A"]
    assert exchanges and all(e.defender == "B" for e in exchanges)
    weapons = {w["name"]: w for w in spec["A"]["weapons"]}
    weapons["bare hands"] = {"name": "bare hands", "damage": rules["unarmed_damage"], "damage_type": "bludgeoning"}
    for e in exchanges:
        name, situation = _split(e.attack)
        hit, points, damage = text_exchange(spec, weapons[name], situation)
        assert e.hit == hit, e.attack
        assert _as_points(e.outcomes) == points, e.attack
        assert {k: p for k, p in e.damage.items() if p} == damage, e.attack


def test_the_generated_cases_cover_the_rows_and_options():
    labels, options = set(), set()
    for i in range(N_CASES):
        spec = case_spec(i)
        labels |= {_split(e.attack)[1] for e in LO.odds(scenario_of(spec)) if e.attacker == "A"}
        options |= set(spec["rules"])
    assert labels == {"", "charge", "defender prone", "defender flat-footed", "Reaction spent",
                      "readied Shield Block"}
    assert options == set(TEXT_DEFAULTS)


# --- against the engine's sampled rates ---

def _within(freq: float, p: Fraction, n: int, what: str) -> None:
    """freq within 4 standard errors of the exact p (a zero chance must never be seen)."""
    se = math.sqrt(float(p) * (1 - float(p)) / n)
    assert abs(freq - float(p)) <= 4 * se + 1e-12, f"{what}: sampled {freq:.5f}, exact {float(p):.5f}, SE {se:.5f}"


def _fighter(name, **kw):
    base = {"name": name, "hp": 200, "reaction": 30, "movement": 12, "dodge": 20, "reflex": 15, "reactions": [],
            "weapons": [{"name": "sword", "skill": 30, "damage": "2d6", "damage_type": "slashing"}]}
    return {**base, **kw}


def one_blow(a: dict, b: dict, policy: dict | None = None, rules: dict | None = None, start: int = 9) -> dict:
    """A walks up to B, who holds still, and strikes once in round 1 (max_rounds 1): every
    skirmish is one exchange from the fresh state the odds assume."""
    return {"name": "one blow", "ruleset": "lifeforce", "rules": rules or {}, "battlefield": {"start_distance": start},
            "sides": {"a": {"policy": {"family": "steady", "run": False, **(policy or {})}, "combatants": [a]},
                      "b": {"policy": {"family": "steady", "stunts": "none", "rules": [{"if": True, "do": "hold"}]},
                            "combatants": [b]}},
            "run": {"skirmishes": 30000, "seed": 11, "max_rounds": 1}}


def _exact(scen, attack: str):
    exchanges = [e for e in LO.odds(scen) if e.attacker == "A" and e.attack == attack]
    assert len(exchanges) == 1
    P = LO.Play(scen)
    weapon = next(w for w in LO._attacks(P, 0) if P.names[w] == _split(attack)[0])
    case = next(c for c in LO.cases(scen, P, scen.combatants[0], scen.combatants[1], 1, weapon)
                if c.label == _split(attack)[1])
    return exchanges[0], LO.purchases(LO.Blow(P, 0, 1, weapon, case))


ONE_BLOW = {
    # The default expected-worth buyer against armour and a shield blocking by Reaction.
    "expected, shield": (one_blow(_fighter("A", strength=40), _fighter("B", armor=3, shield="d4",
                                                                      reactions=["shield_block"],
                                                                      weapons=[{"name": "mace", "damage": "d6"}])),
                         "sword"),
    # A defender the blow is expected to drop: the buyer sees no worth in control.
    "expected, frail": (one_blow(_fighter("A", strength=40), _fighter("B", hp=8)), "sword"),
    "control order": (one_blow(_fighter("A", intimidate=20), _fighter("B", armor=2, will=10,
                                                                     weapons=[{"name": "mace", "damage": "d6"}]),
                               {"stunts": "control"}), "sword"),
    "surprise round": (one_blow(_fighter("A"), _fighter("B", surprised=True, dodge=30, reflex=40),
                                {"stunts": "expected"}), "sword (defender flat-footed)"),
    "two-handed, d50": (one_blow(_fighter("A", strength=55, weapons=[{"name": "greataxe", "skill": 40,
                                                                       "damage": "d12", "two_handed": True,
                                                                       "armor_penetration": 1}]),
                                 _fighter("B", armor=6, shield="d6+1", reactions=["shield_block"]),
                                 rules={"attack_die": 50, "stunt_step": 7, "critical_applies": "after_armor"}),
                        "greataxe"),
    "spell table": (one_blow(_fighter("A", weapons=[{"name": "wand", "skill": 40, "damage": "2d4",
                                                     "damage_type": "fire", "stunts": "spell"}]),
                             _fighter("B", hp=30, armor=5)), "wand"),
    "disarm, attack total": (one_blow(_fighter("A", weapons=[{"name": "sword", "skill": 60, "damage": "d8"}]),
                                      _fighter("B", hp=300, reflex=-10),
                                      rules={"initiator_check": "attack_total", "disarmed_recover_ap": 0}),
                             "sword"),
    # A shot from 40 m at 30 m range: it walks into range and shoots in phase 4; B answers with its bow.
    "longbow": (one_blow(_fighter("A", weapons=[{"name": "longbow", "skill": 35, "damage": "d10", "range": 30,
                                                 "damage_type": "piercing"}]),
                         _fighter("B", armor=2, weapons=[{"name": "knife", "damage": "d4"},
                                                         {"name": "bow", "skill": 20, "damage": "d8", "range": 30}]),
                         start=40), "longbow"),
}


@pytest.mark.parametrize("name", list(ONE_BLOW))
def test_one_exchange_matches_the_engine(name):
    data, attack = ONE_BLOW[name]
    scen = load_scenario(data)
    exchange, bought = _exact(scen, attack)
    r = sim.run(scen, n=30000, seed=11)
    a = r.combatants[r.combatants["combatant"] == "A"]
    assert (a["attacks"] == 1).all()
    n = len(a)
    _within(a["hits"].mean(), exchange.hit, n, f"{name}: hit")
    for label, p in exchange.outcomes.items():
        seen = a["hits"] == 0 if label == "miss" else (a["hits"] == 1) & (a["stunt_points"] == int(label.split()[0]))
        _within(seen.mean(), p, n, f"{name}: {label}")
    for k, p in exchange.damage.items():
        _within((a["damage_dealt"] == k).mean(), p, n, f"{name}: damage {k}")
    assert a["damage_dealt"].isin(list(exchange.damage)).all()
    for stunt, p in bought.items():
        _within(a[f"stunt_{stunt}"].mean(), p, n, f"{name}: {stunt} bought")


def test_the_sword_duel_rates_match_the_engine():
    # Criticals only: no condition ever changes, so every attack of the fight has the odds of the first.
    order = ["major_critical", "minor_critical"]
    overrides = {f"sides.{s}.policy.stunt_order": order for s in ("red", "blue")}
    scen = load_scenario("scenarios/lifeforce/duel.yaml", overrides)
    exact = {e.attacker: e for e in LO.odds(scen)}
    r = sim.run(scen, n=20000, seed=5)
    for name, e in exact.items():
        c = r.combatants[r.combatants["combatant"] == name]
        n = int(c["attacks"].sum())
        _within(c["hits"].sum() / n, e.hit, n, f"{name}: hits / attacks")
        for col, pmf in (("damage_dealt", e.damage), ("stunt_points", _points_pmf(e))):
            mu = mean(pmf)
            sd = math.sqrt(float(mean({k * k: p for k, p in pmf.items()}) - mu * mu))
            got = c[col].sum() / n
            assert abs(got - float(mu)) <= 4 * sd / math.sqrt(n), f"{name}: {col} / attacks {got} vs {float(mu)}"


def _points_pmf(e) -> dict[int, Fraction]:
    pmf = {0: e.outcomes["miss"]}
    for label, p in e.outcomes.items():
        if label != "miss":
            k = int(label.split()[0])
            pmf[k] = pmf.get(k, 0) + p
    return pmf


def test_a_charge_then_a_blow_matches_the_engine():
    # A charger 5 m off charges in phase 2 and strikes again in phase 4: the round's damage is
    # the sum of the charge's exchange and a plain one (criticals only, no shield: nothing changes).
    a = _fighter("A", strength=40, weapons=[{"name": "axe", "skill": 30, "damage": "d10"}])
    data = one_blow(a, _fighter("B", hp=300, armor=3),
                    {"family": "charger", "stunt_order": ["major_critical", "minor_critical"]}, start=5)
    scen = load_scenario(data)
    rows = {e.attack: e for e in LO.odds(scen) if e.attacker == "A"}
    charge, plain = rows["axe (charge)"], rows["axe"]
    both: dict[int, Fraction] = {}
    for i, p in charge.damage.items():
        for j, q in plain.damage.items():
            both[i + j] = both.get(i + j, 0) + p * q
    r = sim.run(scen, n=30000, seed=2)
    c = r.combatants[r.combatants["combatant"] == "A"]
    assert (c["attacks"] == 2).all() and (c["charges"] == 1).all()
    n = len(c)
    hits = {0: (1 - charge.hit) * (1 - plain.hit), 2: charge.hit * plain.hit}
    hits[1] = 1 - hits[0] - hits[2]
    for k, p in hits.items():
        _within((c["hits"] == k).mean(), p, n, f"{k} hits")
    for k, p in both.items():
        _within((c["damage_dealt"] == k).mean(), p, n, f"damage {k}")


# --- worked by hand from the text ---

def _duel(a: dict, b: dict, policy: dict, rules: dict | None = None):
    return load_scenario({"name": "hand", "ruleset": "lifeforce", "rules": rules or {},
                          "sides": {"a": {"policy": policy, "combatants": [a]},
                                    "b": {"policy": {"stunts": "none"}, "combatants": [b]}}})


def _row(scen, attack):
    return next(e for e in LO.odds(scen) if e.attacker == "A" and e.attack == attack)


def test_the_rules_page_stunt_point_example():
    # docs/rules/lifeforce.md: d100 + 20 against 70 gives 0: 64 %, 1: 15 %, 2: 15 %, 3: 6 %.
    e = _row(_duel(_fighter("A", weapons=[{"name": "sword", "skill": 20, "damage": "d6"}]), _fighter("B"),
                   {"stunts": "greedy"}), "sword")
    assert e.hit == Fraction(1, 2)
    assert e.outcomes == {"miss": Fraction(50, 100), "0 sp": Fraction(14, 100), "1 sp": Fraction(15, 100),
                          "2 sp": Fraction(15, 100), "3 sp": Fraction(6, 100)}


def test_two_handed_strength_armour_and_fire():
    # Strength Benefit 5 x1.5 truncated is 7: 3 + 7 - Armor 4 = 6 on a hit (1/2 with equal skills).
    two = [{"name": "maul", "damage": "3", "damage_type": "bludgeoning", "two_handed": True}]
    e = _row(_duel(_fighter("A", dodge=0, strength_benefit=5, weapons=two), _fighter("B", dodge=0, armor=4),
                   {"stunts": "none"}), "maul")
    assert e.damage == {0: Fraction(1, 2), 6: Fraction(1, 2)}
    # Armor reduces only bludgeoning, piercing and slashing damage.
    fire = [{"name": "torch", "damage": "3", "damage_type": "fire"}]
    e = _row(_duel(_fighter("A", weapons=fire), _fighter("B", dodge=0, armor=10), {"stunts": "none"}), "torch")
    assert e.damage == {0: Fraction(1, 2), 3: Fraction(1, 2)}


@pytest.mark.parametrize("applies, crit", [("before_armor", 4), ("after_armor", 3)])
def test_minor_critical_before_or_after_armour(applies, crit):
    # d100 > 50 hits; 65 or more earns a stunt point (36 faces) and buys Minor Critical:
    # 4 x1.5 = 6 - Armor 2 = 4 before Armor, (4 - 2) x1.5 = 3 after; a hit without one deals 2.
    sword = [{"name": "sword", "damage": "4"}]
    e = _row(_duel(_fighter("A", weapons=sword), _fighter("B", dodge=0, armor=2), {"stunt_order": ["minor_critical"]},
                   {"critical_applies": applies}), "sword")
    assert e.damage == {0: Fraction(50, 100), 2: Fraction(14, 100), crit: Fraction(36, 100)}


def test_charge_and_shield_block():
    # A Charge: +10 Offence (d100 + 10 > 50: 60 %) and +2 damage; a Shield Block of 2 off 5 + 2.
    axe = [{"name": "axe", "damage": "5"}]
    scen = _duel(_fighter("A", weapons=axe), _fighter("B", dodge=0, shield="2", reactions=["shield_block"]),
                 {"family": "charger", "stunts": "none"})
    assert _row(scen, "axe (charge)").damage == {0: Fraction(40, 100), 5: Fraction(60, 100)}
    assert _row(scen, "axe").damage == {0: Fraction(50, 100), 3: Fraction(50, 100)}
    assert _row(scen, "axe (Reaction spent)").damage == {0: Fraction(50, 100), 5: Fraction(50, 100)}
