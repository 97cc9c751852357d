"""A connecting blow in the kernel: a monster soaks it with armour, a character defends.

One defence per blow (player-facing: the defender rolls), chosen by expected saving;
then the defence row (tables.DEFENCE_ROWS) says what happens. `blow` numbers the blow
for keyed randomness: a monster's attack slot s is blow s, character c's attack in beat
b is blow slots + c * MAX_BEATS + b, so a defence roll reads the same dice whatever
defence is chosen.
"""
from __future__ import annotations


from sim.rulesets.lens.kcore import (
    drow_table,
    tag_table,
    ATTACKS,
    COND,
    DEALT,
    DEFENCES,
    DEFENDED,
    E_DEFEND,
    E_RIPOSTE,
    E_SOAK,
    HITS,
    LOCKED,
    MOM,
    OWED,
    SITE_DEFEND,
    SITE_DODGE_STEP,
    SITE_RIPOSTE,
    SITE_RIPOSTE_DAMAGE,
    SITE_STACKED,
    SPENT,
    STANDING,
    STATUS,
    blow_source,
    challenge,
    challenge_drawn,
    cond_any,
    drawn,
    drawn_of,
    dodge_step,
    emit,
    any_free_neighbour,
    savings_row,
    harm,
    inflict,
    inflict_tags,
    roll_dice,
    soak,
)
from sim.rulesets.lens.ktables import (
    DEF_ROWS,
    AR,
    ARMOR,
    ATT_COND,
    ATT_RATING,
    BIG_HIT,
    C_NO_DODGE,
    C_NO_PARRY,
    C_NO_WEAPON,
    DEF_ALLOWED,
    DEF_COND,
    DEFEND,
    DEFENSE,
    EV,
    OWN_DEFEND,
    OWN_MV,
    OWN_TAKE,
    FIX_HAMSTRUNG,
    FIX_TAGS,
    HAS_WEAPON,
    IS_CHAR,
    LOCK,
    MITIGATE_TAG,
    MOM_LOSS,
    MOMENTUM_VALUE,
    MOVE,
    NEGATE,
    R_DEF_AB0,
    R_FIXES,
    R_SPATIAL,
    R_STACKS,
    R_WEAPON_USE,
    RIPOSTE,
    SHIELD,
    TAG,
    TAKE_SAC,
    W_BONUS,
    W_COUNT,
    W_SIDES,
)
from sim.rulesets.lens.kvalue import by_value, costly_branch, defence_saving, momentum_worth
from sim.jit import once, rule


ABJURE, MITIGATE, BLOCK, DODGE, PARRY = range(5)
ALWAYS, BIG_HITS = 1, 2
MAX_BEATS = 64
DEFENCE_ROOM = 2  # kcore.drawn_of's room for the first block of a blow's defence roll


@once
def drop_one(K, mask):
    """Mitigation removes the first removable tag (one that inflicts a condition)."""
    tags = tag_table(K)
    n = tags[9]
    for r in range(n):
        b = tags[10 + r]
        if mask & b:
            return mask & ~b
    return mask


@once
def tag_conditions(K, mask):
    tags = tag_table(K)
    bits = 0
    for k in range(4):
        if mask & tags[5 + k]:
            bits |= 1 << k
    return bits


@once
def allowed(K, st, who, d, mask, missile, magical):
    ci, tags, R = K[0], tag_table(K), K[2]
    if ci[who, IS_CHAR] == 0 or not (ci[who, DEF_ALLOWED] >> d & 1) or (mask & tags[d]) != 0:
        return False
    mom = st[MOM, who] >= 1
    cond = st[COND, who]
    if d == ABJURE:
        return magical
    if d == MITIGATE:
        return ci[who, ARMOR] > 0
    if d == BLOCK:
        return ci[who, SHIELD] == 1 and st[LOCKED, who] == 0 and mom
    if d == DODGE:
        if not mom or cond_any(K, cond, C_NO_DODGE):
            return False
        return (not R[R_SPATIAL]) or any_free_neighbour(K, st, who)
    return (mom and ci[who, HAS_WEAPON] == 1 and not missile and not cond_any(K, cond, C_NO_PARRY)
            and not cond_any(K, cond, C_NO_WEAPON))


@once
def choose_defence(K, st, who, tn, mean, mask, missile, magical, src):
    """The defence with the largest expected saving, -1 for none; a family with a fixed
    Momentum value reads the savings of a blow from src (kcore.blow_source) from its table."""
    ci, cf, R = K[0], K[1], K[2]
    ev = ci[who, EV] == 1
    mv = defence_momentum(K, st, who)
    saved = savings_row(K, who, src)
    policy = ci[who, DEFEND]
    active_ok = by_value(K, who, OWN_DEFEND) or policy == ALWAYS or (policy == BIG_HITS and mean >= cf[who, BIG_HIT])
    best, pick = 0.0, -1
    for d in range(5):
        if d >= BLOCK and not active_ok:
            continue
        if not ev:  # a table value is cheaper to read than whether the defence is allowed
            v = saved[d]
            if v > 0 and (pick < 0 or v > best) and allowed(K, st, who, d, mask, missile, magical):
                best, pick = v, d
            continue
        if not allowed(K, st, who, d, mask, missile, magical):
            continue
        v = defence_saving(K, who, d, R[R_DEF_AB0 + d], tn, mean, mv, ci[who, TAKE_SAC] == 1,
                           by_value(K, who, OWN_TAKE))
        if v > 0 and (pick < 0 or v > best):
            best, pick = v, d
    return pick


@once
def defence_momentum(K, st, who):
    """What a Momentum is worth to `who` when weighing a defence: its policy's
    `momentum_value`, or in the default play (where none is written) its live worth."""
    if by_value(K, who, OWN_MV):
        return momentum_worth(K, st, who)
    return K[1][who, MOMENTUM_VALUE]


@once
def strike(K, st, att, who, damage, mask, missile, magical, mean, blow, defendable, seed, ctx, ev, cnt):
    """A connecting blow of `damage` on `who`; returns the damage dealt. A character's
    defence roll reads its first block from room DEFENCE_ROOM of kcore.drawn_of, drawn
    ahead (kcore.draw_ahead) by the attacker's rule."""
    ci, R = K[0], K[2]
    if st[STATUS, who] != STANDING:
        return 0
    if ci[who, IS_CHAR] == 1:
        d = defend(K, st, att, who, damage, mask, missile, magical, mean, blow, defendable, seed, ctx, ev, cnt)
    else:
        d = soak(K, who, damage, mask, magical)
        if d != damage:
            emit(ev, cnt, ctx, E_SOAK, who, damage - d, damage, d, 0, 0)
        if d > 0 or R[R_FIXES] & FIX_TAGS:  # fixed: a soaked blow still carries its tags
            inflict_tags(st, att, who, tag_conditions(K, mask), ctx, ev, cnt)
        harm(K, st, who, d, ctx, ev, cnt)
    st[DEALT, att] += d
    return d


@once
def defend(K, st, att, who, damage, mask, missile, magical, mean, blow, defendable, seed, ctx, ev, cnt):
    ci, drows, R = K[0], drow_table(K), K[2]
    tn = ci[att, ATT_RATING]
    src = blow_source(K, att, blow, magical)
    d = choose_defence(K, st, who, tn, mean, mask, missile, magical, src) if defendable else -1
    fixed = (R[R_FIXES] & FIX_HAMSTRUNG) != 0
    tags_ride = (R[R_FIXES] & FIX_TAGS) != 0
    take = ci[who, TAKE_SAC] == 1
    dmg, tags = damage, mask
    negated, stacked, costly, eff = False, False, False, -1
    ar = ci[who, ARMOR]
    if d >= 0:
        eff = challenge_drawn(K, who, R[R_DEF_AB0 + d], tn, 0, 0, drawn(drawn_of(K, st, ctx), DEFENCE_ROOM), seed, ctx,
                              SITE_DEFEND, blow, 0, ev, cnt)
        st[DEFENCES, who] += 1
        st[DEFENDED + d, who] += 1
        if d >= BLOCK:
            st[MOM, who] -= 1
            st[SPENT, who] += 1
        row = eff
        if eff == 1:
            mv = defence_momentum(K, st, who)
            costly = costly_branch(K, by_value(K, who, OWN_TAKE), take, d, mean, float(ar), mv, fixed)
            if costly:
                row = 4
        dropped = drop_one(K, tags)
        prefer_tag = ci[who, MITIGATE_TAG] == 1 and dropped != tags
        rtag = drows[d * DEF_ROWS + row, TAG]
        if drows[d * DEF_ROWS + row, AR] == -1 and not (rtag == 2 and prefer_tag):
            dmg = max(dmg - ar, 0)
        elif drows[d * DEF_ROWS + row, AR] == 1:
            dmg += ar
        if rtag == 1 or (rtag == 2 and prefer_tag):
            tags = dropped
        if drows[d * DEF_ROWS + row, NEGATE] == 2:
            dmg //= 2
        negated = drows[d * DEF_ROWS + row, NEGATE] == 1
        if R[R_STACKS] == 1 and d >= BLOCK and not negated and ar > 0 and (tags & tag_table(K)[MITIGATE]) == 0:
            stacked = True
            e2 = challenge(K, who, R[R_DEF_AB0 + MITIGATE], tn, 0, 0, seed, ctx, SITE_STACKED, blow, 0, ev, cnt)
            r2 = 4 if (e2 == 1 and take) else e2
            if drows[MITIGATE * DEF_ROWS + r2, AR] == -1:
                dmg = max(dmg - ar, 0)
            elif drows[MITIGATE * DEF_ROWS + r2, AR] == 1:
                dmg += ar
        if negated:
            dmg = 0
    emit(ev, cnt, ctx, E_DEFEND, who, d, tn, eff, int(costly) + 2 * int(negated) + 4 * int(stacked), dmg)
    if not negated and (dmg > 0 or tags_ride):  # fixed: tags ride on a blow armour soaked to 0
        inflict_tags(st, att, who, tag_conditions(K, tags), ctx, ev, cnt)
    if d >= 0:
        _row_effects(K, st, att, who, d, row, blow, seed, ctx, ev, cnt)
    harm(K, st, who, dmg, ctx, ev, cnt)
    if d >= 0 and drows[d * DEF_ROWS + row, RIPOSTE] == 1 and ci[who, HAS_WEAPON] == 1:
        _riposte(K, st, who, att, blow, seed, ctx, ev, cnt)
    return dmg


@once
def _row_effects(K, st, att, who, d, row, blow, seed, ctx, ev, cnt):
    drows = drow_table(K)
    if drows[d * DEF_ROWS + row, DEF_COND] >= 0:
        inflict(st, who, 1 << drows[d * DEF_ROWS + row, DEF_COND], 1, ctx, ev, cnt)
    if drows[d * DEF_ROWS + row, ATT_COND] >= 0:
        inflict(st, att, 1 << drows[d * DEF_ROWS + row, ATT_COND], 1, ctx, ev, cnt)
    if drows[d * DEF_ROWS + row, LOCK] == 1:
        st[LOCKED, who] = 1
    if drows[d * DEF_ROWS + row, MOM_LOSS] > 0:
        if st[MOM, who] <= 0:
            st[OWED, who] += 1
        st[MOM, who] = max(st[MOM, who] - 1, 0)
    if drows[d * DEF_ROWS + row, MOVE] == 1:
        dodge_step(K, st, who, seed, ctx, SITE_DODGE_STEP, blow, ev, cnt)


@rule
def _riposte(K, st, who, att, blow, seed, ctx, ev, cnt):
    """Parry's Triumph: a free attack back, which cannot be defended."""
    ci, R = K[0], K[2]
    e = challenge(K, who, R[R_WEAPON_USE], ci[att, DEFENSE], 0, 0, seed, ctx, SITE_RIPOSTE, blow, 0, ev, cnt)
    st[ATTACKS, who] += 1
    emit(ev, cnt, ctx, E_RIPOSTE, who, e, 0, 0, 0, 0)
    if e >= 2 and st[STATUS, att] == STANDING:
        st[HITS, who] += 1
        rd = roll_dice(ci[who, W_COUNT], ci[who, W_SIDES], ci[who, W_BONUS], seed, ctx, SITE_RIPOSTE_DAMAGE, blow, 0)
        if ci[att, IS_CHAR] == 0:
            cut = soak(K, att, rd, 0, False)
            if cut != rd:
                emit(ev, cnt, ctx, E_SOAK, att, rd - cut, rd, cut, 0, 0)
            rd = cut
        harm(K, st, att, rd, ctx, ev, cnt)
        st[DEALT, who] += rd
