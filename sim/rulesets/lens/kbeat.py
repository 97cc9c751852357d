"""A character's beat in the kernel: the policy's choice, then Attack (with Tags), Cast, Use, Move.

Assist and Interfere ride on the rolls of Attack and Cast; defences are reactions
(kblows). The family's choice reads the same parameters as sim/rulesets/lens/policies.py;
scripted rules come from the instruction table (sim/policy_vm.py).
"""
from __future__ import annotations


from sim import keyed, policy_vm, targeting
from sim.rulesets.lens.kcore import (
    BODYV,
    BRACKET,
    COND,
    DISARMED_BIT,
    EARLY,
    FORMED,
    ITEMS,
    MOM,
    RND,
    SK,
    dist_of,
    focus_of,
    health_of,
    obs_of,
    policy_views,
    stack_of,
    work_of,
    STANDING,
    STATUS,
    VOID,
    cond_any,
    distance,
)
from sim.rulesets.lens.ktables import (
    ABJ_TN,
    ACT,
    BODY,
    C_NO_WEAPON,
    DEFENSE,
    OWN_HOLD,
    OWN_TAGS,
    FIX_HOLD,
    HAS_WEAPON,
    HEAL_BELOW,
    HOLD,
    IS_CHAR,
    ITEM_COST,
    R_CELL_FEET,
    R_FIXES,
    R_PVP,
    R_SPATIAL,
    R_WEAPON_USE,
    RECOVER_BELOW,
    SCRIPTED,
    SIDE,
    SPELL_RANGE,
    SPELL_SCHOOL,
    TAGS,
    TAKE_SAC,
    TARGET,
    W_REACH,
)
from sim.rulesets.lens.kvalue import blows_expected, by_value, connect_chance, uses_spell
from sim.jit import once


ATTACK, TAG_ATTACK, CAST_A, USE, MOVE_A, HOLD_A, FLEE = range(7)
BEFORE, AFTER, AUTO = range(3)


@once
def held(K, st, c):
    """Momentum c keeps back for defence now: the family's `hold` while blows may still come
    (before the monsters, or against enemy characters); the default play holds what the
    blows expected at it are worth defending."""
    ci, R = K[0], K[2]
    if st[EARLY, c] == 0 and R[R_PVP] == 0:
        return 0
    if by_value(K, c, OWN_HOLD):
        return int(blows_expected(K, st, c) + 0.5) if st[EARLY, c] == 1 else 0
    return ci[c, HOLD]


@once
def spare(K, st, c):
    """Momentum an attack may spend on tags (a scripted attack piles on all it has)."""
    if K[0][c, SCRIPTED] == 1:
        return st[MOM, c]
    return st[MOM, c] - held(K, st, c)


@once
def _reach_of(K, c, spell):
    ci = K[0]
    return ci[c, SPELL_RANGE] if spell else ci[c, W_REACH]


@once
def candidates(K, st, c, reach, cand, need_chance, spell):
    """Mark the standing enemies within reach (and, fixed, with a chance to connect); how many."""
    ci, R = K[0], K[2]
    found = 0
    for j in range(st.shape[1]):
        ok = ci[j, SIDE] != ci[c, SIDE] and st[STATUS, j] == STANDING and distance(K, st, c, j) <= reach
        if ok and need_chance:
            if spell:
                ok = connect_chance(K, c, ci[c, SPELL_SCHOOL], ci[j, ABJ_TN], ci[c, TAKE_SAC] == 1) > 0
            else:
                ok = connect_chance(K, c, R[R_WEAPON_USE], ci[j, DEFENSE], ci[c, TAKE_SAC] == 1) > 0
        cand[j] = ok
        found += ok
    return found


@once
def reads_scores(mode):
    """Whether targeting.choose reads health or distance in this mode (random and focus
    read neither), so that filling them can be left out."""
    return mode == targeting.WEAKEST or mode == targeting.STRONGEST or mode == targeting.NEAREST


@once
def pick(K, st, c, mode, cand, m, F, seed, ctx, site, k):
    """The target among the m candidates; the keyed uniform that breaks ties or picks at
    random is drawn only when there are two or more."""
    health, dist = health_of(st, F), dist_of(st, F)
    if reads_scores(mode):
        for j in range(st.shape[1]):
            health[j] = st[BODYV, j]
            dist[j] = distance(K, st, c, j)
    u = keyed.uniform(seed, ctx[SK], ctx[RND], site, c, k) if m > 1 else 0.0
    return choose_counted(mode, cand, m, health, dist, focus_of(K, ctx)[K[0][c, SIDE]], u)


@once
def choose_counted(mode, cand, m, health, dist, focus, u):
    """targeting.choose given m, the count of candidates, which their markers were counted
    into as they were written: choose counts them again with one vector load of the
    markers just stored one by one, which the processor cannot forward from its stores
    (a stall of some 15 cycles at every target chosen). The same choice."""
    if mode == targeting.RANDOM or (mode == targeting.FOCUS and not (focus >= 0 and cand[focus])):
        if m == 0:
            return -1
        return targeting.nth_candidate(cand, min(int(u * m), m - 1))
    return targeting.choose(mode, cand, health, dist, focus, u)


@once
def decide(K, P, st, c, F, ctx):
    """The family's action for this beat (and the scripted rule's, where one holds)."""
    ci, cf, R = K[0], K[1], K[2]
    C = st.shape[1]
    acts = ci[c, ACT] == 1
    alone = True
    if not acts:
        allies = 0
        for j in range(C):
            if ci[j, SIDE] == ci[c, SIDE] and ci[j, IS_CHAR] == 1 and st[STATUS, j] == STANDING:
                allies += 1
        alone = allies <= 1
    # The division waits ~15 cycles; its quotient is read only by a draught, a Recovery
    # threshold above 0 or the policy machine (health below 0 only after an odd heal).
    frac = 0.0
    if st[ITEMS, c] > 0 or cf[c, RECOVER_BELOW] > 0 or ci[c, SCRIPTED] == 1 or st[BODYV, c] < 0:
        frac = st[BODYV, c] / ci[c, BODY]
    left = st[MOM, c] - held(K, st, c)
    any_foe, in_reach, cast_reach = False, False, False
    spell = uses_spell(K, c)
    for j in range(C):
        if ci[j, SIDE] != ci[c, SIDE] and st[STATUS, j] == STANDING:
            any_foe = True
            dd = distance(K, st, c, j)
            in_reach = in_reach or dd <= ci[c, W_REACH]
            cast_reach = cast_reach or dd <= ci[c, SPELL_RANGE]
    fixed = (R[R_FIXES] & FIX_HOLD) != 0
    heal = st[ITEMS, c] > 0 and frac < cf[c, HEAL_BELOW] and (any_foe or not fixed)
    wants = (left >= 1 or (heal and ci[c, ITEM_COST] == 0)) and (acts or alone)
    cast = spell and cast_reach
    weapon_ok = ci[c, HAS_WEAPON] == 1 and not cond_any(K, st[COND, c], C_NO_WEAPON)
    choice = MOVE_A if any_foe else HOLD_A
    if weapon_ok and in_reach:
        choice = TAG_ATTACK if (ci[c, TAGS] > 0 or by_value(K, c, OWN_TAGS)) else ATTACK
    if cast:
        choice = CAST_A
    if ci[c, HAS_WEAPON] == 1 and (st[COND, c] & DISARMED_BIT) and not cast:
        choice = USE
    if frac < cf[c, RECOVER_BELOW]:
        choice = HOLD_A
    if heal:
        choice = USE
    action = choice if wants else HOLD_A
    mode = ci[c, TARGET]
    if ci[c, SCRIPTED] == 1:
        obs = obs_of(st, F)
        observe(K, P, st, c, obs, frac, in_reach, ctx)
        op, arg, const, rule_code, actions, modes, rule_first, _ = policy_views(P)
        r = policy_vm.first_rule(op, arg, const, rule_code, rule_first, c, obs, stack_of(st, F))
        if r >= 0:
            action = actions[r]
            if modes[r] >= 0:
                mode = modes[r]
    work_of(K, st, ctx)[0] = mode
    return action


@once
def observe(K, P, st, c, obs, frac, in_reach, ctx):
    ci, R = K[0], K[2]
    reads = P[2]
    C = st.shape[1]
    allies, enemies, near = 0, 0, 999
    for j in range(C):
        if st[STATUS, j] == STANDING:
            if ci[j, SIDE] == ci[c, SIDE]:
                allies += 1
            else:
                enemies += 1
                near = min(near, distance(K, st, c, j) if R[R_SPATIAL] else 1)
    cond = st[COND, c]
    feet = (near if near < 999 else 999) * R[R_CELL_FEET]
    _put(obs, reads, c, 0, ctx[RND])
    _put(obs, reads, c, 1, st[MOM, c])
    _put(obs, reads, c, 2, st[BODYV, c])
    _put(obs, reads, c, 3, frac)
    _put(obs, reads, c, 4, st[VOID, c])
    _put(obs, reads, c, 5, st[BRACKET, c])
    for k in range(4):  # stun, prone, hamstrung, disarmed
        _put(obs, reads, c, 6 + k, cond >> k & 1)
    _put(obs, reads, c, 10, feet)
    _put(obs, reads, c, 11, int(in_reach))
    _put(obs, reads, c, 12, st[FORMED, c])
    _put(obs, reads, c, 13, st[ITEMS, c])
    _put(obs, reads, c, 14, allies)
    _put(obs, reads, c, 15, enemies)


@once
def _put(obs, reads, c, o, value):
    if reads[c, o]:
        obs[o] = float(value)


