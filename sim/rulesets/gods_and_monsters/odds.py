"""Gods & Monsters: the exact odds of one attack (sim/odds.py), by enumerating its dice.

Every number is read from the tables the kernel plays (tables.build: the target number's
parts, the damage dice with the Strength bonus, the cover table, high ground and unseen
targets, the policy's called shots and blows), so the odds follow the same rule data and
rule options as a run. An attack hits on d20 <= its target number; there is no critical
or fumble in the Conflicts chapter, and armour is part of Defense, so it changes whether a
blow lands, never its damage. What a landed blow does is where its points go: verve first
for a combatant whose archetype makes fighting archetypal, then survival, then injuries.

Beside the standard case (both sides aware and fresh, no called shot unless the policy
always calls one), an exchange gets extra rows, labelled after the attack, for the
situations a fight can put it in: a surprised, unaware or sleeping defender, a surprised
attacker, missiles fired into a melee, a called shot, a covered target.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from sim.odds import Exchange, exchange, indexed_matchups
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters import tables as T

ZERO, ONE = Fraction(0), Fraction(1)
OUTCOMES = ("miss", "no damage", "verve", "survival", "survival 0", "injuries")
"""Where a fresh defender takes the blow: missed; landed for 0 points; all on verve; on
survival with some left; survival just brought to 0 (a roll to stay conscious); injuries."""
FIRST_ROUND_PENALTY = "attack_at_penalty"
CALLED_LABEL = " (called shot)"


@dataclass(frozen=True)
class Case:
    """One situation of an attack: the engine's modifiers for it (attacks.resolve)."""
    label: str = ""
    reading: str = ""
    level: int = 0  # the row of NOT_DEFENDING
    kind: int = T.NORMAL
    att_pen: int = 0  # the attacker's attack penalty (surprise)
    def_pen: int = 0  # off the defender's defense (surprised after round 1)
    roll_pen: int = 0  # off the defender's reactions (surprised after round 1)
    cover: int = 0  # a cover level the situation gives (firing into close combat)
    extra: str = ""  # "unaware": a warrior's extra attack; "covered": the free attack


def odds(scenario) -> list[Exchange]:
    setup = T.build(scenario)
    scripted = [{r.action for r in c.policy.rules} for c in scenario.combatants]
    out = []
    for att, dfd, o, t in indexed_matchups(scenario):
        slots = [int(a) for a in np.flatnonzero(setup.st[T.S_OWNER] == o)]
        for a, label in zip(slots, _labels([setup.slot_name[a] for a in slots])):
            for case in cases(setup, o, t, a, scripted[o]):
                out.append(_exchange(setup, o, t, a, case, label, scenario, att, dfd))
    return out


def _labels(names: list[str]) -> list[str]:
    # A Yeti's two claws are two attacks: "claw" and "claw #2".
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return out


def _exchange(setup, o, t, a, case, label, scenario, att, dfd) -> Exchange:
    joint = blow(setup, o, t, a, case)
    ct = setup.ct
    verve, surv = int(ct[T.C_VERVE, t]) if ct[T.C_USES_VERVE, t] else 0, int(ct[T.C_SURV, t])
    damage: dict[int, Fraction] = {}
    outcomes = dict.fromkeys(OUTCOMES, ZERO)
    for (landed, on, direct), p in joint.items():
        damage[on + direct] = damage.get(on + direct, ZERO) + p
        outcomes[where(landed, on, direct, verve, surv)] += p
    hit = sum((p for (landed, _, _), p in joint.items() if landed), ZERO)
    return exchange(scenario, att, dfd, label + case.label, hit, dict(sorted(damage.items())), outcomes,
                    _reading(setup, o, a, case))


def where(landed: bool, on: int, direct: int, verve: int, survival: int) -> str:
    """The outcome of a blow of `on` points onto verve / survival / injuries and `direct`
    points straight to injuries (knockout and killing blows), on a fresh defender with
    `verve` usable points (0 unless fighting is archetypal for it) and `survival`."""
    if not landed:
        return "miss"
    if on + direct == 0:
        return "no damage"
    left = on - min(verve, on)
    if left == 0 and direct == 0:
        return "verve"
    if left > survival or direct:
        return "injuries"
    return "survival 0" if left == survival else "survival"


def chance(need: int) -> Fraction:
    """d20 <= need."""
    return Fraction(min(max(int(need), 0), 20), 20)


def dice(count: int, sides: int, bonus: int) -> dict[int, Fraction]:
    """The total of count d sides + bonus, never below 0 (the kernel's max(total, 0))."""
    pmf = {int(bonus): ONE}
    for _ in range(int(count)):
        nxt: dict[int, Fraction] = {}
        for total, p in pmf.items():
            for face in range(1, int(sides) + 1):
                nxt[total + face] = nxt.get(total + face, ZERO) + p / int(sides)
        pmf = nxt
    out: dict[int, Fraction] = {}
    for total, p in pmf.items():
        out[max(total, 0)] = out.get(max(total, 0), ZERO) + p
    return out


def need_of(setup, o, t, a, case: Case) -> int:
    """The attack's target number in the case (attacks.resolve's `need`)."""
    ct, st, rules = setup.ct, setup.st, setup.rules
    ranged = bool(st[T.S_RANGED, a])
    cover = int(ct[T.C_COVER, t]) if (ranged or rules["cover_vs_melee"]) else 0
    cover = max(cover, case.cover)
    cover_bonus = T.COVER_TABLE[cover, 0 if ct[T.C_WARRIOR, t] else 1]
    need = (st[T.S_BASE, a] - (ct[T.C_DEFENSE, t] - case.def_pen) - case.att_pen - cover_bonus
            + T.ND_ATTACK[case.level] - S.CALLED_SHOT_PENALTY * (case.kind != T.NORMAL) + setup.pair_mod[a, t])
    if case.kind == T.K_KO and rules["knockout_costs_combat_bonus"] and ct[T.C_WARRIOR, o]:
        need -= 2  # the two combat bonus points a warrior allots to the knockout injuries
    return int(need)


def blow(setup, o, t, a, case: Case) -> dict[tuple[bool, int, int], Fraction]:
    """The joint distribution of (landed, points onto verve / survival, points straight
    to injuries) of the attack in the case, with its carried and extra attacks."""
    ct, st = setup.ct, setup.st
    need = need_of(setup, o, t, a, case)
    p = chance(need)
    nd = int(T.ND_DAMAGE[case.level])
    base = dice(st[T.S_DCOUNT, a], st[T.S_DSIDES, a], st[T.S_DBONUS, a])
    ko_fail = 1 - chance(ct[T.C_EVASION, t] + ct[T.C_HEAD, t] - case.roll_pen)
    carried = _carried(setup, t, a, case)
    out = {(False, 0, 0): 1 - p}
    for dmg, q in base.items():
        dealt = dmg + nd
        for (direct, r) in _direct(case.kind, dealt, int(ct[T.C_KO_POINTS, o]), ko_fail):
            for c, s in carried.items():
                _add(out, (True, dealt - direct + c, direct), p * q * r * s)
    if case.extra:
        # The extra attack is plain (attacks.resolve): the unaware's +4 was traded for it, the
        # covered +4 / +1 went to the free attack.
        out = _with_extra(out, need - int(T.ND_ATTACK[case.level]), base, 0, _extra_chance(setup, o, t, case))
    return out


def _direct(kind: int, dealt: int, ko_points: int, ko_fail: Fraction) -> list[tuple[int, Fraction]]:
    # "one point of the damage rolled goes to the target's injury point total" on a failed
    # Evasion; a killing blow puts "half the damage (round up)" there.
    if kind == T.K_KO:
        return [(min(ko_points, dealt), ko_fail), (0, 1 - ko_fail)]
    if kind == T.K_KILL:
        return [((dealt + 1) // 2, ONE)]
    return [(0, ONE)]


def _carried(setup, t, a, case: Case) -> dict[int, Fraction]:
    # A carried attack (poison) takes effect on a called shot the target fails to save.
    st = setup.st
    save = int(st[T.S_CSAVE, a])
    if case.kind == T.NORMAL or save < 0:
        return {0: ONE}
    fails = 1 - chance(setup.ct[T.C_SAVE0 + save, t] - case.roll_pen)
    out = {0: 1 - fails}
    for c, q in dice(st[T.S_CCOUNT, a], st[T.S_CSIDES, a], st[T.S_CBONUS, a]).items():
        _add(out, c, fails * q)
    return out


def _extra_chance(setup, o, t, case: Case) -> Fraction:
    """The chance the extra attack is made: always against the unaware; the covered one
    unless the covered combatant wins a Reaction contest (the better of Perception and
    Evasion each)."""
    if case.extra == "unaware":
        return ONE
    ct = setup.ct
    so = max(ct[T.C_PERCEPTION, o], ct[T.C_EVASION, o])
    stt = max(ct[T.C_PERCEPTION, t], ct[T.C_EVASION, t]) - case.roll_pen
    return 1 - contest_win(int(stt), int(so), setup.rules["contest"] == "higher_success")


def contest_win(score: int, other: int, higher: bool) -> Fraction:
    """The chance a d20 roll-under contestant at `score` beats one at `other`."""
    p, q = chance(score), chance(other)
    win = p * (1 - q)
    if higher:  # both succeed, the higher roll wins
        lo, hi = max(min(score, 20), 0), max(min(other, 20), 0)
        win += Fraction(sum(min(r - 1, hi) for r in range(1, lo + 1)), 400)
    return win


def _with_extra(first, need, base, nd, p_extra) -> dict[tuple[bool, int, int], Fraction]:
    p = chance(need)
    second = {(False, 0): 1 - p_extra * p}
    for dmg, q in base.items():
        _add(second, (True, dmg + nd), p_extra * p * q)
    out: dict[tuple[bool, int, int], Fraction] = {}
    for (landed, on, direct), r in first.items():
        for (landed2, on2), s in second.items():
            _add(out, (landed or landed2, on + on2, direct), r * s)
    return out


def _add(pmf: dict, key, p: Fraction) -> None:
    pmf[key] = pmf.get(key, ZERO) + p


# --- the situations of an attack ---

def cases(setup, o, t, a, scripted: set) -> list[Case]:
    """The standard case and the situations the scenario can put this attack in."""
    ct, st, rules = setup.ct, setup.st, setup.rules
    std = T.K_CALLED if ct[T.C_CALLED_WHEN, o] == S.CALLED_SHOT_WHEN.index("always") else T.NORMAL
    ko = T.K_KO if ct[T.C_KNOCKOUT, o] else std
    out = [Case("", "", kind=std)]
    if std == T.NORMAL and (ct[T.C_CALLED_WHEN, o] or st[T.S_CSAVE, a] >= 0 or T.CALLED in scripted):
        out.append(Case(CALLED_LABEL, "a called shot (-3)", kind=T.K_CALLED))
    if st[T.S_RANGED, a] and rules["firing_into_close_combat"]:
        out.append(Case(" (into close combat)", "the target in a melee of 2-4 (strong cover), no stray hits",
                        kind=std, cover=T.STRONG))
        out.append(Case(" (into a melee of 5+)", "the target in a melee of 5 or more (full cover), no stray hits",
                        kind=std, cover=T.FULL))
    if _can_be_surprised(ct, t):
        out += _surprised_defender(setup, o, t, a, std, ko)
    if _can_be_surprised(ct, o):
        # A surprised attacker makes plain attacks: it "may not initiate ... any of the special
        # conflict maneuvers", whatever its policy calls for.
        out.append(Case(" (attacker surprised)", "the attacker surprised after round 1 (-3, no called shot)",
                        kind=T.NORMAL, att_pen=S.SURPRISED_ROLL_PENALTY))
        if rules["surprised_first_round"] == FIRST_ROUND_PENALTY:
            pen = rules["surprised_first_round_penalty"]
            out.append(Case(" (attacker surprised, round 1)",
                            f"the attacker surprised in round 1 (-{pen}, no called shot)", kind=T.NORMAL, att_pen=pen))
    if (ct[T.C_COVER_AIM, o] or T.COVER in scripted) and a == ct[T.C_FIRST_SLOT, o]:
        # Only the weapon that took aim makes the covered attack.
        kind = ko
        extra = "covered" if kind == T.NORMAL else ""
        out.append(Case(" (covered)", "the target covered after a round of aim (+4, +1 damage)"
                        + (", then a plain attack unless it wins the Reaction contest" if extra else ""),
                        level=T.COVERED, kind=kind, extra=extra))
    return out


def _can_be_surprised(ct, c) -> bool:
    # A surprise roll it can fail, or a quick draw that fails into surprise.
    return bool(ct[T.C_SURPRISE_T, c] < 20 or (not ct[T.C_DRAWN0, c] and ct[T.C_QUICK_DRAW, c]))


def _surprised_defender(setup, o, t, a, std, ko) -> list[Case]:
    ct, rules = setup.ct, setup.rules
    asleep = bool(ct[T.C_SLEEPER, t] and rules["sleepers_immobile"])
    if asleep:
        kind = T.K_KILL if ct[T.C_KILLING, o] else ko
        first = Case(" (defender asleep)", "the defender asleep in round 1 (+10)", level=T.IMMOBILE, kind=kind)
    else:
        level = T.UNAWARE if rules["surprised_are_unaware"] else 0
        extra = ""
        if level == T.UNAWARE and ko == T.NORMAL and ct[T.C_EXTRA_UNAWARE, o]:
            # A warrior's extra attack instead of the +4, with its first weapon.
            level, extra = 0, "unaware" if a == ct[T.C_FIRST_SLOT, o] else ""
        first = Case(" (defender unaware)" if level or extra else " (defender surprised, round 1)",
                     "the defender surprised in round 1"
                     + (", unaware (+4)" if level else "") + (", the warrior's extra attack" if extra else ""),
                     level=level, kind=ko, extra=extra)
    out = [] if first.level == 0 and first.kind == std and not first.extra else [first]
    out.append(Case(" (defender surprised)", "the defender surprised after round 1 (-2 defense, -3 to its rolls)",
                    kind=ko, def_pen=S.SURPRISED_DEFENSE_PENALTY, roll_pen=S.SURPRISED_ROLL_PENALTY))
    return out


_KIND_WORDS = {T.K_CALLED: "called shot (-3)", T.K_KO: "knockout blow (called, -3)",
               T.K_KILL: "killing blow (called, -3)"}


def _reading(setup, o, a, case: Case) -> str:
    ct, st = setup.ct, setup.st
    parts = [case.reading or "fresh, aware, defending target; attacker unhurt, not surprised"]
    if case.kind != T.NORMAL and case.label != CALLED_LABEL:
        parts.append(_KIND_WORDS[case.kind] + " by the policy")
    if st[T.S_RANGED, a] and not case.cover:
        parts.append("missile, not into a melee")
    if st[T.S_ACTIONS, a] > 1:
        parts.append("per use")
    if st[T.S_ALT, a] and a != ct[T.C_FIRST_SLOT, o]:
        parts.append("used when the weapons before it cannot reach")
    return "; ".join(parts)
