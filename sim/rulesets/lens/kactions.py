"""A character's actions in the kernel: Attack (with Tags), Cast, Use, Move, and the beat.

Assist and Interfere ride on the rolls of Attack and Cast ("Nearby Ally/Enemy takes
Action"); defences are reactions (kblows). Rule fixes are guarded by the `fixes` flag
(R_FIXES) so the agreement with the old engine can be checked with them off.
"""
from __future__ import annotations


from sim.rulesets.lens.kbeat import ATTACK, CAST_A, FLEE, MOVE_A, TAG_ATTACK, USE, candidates, decide, held, pick, spare
from sim.rulesets.lens.kblows import DEFENCE_ROOM, MAX_BEATS, strike
from sim.rulesets.lens.kcore import (
    cand_of,
    work_of,
    ability_row,
    prefix_table,
    ATTACKS,
    BEAT,
    BODYV,
    COND,
    DISARMED_BIT,
    DOWN_ROUND,
    E_ATTACK,
    E_CAST,
    E_CONNECT,
    E_FORM,
    E_HELP,
    E_NO_CHANCE,
    E_REARM,
    E_USE,
    FORMED,
    HITS,
    ITEMS,
    MOM,
    OWED,
    PROGRESS,
    RND,
    SITE_ATTACK,
    SITE_CAST,
    SITE_DEFEND,
    SITE_FORM,
    SITE_ITEM,
    SITE_SPELL,
    SITE_TARGET,
    SITE_WEAPON,
    SPENT,
    STANDING,
    STATUS,
    TURN_OVER,
    challenge,
    challenge_drawn,
    cond_any,
    draw_ahead,
    drawn,
    drawn_of,
    emit,
    helped_chances,
    roll_dice,
    roll_drawn,
    walk,
)
from sim.rulesets.lens.ktables import (
    ABJ_TN,
    ASSIST,
    BODY,
    C_NO_WEAPON,
    DEFENSE,
    EV,
    OWN_ASSIST,
    OWN_INTERFERE,
    OWN_TAKE,
    OWN_TAGS,
    FIX_HOLD,
    FIX_MOVE,
    FIX_ZERO_CHANCE,
    HAS_SPELL,
    HAS_WEAPON,
    HEAL_BELOW,
    INTERFERE,
    IS_CHAR,
    IT_BONUS,
    IT_COUNT,
    IT_SIDES,
    ITEM_COST,
    R_BOTCH_ENDS,
    R_FIXES,
    R_HELP,
    R_SAC_OWE,
    R_SLOTS,
    R_SOURCE,
    R_SPATIAL,
    R_TAG_COST,
    R_TRIUMPH_OVER,
    R_WEAPON_USE,
    SCRIPTED,
    SIDE,
    SP_BONUS,
    SP_COUNT,
    SP_MEAN,
    SP_SIDES,
    SPEED,
    SPELL_MASK,
    SPELL_RANGE,
    SPELL_SCHOOL,
    SPELL_TN,
    SUPPORT_KEEP,
    TAG_CAP,
    TAGS,
    TAKE_SAC,
    W_BONUS,
    W_COUNT,
    W_MEAN,
    W_MISSILE,
    W_REACH,
    W_SIDES,
)
from sim.rulesets.lens.kvalue import (attack_chance, blow_value, by_value, momentum_worth, offence_value, tag_gain,
                                      uses_spell)
from sim.jit import once


FLED = 3


@once
def helpers(K, st, c, ability, ctx, ev, cnt):
    """Talent-die sides of the ally who Assists and the enemy who Interferes (0: none), paid for.

    The default play helps where the better (or worse) die changes the expected damage by
    more than the helper's Momentum is worth."""
    ci = K[0]
    out_a, out_i = 0, 0
    for kind in range(2):
        if not (K[2][R_HELP] >> kind) & 1:
            continue  # nobody in the scenario ever gives this help
        flag = ASSIST if kind == 0 else INTERFERE
        best, who = 0, -1
        for j in range(st.shape[1]):
            if j == c or st[STATUS, j] != STANDING or ci[j, IS_CHAR] == 0:
                continue
            if (ci[j, SIDE] == ci[c, SIDE]) != (kind == 0) or st[MOM, j] - ci[j, SUPPORT_KEEP] < 1:
                continue
            if by_value(K, j, OWN_ASSIST if kind == 0 else OWN_INTERFERE):
                if not _help_pays(K, st, c, j, ability, kind):
                    continue
            elif ci[j, flag] == 0:
                continue
            t = ability_row(K, j, ability)[0]
            if who < 0 or (t > best if kind == 0 else t < best):
                best, who = t, j
        if who >= 0:
            st[MOM, who] -= 1
            st[SPENT, who] += 1
            emit(ev, cnt, ctx, E_HELP, who, kind, best, ability, 0, 0)
            if kind == 0:
                out_a = best
            else:
                out_i = best
    return out_a, out_i


@once
def _help_pays(K, st, c, j, ability, kind):
    ci = K[0]
    tn = 99
    for t in range(st.shape[1]):  # against the easiest enemy to hit: the roll's likeliest TN
        if ci[t, SIDE] != ci[c, SIDE] and st[STATUS, t] == STANDING:
            tn = min(tn, ci[t, DEFENSE] if ability == K[2][R_WEAPON_USE] else ci[t, ABJ_TN])
    if tn == 99:
        return False
    talent = ability_row(K, j, ability)[0]
    b0, s0, g0, t0 = helped_chances(K, c, ability, tn, 0, 0)
    if kind == 0:
        b1, s1, g1, t1 = helped_chances(K, c, ability, tn, talent, 0)
    else:
        b1, s1, g1, t1 = helped_chances(K, c, ability, tn, 0, talent)
    mean = K[1][c, SP_MEAN] if uses_spell(K, c) else K[1][c, W_MEAN]
    change = abs((g1 + t1 + 0.5 * s1) - (g0 + t0 + 0.5 * s0)) * mean
    return change > momentum_worth(K, st, j)


@once
def connects(K, st, c, eff, tgt, mask, spell, ctx, ev, cnt):
    """Whether an attack-like roll hits, paying a Sacrifice's second Momentum where it is taken.
    What the hit is worth (the default play's question) is worked out only when asked:
    against a character it weighs every defence of the target's."""
    ci, R = K[0], K[2]
    hit = eff >= 2
    paid = 0
    if eff == 1:
        take = ci[c, TAKE_SAC] == 1
        if by_value(K, c, OWN_TAKE):
            mean_hit = K[1][c, SP_MEAN] if spell else blow_value(K, c, tgt, mask)
            take = mean_hit > momentum_worth(K, st, c)
        if take:
            # fixed: Momentum held back for defence is not spent on it
            room = st[MOM, c] - (held(K, st, c) if R[R_FIXES] & FIX_HOLD else 0)
            if room >= 1:
                st[MOM, c] -= 1
                st[SPENT, c] += 1
                hit, paid = True, 1
            elif R[R_SAC_OWE] == 1:
                st[OWED, c] += 1
                hit, paid = True, 2
    if eff == 0 and R[R_BOTCH_ENDS] == 1:
        st[TURN_OVER, c] = 1
    emit(ev, cnt, ctx, E_CONNECT, c, eff, int(hit), paid, R[R_BOTCH_ENDS], 0)
    return hit


@once
def tags_to_attach(K, st, c, tgt, budget):
    """How many weapon tags to attach: the family's count up to the cap and the Momentum,
    or, in the default play, each next tag while what it adds beats another attack."""
    ci, R, prefix = K[0], K[2], prefix_table(K)
    cost = R[R_TAG_COST]
    cap = min(ci[c, TAG_CAP], 6)
    if by_value(K, c, OWN_TAGS):
        worth = offence_value(K, st, c)
        chance = attack_chance(K, c, tgt)
        k = 0
        while k < cap and (k + 1) * cost <= budget and prefix[c, k + 1] != prefix[c, k]:
            if chance * tag_gain(K, st, c, tgt, prefix[c, k], prefix[c, k + 1]) <= cost * worth:
                break
            k += 1
        return k
    want = cap if ci[c, SCRIPTED] == 1 else min(ci[c, TAGS], cap)
    k = min(want, budget // cost) if cost > 0 else want
    return min(max(k, 0), 6)


@once
def _targets(K, st, c, reach, cand, spell, ctx, ev, cnt):
    """How many enemies can be attacked (marked in cand); fixed: when there are enemies in
    reach only at a 0% chance, none, and the turn ends."""
    fixed = (K[2][R_FIXES] & FIX_ZERO_CHANCE) != 0
    m = candidates(K, st, c, reach, cand, fixed, spell)
    if m > 0:
        return m
    if fixed and candidates(K, st, c, reach, cand, False, spell) > 0:
        emit(ev, cnt, ctx, E_NO_CHANCE, c, int(spell), 0, 0, 0, 0)
        st[TURN_OVER, c] = 1
    return 0


@once
def _pay(st, c, amount):
    st[MOM, c] -= amount
    st[SPENT, c] += amount


@once
def attack(K, st, c, tagged, mode, F, seed, ctx, ev, cnt):
    ci, R, prefix = K[0], K[2], prefix_table(K)
    cand = cand_of(K, st, ctx)
    if ci[c, HAS_WEAPON] == 0 or cond_any(K, st[COND, c], C_NO_WEAPON) or st[MOM, c] < 1:
        return
    beat = ctx[BEAT]
    dr = drawn_of(K, st, ctx)  # the roll's and the damage's first blocks, drawn ahead
    draw_ahead(dr, 0, seed, ctx, SITE_ATTACK, c, beat * 2)
    draw_ahead(dr, 1, seed, ctx, SITE_WEAPON, c, beat * 32)
    m = _targets(K, st, c, ci[c, W_REACH], cand, False, ctx, ev, cnt)
    if m == 0:
        return
    tgt = pick(K, st, c, mode, cand, m, F, seed, ctx, SITE_TARGET, beat)
    if tgt < 0:
        return
    k = tags_to_attach(K, st, c, tgt, spare(K, st, c) - 1) if tagged else 0
    _pay(st, c, 1 + k * R[R_TAG_COST])
    st[ATTACKS, c] += 1
    emit(ev, cnt, ctx, E_ATTACK, c, tgt, prefix[c, k], ci[tgt, DEFENSE], st[MOM, c], 0)
    assist, interfere = helpers(K, st, c, R[R_WEAPON_USE], ctx, ev, cnt)
    eff = challenge_drawn(K, c, R[R_WEAPON_USE], ci[tgt, DEFENSE], assist, interfere, drawn(dr, 0), seed, ctx,
                          SITE_ATTACK, c, beat * 8, ev, cnt)
    if not connects(K, st, c, eff, tgt, prefix[c, k], False, ctx, ev, cnt):
        return
    st[HITS, c] += 1
    blow = R[R_SLOTS] + c * MAX_BEATS + beat
    if ci[tgt, IS_CHAR] == 1:
        draw_ahead(dr, DEFENCE_ROOM, seed, ctx, SITE_DEFEND, blow, 0)
    extra = 1 if eff == 3 and (k < ci[c, TAG_CAP] or R[R_TRIUMPH_OVER] == 1) else 0
    dmg = roll_drawn(drawn(dr, 1), ci[c, W_COUNT], ci[c, W_SIDES], ci[c, W_BONUS], seed, ctx, SITE_WEAPON, c,
                     beat * 128)
    strike(K, st, c, tgt, dmg, prefix[c, min(k + extra, 6)], ci[c, W_MISSILE] == 1, False, K[1][c, W_MEAN],
           blow, True, seed, ctx, ev, cnt)


@once
def cast(K, st, c, mode, F, seed, ctx, ev, cnt):
    ci, R = K[0], K[2]
    cand = cand_of(K, st, ctx)
    if ci[c, HAS_SPELL] == 0 or st[MOM, c] < 1:
        return
    beat = ctx[BEAT]
    if st[FORMED, c] == 0:  # the Source roll against the spell's complexity takes the beat
        _pay(st, c, 1)
        e = challenge(K, c, R[R_SOURCE], ci[c, SPELL_TN], 0, 0, seed, ctx, SITE_FORM, c, beat * 8, ev, cnt)
        formed = e >= 2
        if e == 1 and ci[c, TAKE_SAC] == 1:
            if st[MOM, c] - (held(K, st, c) if R[R_FIXES] & FIX_HOLD else 0) >= 1:
                _pay(st, c, 1)
                formed = True
        if formed:
            st[FORMED, c] = 1
        emit(ev, cnt, ctx, E_FORM, c, int(formed), ci[c, SPELL_TN], 0, 0, 0)
        return
    dr = drawn_of(K, st, ctx)  # the roll's and the damage's first blocks, drawn ahead
    draw_ahead(dr, 0, seed, ctx, SITE_CAST, c, beat * 2)
    draw_ahead(dr, 1, seed, ctx, SITE_SPELL, c, beat * 32)
    m = _targets(K, st, c, ci[c, SPELL_RANGE], cand, True, ctx, ev, cnt)
    if m == 0:
        return
    tgt = pick(K, st, c, mode, cand, m, F, seed, ctx, SITE_TARGET, beat)
    if tgt < 0 or st[MOM, c] < 1:
        return
    _pay(st, c, 1)
    st[ATTACKS, c] += 1
    school = ci[c, SPELL_SCHOOL]
    emit(ev, cnt, ctx, E_CAST, c, tgt, school, ci[tgt, ABJ_TN], st[MOM, c], 0)
    assist, interfere = helpers(K, st, c, school, ctx, ev, cnt)
    eff = challenge_drawn(K, c, school, ci[tgt, ABJ_TN], assist, interfere, drawn(dr, 0), seed, ctx, SITE_CAST, c,
                          beat * 8, ev, cnt)
    if not connects(K, st, c, eff, tgt, 0, True, ctx, ev, cnt):
        return
    st[HITS, c] += 1
    blow = R[R_SLOTS] + c * MAX_BEATS + beat
    if ci[tgt, IS_CHAR] == 1:
        draw_ahead(dr, DEFENCE_ROOM, seed, ctx, SITE_DEFEND, blow, 0)
    dmg = roll_drawn(drawn(dr, 1), ci[c, SP_COUNT], ci[c, SP_SIDES], ci[c, SP_BONUS], seed, ctx, SITE_SPELL, c,
                     beat * 128)
    strike(K, st, c, tgt, dmg, ci[c, SPELL_MASK], False, True, K[1][c, SP_MEAN], blow, True, seed, ctx, ev, cnt)


@once
def use(K, st, c, seed, ctx, ev, cnt):
    """Use: a healing item (its size's Momentum, over several beats or rounds when short) or re-arming."""
    ci, cf, R = K[0], K[1], K[2]
    fixed = (R[R_FIXES] & FIX_HOLD) != 0
    any_foe = False
    for j in range(st.shape[1]):
        if ci[j, SIDE] != ci[c, SIDE] and st[STATUS, j] == STANDING:
            any_foe = True
    # fixed: no draught once the enemy is down
    heal = st[ITEMS, c] > 0 and st[BODYV, c] / ci[c, BODY] < cf[c, HEAL_BELOW] and (any_foe or not fixed)
    if not heal:
        if (st[COND, c] & DISARMED_BIT) and st[MOM, c] >= 1:
            _pay(st, c, 1)
            st[COND, c] &= ~DISARMED_BIT
            emit(ev, cnt, ctx, E_REARM, c, 0, 0, 0, 0, 0)
        else:
            st[TURN_OVER, c] = 1
        return
    cost = ci[c, ITEM_COST]
    room = st[MOM, c] - (held(K, st, c) if fixed else 0)  # fixed: held Momentum stays for defence
    paid = min(cost - st[PROGRESS, c], max(room, 0))
    _pay(st, c, paid)
    st[PROGRESS, c] += paid
    gain = 0
    done = st[PROGRESS, c] >= cost
    if done:
        rolled = roll_dice(ci[c, IT_COUNT], ci[c, IT_SIDES], ci[c, IT_BONUS], seed, ctx, SITE_ITEM, c, ctx[BEAT] * 128)
        gain = min(rolled, ci[c, BODY] - st[BODYV, c])
        st[BODYV, c] += gain
        st[ITEMS, c] -= 1
        st[PROGRESS, c] = 0
    elif paid == 0:
        st[TURN_OVER, c] = 1
    emit(ev, cnt, ctx, E_USE, c, paid, int(done), gain, st[BODYV, c], st[PROGRESS, c] * 100 + cost)


@once
def move(K, st, c, mode, F, seed, ctx, ev, cnt):
    """Move its speed per Momentum toward the chosen enemy, stopping within reach."""
    ci, R = K[0], K[2]
    if st[MOM, c] < 1:
        return
    if R[R_SPATIAL] == 0:
        st[TURN_OVER, c] = 1  # everyone is engaged: nowhere to go
        return
    cand = cand_of(K, st, ctx)
    m = 0
    for j in range(st.shape[1]):
        cand[j] = ci[j, SIDE] != ci[c, SIDE] and st[STATUS, j] == STANDING
        m += cand[j]
    tgt = pick(K, st, c, mode, cand, m, F, seed, ctx, SITE_TARGET, ctx[BEAT])
    if tgt < 0:
        return
    stop = max(ci[c, SPELL_RANGE] if uses_spell(K, c) else ci[c, W_REACH], 1)
    moved = walk(K, st, c, tgt, ci[c, SPEED], stop, ctx, ev, cnt)
    if moved > 0 or not R[R_FIXES] & FIX_MOVE:  # fixed: a step that goes nowhere costs nothing
        _pay(st, c, 1)
    if moved == 0:
        st[TURN_OVER, c] = 1


@once
def _nothing_to_spend(K, st, c):
    """Whether a family's character (not scripted, not the default play) must hold: no
    Momentum beyond what it keeps for defence, and no free draught. Every character's
    last beat of a phase is such a beat."""
    ci = K[0]
    if ci[c, SCRIPTED] == 1 or ci[c, EV] == 1:
        return False
    return st[MOM, c] - held(K, st, c) < 1 and not (st[ITEMS, c] > 0 and ci[c, ITEM_COST] == 0)


@once
def beat(K, P, st, c, F, seed, ctx, ev, cnt):
    if _nothing_to_spend(K, st, c):
        st[TURN_OVER, c] = 1  # what decide would choose, without its scans
        return
    action = decide(K, P, st, c, F, ctx)
    mode = work_of(K, st, ctx)[0]
    if action == ATTACK or action == TAG_ATTACK:
        attack(K, st, c, action == TAG_ATTACK, mode, F, seed, ctx, ev, cnt)
    elif action == CAST_A:
        cast(K, st, c, mode, F, seed, ctx, ev, cnt)
    elif action == USE:
        use(K, st, c, seed, ctx, ev, cnt)
    elif action == MOVE_A:
        move(K, st, c, mode, F, seed, ctx, ev, cnt)
    elif action == FLEE:
        st[STATUS, c] = FLED
        st[DOWN_ROUND, c] = ctx[RND]
        st[TURN_OVER, c] = 1
    else:
        st[TURN_OVER, c] = 1


