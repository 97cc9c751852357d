"""`skirmish odds` for the Lens (sim/rulesets/lens/odds.py): exact odds of one exchange
against icepool (an exact dice library written apart from ours, the rules stated again
from the text below), against the engine's sampled rates, and against hand-worked values."""
from __future__ import annotations

import math
import random
from fractions import Fraction as F
from pathlib import Path

import icepool
import pytest

from sim.odds import mean
from sim.runner import run
from sim.rulesets.lens.odds import odds
from sim.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "lens"

# ---- the rules again, from the text and docs/rules/lens.md, in icepool's dice algebra ----
LEVELS = ("untrained", "novice", "apprentice", "journeyman", "artisan", "master")
TRAINING = dict(zip(LEVELS, (0, 4, 6, 8, 10, 12)))  # "Novice 2d4 .. Master 2d12"
TAGS_PER_ATTACK = dict(zip(LEVELS, range(6)))  # "Novices can only apply one, while Masters can apply five"
WORKS = ("crude", "common", "fine", "superior", "exquisite", "legendary")
WORK_DIE = dict(zip(WORKS, (2, 4, 6, 8, 10, 12)))  # "a crude Two-Handed sword would roll 4d2"
WORK_MOD = dict(zip(WORKS, (-1, 0, 1, 2, 3, 4)))
SIZE_DICE = {"tiny": 1, "small": 2, "medium": 3, "large": 4}
DEFEATS = {"CRUSHING": "block", "SWEEPING": "dodge", "HEAVY": "parry", "PIERCING": "mitigate"}
CONDITION_TAGS = ("STUNNING", "TRIPPING", "HAMSTRINGING", "DISARMING")  # the simulator's own, removable
DEFENCE_ABILITY = {"abjure": "abjuration", "mitigate": "armor_use", "block": "shield_use",
                   "dodge": "maneuvering", "parry": "weapon_use"}
ACTIVE = ("block", "dodge", "parry")
NOTHING = icepool.Die([0])


def efforts(ability: dict, tn: int, variant: str, tool: str = "common") -> icepool.Die:
    """Dice at or over the TN: Talent + two Training dice (untrained: Talent alone); the
    drafts: Talent + Training + tool die, or the tool's modifier put on the die it helps most."""
    dice = [icepool.d(ability["talent"])]
    if TRAINING[ability["training"]]:
        dice += [icepool.d(TRAINING[ability["training"]]),
                 icepool.d(WORK_DIE[tool] if variant == "tool_die" else TRAINING[ability["training"]])]
    mod = WORK_MOD[tool] if variant == "quality_modifier" else 0

    def count(*faces):
        return max(sum(f + (mod if i == k else 0) >= tn for i, f in enumerate(faces)) for k in range(len(faces)))
    return icepool.map(count, *dice)


def ability(block: dict, name: str) -> dict:
    own = block.get("abilities", {}).get(name, {})
    return {"talent": own.get("talent") or block.get("talent", 8), "training": own.get("training", "untrained")}


def tool_of(block: dict, name: str) -> str:
    weapon = block["weapons"][0] if block.get("weapons") else {}
    return {"weapon_use": weapon.get("workmanship", "common"), "shield_use": block.get("shield") or "common",
            "armor_use": block.get("armor_workmanship", "common")}.get(name, "common")


def damage_die(weapon: dict) -> icepool.Die:
    if weapon.get("damage"):
        return dice_text(weapon["damage"])
    return SIZE_DICE[weapon.get("size", "medium")] @ icepool.d(WORK_DIE[weapon.get("workmanship", "common")])


def dice_text(text: str) -> icepool.Die:
    count, rest = text.split("d")
    sides, bonus = (rest.split("+") + ["0"])[:2] if "+" in rest else (rest.split("-") + ["0"])[:2]
    bonus = int(bonus) * (-1 if "-" in rest else 1)
    return (int(count or 1) @ icepool.d(int(sides))) + bonus


def tag_order(weapon: dict) -> list[str]:
    """Tags attach condition or armour-piercing ones first, then the rest as listed."""
    tags = weapon.get("tags", [])
    first = [t for t in tags if t in CONDITION_TAGS or t == "PIERCING"]
    return first + [t for t in tags if t not in first]


def can_defend(block: dict, d: str, tags, missile: bool, magical: bool) -> bool:
    if any(DEFEATS.get(t) == d for t in tags):
        return False
    return {"abjure": magical, "mitigate": block.get("armor_rating", 0) > 0, "block": bool(block.get("shield")),
            "dodge": True, "parry": bool(block.get("weapons")) and not missile}[d]


def defended(block, policy, rules, d, x: icepool.Die, tn, tags) -> tuple[icepool.Die, icepool.Die]:
    """(nullified?, damage) of a blow of x on a character defending with d (None: no defence)."""
    if d is None:
        return icepool.Die([False]), x.map(lambda v: max(v, 0))
    ar = block.get("armor_rating", 0)
    take = policy.get("take_sacrifice", True)
    e = efforts(ability(block, DEFENCE_ABILITY[d]), tn, rules.get("challenge", "two_training"),
                tool_of(block, DEFENCE_ABILITY[d]))
    stacks = (rules.get("defences_per_attack") == "mitigate_stacks" and d in ACTIVE and ar > 0
              and "PIERCING" not in tags)
    e2 = efforts(ability(block, "armor_use"), tn, rules.get("challenge", "two_training"),
                 tool_of(block, "armor_use")) if stacks else icepool.Die([-1])

    def mitigate(k, v, for_tag=True):
        if k == 0:  # "Character takes full Damage and all Tags plus the Armor Rating value"
            return v + ar
        if k == 1:
            return max(v - ar, 0) if take and rules.get("mitigate_sacrifice") != "full" else v
        if k == 2 and for_tag and policy.get("mitigate") == "tag" and any(t in CONDITION_TAGS for t in tags):
            return v  # "[or] 1 Tag from a special attack removed"
        return max(v - ar, 0)

    def outcome(k, k2, v):
        """(nullified, damage) of defence outcome k (and a stacked Mitigate's k2)."""
        if d == "mitigate":
            return False, max(mitigate(k, v), 0)
        if k >= 2 or (k == 1 and take and d != "abjure"):
            return True, 0
        if d == "abjure" and k == 1 and take and rules.get("abjure_rows") == "half_on_sacrifice":
            v = v // 2
        return False, max(mitigate(k2, v, False) if k2 >= 0 else v, 0)
    return (icepool.map(lambda k, k2, v: outcome(k, k2, v)[0], e, e2, x),
            icepool.map(lambda k, k2, v: outcome(k, k2, v)[1], e, e2, x))


def on_monster(monster, rules, x, tags, magical):
    soaks = rules.get("monster_armor", "reduce") == "reduce" and not magical and "PIERCING" not in tags
    cut = monster.get("armor_rating", 0) if soaks else 0
    return icepool.Die([False]), x.map(lambda v: max(v - cut, 0))


def probs(die: icepool.Die) -> dict:
    return {k: die.probability(k) for k in die.outcomes() if die.probability(k)}


def attack_figures(att, att_policy, target, target_policy, rules, k=0, pay=True, forced="policy", spell=False):
    """(hit, outcomes, damage) of att's weapon (k tags attached) or spell on target."""
    variant = rules.get("challenge", "two_training")
    if spell:
        sp = att["spells"][0]
        roll = efforts(ability(att, sp["school"]), target.get("abjuration_tn", 4), variant)
        x, missile, magical, tagged = dice_text(sp["damage"]), False, True, (sp.get("tags", []),) * 3
    else:
        w = att["weapons"][0]
        order = tag_order(w)
        cap = TAGS_PER_ATTACK[ability(att, "weapon_use")["training"]]
        extra = 1 if (k < cap or rules.get("triumph_tag_over_cap", True)) else 0
        roll = efforts(ability(att, "weapon_use"), target.get("defense", 4), variant, w.get("workmanship", "common"))
        x, missile, magical = damage_die(w), w.get("missile", False), False
        tagged = (order[:k], order[:k], order[:k + extra])
    take = att_policy.get("take_sacrifice", True) and pay

    def blow(e):
        tags = tagged[e - 1]
        if target.get("kind") == "monster":
            return on_monster(target, rules, x, tags, magical)
        d = forced if forced and can_defend(target, forced, tags, missile, magical) else None
        return defended(target, target_policy, rules, d, x, att.get("attack_rating", 4), tags)

    connects = lambda e: e >= 2 or (e == 1 and take)
    hit = roll.map(lambda e: blow(e)[0].map(lambda n: not n) if connects(e) else icepool.Die([False]))
    dmg = roll.map(lambda e: blow(e)[1] if connects(e) else NOTHING)
    return hit.probability(True), dict(zip(("botch", "sacrifice", "success", "triumph"),
                                           (roll.probability(i) for i in range(4)))), probs(dmg)


def monster_figures(monster, attack, target, policy, rules, d):
    tags = attack.get("tags", [])
    x = dice_text(attack["damage"]) if "d" in attack["damage"] else icepool.Die([int(attack["damage"])])
    null, dmg = defended(target, policy, rules, d, x, monster.get("attack_rating", 4), tags)
    outcomes = {}
    if d is not None:
        roll = efforts(ability(target, DEFENCE_ABILITY[d]), monster.get("attack_rating", 4),
                       rules.get("challenge", "two_training"), tool_of(target, DEFENCE_ABILITY[d]))
        outcomes = dict(zip(("botch", "sacrifice", "success", "triumph"), (roll.probability(i) for i in range(4))))
    return null.probability(False), outcomes, probs(dmg)


# ---- generated cases -------------------------------------------------------------------
TAG_POOL = ("CRUSHING", "SWEEPING", "HEAVY", "PIERCING", "SLASHING", "STUNNING", "TRIPPING")
DICE_POOL = ("2d6", "d8+1", "3d4", "d4-1", "2d4+2", "d10", "4")


def _character(rng: random.Random, name: str, spells: bool) -> tuple[dict, dict]:
    size = rng.choice(list(SIZE_DICE))
    block = {"name": name, "body": 30, "talent": rng.choice((6, 8, 10, 12)),
             "armor_rating": rng.choice((0, 1, 2, 3)), "armor_workmanship": rng.choice(WORKS),
             "defense": rng.randint(2, 8), "attack_rating": rng.randint(2, 8),
             "abilities": {a: {"training": rng.choice(LEVELS), **({"talent": rng.choice((6, 10))}
                                                                   if rng.random() < 0.3 else {})}
                           for a in ("weapon_use", "maneuvering", "shield_use", "armor_use", "abjuration")},
             "shield": None if size == "large" or rng.random() < 0.4 else rng.choice(WORKS),
             "weapons": [{"name": f"{name}'s weapon", "size": size, "workmanship": rng.choice(WORKS),
                          "tags": rng.sample(TAG_POOL, rng.randint(0, 3)), "missile": rng.random() < 0.2}]}
    if spells and rng.random() < 0.5:
        block["abilities"]["evocation"] = {"training": rng.choice(LEVELS)}
        block["spells"] = [{"name": "bolt", "complexity": 2, "school": "evocation",
                            "damage": rng.choice(("2d4", "d6+1", "3d4")), "tags": rng.sample(TAG_POOL, 1)}]
    policy = {"family": rng.choice(("hold_for_defence", "big_hits_only", "all_out")),
              "take_sacrifice": rng.random() < 0.7, "mitigate": rng.choice(("damage", "tag"))}
    return block, policy


def _case(i: int) -> dict:
    rng = random.Random(7000 + i)
    rules = {"challenge": rng.choice(("two_training", "two_training", "quality_modifier", "tool_die")),
             "mitigate_sacrifice": rng.choice(("reduced_with_tags", "reduced_lose_momentum", "full")),
             "abjure_rows": rng.choice(("success_resists", "half_on_sacrifice")),
             "defences_per_attack": rng.choice(("one", "mitigate_stacks")),
             "monster_armor": rng.choice(("reduce", "reduce", "ignore")),
             "triumph_tag_over_cap": rng.random() < 0.5,
             "attack_sacrifice_at_zero": rng.choice(("miss", "owe")), "engagement": "all_engaged"}
    hero, hero_policy = _character(rng, "Hero", spells=True)
    hero["policy"] = hero_policy
    monster = {"name": "Beast", "kind": "monster", "body": 40, "defense": rng.randint(2, 8),
               "attack_rating": rng.randint(2, 8), "abjuration_tn": rng.randint(2, 8),
               "armor_rating": rng.choice((0, 1, 2, 3)),
               "attacks": [{"name": f"attack {k}", "damage": rng.choice(DICE_POOL),
                            "tags": rng.sample(TAG_POOL, rng.randint(0, 2)), "missile": rng.random() < 0.2,
                            "magical": rng.random() < 0.3} for k in range(rng.randint(1, 2))]}
    foes = [monster]
    if rng.random() < 0.5:
        rival, rival_policy = _character(rng, "Rival", spells=False)
        rival["policy"] = rival_policy
        foes.append(rival)
    return {"name": f"case {i}", "ruleset": "lens", "rules": rules,
            "sides": {"party": {"combatants": [hero]}, "foes": {"combatants": foes}}}


def _expected_rows(data: dict) -> dict:
    """(attacker, defender, attack label) -> (hit, outcomes, damage) for every row the rules
    state without a policy's choice: attacks on monsters, and each defence a character is made to use."""
    rules = data["rules"]
    party, foes = data["sides"]["party"]["combatants"], data["sides"]["foes"]["combatants"]
    out = {}
    for att, side in [(c, foes) for c in party] + [(c, party) for c in foes]:
        for tgt in side:
            pa, pt = att.get("policy", {}), tgt.get("policy", {})
            if att.get("kind") == "monster":
                for a in att["attacks"]:
                    magical, missile = a.get("magical", False), a.get("missile", False)
                    for d in [d for d in DEFENCE_ABILITY if can_defend(tgt, d, a["tags"], missile, magical)]:
                        out[att["name"], tgt["name"], f"{a['name']} ({d.capitalize()})"] = \
                            monster_figures(att, a, tgt, pt, rules, d)
                    out[att["name"], tgt["name"], f"{a['name']} (undefended)"] = \
                        monster_figures(att, a, tgt, pt, rules, None)
                continue
            w = att["weapons"][0]["name"]
            if tgt.get("kind") == "monster":
                out[att["name"], tgt["name"], w] = attack_figures(att, pa, tgt, pt, rules)
                cap = TAGS_PER_ATTACK[ability(att, "weapon_use")["training"]]
                for k in range(1, min(cap, len(att["weapons"][0]["tags"])) + 1):
                    label = f"{w} (+{'+'.join(sorted(tag_order(att['weapons'][0])[:k]))})"
                    out[att["name"], tgt["name"], label] = attack_figures(att, pa, tgt, pt, rules, k=k)
                if pa.get("take_sacrifice", True) and rules["attack_sacrifice_at_zero"] == "miss":
                    out[att["name"], tgt["name"], f"{w} (no Momentum to spare)"] = \
                        attack_figures(att, pa, tgt, pt, rules, pay=False)
                if att.get("spells"):
                    out[att["name"], tgt["name"], "bolt"] = attack_figures(att, pa, tgt, pt, rules, spell=True)
                continue
            for d in [d for d in DEFENCE_ABILITY if can_defend(tgt, d, [], att["weapons"][0].get("missile"), False)]:
                out[att["name"], tgt["name"], f"{w} ({d.capitalize()})"] = \
                    attack_figures(att, pa, tgt, pt, rules, forced=d)
            out[att["name"], tgt["name"], f"{w} (undefended)"] = attack_figures(att, pa, tgt, pt, rules, forced=None)
    return out


def _label(attack: str) -> str:
    """The tags of a '(+A+B)' row in sorted order, so the test need not know the table's order."""
    if " (+" not in attack:
        return attack
    head, tags = attack.split(" (+")
    return f"{head} (+{'+'.join(sorted(tags.rstrip(')').split('+')))})"


@pytest.mark.parametrize("i", range(80))
def test_against_icepool(i):
    data = _case(i)
    got = {(e.attacker, e.defender, _label(e.attack)): e for e in odds(load_scenario(data))}
    want = _expected_rows(data)
    assert want and set(want) <= set(got)
    forced = tuple(f"({d.capitalize()})" for d in DEFENCE_ABILITY) + ("(undefended)",)
    stated = {k for k in got if k[2].endswith(forced) or k[1] == "Beast"}  # all but a character's own pick
    assert stated == set(want), stated ^ set(want)
    for key, (hit, outcomes, damage) in want.items():
        e = got[key]
        assert e.hit == hit, key
        assert e.outcomes == outcomes, key
        assert {k: p for k, p in e.damage.items() if p} == damage, key


# ---- hand-worked values from the text --------------------------------------------------
def duel(hero: dict, beast: dict, rules=None, policy=None) -> dict:
    return {"name": "duel", "ruleset": "lens", "rules": {"engagement": "all_engaged", **(rules or {})},
            "sides": {"a": {"policy": policy or {"family": "hold_for_defence"}, "combatants": [hero]},
                      "b": {"combatants": [beast]}}}


def row(data, attacker, attack):
    return next(e for e in odds(load_scenario(data)) if e.attacker == attacker and e.attack == attack)


JOURNEYMAN = {k: {"training": "journeyman"} for k in ("weapon_use", "maneuvering", "armor_use")}
BEAST = {"name": "Beast", "kind": "monster", "body": 100000, "defense": 5, "attack_rating": 5,
         "armor_rating": 1, "attacks": [{"name": "claw", "damage": "4"}]}


def test_crude_greatsword_on_an_armoured_monster():
    # Journeyman d8 + 2d8 against Defense 5: each die an effort half the time, so 1/8 Botch,
    # 3/8 Sacrifice, 3/8 Success, 1/8 Triumph; a taken Sacrifice connects. The text's crude
    # two-handed sword rolls 4d2 (4..8); Armor Rating 1 leaves 3..7, mean 5.
    hero = {"name": "Hero", "body": 20, "abilities": JOURNEYMAN,
            "weapons": [{"name": "two-handed sword", "size": "large", "workmanship": "crude"}]}
    e = row(duel(hero, BEAST), "Hero", "two-handed sword")
    assert e.outcomes == {"botch": F(1, 8), "sacrifice": F(3, 8), "success": F(3, 8), "triumph": F(1, 8)}
    assert e.hit == F(7, 8)
    assert e.damage == {0: F(1, 8), 3: F(7, 128), 4: F(28, 128), 5: F(42, 128), 6: F(28, 128), 7: F(7, 128)}
    assert mean(e.damage) == F(35, 8)
    # Without the Momentum to pay for a Sacrifice, only Success and Triumph connect.
    assert row(duel(hero, BEAST), "Hero", "two-handed sword (no Momentum to spare)").hit == F(1, 2)


def test_legendary_dagger_triumph_tag_pierces():
    # A legendary dagger rolls 1d12. Its PIERCING tag rides only on a Triumph (no Tag
    # action), which then skips the Armor Rating: Success/Sacrifice 0..11, Triumph 1..12.
    hero = {"name": "Hero", "body": 20, "abilities": JOURNEYMAN,
            "weapons": [{"name": "dagger", "size": "tiny", "workmanship": "legendary", "tags": ["PIERCING"]}]}
    e = row(duel(hero, BEAST), "Hero", "dagger")
    assert e.damage[12] == F(1, 8) * F(1, 12)
    assert e.damage[0] == F(1, 8) + F(6, 8) * F(1, 12)
    assert mean(e.damage) == F(6, 8) * F(11, 2) + F(1, 8) * F(13, 2)


def test_mitigate_botch_adds_the_armor_rating():
    # Untrained Armor Use is the Talent die alone: d8 against Attack Rating 5 is a Botch
    # or a Sacrifice, half and half. Botch: "full Damage ... plus the Armor Rating value"
    # (4 + 2); the Sacrifice's reduced branch (mitigate_sacrifice: reduced_with_tags): 4 - 2.
    hero = {"name": "Hero", "body": 20, "armor_rating": 2, "weapons": [{"name": "sword"}]}
    e = row(duel(hero, BEAST), "Beast", "claw (Mitigate)")
    assert e.damage == {6: F(1, 2), 2: F(1, 2)} and e.hit == 1
    full = row(duel(hero, BEAST, rules={"mitigate_sacrifice": "full"}), "Beast", "claw (Mitigate)")
    assert full.damage == {6: F(1, 2), 4: F(1, 2)}


def test_novice_block_and_the_policy_pick():
    # Novice Shield Use: 2d4 never reach TN 5, so d8 alone: Botch 1/2 (full attack), a
    # Sacrifice 1/2 blocked at the cost of locked Blocks. Block saves 4 * 1/2 = 2 less a
    # Momentum valued 1: the fixed families Block; with no armour Mitigate is not offered.
    hero = {"name": "Hero", "body": 20, "shield": "common", "abilities": {"shield_use": {"training": "novice"}},
            "weapons": [{"name": "sword"}]}
    e = row(duel(hero, BEAST), "Beast", "claw")
    assert e.hit == F(1, 2) and e.damage == {0: F(1, 2), 4: F(1, 2)} and "Block" in e.reading
    # Valued at 3 Body a Momentum, a Block saves less than it costs: no defence.
    e = row(duel(hero, BEAST, policy={"family": "hold_for_defence", "momentum_value": 3}), "Beast", "claw")
    assert e.hit == 1 and e.damage == {4: F(1)} and e.outcomes == {}


def test_the_challenge_example_of_the_docs():
    # d8 + 2d6 against TN 4: Botch 3/32, Triumph 5/32 (docs/rules/lens.md, 'The challenge').
    hero = {"name": "Hero", "body": 20, "talent": 8, "abilities": {"weapon_use": {"training": "apprentice"}},
            "weapons": [{"name": "sword"}]}
    e = row(duel(hero, {**BEAST, "defense": 4}), "Hero", "sword")
    assert e.outcomes["botch"] == F(3, 32) and e.outcomes["triumph"] == F(5, 32)


# ---- against the engine's sampled rates ------------------------------------------------
def _z(sampled: float, exact: F, se: float) -> float:
    return abs(sampled - float(exact)) / se


def _ratio(df, name: str, num: str, den: str) -> tuple[float, float]:
    g = df[df.combatant == name]
    return g[num].sum() / g[den].sum(), float(g[den].sum())


def test_engine_attack_rates_on_a_monster():
    """Every attack on the monster has the same odds (all_out never defends, an unpaid
    Sacrifice is owed, the monster's tags inflict nothing): hits / attacks is the connect
    chance and damage dealt / attacks the exchange's mean."""
    hero = {"name": "Hero", "body": 100000, "talent": 10,
            "abilities": {"weapon_use": {"training": "apprentice"}},
            "weapons": [{"name": "spear", "size": "medium", "workmanship": "fine", "tags": ["PIERCING"]}]}
    data = duel(hero, {**BEAST, "armor_rating": 2}, rules={"attack_sacrifice_at_zero": "owe"},
                policy={"family": "all_out"})
    e = row(data, "Hero", "spear")
    r = run(data, n=20000, seed=21, max_rounds=3)
    rate, n = _ratio(r.combatants, "Hero", "hits", "attacks")
    p = e.outcomes["sacrifice"] + e.outcomes["success"] + e.outcomes["triumph"]
    assert _z(rate, p, math.sqrt(float(p * (1 - p)) / n)) < 4
    per, _ = _ratio(r.combatants, "Hero", "damage_dealt", "attacks")
    sd = math.sqrt(float(mean({k * k: q for k, q in e.damage.items()}) - mean(e.damage) ** 2))
    assert _z(per, mean(e.damage), sd / math.sqrt(n)) < 4
    # The monster's claw on a defender who never defends: every blow deals its 4.
    beast_rate, _ = _ratio(r.combatants, "Beast", "hits", "attacks")
    assert beast_rate == 1.0 and row(data, "Beast", "claw").damage == {4: 1}


ONE_BLOW = [
    # (defender, its policy, the monster's attack, rule options): one blow in round 1.
    ({"armor_rating": 2, "abilities": {"armor_use": {"training": "apprentice"}}},
     {"family": "hold_for_defence", "defences": ["mitigate"]}, {"damage": "2d6"}, {}),
    ({"armor_rating": 2, "shield": "fine", "abilities": {k: {"training": "journeyman"} for k in
                                                          ("maneuvering", "shield_use", "armor_use")}},
     {"family": "hold_for_defence"}, {"damage": "2d6"}, {"defences_per_attack": "mitigate_stacks"}),
    ({"armor_rating": 1, "shield": "common", "abilities": {"maneuvering": {"talent": 10, "training": "apprentice"},
                                                          "shield_use": {"training": "novice"}}},
     {"family": "big_hits_only", "mitigate": "tag"}, {"damage": "3d4+1", "tags": ["CRUSHING", "TRIPPING"]}, {}),
    ({"armor_rating": 3, "abilities": {"abjuration": {"training": "novice"}, "armor_use": {"training": "novice"}}},
     {"family": "hold_for_defence", "defences": ["abjure", "mitigate"]}, {"damage": "2d6", "magical": True},
     {"abjure_rows": "half_on_sacrifice", "challenge": "quality_modifier"}),
    # The default play values a Momentum at its best attack: untrained Weapon Use connects
    # only on a paid Sacrifice (1/2, counted half), so 1/4 x (fine 3d6 less Armor Rating 1)
    # = 2.375; it Mitigates where a Momentum valued 1 would Block. Initiative 30 makes every
    # character Confused: it acts after the monster, as that valuation assumes.
    ({"armor_rating": 1, "shield": "common", "abilities": {"shield_use": {"training": "novice"},
                                                          "armor_use": {"training": "apprentice"}},
      "weapons": [{"name": "long sword", "size": "medium", "workmanship": "fine"}]},
     {"family": "expected_value"}, {"damage": "2d6"}, {}),
]
# The same defender under the default play with a field written (issue 27): a Momentum
# valued as written (1) buys the Block; defend: never leaves the free Mitigate.
ONE_BLOW += [(ONE_BLOW[-1][0], {"family": "expected_value", "momentum_value": 1}, {"damage": "2d6"}, {}),
             (ONE_BLOW[-1][0], {"family": "expected_value", "defend": "never"}, {"damage": "2d6"}, {})]


@pytest.mark.parametrize("k", range(len(ONE_BLOW)))
def test_engine_one_blow_damage(k):
    """Round 1 of a fight with a monster of one attack: the defender takes exactly one blow,
    fresh, so its damage taken is the exchange's damage (each value within 4 standard errors),
    the defence it used is the policy's pick, and the monster's hits / attacks is P(damage > 0)."""
    stats, policy, attack, rules = ONE_BLOW[k]
    hero = {"name": "Hero", "body": 1000, "talent": 8, "weapons": [{"name": "sword", "size": "small"}], **stats}
    beast = {**BEAST, "initiative": 30, "attacks": [{"name": "claw", **attack}]}
    data = duel(hero, beast, rules=rules, policy=policy)
    e = row(data, "Beast", "claw")
    n = 30000
    r = run(data, n=n, seed=100 + k, max_rounds=1)
    g = r.combatants[r.combatants.combatant == "Hero"]
    taken = g.damage_taken.to_numpy()
    for value in set(e.damage) | set(taken.tolist()):
        p = e.damage.get(value, F(0))
        assert _z((taken == value).mean(), p, math.sqrt(max(float(p * (1 - p)), 1e-4 / n) / n)) < 4, value
    picked = next(d for d in ("abjure", "mitigate", "block", "dodge", "parry") if d.capitalize() in e.reading)
    assert (g[f"defended_{picked}"] == 1).all()
    hits = r.combatants[r.combatants.combatant == "Beast"].hits.mean()
    any_damage = 1 - e.damage.get(0, F(0))
    assert _z(hits, any_damage, math.sqrt(float(any_damage * (1 - any_damage)) / n) or 1e-9) < 4


def test_engine_character_duel_rates():
    """The shipped crude greatsword against legendary dagger, with each Sacrifice payable
    (owed when short) and Parry's printed rows (no riposte, whose roll has other odds):
    every attack's connect chance is its exchange's, whatever the defender then does."""
    path = SCENARIOS / "greatsword_vs_dagger.yaml"
    over = {"rules.attack_sacrifice_at_zero": "owe", "rules.parry_rows": "literal"}
    scen = load_scenario(path, over)
    r = run(scen, n=20000, seed=4)
    for e in odds(scen):
        if e.attack not in ("two-handed sword", "dagger"):
            continue
        rate, n = _ratio(r.combatants, e.attacker, "hits", "attacks")
        p = e.outcomes["sacrifice"] + e.outcomes["success"] + e.outcomes["triumph"]
        assert _z(rate, p, math.sqrt(float(p * (1 - p)) / n)) < 4, e.attacker


def test_default_play_values_momentum_at_its_best_attack():
    # The last ONE_BLOW defender of the default play: its Momentum is worth 1/4 x 9.5 = 2.375, so it Mitigates;
    # valued at 1 (a fixed family's momentum_value) it Blocks.
    from sim.rulesets.lens.odds import worth
    from sim.rulesets.lens.setup import build
    stats, policy, attack, _ = ONE_BLOW[-3]
    hero = {"name": "Hero", "body": 1000, "talent": 8, **stats}
    beast = {**BEAST, "attacks": [{"name": "claw", **attack}]}
    scen = load_scenario(duel(hero, beast, policy=policy))
    assert worth(build(scen), 0) == 2.375
    assert "Mitigate" in row(duel(hero, beast, policy=policy), "Beast", "claw").reading
    assert "Block" in row(duel(hero, beast), "Beast", "claw").reading
    for written, pick in (({"momentum_value": 1}, "Block"), ({"defend": "never"}, "Mitigate"),
                          ({"momentum_value": 1, "defend": "never"}, "Mitigate")):
        assert pick in row(duel(hero, beast, policy={**policy, **written}), "Beast", "claw").reading, written
