"""The baseline for Lifeforce: a one-on-one melee skirmish as a plain Python loop.

This is the program one would write without the batch engine: `random` for the dice, a
loop over skirmishes, rounds, the four action phases, the two creatures' turns in turn
order and their attacks. It plays the engine's default reading of the text
(docs/rules/lifeforce.md) for what `scenarios/lifeforce/duel.yaml` exercises: turn order by
Reaction with d10 roll-offs made once, Movement split over the phases, the `steady`
policy (walk up while preparing a 2 AP Weapon Attack, Run when far), d100 + Offence
against Touch Defence, stunt points bought in the policy's order (Minor / Major Critical,
Defensive Stance, Seize the Initiative), Strength Benefit, two-handed weapons, Armor and
penetration, Shield Block by Reaction, surprise, and down at 0 hit points. It reads the
fighters from the same scenario file, so its results must agree with the engine's within
sampling error; scenarios using anything else are refused. It is both a speed yardstick
and an independent implementation the tests compare with.

The two creatures start on one row of the grid and only ever walk toward each other, so
the fight is a distance on a line: a walk of k squares along the row shortens it by k
(every metric counts a straight step as one square), and a walker stops once the other
is within its reach, so it never has to step into the occupied square or sidestep.
"""
from __future__ import annotations

import random

from benchmarks.tally import Tally
from sim.rulesets.lifeforce import tables as T
from sim.scenario import load_scenario

STANDING, UNCONSCIOUS, DEAD = "standing", "unconscious", "dead"
ATTACK, RUN = 1, 2  # what a creature prepares; 0 = nothing

# Options that change nothing in what this loop plays: no charges, grapples, readied
# actions, ranged or Loading weapons, Skirmish / Disarm / Threaten / Knock Prone stunts
# (all refused below), and one enemy so the target never changes.
IRRELEVANT = {"prepared_target", "readied_lasts", "charge_moves_on_attack_phase", "defensive_stance_defences",
              "skirmish_stunt_cells", "initiator_check", "stand_up_ap", "disarmed_recover_ap", "unarmed_damage",
              "loading_ap", "threaten_phases", "grapple_offence_bonus", "grapple_ties", "grapple_first_contest",
              "grappled_can_move", "held_keeps_preparation"}
PLAYED = {"attack_die", "stunt_step", "strength_benefit_divisor", "two_handed_multiplier", "turn_order_by",
          "turn_order_reroll", "preparation_carries_over", "reaction_actions", "surprise_round",
          "spell_stunt_costs", "seize_the_initiative", "critical_applies", "at_zero_hp"}
# Stunts the loop plays; Dual Strike (needs a second enemy) and Rapid Reload (needs a
# Loading weapon) may stand in a buying order but can never be bought one on one.
STUNTS_PLAYED = {"minor_critical", "major_critical", "defensive_stance", "seize_the_initiative",
                 "dual_strike", "rapid_reload"}


class Fighter:
    def __init__(self, c, rules, grid):
        st, pol = c.stats, c.policy
        self.name = c.name
        self.hp = st["hp"]
        key = "initiative" if rules["turn_order_by"] == "initiative" else "reaction"
        self.order = st[key] if st[key] is not None else st["reaction"]
        self.dodge = st["dodge"]
        self.armor = st["armor"]
        self.hastened, self.slowed = st["hastened"], st["slowed"]
        self.surprised = st["surprised"]
        w = st["weapons"][0]
        self.offence = w["skill"] + st["offence"]
        self.reach = max(1, grid.cells(w["reach"]))
        self.dice = (w["damage"].count, w["damage"].sides, w["damage"].bonus)
        if st["strength_benefit"] is not None:
            sb = st["strength_benefit"]
        elif st["strength"] is not None:
            sb = st["strength"] // rules["strength_benefit_divisor"]
        else:
            sb = 0
        self.sb = int(sb * rules["two_handed_multiplier"]) if w["two_handed"] else sb  # truncated
        self.armoured = w["damage_type"] in T.ARMOURED_TYPES
        self.penetration = w["armor_penetration"]
        # Cells a phase, the metres counted cumulatively and rounded down (never farther than Movement).
        metres = [sum(int(T.movement_split(st["movement"], q)) for q in range(p + 1)) for p in range(T.PHASES)]
        cells = [int(m / grid.cell_size + 1e-9) for m in metres]
        self.split = [c - (cells[p - 1] if p else 0) for p, c in enumerate(cells)]
        self.shield = st["shield"]
        self.blocks = (st["shield"] is not None and "shield_block" in st["reactions"]
                       and pol.params["use_reaction"] in ("any", "shield_block")
                       and rules["reaction_actions"] != "ap")
        # The two-phase Run of a written family (its scenarios write `family: steady`); the
        # default play's Run when it pays is the kernel's alone (kdecide.run_pays).
        self.runs = pol.params["run"] is not False
        if pol.params["stunts"] == "expected" and not pol.params["stunt_order"]:
            raise ValueError(f"the plain loop buys stunts in a fixed order only; give {c.name}'s side "
                             "stunts: greedy (or another order) instead of the default expected-worth buyer")
        order = pol.params["stunt_order"] or T.STUNT_PRIORITIES[pol.params["stunts"]]
        self.generates = pol.params["stunts"] != "none" or bool(pol.params["stunt_order"])
        costs = T.stunt_costs(w["stunts"], rules["spell_stunt_costs"])
        seize_ok = rules["seize_the_initiative"] != "none"
        # What a number of stunt points buys: the attacker's Defensive Stance has always
        # ended at the start of its own turn, so the purchase depends on the points only.
        self.buys = []
        for points in range((rules["attack_die"] + self.offence) // rules["stunt_step"] + 1):
            left, bought = points, set()
            for s in order:
                cost = int(costs[T.STUNT[s]])
                applicable = s not in ("dual_strike", "rapid_reload") and (s != "seize_the_initiative" or seize_ok)
                crit = s in T.CRITICAL_MULTIPLIER and bought & set(T.CRITICAL_MULTIPLIER)
                if cost > 0 and applicable and left >= cost and not crit:
                    bought.add(s)
                    left -= cost
            mult = T.CRITICAL_MULTIPLIER.get(next((s for s in bought if s in T.CRITICAL_MULTIPLIER), ""), 1.0)
            self.buys.append((mult, "defensive_stance" in bought, "seize_the_initiative" in bought))


def fighters_from(scenario) -> tuple[list[Fighter], int]:
    """The two fighters and the squares between them; ValueError for what the loop does not play."""
    if scenario.ruleset_name != "lifeforce":
        raise ValueError(f"the plain Lifeforce loop plays Lifeforce scenarios; this one is {scenario.ruleset_name}")
    rules = scenario.rules
    defaults = {k: f.default for k, f in scenario.ruleset.rule_options.items()}
    for key, value in rules.items():
        if key not in PLAYED | IRRELEVANT and value != defaults[key]:
            raise ValueError(f"the plain loop does not play rules.{key} = {value!r}")
    cs = scenario.combatants
    if len(cs) != 2 or cs[0].side == cs[1].side:
        raise ValueError("the plain loop plays one combatant against one")
    grid = scenario.battlefield
    for c in cs:
        st, pol = c.stats, c.policy
        if pol.rules:
            raise ValueError(f"{c.name}: the plain loop plays no scripted policy rules")
        if pol.params["family"] != "steady":
            raise ValueError(f"{c.name}: the plain loop plays the steady policy only, not {pol.params['family']}")
        if pol.params["answer_threats"]:
            raise ValueError(f"{c.name}: the plain loop does not play answer_threats")
        bad = set(pol.params["stunt_order"] or T.STUNT_PRIORITIES[pol.params["stunts"]]) - STUNTS_PLAYED
        if bad:
            raise ValueError(f"{c.name}: the plain loop does not play the stunts {', '.join(sorted(bad))}")
        if not st["weapons"] or any(w["range"] or w["loading"] for w in st["weapons"]):
            raise ValueError(f"{c.name}: the plain loop plays melee weapons only (and needs one)")
    a, b = cs
    reach = [max(1, grid.cells(c.stats["weapons"][0]["reach"])) for c in cs]
    for c, mine, theirs in ((a, reach[0], reach[1]), (b, reach[1], reach[0])):
        # With unequal reach the shorter-reached walks in through the other's reach.
        if "attack_of_opportunity" in c.stats["reactions"] and mine > theirs:
            raise ValueError(f"{c.name}: the plain loop plays no Attacks of Opportunity")
    (xa, ya), (xb, yb) = scenario.layout.static.tolist()
    if ya != yb or "scattered" in scenario.formations:
        raise ValueError("the plain loop plays two combatants starting on one row of the grid")
    return [Fighter(a, rules, grid), Fighter(b, rules, grid)], abs(xa - xb)


def skirmish(fs, dist0, rules, rng: random.Random, max_rounds: int):
    """One fight. Returns (winner 0/1, -2 unfinished; rounds; final states; per-fighter tallies)."""
    randint, rand = rng.randint, rng.random
    die, step = rules["attack_die"], rules["stunt_step"]
    down_state = DEAD if rules["at_zero_hp"] == "dead" else UNCONSCIOUS
    before_armor = rules["critical_applies"] == "before_armor"
    no_actions = rules["surprise_round"] == "no_actions"
    reroll = rules["turn_order_reroll"] == "each_round"
    carry = rules["preparation_carries_over"]
    hp = [fs[0].hp, fs[1].hp]
    dist = dist0
    prep = [0, 0]  # the action being prepared
    pap = [0, 0]  # its action points
    ds = [False, False]  # Defensive Stance
    seize = [0, 0]  # Seize the Initiative bought this round: Hastened next round
    haste = [0, 0]  # ... and that source this round
    tally = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]  # attacks, hits, damage dealt, stunt points, shield blocks

    def roll_off():
        # d10s "until one of them rolls higher": three columns and a uniform tie-break, as many as needed.
        return [(randint(1, 10), randint(1, 10), randint(1, 10), rand()) for _ in fs]

    rolls = roll_off()
    for rnd in range(1, max_rounds + 1):
        haste, seize = seize, [0, 0]
        reaction = [fs[0].blocks, fs[1].blocks]
        if reroll and rnd > 1:
            rolls = roll_off()
        keys = [(f.hastened + haste[i] - f.slowed, f.order) + rolls[i] for i, f in enumerate(fs)]
        order = (0, 1) if keys[0] > keys[1] else (1, 0)
        flat = rnd == 1
        for p in range(T.PHASES):
            for a in order:
                if hp[a] <= 0:
                    continue
                ds[a] = False  # "until your next turn"
                b = 1 - a
                if hp[b] <= 0 or (no_actions and flat and fs[a].surprised):
                    continue  # no enemy left (the fight is over), or surprised: no action
                f = fs[a]
                # Plan: attack; run while the target is more than two phases' walk away.
                mv = f.split[p]
                want = ATTACK
                if f.runs and dist - f.reach > mv + f.split[(p + 1) % 4] and not (prep[a] == ATTACK and pap[a] > 0):
                    want = RUN
                if want != prep[a]:
                    prep[a], pap[a] = want, 0
                # Movement: walk up until the target is in reach (Run doubles it).
                allow = 2 * mv if want == RUN else mv
                if dist > f.reach and allow > 0:
                    dist = max(f.reach, dist - allow)
                # Action: one more point of preparation; act once the Activation Time is reached.
                pap[a] += 1
                if want == RUN:
                    prep[a] = pap[a] = 0
                    continue
                if pap[a] < 2:
                    continue
                if dist > f.reach:
                    pap[a] = 2  # held, fully prepared, until the target is in reach
                    continue
                prep[a] = pap[a] = 0
                g = fs[b]
                t = tally[a]
                t[0] += 1
                # Flat-Footed loses Dodge's bonus; a negative Dodge still counts.
                defence = 50 + (min(g.dodge, 0) if flat and g.surprised else g.dodge) + (10 if ds[b] else 0)
                margin = randint(1, die) + f.offence - defence
                if margin <= 0:
                    continue  # ties go to the defender
                t[1] += 1
                points = margin // step if f.generates else 0
                mult, stance, seized = f.buys[points]
                t[3] += points
                count, sides, bonus = f.dice
                rolled = bonus
                for _ in range(count):
                    rolled += randint(1, sides)
                rolled = max(rolled, 0) + f.sb
                armor = max(g.armor - f.penetration, 0) if f.armoured else 0
                if before_armor:
                    dmg = max(int(rolled * mult) - armor, 0)
                else:
                    dmg = int(max(rolled - armor, 0) * mult)
                if reaction[b] and dmg > 0:  # Shield Block by Reaction, on the first hit armour does not stop
                    reaction[b] = False
                    tally[b][4] += 1
                    sh = g.shield
                    block = sh.bonus
                    for _ in range(sh.count):
                        block += randint(1, sh.sides)
                    # A roll is never below 0, as for weapon dice (the engine subtracts a
                    # negative roll, e.g. of a shield "d2-3", and adds damage).
                    dmg = max(dmg - max(block, 0), 0)
                t[2] += dmg
                hp[b] -= dmg
                if stance:
                    ds[a] = True
                if seized:
                    seize[a] = 1
            if hp[0] <= 0 or hp[1] <= 0:
                states = [STANDING if h > 0 else down_state for h in hp]
                return (0 if hp[0] > 0 else 1), rnd, states, tally
        if not carry:
            prep, pap = [0, 0], [0, 0]
    return -2, max_rounds, [STANDING, STANDING], tally


def play(path, n: int, seed: int = 0, max_rounds: int | None = None) -> dict:
    """Play `n` skirmishes; counts of winners, mean rounds, final states and tallies per combatant."""
    scen = load_scenario(path)
    fs, dist0 = fighters_from(scen)
    max_rounds = max_rounds or scen.run["max_rounds"]
    rng = random.Random(seed)
    tally = Tally([f.name for f in fs], (STANDING, UNCONSCIOUS, DEAD))
    totals = [[0] * 5 for _ in fs]
    for _ in range(n):
        w, r, status, per_fighter = skirmish(fs, dist0, scen.rules, rng, max_rounds)
        tally.add(w, r, status)
        for i, counts in enumerate(per_fighter):
            for k, v in enumerate(counts):
                totals[i][k] += v
    columns = ("attacks", "hits", "damage_dealt", "stunt_points", "shield_blocks")
    return {**tally.result(scen.side_names),
            "totals": {f.name: dict(zip(columns, t)) for f, t in zip(fs, totals)}}

if __name__ == "__main__":  # pragma: no cover
    import sys
    import time
    t0, c0 = time.perf_counter(), time.process_time()
    res = play(sys.argv[1] if len(sys.argv) > 1 else "scenarios/lifeforce/duel.yaml",
               int(sys.argv[2]) if len(sys.argv) > 2 else 10000)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(res)
    print(f"{res['n'] / wall:,.0f} skirmishes/s ({res['n'] / cpu:,.0f} per CPU-second)")
