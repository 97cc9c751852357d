"""The Lens: exact odds of one exchange (sim/odds.py), by enumerating the dice.

A character's attack is a challenge (Weapon Use against the target's Defense, a spell's
school against its Abjuration) whose four outcomes say whether it connects; a connecting
blow on a monster loses the monster's Armor Rating, one on a character meets the one
defence the defender's policy picks ("PLAYER-FACING": the defender rolls against the
attacker's Attack Rating) and that defence's outcome row (tables.DEFENCE_ROWS as the rule
options read them). A monster's attack always connects. The numbers follow the compiled
kernel (kactions.attack / cast, kblows.strike / defend / choose_defence, kvalue): the
defence choice is worked out in floats exactly as the kernel weighs it, the odds in
Fractions. The standing start: the defender fresh (its full Momentum, no condition,
Blocks not locked, a free square to Dodge into), no help (Assist / Interfere) on the roll.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from sim.dice import Dice
from sim.odds import Exchange, exchange, indexed_matchups
from sim.rulesets.lens import challenge as CH
from sim.rulesets.lens import tables as T
from sim.rulesets.lens.setup import build

Pmf = dict[int, Fraction]
ONE, ZERO = Fraction(1), Fraction(0)
NEVER, ALWAYS, BIG_HITS = range(3)  # schema.DEFENDS
ACTIVE_FROM = T.BLOCK  # Block, Dodge and Parry cost a Momentum


# --- dice -------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _efforts(talent: int, training: int, tn: int, variant: str, tool: int, mod: int) -> tuple[Fraction, ...]:
    """Exact chances of Botch .. Triumph: challenge.outcome_probs' enumeration, counted in Fractions."""
    sides = CH._dice(variant, talent, training, tool)
    grid = np.array(list(itertools.product(*(range(1, max(s, 1) + 1) for s in sides))), dtype=np.int16)
    n = len(grid)
    eff = CH._count(grid[:, 0], grid[:, 1], grid[:, 2], np.full(n, sides[1] > 0), np.full(n, sides[2] > 0), tn,
                    mod if variant == "quality_modifier" else None)
    return tuple(Fraction(int(c), n) for c in np.bincount(eff, minlength=4)[:4])


def _ability(setup, who: int, ability: int) -> tuple[int, int, int, int]:
    return (int(setup.talent[who, ability]), int(setup.training[who, ability]), int(setup.tool[who, ability]),
            int(setup.qmod[who, ability]))


def efforts(setup, who: int, ability: int, tn: int) -> tuple[Fraction, ...]:
    t, tr, tool, mod = _ability(setup, who, ability)
    return _efforts(t, tr, int(tn), setup.rules["challenge"], tool, mod)


def chances(setup, who: int, ability: int, tn: int) -> tuple[float, ...]:
    """The floats the kernel's table holds (ktables.build_tables), for weighing choices as it does."""
    t, tr, tool, mod = _ability(setup, who, ability)
    return CH.outcome_probs(t, tr, max(int(tn), 1), setup.rules["challenge"], tool, mod)


def dice_pmf(d: Dice) -> Pmf:
    pmf = {d.bonus: ONE}
    for _ in range(d.count if d.sides > 0 else 0):
        nxt: Pmf = {}
        for total, p in pmf.items():
            for face in range(1, d.sides + 1):
                nxt[total + face] = nxt.get(total + face, ZERO) + p / d.sides
        pmf = nxt
    return pmf


def _map(pmf: Pmf, f) -> Pmf:
    out: Pmf = {}
    for x, p in pmf.items():
        y = f(x)
        out[y] = out.get(y, ZERO) + p
    return out


def _mix(parts) -> Pmf:
    out: Pmf = {}
    for w, pmf in parts:
        for x, p in pmf.items():
            out[x] = out.get(x, ZERO) + w * p
    return {x: p for x, p in sorted(out.items()) if p}


# --- the blow ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Blow:
    """A connecting blow as kblows.strike receives it."""
    att: int
    raw: Pmf  # the damage rolled
    mask: int  # its tags
    missile: bool
    magical: bool
    mean: float  # the mean the defender weighs it by


def _is_ev(setup, c: int) -> bool:
    """The default play values Momentum live (ktables: EV); a scripted policy is not it."""
    spec = setup.extra["scenario"].combatants[c].policy_spec
    return bool(setup.is_char[c]) and spec.get("family") == "expected_value" and not setup.policies[c].rules


def _by_value(setup, c: int, field: str) -> bool:
    """kvalue.by_value: the default play chooses `field` by value where it is not written."""
    return _is_ev(setup, c) and field not in setup.extra["written"][c]


def _defence_worth(setup, who: int, worth: float) -> float:
    """kblows.defence_momentum: a Momentum weighed in a defence, live or as written."""
    return worth if _by_value(setup, who, "momentum_value") else float(setup.pol["momentum_value"][who])


def _armour_fn(ar: int, sign: int):
    if sign == -1:
        return lambda x: max(x - ar, 0)
    return (lambda x: x + ar) if sign == 1 else (lambda x: x)


def _soaks(setup, who: int, blow: Blow) -> bool:
    return (setup.rules["monster_armor"] == "reduce" and not blow.magical
            and (blow.mask & setup.tags.armor_piercing_mask) == 0)


def _stacked(setup, who: int, blow: Blow, d: int, tags: int) -> list[tuple[Fraction, object]]:
    """Mitigate after a failed active defence (`defences_per_attack: mitigate_stacks`): its
    rows as (chance, damage change); the kernel reads its Sacrifice by the policy's flag."""
    ar = int(setup.armor[who])
    if (setup.rules["defences_per_attack"] != "mitigate_stacks" or d < ACTIVE_FROM or ar <= 0
            or tags & int(setup.tags.defeat_mask[T.MITIGATE])):
        return [(ONE, lambda x: x)]
    take = bool(setup.pol["take_sacrifice"][who])
    p = efforts(setup, who, setup.abilities.index("armor_use"), setup.attack_rating[blow.att])
    ar_col = setup.defence_rows["ar"]
    return [(p[e], _armour_fn(ar, int(ar_col[T.MITIGATE, 4 if (e == 1 and take) else e]))) for e in range(4)]


def defended(setup, who: int, blow: Blow, d: int, worth: float) -> tuple[Fraction, Pmf, dict[str, Fraction]]:
    """(chance the blow is not nullified, damage pmf, the defence roll's outcomes) of a
    connecting blow on character `who` defended with d (-1: none), as kblows.defend plays it."""
    if d < 0:
        return ONE, _map(blow.raw, lambda x: max(x, 0)), {}
    rows = setup.defence_rows
    ar = int(setup.armor[who])
    p = efforts(setup, who, setup.abilities.index(T.DEFENCE_ABILITY[d]), setup.attack_rating[blow.att])
    costly = _costly(setup, who, d, blow.mean, _defence_worth(setup, who, worth))
    dropped = int(setup.tags.drop_one(np.int64(blow.mask)))
    prefer_tag = bool(setup.pol["mitigate_tag"][who]) and dropped != blow.mask
    land, parts = ZERO, []
    for e in range(4):
        row = 4 if (e == 1 and costly) else e
        if rows["negate"][d, row] == 1:
            parts.append((p[e], {0: ONE}))
            continue
        land += p[e]
        tag = int(rows["tag"][d, row])
        keep_damage = tag == 2 and prefer_tag  # Mitigate's "[or] 1 Tag removed", the policy's `mitigate: tag`
        first = _armour_fn(ar, 0 if (keep_damage and rows["ar"][d, row] == -1) else int(rows["ar"][d, row]))
        half = rows["negate"][d, row] == 2
        tags = dropped if (tag == 1 or keep_damage) else blow.mask
        for w, then in _stacked(setup, who, blow, d, tags):
            f = (lambda x, first=first, then=then, half=half:
                 max(then(first(x) // 2 if half else first(x)), 0))
            parts.append((p[e] * w, _map(blow.raw, f)))
    return land, _mix(parts), dict(zip(T.OUTCOMES, p))


def landed(setup, who: int, blow: Blow, d: int, worth: float) -> tuple[Fraction, Pmf, dict[str, Fraction]]:
    """A connecting blow on anyone: a monster soaks it with its Armor Rating (kcore.soak)."""
    if setup.is_char[who]:
        return defended(setup, who, blow, d, worth)
    cut = int(setup.armor[who]) if _soaks(setup, who, blow) else 0
    return ONE, _map(blow.raw, lambda x: max(x - cut, 0)), {}


# --- the defence choice, in the kernel's floats (kvalue, kblows.choose_defence) ----------

def _row_value(setup, d: int, row: int, mean: float, armor: float, mv: float) -> float:
    rows = setup.defence_rows
    v = 0.0
    neg = rows["negate"][d, row]
    if neg == 1:
        v = mean
    elif neg == 2:
        v = 0.5 * mean
    if rows["ar"][d, row] == -1:
        v += min(armor, mean)
    elif rows["ar"][d, row] == 1:
        v -= armor
    cond = int(rows["def_cond"][d, row])
    loss = int(setup.cond_loss[cond]) if cond >= 0 else 0
    return v - mv * (loss + int(rows["momentum"][d, row]))


def _costly(setup, who: int, d: int, mean: float, mv: float, ev: bool | None = None) -> bool:
    """Whether a defence's Sacrifice takes its "or" branch (kvalue.costly_branch)."""
    ev = _by_value(setup, who, "take_sacrifice") if ev is None else ev
    if not ev:
        return bool(setup.pol["take_sacrifice"][who])
    armor = float(setup.armor[who])
    return _row_value(setup, d, 4, mean, armor, mv) > _row_value(setup, d, 1, mean, armor, mv)


def saving(setup, who: int, d: int, tn: int, mean: float, mv: float, ev: bool) -> float:
    """kvalue.defence_saving: the damage defence d is expected to save, less its Momentum."""
    pb, ps, pg, pt = chances(setup, who, setup.abilities.index(T.DEFENCE_ABILITY[d]), tn)
    armor = float(setup.armor[who])
    sac = 4 if _costly(setup, who, d, mean, mv, ev) else 1
    v = (pb * _row_value(setup, d, 0, mean, armor, mv) + ps * _row_value(setup, d, sac, mean, armor, mv)
         + pg * _row_value(setup, d, 2, mean, armor, mv) + pt * _row_value(setup, d, 3, mean, armor, mv))
    return v - mv if d >= ACTIVE_FROM else v


def allowed(setup, who: int, d: int, blow: Blow) -> bool:
    """kblows.allowed for a fresh defender (Momentum left, no condition, not locked, a free square)."""
    if not setup.is_char[who] or not setup.pol["defences"][who, d] or blow.mask & int(setup.tags.defeat_mask[d]):
        return False
    return (blow.magical, setup.armor[who] > 0, bool(setup.shield[who]), True,
            bool(setup.has_weapon[who]) and not blow.missile)[d]


def choose(setup, who: int, blow: Blow, worth: float) -> int:
    """The defence with the largest expected saving (first of equals), -1 for none."""
    ev = _by_value(setup, who, "take_sacrifice")
    mv = _defence_worth(setup, who, worth)
    policy = int(setup.pol["defend"][who])
    by_value = _by_value(setup, who, "defend") and "big_hit" not in setup.extra["written"][who]
    active_ok = by_value or policy == ALWAYS or (policy == BIG_HITS and blow.mean >= float(setup.pol["big_hit"][who]))
    best, pick = 0.0, -1
    for d in range(len(T.DEFENCES)):
        if (d >= ACTIVE_FROM and not active_ok) or not allowed(setup, who, d, blow):
            continue
        v = saving(setup, who, d, int(setup.attack_rating[blow.att]), blow.mean, mv, ev)
        if v > 0 and (pick < 0 or v > best):
            best, pick = v, d
    return pick


def _uses_spell(setup, c: int) -> bool:
    return bool(setup.has_spell[c]) and (bool(setup.pol["cast"][c]) or not setup.has_weapon[c])


def _target_defence(setup, c: int, j: int, mask: int, mean: float, magical: bool) -> float:
    """kvalue.target_defence: what j's best defence saves of c's blow, a Momentum counted as 1."""
    best = 0.0
    for d in range(len(T.DEFENCES)):
        if mask & int(setup.tags.defeat_mask[d]) or not setup.pol["defences"][j, d]:
            continue
        if ((d == T.ABJURE and not magical) or (d == T.MITIGATE and setup.armor[j] == 0)
                or (d == T.BLOCK and not setup.shield[j])
                or (d == T.PARRY and (not setup.has_weapon[j] or setup.weapon_missile[c] or magical))):
            continue
        best = max(best, saving(setup, j, d, int(setup.attack_rating[c]), mean, 1.0, True))
    return best


def blow_value(setup, c: int, j: int, mask: int) -> float:
    """kvalue.blow_value: the expected damage of c's connecting blow on j, after armour."""
    if _uses_spell(setup, c):
        mean = setup.spell_dice.dice[c].mean
        if setup.is_char[j]:
            return max(mean - _target_defence(setup, c, j, int(setup.spell_mask[c]), mean, True), 0.0)
        return mean
    mean = float(setup.weapon_mean[c])
    if not setup.is_char[j]:
        if setup.rules["monster_armor"] == "reduce" and (mask & setup.tags.armor_piercing_mask) == 0:
            mean -= int(setup.armor[j])
    else:
        mean -= _target_defence(setup, c, j, mask, mean, False)
    return max(mean, 0.0)


def worth(setup, c: int) -> float:
    """kvalue.momentum_worth of a fresh character who still acts this round: its best attack
    (every enemy standing and in reach); Recovery is worth nothing at full Body."""
    if not setup.is_char[c]:
        return 0.0
    best = 0.0
    for j in np.flatnonzero(setup.enemy[c]):
        if _uses_spell(setup, c):
            pb, ps, pg, pt = chances(setup, c, int(setup.spell_school[c]), int(setup.abj_tn[j]))
        else:
            pb, ps, pg, pt = chances(setup, c, setup.abilities.index("weapon_use"), int(setup.defense[j]))
        best = max(best, (pg + pt + 0.5 * ps) * blow_value(setup, c, int(j), 0))
    return best


# --- the exchanges ----------------------------------------------------------------------

def _takes_sacrifice(setup, c: int, j: int, mask: int, spell: bool) -> bool:
    """kactions.connects: a Sacrifice hits for a second Momentum when the policy takes it
    (the default play: when the blow is worth more than the Momentum)."""
    if _by_value(setup, c, "take_sacrifice"):
        mean_hit = setup.spell_dice.dice[c].mean if spell else blow_value(setup, c, j, mask)
        return mean_hit > worth(setup, c)
    return bool(setup.pol["take_sacrifice"][c])


def _rolled(setup, c: int, j: int, p, blows: dict[int, Blow], take: bool, defence: int | None):
    """The figures of an attack roll p on j whose connecting outcomes deal blows[e]; defence
    None is the defender's own pick for each blow, else forced where allowed."""
    hit, parts, picks = ZERO, [], {}
    for e, pe in enumerate(p):
        if e == 0 or (e == 1 and not take):
            parts.append((pe, {0: ONE}))
            continue
        blow = blows[e]
        d = choose(setup, j, blow, worth(setup, j)) if defence is None else \
            (defence if allowed(setup, j, defence, blow) else -1)
        picks[e] = d
        land, pmf, _ = landed(setup, j, blow, d, worth(setup, j))
        hit += pe * land
        parts.append((pe, pmf))
    return hit, _mix(parts), picks


def _defence_words(setup, j: int, picks: dict[int, int]) -> str:
    if not setup.is_char[j]:
        return ""
    name = lambda d: T.DEFENCES[d].capitalize() if d >= 0 else "no defence"
    main = picks.get(2, picks.get(3, -1))
    words = f"; defender fresh, {name(main)}"
    if 3 in picks and picks[3] != main:
        words += f" ({name(picks[3])} against a Triumph's tag)"
    return words


def _armour_words(setup, j: int, mask: int, magical: bool) -> str:
    if setup.is_char[j] or not setup.armor[j]:
        return ""
    if magical or setup.rules["monster_armor"] != "reduce" or mask & setup.tags.armor_piercing_mask:
        return "; armour does not count"
    return f"; Armor Rating {int(setup.armor[j])} off each hit"


def _weapon(setup, c: int, j: int) -> list[tuple[str, Fraction, Pmf, dict, str]]:
    """Rows of c's weapon in hand on j: untagged, each number of Tag actions up to the cap,
    a Sacrifice with no Momentum to spare, and (on a character) each defence forced."""
    raw = dice_pmf(setup.weapon_dice.dice[c])
    p = efforts(setup, c, setup.abilities.index("weapon_use"), setup.defense[j])
    prefix, cap = setup.weapon_prefix[c], int(setup.tag_cap[c])
    over = setup.rules["triumph_tag_over_cap"]
    name = setup.weapon_name[c]

    def blows(k):
        triumph = min(k + 1, 6) if (k < cap or over) else k
        mk = lambda m: Blow(c, raw, int(m), bool(setup.weapon_missile[c]), False, float(setup.weapon_mean[c]))
        return {1: mk(prefix[k]), 2: mk(prefix[k]), 3: mk(prefix[triumph])}

    out = []
    ks = [0] + [k for k in range(1, min(cap, 6) + 1) if prefix[k] != prefix[k - 1]]
    for k in ks:
        take = _takes_sacrifice(setup, c, j, int(prefix[k]), False)
        hit, pmf, picks = _rolled(setup, c, j, p, blows(k), take, None)
        tags = f" (+{setup.tags.describe(int(prefix[k]))})" if k else ""
        sac = "a Sacrifice's hit taken and paid" if take else "a Sacrifice left as a miss"
        reading = (f"{k} tag(s) attached" + (", as its policy does" if k == _policy_tags(setup, c) else "")
                   if k else "no tags attached") + f"; {sac}" \
            + _armour_words(setup, j, int(prefix[k]), False) + _defence_words(setup, j, picks)
        out.append((name + tags, hit, pmf, p, reading))
    if _takes_sacrifice(setup, c, j, 0, False) and setup.rules["attack_sacrifice_at_zero"] == "miss":
        hit, pmf, picks = _rolled(setup, c, j, p, blows(0), False, None)
        out.append((f"{name} (no Momentum to spare)", hit, pmf, p,
                    "no tags; a Sacrifice cannot be paid and misses (attack_sacrifice_at_zero: miss)"
                    + _defence_words(setup, j, picks)))
    out += _forced(setup, c, j, name, p, blows(0), _takes_sacrifice(setup, c, j, 0, False))
    return out


def _policy_tags(setup, c: int) -> int:
    """Tag actions a fixed family's attack takes with Momentum to spare (-1: valued live or scripted)."""
    if _by_value(setup, c, "tags") or c in setup.scripted:
        return -1
    return min(int(setup.pol["tags"][c]), int(setup.tag_cap[c]))


def _forced(setup, c, j, name, p, blows, take) -> list:
    """The exchange under each defence the fresh defender could use, and undefended
    (out of Momentum, say, with no armour): what the policy's pick is weighed against."""
    if not setup.is_char[j]:
        return []
    out = []
    for d in [d for d in range(len(T.DEFENCES)) if allowed(setup, j, d, blows[2])] + [-1]:
        hit, pmf, _ = _rolled(setup, c, j, p, blows, take, d)
        label = T.DEFENCES[d].capitalize() if d >= 0 else "undefended"
        how = f"{label} whenever allowed" if d >= 0 else "no defence"
        out.append((f"{name} ({label})", hit, pmf, p, f"no tags; defender fresh, {how}"))
    return out


def _spell(setup, c: int, j: int) -> list:
    """c's first spell, already formed (its Source roll made): the school against j's Abjuration."""
    sp = setup.spell_dice.dice[c]
    p = efforts(setup, c, int(setup.spell_school[c]), setup.abj_tn[j])
    blow = Blow(c, dice_pmf(sp), int(setup.spell_mask[c]), False, True, sp.mean)
    take = _takes_sacrifice(setup, c, j, blow.mask, True)
    hit, pmf, picks = _rolled(setup, c, j, p, {1: blow, 2: blow, 3: blow}, take, None)
    sac = "a Sacrifice's hit taken and paid" if take else "a Sacrifice left as a miss"
    reading = f"spell formed; {sac}" + _armour_words(setup, j, blow.mask, True) + _defence_words(setup, j, picks)
    return [(setup.spell_name[c], hit, pmf, p, reading)]


def _monster(setup, m: int, j: int) -> list:
    """Each of monster m's attacks (player-facing: it connects; the defender rolls)."""
    out = []
    tags = setup.tags
    stats = setup.extra["scenario"].combatants[m].stats
    per_round = stats["attacks_per_round"]
    used = stats["attacks"][:len(stats["attacks"]) if per_round is None else per_round]  # cycled from the start
    for a in [a for n, a in enumerate(used) if a not in used[:n]]:
        blow = Blow(m, dice_pmf(a["damage"]), tags.mask(a["tags"]), a["missile"], a["magical"],
                    float(np.float32(a["damage"].mean)))
        picks = [-1]
        if setup.is_char[j]:  # the policy's pick, then each defence forced, then none
            picks = [choose(setup, j, blow, worth(setup, j))] + \
                [d for d in range(len(T.DEFENCES)) if allowed(setup, j, d, blow)] + [-1]
        for n, d in enumerate(picks):
            land, pmf, outcomes = landed(setup, j, blow, d, worth(setup, j))
            word = T.DEFENCES[d].capitalize() if d >= 0 else "undefended"
            rolled = f"; outcomes are its {word} roll" if d >= 0 else ""
            if n == 0:
                label, reading = a["name"], "connects (monsters do not roll)" \
                    + _armour_words(setup, j, blow.mask, blow.magical) + _defence_words(setup, j, {2: d}) + rolled
            else:
                label, reading = f"{a['name']} ({word})", f"connects; defender fresh, {word}{rolled}"
            out.append((label, land, pmf, outcomes, reading))
    return out


def odds(scenario) -> list[Exchange]:
    """One Exchange per attacker stat block, defender stat block and attack (sim/odds.py)."""
    setup = build(scenario)
    out = []
    for a, d, c, j in indexed_matchups(scenario):
        if setup.is_char[c]:
            rows = (_weapon(setup, c, j) if setup.has_weapon[c] else []) + \
                (_spell(setup, c, j) if setup.has_spell[c] else [])
        else:
            rows = _monster(setup, c, j)
        for label, hit, pmf, outcomes, reading in rows:
            named = dict(zip(T.OUTCOMES, outcomes)) if isinstance(outcomes, tuple) else outcomes
            out.append(exchange(scenario, a, d, label, hit, pmf, named, reading))
    return out
