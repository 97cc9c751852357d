"""What things are worth, for the default play (family `expected_value`) and the defence choice.

Values are expected Body: the damage a Momentum buys on offence, the damage a defence
saves, what a condition costs its bearer. The defender knows a blow's tags and mean
damage, not the roll to come (sim/rulesets/lens/policies.py reads the same way).
"""
from __future__ import annotations


from sim.rulesets.lens.kcore import (
    BODYV,
    EARLY,
    FRESH,
    STANDING,
    STATUS,
    chances,
    cond_loss,
    distance,
    drow_table,
    savings_row,
    single_loss,
    slot_mean,
    slot_table,
    tag_table,
)
from sim.rulesets.lens.ktables import (
    DEF_ROWS,
    ABJ_TN,
    AR,
    ARMOR,
    ATT_RATING,
    BODY,
    C_ATTACKS,
    C_LOSS,
    CAST,
    DEF_ALLOWED,
    DEF_COND,
    DEFENSE,
    FIX_HAMSTRUNG,
    HAS_SPELL,
    HAS_WEAPON,
    IS_CHAR,
    EV,
    MOMENTUM_VALUE,
    MOM_LOSS,
    NEGATE,
    OWN,
    PER_ROUND,
    R_DEF_AB0,
    R_FIXES,
    R_MONSTER_ARMOR,
    R_PIERCE,
    R_RECOVERY,
    R_SLOTS,
    R_WEAPON_USE,
    S_OWNER,
    S_REACH,
    SHIELD,
    SIDE,
    SLOT_MEAN,
    SP_MEAN,
    SPELL_MASK,
    SPELL_RANGE,
    SPELL_SCHOOL,
    TAKE_SAC,
    W_MEAN,
    W_MISSILE,
    W_REACH,
)
from sim.jit import kernel, once, rule


ACTIVE_FROM = 2  # Block, Dodge and Parry cost a Momentum; Abjure and Mitigate do not


@once
def by_value(K, c, own_bit):
    """Whether c's choice of a policy field (own_bit: ktables.OWN_*) is made by value: the
    default play's, where its scenario does not write the field."""
    ci = K[0]
    return ci[c, EV] == 1 and (ci[c, OWN] & own_bit) == 0


@once
def connect_chance(K, c, ability, tn, take):
    pb, ps, pg, pt = chances(K, c, ability, tn)
    return pg + pt + (ps if take else 0.0)


@once
def uses_spell(K, c):
    ci = K[0]
    return ci[c, HAS_SPELL] == 1 and (ci[c, CAST] == 1 or ci[c, HAS_WEAPON] == 0)


@once
def blow_value(K, c, j, mask):
    """Expected damage of c's connecting blow on j (its weapon or spell), after armour."""
    ci, cf, R = K[0], K[1], K[2]
    if uses_spell(K, c):
        if ci[j, IS_CHAR] == 1:
            return max(cf[c, SP_MEAN] - target_defence(K, c, j, ci[c, SPELL_MASK], cf[c, SP_MEAN], True), 0.0)
        return cf[c, SP_MEAN]
    mean = cf[c, W_MEAN]
    if ci[j, IS_CHAR] == 0:
        if R[R_MONSTER_ARMOR] == 1 and (mask & R[R_PIERCE]) == 0:
            mean -= ci[j, ARMOR]
    else:
        mean -= target_defence(K, c, j, mask, mean, False)
    return max(mean, 0.0)


@rule
def target_defence(K, c, j, mask, mean, magical):
    """What a character target's best defence is expected to save of c's blow (a Momentum
    of its own counted as 1 Body): an attack on a defender is worth less than its dice."""
    ci, R, tags = K[0], K[2], tag_table(K)
    best = 0.0
    for d in range(5):
        if (mask & tags[d]) != 0 or not (ci[j, DEF_ALLOWED] >> d & 1):
            continue
        if d == 0 and not magical:
            continue
        if (d == 1 and ci[j, ARMOR] == 0) or (d == 2 and ci[j, SHIELD] == 0):
            continue
        if d == 4 and (ci[j, HAS_WEAPON] == 0 or ci[c, W_MISSILE] == 1 or magical):
            continue
        v = defence_saving(K, j, d, R[R_DEF_AB0 + d], ci[c, ATT_RATING], mean, 1.0, ci[j, TAKE_SAC] == 1, True)
        best = max(best, v)
    return best


@once
def attack_chance(K, c, j):
    """c's chance to connect with j (a Sacrifice counted as half: it costs a second Momentum)."""
    ci, R = K[0], K[2]
    if uses_spell(K, c):
        pb, ps, pg, pt = chances(K, c, ci[c, SPELL_SCHOOL], ci[j, ABJ_TN])
    else:
        pb, ps, pg, pt = chances(K, c, R[R_WEAPON_USE], ci[j, DEFENSE])
    return pg + pt + 0.5 * ps


@rule
def offence_value(K, st, c):
    """What one Momentum buys on offence: the best expected damage of an attack on an enemy
    standing (within reach when there is one)."""
    ci = K[0]
    best, best_any = 0.0, 0.0
    reach = ci[c, SPELL_RANGE] if uses_spell(K, c) else ci[c, W_REACH]
    for j in range(st.shape[1]):
        if ci[j, SIDE] == ci[c, SIDE] or st[STATUS, j] != STANDING:
            continue
        v = attack_chance(K, c, j) * blow_value(K, c, j, 0)
        best_any = max(best_any, v)
        if distance(K, st, c, j) <= reach:
            best = max(best, v)
    return best if best > 0 else best_any


@once
def momentum_worth(K, st, c):
    """A Momentum of c's now: Recovery (1 Body while hurt) or, for a character who still acts
    this round, an attack."""
    ci, R = K[0], K[2]
    recover = 1.0 if R[R_RECOVERY] == 1 and st[BODYV, c] < ci[c, BODY] else 0.0
    if st[EARLY, c] == 1:
        return recover
    return max(recover, offence_value(K, st, c))


@once
def row_value(K, d, row, mean, armor, mv, with_conditions):
    """Damage a defence row saves against a blow of mean damage `mean`, less its costs."""
    drows = drow_table(K)
    v = 0.0
    neg = drows[d * DEF_ROWS + row, NEGATE]
    if neg == 1:
        v = mean
    elif neg == 2:
        v = 0.5 * mean
    if drows[d * DEF_ROWS + row, AR] == -1:
        v += min(armor, mean)
    elif drows[d * DEF_ROWS + row, AR] == 1:
        v -= armor
    if with_conditions:
        v -= mv * (single_loss(K, drows[d * DEF_ROWS + row, DEF_COND]) + drows[d * DEF_ROWS + row, MOM_LOSS])
    return v


@once
def costly_branch(K, ev, take, d, mean, armor, mv, with_conditions):
    """Whether a Sacrifice takes its "or" branch: by value under the default play, else the policy's flag."""
    if not ev:
        return take
    return row_value(K, d, 4, mean, armor, mv, with_conditions) > row_value(K, d, 1, mean, armor, mv, with_conditions)


@once
def defence_saving(K, who, d, ability, tn, mean, mv, take, ev):
    """Expected damage defence d saves, less the Momentum it costs (exact outcome chances)."""
    ci, R = K[0], K[2]
    pb, ps, pg, pt = chances(K, who, ability, tn)
    armor = float(ci[who, ARMOR])
    fixed = (R[R_FIXES] & FIX_HAMSTRUNG) != 0
    costly = costly_branch(K, ev, take, d, mean, armor, mv, fixed)
    sac_row = 4 if costly else 1
    v = (pb * row_value(K, d, 0, mean, armor, mv, fixed) + ps * row_value(K, d, sac_row, mean, armor, mv, fixed)
         + pg * row_value(K, d, 2, mean, armor, mv, fixed) + pt * row_value(K, d, 3, mean, armor, mv, fixed))
    if d >= ACTIVE_FROM:
        v -= mv if fixed else mv * (1 + pb)
    return v


@once
def condition_value(K, st, j, bits):
    """What newly inflicted conditions cost their bearer next round: Momentum for a character
    (1 Body each, say), attacks of its mean damage for a monster. Already fresh ones add nothing."""
    ci, cf = K[0], K[1]
    new = bits & ~st[FRESH, j]
    if new == 0:
        return 0.0
    if ci[j, IS_CHAR] == 1:
        return float(cond_loss(K, new, C_LOSS))
    lost = min(cond_loss(K, new, C_ATTACKS), ci[j, PER_ROUND])
    return lost * cf[j, SLOT_MEAN]


@once
def tag_gain(K, st, c, j, mask_before, mask_after):
    """Expected damage an extra tag adds to a blow that connects: conditions and armour pierced."""
    tags = tag_table(K)
    gain = (condition_value(K, st, j, _conditions(tags, mask_after))
            - condition_value(K, st, j, _conditions(tags, mask_before)))
    return gain + blow_value(K, c, j, mask_after) - blow_value(K, c, j, mask_before)


@once
def _conditions(tags, mask):
    bits = 0
    for k in range(4):
        if mask & tags[5 + k]:
            bits |= 1 << k
    return bits


@once
def blows_expected(K, st, c):
    """Monster blows expected at c before its next action: each attack that can reach it
    spread evenly over the enemies it can reach."""
    ci, si = K[0], slot_table(K)
    R = K[2]
    total = 0.0
    for s in range(R[R_SLOTS]):
        m = si[s, S_OWNER]
        if st[STATUS, m] != STANDING or ci[m, SIDE] == ci[c, SIDE]:
            continue
        reach = si[s, S_REACH]
        if distance(K, st, m, c) > reach:
            continue
        n = 0
        for j in range(st.shape[1]):
            if ci[j, SIDE] != ci[m, SIDE] and st[STATUS, j] == STANDING and distance(K, st, m, j) <= reach:
                n += 1
        if n:
            total += 1.0 / n
    return total


@kernel
def fill_savings(K, C):
    """Write kcore.savings_row for every defender whose Momentum value is fixed (all but the
    default play's): what a defence saves depends then only on the defender and the blow's
    source, so a skirmish looks it up where it recomputed it at every blow it defended."""
    ci, cf, R, si = K[0], K[1], K[2], slot_table(K)
    for who in range(C):
        if ci[who, IS_CHAR] == 0 or ci[who, EV] == 1:
            continue
        for src in range(R[R_SLOTS] + 2 * C):
            if src < R[R_SLOTS]:
                att, mean = si[src, S_OWNER], slot_mean(K, src)
            else:
                att = (src - R[R_SLOTS]) // 2
                mean = cf[att, SP_MEAN] if (src - R[R_SLOTS]) % 2 == 1 else cf[att, W_MEAN]
            row = savings_row(K, who, src)
            for d in range(5):
                row[d] = defence_saving(K, who, d, R[R_DEF_AB0 + d], ci[att, ATT_RATING], mean, cf[who, MOMENTUM_VALUE],
                                        ci[who, TAKE_SAC] == 1, False)
