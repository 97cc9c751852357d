"""Exact odds of one Lifeforce exchange (sim/odds.py): a Weapon Attack's d<attack_die>
roll against Touch Defence face by face, the stunt points each face earns, what the
attacker's buyer spends them on, then the damage dice, Strength Benefit, Armor and the
defender's Shield Block, all counted exactly.

The numbers are the kernel's own: the tables come from kplay.build (stat blocks, weapon
rows, Strength Benefit per weapon, rule options, condition table, stunt costs, buying
orders, the expected-damage table), a fixed buying order is spent by attacks.buy_stunts
(the same walk as katt.buy_stunts) and the default expected-worth buyer is
kstunts.buy_best restated for one blow, its float arithmetic in the kernel's order so
that it picks the same stunts on the same face. Of the stunts only the criticals change
this blow's damage; the others act later and are left out of the damage.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from sim.odds import Exchange, indexed_matchups
from sim.odds import exchange as exchange_between
from sim.rulesets.lifeforce import kplay, kstunts, schema
from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.attacks import buy_stunts, final_damage
from sim.rulesets.lifeforce.layout import (
    K_ARMOR, K_DODGE, K_HAS_SHIELD, K_HELD_W, K_HP, K_MELEE_W, K_OFFENCE, K_RANGED_W, K_REACT_BLOCK, K_REFLEX,
    K_STUNT_EV, K_SURPRISED, K_UNARMED_W, K_GENERATES,
    R_ATTACK_DIE, R_CRIT_BEFORE, R_INITIATOR_D100, R_LOADING_AP, R_REACTION_MODE, R_RECOVER_AP,
    R_SEIZE_ON, R_SKIRMISH_CELLS, R_STAND_AP, R_STUNT_STEP,
    W_AP, W_ARMOURED, W_LOADING, W_RANGE, W_SKILL, W_TABLE, W_UNARMED)

PRONE = TB.COND["prone"]
MULT = {2: 1.0, 3: 1.5, 4: 2.0}  # the kernel's mult2 (twice the multiplier) as attacks.final_damage's factor
CHARGE, GRAPPLE = schema.ACTIONS.index("charge"), schema.ACTIONS.index("grapple")


@dataclass(frozen=True)
class Case:
    """The situation of one row: the standard (both fresh) or one deviation from it."""
    label: str = ""
    charge: bool = False
    prone: bool = False  # the defender lies prone
    round1: bool = False  # the surprise round: a surprised creature is Flat-Footed
    block: bool = False  # the defender's Shield Block (by Reaction or readied) comes off this blow


class Play:
    """The kernel's tables of a scenario (kplay.build), read as the fresh state of round 2
    or later: full hit points, nobody prone, disarmed, threatened or in Defensive Stance."""

    def __init__(self, scenario):
        ks = kplay.build(scenario)
        self.K, self.W, self.R, self.COND, self.SBW, self.COSTS, self.PRIO = ks.tables[:7]
        self.EV, self.EVR, self.EVC = ks.tables[19:22]
        self.dice = ks.legacy.w_dice.dice
        self.shield = ks.legacy.shield_dice.dice
        self.names = ks.legacy.w_name


@dataclass(frozen=True)
class Blow:
    """One attack of `att` with weapon row `w` on `tgt` in situation `case`."""
    play: Play
    att: int
    tgt: int
    w: int
    case: Case

    def cond(self, c: int, col: int) -> int:
        return int(self.play.COND[PRONE, col]) if self.case.prone and c == self.tgt else 0

    def skill(self, c: int, col: int) -> int:
        """A Defence's skill part; Flat-Footed loses a bonus, never a penalty (katt.strike)."""
        v = int(self.play.K[c, col])
        return min(v, 0) if self.case.round1 and self.play.K[c, K_SURPRISED] else v

    def touch(self, b: int, w: int) -> int:
        """b's Touch Defence against weapon row w (its melee or ranged column of the condition table)."""
        col = A.C_MELEE if self.play.W[w, W_RANGE] == 0 else A.C_RANGED
        return TB.DEFENCE_BASE + self.skill(b, K_DODGE) + self.cond(b, col)

    def offence(self, a: int, w: int) -> int:
        return int(self.play.W[w, W_SKILL] + self.play.K[a, K_OFFENCE]) + self.cond(a, A.C_OFFENCE)

    # --- kstunts' expected-worth buyer, in its float arithmetic ---

    def chance(self, a: int, b: int, w: int) -> float:
        return _hit_chance(int(self.play.R[R_ATTACK_DIE]), self.offence(a, w), self.touch(b, w))

    def ev(self, a: int, w: int, b: int, m: int = 0) -> float:
        P = self.play
        return float(P.EV[P.EVR[a, w], P.EVC[b] * 3 + m])

    def per_blow(self, a: int, b: int, w: int) -> float:
        return self.chance(a, b, w) * self.ev(a, w, b)

    def their_weapon(self) -> int:
        """kstunts._weapon_on: the defender answers a melee blow (1 m away) in melee, a shot
        (from beyond its reach) with its ranged weapon if it has one."""
        K, W = self.play.K, self.play.W
        rw = int(K[self.tgt, K_RANGED_W])
        return rw if W[self.w, W_RANGE] > 0 and rw >= 0 else int(K[self.tgt, K_MELEE_W])

    def applicable(self, s: int) -> bool:
        """kfacts.applicable on the fresh state: no second enemy for Dual Strike."""
        K, W, R = self.play.K, self.play.W, self.play.R
        return {A.ST_RAPID: bool(W[self.w, W_LOADING]), A.ST_SKIRMISH: R[R_SKIRMISH_CELLS] > 0,
                A.ST_DISARM: not W[K[self.tgt, K_HELD_W], W_UNARMED], A.ST_PRONE: not self.case.prone,
                A.ST_DUAL: False, A.ST_SEIZE: bool(R[R_SEIZE_ON])}.get(s, True)

    def worth(self, s: int, total: int) -> float:
        P, a, b, w = self.play, self.att, self.tgt, self.w
        K, W, R, COND = P.K, P.W, P.R, P.COND
        die = int(R[R_ATTACK_DIE])
        e0 = self.ev(a, w, b)
        if s in (A.ST_MINOR, A.ST_MAJOR):
            return self.ev(a, w, b, 1 if s == A.ST_MINOR else 2) - e0
        if s == A.ST_DUAL:
            return 0.0
        ours = self.per_blow(a, b, w)
        if s == A.ST_RAPID:
            return int(R[R_LOADING_AP]) / 2.0 * ours
        if s == A.ST_SEIZE:
            return kstunts.SEIZE_WORTH * ours
        tw = self.their_weapon()
        theirs_hit = self.ev(b, tw, a)
        theirs = self.chance(b, a, tw) * theirs_hit
        if s == A.ST_DS:
            return int(COND[kstunts.C_DS, A.C_MELEE]) / die * theirs_hit * kstunts.DS_BLOWS
        if K[b, K_HP] <= e0:
            return 0.0
        if s == A.ST_PRONE:
            reflex = TB.DEFENCE_BASE + self.skill(b, K_REFLEX)
            if R[R_INITIATOR_D100]:
                p = _hit_chance(die, int(W[w, W_SKILL] + K[a, K_OFFENCE]), reflex)
            else:
                p = 1.0 if total > reflex else 0.0
            penalties = (-int(COND[PRONE, A.C_OFFENCE]) * theirs_hit - int(COND[PRONE, A.C_MELEE]) * e0) / die
            return p * (int(R[R_STAND_AP]) / 2.0 * theirs + penalties)
        if s == A.ST_DISARM:
            need = total - int(W[K[b, K_HELD_W], W_SKILL] + K[b, K_OFFENCE])
            p = min(max(need - 1, 0), die) / die
            if R[R_RECOVER_AP] > 0:
                return p * int(R[R_RECOVER_AP]) / 2.0 * theirs
            bare = self.per_blow(b, a, int(K[b, K_UNARMED_W]))
            return p * max(theirs - bare, 0.0) * kstunts.DISARM_BLOWS
        return 0.0

    def buy_best(self, points: int, total: int) -> int:
        """kstunts.buy_best: the bit mask of the affordable helping subset worth the most."""
        costs = self.play.COSTS[self.play.W[self.w, W_TABLE]]
        sv = [0.0] * A.N_STUNTS
        helping = 0
        for s in range(A.N_STUNTS):
            if 0 < costs[s] <= points and self.applicable(s):
                v = self.worth(s, total)
                if v > 1e-9:
                    sv[s], helping = v, helping | 1 << s
        best, best_value, sub = 0, 0.0, helping
        while sub > 0:
            cost, value = 0, 0.0
            for s in range(A.N_STUNTS):
                if sub >> s & 1:
                    cost += int(costs[s])
                    value += sv[s]
            both = sub >> A.ST_MINOR & 1 and sub >> A.ST_MAJOR & 1
            if cost <= points and not both and value > best_value:
                best, best_value = sub, value
            sub = (sub - 1) & helping
        return best

    def buy_order(self, points: int) -> int:
        """A fixed buying order, spent by the batch engine's walk (the kernel's, row for row)."""
        P = self.play
        app = np.array([[self.applicable(s) for s in range(A.N_STUNTS)]])
        bought = buy_stunts(np.array([points]), P.PRIO[self.att][None, :], P.COSTS[P.W[self.w, W_TABLE]], app)[0]
        return sum(1 << s for s in range(A.N_STUNTS) if bought[s])

    def bought(self, points: int, total: int) -> int:
        """The bit mask of the stunts `points` buy on this face (katt.buy_stunts)."""
        if points <= 0:
            return 0
        return self.buy_best(points, total) if self.play.K[self.att, K_STUNT_EV] else self.buy_order(points)


def _hit_chance(die: int, offence: int, defence: int) -> float:
    need = defence - offence
    return 1.0 if need <= 0 else 0.0 if need >= die else (die - need) / die


def _counts(dice) -> Counter:
    """Exact counts of each total of a dice expression (out of sides ** count)."""
    counts = Counter({0: 1})
    for _ in range(dice.count):
        nxt: Counter = Counter()
        for t, c in counts.items():
            for face in range(1, dice.sides + 1):
                nxt[t + face] += c
        counts = nxt
    return Counter({t + dice.bonus: c for t, c in counts.items()})


def damage_of_hit(blow: Blow, mult2: int) -> dict[int, Fraction]:
    """The damage a hit deals with critical `mult2`: katt.strike's dice floored at 0, +
    Strength Benefit (+2 on a Charge), the critical and Armor in the rule option's order,
    then the Shield Block's roll (floored at 0) off what is left."""
    P, a, b, w = blow.play, blow.att, blow.tgt, blow.w
    rolled = Counter()
    for v, c in _counts(P.dice[w]).items():
        rolled[max(v, 0) + int(P.SBW[a, w]) + (TB.CHARGE_DAMAGE if blow.case.charge else 0)] += c
    shield = Counter({0: 1})
    if blow.case.block:
        shield = Counter()
        for v, c in _counts(P.shield[b]).items():
            shield[max(v, 0)] += c
    armour = max(int(P.K[b, K_ARMOR] - P.W[w, W_AP]), 0) if P.W[w, W_ARMOURED] else 0
    r, rc = np.array(list(rolled)), np.array(list(rolled.values()), dtype=object)
    s, sc = np.array(list(shield)), np.array(list(shield.values()), dtype=object)
    crit = "before_armor" if P.R[R_CRIT_BEFORE] else "after_armor"
    dmg = final_damage(r[:, None], armour, MULT[mult2], s[None, :], crit)
    weight = rc[:, None] * sc[None, :]
    out: Counter = Counter()
    for k, c in zip(dmg.ravel().tolist(), weight.ravel().tolist()):
        out[k] += c
    total = sum(out.values())
    return {k: Fraction(c, total) for k, c in sorted(out.items())}


def faces(blow: Blow):
    """(stunt points, stunts bought) for each face of the attack die; points -1 for a miss."""
    P, a, w = blow.play, blow.att, blow.w
    step = int(P.R[R_STUNT_STEP])
    defence = blow.touch(blow.tgt, w)
    offence = blow.offence(a, w) + (TB.CHARGE_OFFENCE if blow.case.charge else 0)
    for face in range(1, int(P.R[R_ATTACK_DIE]) + 1):
        total = face + offence
        if total <= defence:  # ties go to the defender
            yield -1, 0
            continue
        points = (total - defence) // step if P.K[a, K_GENERATES] else 0
        yield points, blow.bought(points, total)


def exchange(blow: Blow) -> tuple[Fraction, dict[str, Fraction], dict[int, Fraction]]:
    """(hit chance, stunt points outcome, damage pmf) of one blow, face by face of the attack die."""
    die = int(blow.play.R[R_ATTACK_DIE])
    points, crits = Counter(), Counter()
    for p, mask in faces(blow):
        points[p] += 1
        if p >= 0:
            crits[4 if mask >> A.ST_MAJOR & 1 else 3 if mask >> A.ST_MINOR & 1 else 2] += 1
    hit = 1 - Fraction(points[-1], die)
    outcomes = {"miss": Fraction(points.pop(-1, 0), die)}
    outcomes.update({f"{p} sp": Fraction(points[p], die) for p in range(max(points, default=-1) + 1)})
    damage: Counter = Counter({0: 1 - hit})
    for m, n in crits.items():
        for k, q in damage_of_hit(blow, m).items():
            damage[k] += Fraction(n, die) * q
    return hit, outcomes, dict(sorted(damage.items()))


def purchases(blow: Blow) -> dict[str, Fraction]:
    """The chance this blow buys each stunt (how often the engine's stunt_<name> columns count one)."""
    die = int(blow.play.R[R_ATTACK_DIE])
    seen = Counter(s for _, mask in faces(blow) for s in range(A.N_STUNTS) if mask >> s & 1)
    return {TB.STUNT_NAMES[s]: Fraction(seen[s], die) for s in range(A.N_STUNTS)}


def _attacks(P: Play, a: int) -> list[int]:
    """The weapon rows the attacker strikes with: its first melee weapon (bare hands
    without one) in reach, its first ranged weapon at range."""
    rows = [int(P.K[a, K_MELEE_W])]
    return rows + ([int(P.K[a, K_RANGED_W])] if P.K[a, K_RANGED_W] >= 0 else [])


def _can_floor(scenario, side: int) -> bool:
    """Whether anyone of `side` can lay an enemy prone: Knock Prone in its buying (the
    expected-worth buyer considers it too) or a grapple's Pin."""
    for c in scenario.combatants:
        p = c.policy
        if c.side == side and (p.params["family"] == "grappler" or any(r.action == GRAPPLE for r in p.rules)
                               or "knock_prone" in (p.params["stunt_order"] or ())
                               or p.params["stunts"] in ("expected", "control") and not p.params["stunt_order"]):
            return True
    return False


def cases(scenario, P: Play, a, d, idf: int, w: int) -> list[Case]:
    """The standard row, then one row per situation the engine plays that changes the odds."""
    melee = P.W[w, W_RANGE] == 0
    mode = ("both", "reaction", "ap")[int(P.R[R_REACTION_MODE])]
    by_reaction = bool(P.K[idf, K_REACT_BLOCK]) and mode != "ap"
    std = Case(block=by_reaction)
    out = [std]
    if P.K[idf, K_HAS_SHIELD]:
        if by_reaction:
            out.append(replace(std, label="Reaction spent", block=False))
        elif mode != "reaction":
            out.append(replace(std, label="readied Shield Block", block=True))
    if melee and not P.W[w, W_UNARMED] and (a.policy.params["family"] == "charger"
                                             or any(r.action == CHARGE for r in a.policy.rules)):
        out.append(replace(std, label="charge", charge=True))
    col = A.C_MELEE if melee else A.C_RANGED
    if P.COND[PRONE, col] and _can_floor(scenario, a.side):
        # A condition table whose Prone forbids beginning actions forbids the Shield Block too (katt.can_react).
        blocks = std.block and bool(P.COND[PRONE, A.C_BEGINS])
        out.append(replace(std, label="defender prone", prone=True, block=blocks))
    if d.stats["surprised"] and P.K[idf, K_DODGE] > 0:
        out.append(replace(std, label="defender flat-footed", round1=True))
    return out


SITUATIONS = {"": "fresh defender (unhurt, standing)", "Reaction spent": "fresh defender, its Reaction spent",
              "readied Shield Block": "fresh defender with a Shield Block readied",
              "charge": "a Charge (+10 Offence, +2 damage) on a fresh defender",
              "defender prone": "defender prone, unhurt",
              "defender flat-footed": "surprise round, defender Flat-Footed"}


def _reading(blow: Blow, a) -> str:
    P, case = blow.play, blow.case
    parts = [SITUATIONS[case.label]]
    if P.K[blow.tgt, K_HAS_SHIELD] and case.label not in ("Reaction spent", "readied Shield Block"):
        parts.append("Shield Block by Reaction" if case.block else "no Shield Block")
    if P.W[blow.w, W_RANGE]:
        parts.append("shot from beyond its reach")
    params = a.policy.params
    parts.append("no stunt points" if not P.K[blow.att, K_GENERATES] else
                 "stunts by expected worth" if P.K[blow.att, K_STUNT_EV] else
                 f"stunts in the {'given' if params['stunt_order'] else params['stunts']} order")
    return ", ".join(parts) + ("" if not P.K[blow.att, K_GENERATES] else ", no second enemy for Dual Strike")


def odds(scenario) -> list[Exchange]:
    P = Play(scenario)
    out = []
    for a, d, ia, idf in indexed_matchups(scenario):
        for w in _attacks(P, ia):
            for case in cases(scenario, P, a, d, idf, w):
                blow = Blow(P, ia, idf, w, case)
                hit, outcomes, damage = exchange(blow)
                label = P.names[w] + (f" ({case.label})" if case.label else "")
                out.append(exchange_between(scenario, a, d, label, hit, damage, outcomes, _reading(blow, a)))
    return out
