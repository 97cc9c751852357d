"""Scalar pieces of the Lens kernel: the challenge roll, harm, conditions, the grid.

Everything here works on one skirmish: `st` is its state (rows below, one column per
combatant), `K` the scenario's tables packed into three arrays (ktables.pack, read
through the accessors below), `ctx` the integer scratch that starts with the skirmish
index, the round, whether this skirmish is traced and the beat.
"""
from __future__ import annotations

import numpy as np

from sim import events, keyed
from sim.rulesets.lens.ktables import (
    N_OBS,
    R_SIDES,
    MAX_TN,
    R_N_AB,
    R_N_COND,
    R_OFF_AB,
    R_OFF_COND,
    R_OFF_DROWS,
    R_OFF_PREFIX,
    R_OFF_PROB,
    R_OFF_SI,
    R_N_SRC,
    R_OFF_SAVE,
    R_OFF_SMEAN,
    R_OFF_TAGS,
    R_SLOTS,
    ARMOR,
    BODY,
    C_ATTACKS,
    C_LOSS,
    IS_CHAR,
    R_CHALLENGE,
    R_GRID_H,
    R_GRID_W,
    R_METRIC,
    R_MONSTER_ARMOR,
    R_MONSTER_DEAD,
    R_PIERCE,
    R_SPATIAL,
    R_VOID_DEATH,
    R_VOID_LIMIT,
    R_ZERO_VOID,
)
from sim.jit import inline, once, rule

(STATUS, BODYV, VOID, BRACKET, MOM, OWED, TURN_OVER, LOCKED, COND, FRESH, FORMED, PROGRESS, ITEMS, ATTACKS, HITS,
 DEALT, TAKEN, SPENT, DEFENCES, RECOVERED, DOWN_ROUND, EARLY, PX, PY, LOST, START_MOM) = range(26)
# Rows DEFENDED .. DEFENDED + 4 count how often each defence (Abjure .. Parry) was chosen, and
# TAGS_APPLIED the conditions this combatant's blows applied through their tags (weapon or
# attack tags, a Triumph, a paid Tag): the inert-rules list reads them.
DEFENDED, TAGS_APPLIED, NST = 26, 31, 32
STANDING, UNCONSCIOUS, DEAD = 0, 1, 2
SK, RND, TRACING, BEAT = range(4)  # ctx entries
# Event sites of keyed randomness (sim/keyed.py): actor and k are given where used.
(SITE_INIT, SITE_FOCUS, SITE_ATTACK, SITE_WEAPON, SITE_CAST, SITE_SPELL, SITE_FORM, SITE_ITEM, SITE_TARGET,
 SITE_MON_TARGET, SITE_MON_DAMAGE, SITE_DEFEND, SITE_STACKED, SITE_RIPOSTE, SITE_RIPOSTE_DAMAGE, SITE_DODGE_STEP,
 SITE_PLACE) = range(1, 18)
# Event codes of the trace (trace_text.FORMATS).
(E_ROUND, E_INIT, E_START, E_MOMENTUM, E_ROLL, E_ATTACK, E_CONNECT, E_MON_ATTACK, E_DEFEND, E_SOAK, E_HARM, E_COND,
 E_RIPOSTE, E_MOVE, E_HELP, E_FORM, E_USE, E_REARM, E_END, E_FOCUS, E_PHASE, E_NO_CHANCE, E_STALL, E_SURPRISE,
 E_CAST) = range(1, 26)
VARIANT_QUALITY, VARIANT_TOOL = 1, 2
DISARMED_BIT = 8
NEIGHBOURS_X = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
NEIGHBOURS_Y = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)


# The scenario's tables travel as K = (ci, cf, rules) (ktables.pack): ci and cf hold the
# per-combatant integers and floats in their first C rows and every other table below
# them, found by offsets in `rules`. Three arrays make a call pass some 25 machine words
# where thirteen tables passed some 140 (a skirmish makes a few hundred calls).
@inline
def ability_row(K, who, ability):
    """(talent, training, tool, quality modifier) sides of who's ability."""
    R = K[2]
    return K[0][R[R_OFF_AB] + who * R[R_N_AB] + ability]


@inline
def prefix_table(K):
    """prefix[c, k]: the tag mask of c's first k weapon tags."""
    return K[0][K[2][R_OFF_PREFIX]:]


@inline
def slot_table(K):
    """si[s, X]: the monster attack slots."""
    return K[0][K[2][R_OFF_SI]:]


@once
def slot_mean(K, s):
    return K[1][K[2][R_OFF_SMEAN] + s, 0]


@once
def blow_source(K, att, blow, magical):
    """Which of the savings table's sources a blow comes from: its monster attack slot (a
    monster's blow is keyed by its slot), else the attacker's weapon or spell."""
    if K[0][att, IS_CHAR] == 0:
        return blow
    return K[2][R_SLOTS] + 2 * att + int(magical)


@inline
def savings_row(K, who, src):
    """What each defence (Abjure .. Parry) of who's is expected to save of a blow from
    source src, at the family's fixed Momentum value (kvalue.fill_savings)."""
    R = K[2]
    return K[1][R[R_OFF_SAVE] + who * R[R_N_SRC] + src]


@inline
def drow_table(K):
    """drows[d * DEF_ROWS + outcome, X]: what each defence row does."""
    return K[0][K[2][R_OFF_DROWS]:]


@inline
def tag_table(K):
    """Defeat masks (5), condition masks (4), the count of removable tags, their bits."""
    return K[0][K[2][R_OFF_TAGS]]


@inline
def cond_table(K):
    R = K[2]
    return K[0][R[R_OFF_COND]:R[R_OFF_COND] + R[R_N_COND]]


# The scratch of one skirmish travels as two arrays too. Integers (ctx): the context
# (SK, RND, TRACING, BEAT), then each side's focus, the work row (a mode, walking
# monsters' goals, monsters' orders and modes: 3C + 2), the target candidates (C), the
# characters still to act in a phase (C), the words of blocks drawn ahead (4 * N_DRAWN).
# Floats (F): health (C), distance (C), the observations, the policy machine's stack.
@inline
def focus_of(K, ctx):
    return ctx[4:4 + max(K[2][R_SIDES], 1)]


@inline
def work_of(K, st, ctx):
    a = 4 + max(K[2][R_SIDES], 1)
    return ctx[a:a + 3 * st.shape[1] + 2]


@inline
def cand_of(K, st, ctx):
    a = 4 + max(K[2][R_SIDES], 1) + 3 * st.shape[1] + 2
    return ctx[a:a + st.shape[1]]


@inline
def order_of(K, st, ctx):
    """The characters still to act in a phase (C entries after the candidates)."""
    a = 4 + max(K[2][R_SIDES], 1) + 4 * st.shape[1] + 2
    return ctx[a:a + st.shape[1]]


N_DRAWN = 3  # blocks drawn ahead at most at once (a monster's blow: target, damage, defence)


@inline
def drawn_of(K, st, ctx):
    """Room for the words of N_DRAWN blocks drawn ahead (4 * N_DRAWN entries after the order)."""
    a = 4 + max(K[2][R_SIDES], 1) + 5 * st.shape[1] + 2
    return ctx[a:a + 4 * N_DRAWN]


@once
def draw_ahead(dr, q, seed, ctx, site, actor, b):
    """Block b of (site, actor) into room q of dr, to be read (drawn) where it is used.

    A Philox evaluation is a chain of ten dependent multiplies (~50 cycles): drawn where
    its number is needed, the round waits for it. Drawn side by side with the other
    numbers of a blow, ahead of the targeting and the defence choice, the chains run
    while that work goes on. The words go through memory because the compiler sinks an
    evaluation into the branch that reads it, back to where it waits."""
    w0, w1, w2, w3 = keyed.block(seed, ctx[SK], ctx[RND], site, actor, b)
    dr[4 * q], dr[4 * q + 1], dr[4 * q + 2], dr[4 * q + 3] = np.int64(w0), np.int64(w1), np.int64(w2), np.int64(w3)


@once
def drawn(dr, q):
    return np.uint64(dr[4 * q]), np.uint64(dr[4 * q + 1]), np.uint64(dr[4 * q + 2]), np.uint64(dr[4 * q + 3])


@inline
def health_of(st, F):
    return F[:st.shape[1]]


@inline
def dist_of(st, F):
    return F[st.shape[1]:2 * st.shape[1]]


@inline
def obs_of(st, F):
    return F[2 * st.shape[1]:2 * st.shape[1] + N_OBS]


@inline
def stack_of(st, F):
    return F[2 * st.shape[1] + N_OBS:]


@inline
def policy_views(P):
    """The policy table (sim/policy_vm.py) from P = (integers, constants, reads): op, arg,
    const, rule_code, rule_action, rule_target, rule_first, reads; the integers start
    with the offsets of their six parts (play.pack_policy)."""
    PI = P[0]
    return (PI[PI[0]:PI[1]], PI[PI[1]:PI[2]], P[1], PI[PI[2]:PI[3]], PI[PI[3]:PI[4]], PI[PI[4]:PI[5]],
            PI[PI[5]:PI[6]], P[2])


@once
def emit(ev, cnt, ctx, code, a, b, c, d, e, f):
    if ctx[TRACING]:
        events.emit(ev, cnt, code, ctx[RND], a, b, c, d, e, f)


@once
def roll_dice(count, sides, bonus, seed, ctx, site, actor, k0):
    """count d sides + bonus, die j being number k0 + j of a blocked site: one Philox
    evaluation serves four dice (sim/keyed.py)."""
    if count <= 0 or sides <= 0:
        return bonus
    return roll_drawn(keyed.block(seed, ctx[SK], ctx[RND], site, actor, k0 // 4), count, sides, bonus, seed, ctx,
                      site, actor, k0)


@once
def roll_drawn(w, count, sides, bonus, seed, ctx, site, actor, k0):
    """roll_dice given the words w of its first block (k0 a multiple of 4), drawn ahead
    (draw_ahead): the same total."""
    if count <= 0 or sides <= 0:
        return bonus
    total = np.int64(bonus)
    for j in range(count):
        k = k0 + j
        if j > 0 and k % 4 == 0:
            w = keyed.block(seed, ctx[SK], ctx[RND], site, actor, k // 4)
        total += keyed.die_word(w[k % 4], sides, seed, ctx[SK], ctx[RND], site, actor, k)
    return total


@once
def _face(word, sides, seed, ctx, site, actor, k):
    return keyed.die_word(word, sides, seed, ctx[SK], ctx[RND], site, actor, k) if sides > 0 else 0


@once
def challenge(K, who, ability, tn, assist, interfere, seed, ctx, site, actor, k0, ev, cnt):
    """Efforts (0 Botch .. 3 Triumph) of character `who` rolling `ability` against `tn`.

    Dice j = 0 (Talent), 1, 2 (Training or tool), 3 (assister's Talent), 4 (interferer's)
    are numbers k0 + j of a blocked site (k0 a multiple of 4): the first four come from one
    Philox evaluation, and the same roll reads the same faces whoever helps."""
    return challenge_drawn(K, who, ability, tn, assist, interfere, keyed.block(seed, ctx[SK], ctx[RND], site, actor,
                                                                               k0 // 4), seed, ctx, site, actor, k0,
                           ev, cnt)


@once
def challenge_drawn(K, who, ability, tn, assist, interfere, w, seed, ctx, site, actor, k0, ev, cnt):
    """challenge given the words w of its first block, drawn ahead (draw_ahead)."""
    ab, R = ability_row(K, who, ability), K[2]
    talent, training, tool, mod = ab[0], ab[1], ab[2], ab[3]
    variant = R[R_CHALLENGE]
    w0, w1, w2, w3 = w
    t = _face(w0, talent, seed, ctx, site, actor, k0)
    shown = t
    fa = _face(w3, assist, seed, ctx, site, actor, k0 + 3)
    fi = 0
    if interfere > 0:
        fi = keyed.die4(interfere, seed, ctx[SK], ctx[RND], site, actor, k0 + 4)
    if assist > 0:
        t = max(t, fa)
    if interfere > 0:
        t = min(t, fi)
    d1 = d2 = 0
    has1 = has2 = False
    if training > 0:
        third = tool if variant == VARIANT_TOOL else training
        d1 = _face(w1, training, seed, ctx, site, actor, k0 + 1)
        d2 = _face(w2, third, seed, ctx, site, actor, k0 + 2)
        has1, has2 = True, third > 0
    h0, h1, h2 = t >= tn, has1 and d1 >= tn, has2 and d2 >= tn
    eff = int(h0) + int(h1) + int(h2)
    if variant == VARIANT_QUALITY:
        eff = _quality(eff, t, d1, d2, h0, h1, h2, has1, has2, tn, mod)
    emit(ev, cnt, ctx, E_ROLL, who, ability, tn, eff, shown + 100 * d1 + 10000 * d2 + 1000000 * t,
         fa + 100 * fi + 10000 * (assist > 0) + 20000 * (interfere > 0))
    return eff


@once
def _quality(eff, t, d1, d2, h0, h1, h2, has1, has2, tn, mod):
    # The roller puts the tool's modifier on the die where it helps most (or hurts least).
    if mod > 0:
        best = -99
        if not h0:
            best = t
        if has1 and not h1 and d1 > best:
            best = d1
        if has2 and not h2 and d2 > best:
            best = d2
        if best > -99 and best + mod >= tn:
            eff += 1
    elif mod < 0:
        n_dice = 1 + int(has1) + int(has2)
        top = max(t, d1 if has1 else -99, d2 if has2 else -99)
        if eff == n_dice and top + mod < tn:
            eff -= 1
    return eff


@once
def efforts_dist(p0, p1, p2, has1, has2):
    """Chances of 0..3 efforts from each die's chance of an effort (independent dice)."""
    q1 = p1 if has1 else 0.0
    q2 = p2 if has2 else 0.0
    b = (1 - p0) * (1 - q1) * (1 - q2)
    t = p0 * q1 * q2
    s = p0 * (1 - q1) * (1 - q2) + (1 - p0) * q1 * (1 - q2) + (1 - p0) * (1 - q1) * q2
    return b, s, 1.0 - b - s - t, t


@once
def die_hits(sides, tn):
    """Chance that one die of `sides` faces reaches `tn`."""
    if sides <= 0:
        return 0.0
    good = sides - max(tn, 1) + 1
    return min(max(good, 0), sides) / sides


@once
def helped_chances(K, who, ability, tn, assist, interfere):
    """(Botch, Sacrifice, Success, Triumph) chances of a roll with an Assist / Interfere die.

    Exact for two_training and tool_die; under quality_modifier the modifier is left out."""
    ab, R = ability_row(K, who, ability), K[2]
    talent, training, tool = ab[0], ab[1], ab[2]
    p0 = die_hits(talent, tn)
    if assist > 0:
        p0 = 1 - (1 - p0) * (1 - die_hits(assist, tn))
    if interfere > 0:
        p0 = p0 * die_hits(interfere, tn)
    third = tool if R[R_CHALLENGE] == VARIANT_TOOL else training
    return efforts_dist(p0, die_hits(training, tn), die_hits(third, tn), training > 0, training > 0 and third > 0)


@once
def chances(K, who, ability, tn):
    R = K[2]
    k = min(max(tn, 0), MAX_TN - 1)
    p = K[1][R[R_OFF_PROB] + (who * R[R_N_AB] + ability) * MAX_TN + k]
    return p[0], p[1], p[2], p[3]


@once
def harm(K, st, who, amount, ctx, ev, cnt):
    """Damage into Body, the excess into Void."""
    ci, R = K[0], K[2]
    if amount <= 0 or st[STATUS, who] != STANDING:
        return
    off = min(st[BODYV, who], amount)
    st[BODYV, who] -= off
    st[VOID, who] += amount - off
    st[TAKEN, who] += amount
    char = ci[who, IS_CHAR] == 1
    if R[R_ZERO_VOID]:
        down = st[BODYV, who] <= 0 and (not char or st[VOID, who] >= R[R_VOID_LIMIT])
    else:
        down = st[BODYV, who] <= 0
    state = STANDING
    if down:
        dead = (not char and R[R_MONSTER_DEAD] == 1) or (char and R[R_VOID_DEATH] > 0
                                                           and st[VOID, who] >= R[R_VOID_DEATH])
        state = DEAD if dead else UNCONSCIOUS
        st[STATUS, who] = state
        st[DOWN_ROUND, who] = ctx[RND]
    emit(ev, cnt, ctx, E_HARM, who, amount, st[BODYV, who], ci[who, BODY], st[VOID, who], state if down else -1)


@once
def inflict(st, who, bits, why, ctx, ev, cnt):
    if bits == 0:
        return
    st[COND, who] |= bits
    st[FRESH, who] |= bits
    emit(ev, cnt, ctx, E_COND, who, bits, why, 0, 0, 0)


@once
def inflict_tags(st, att, who, bits, ctx, ev, cnt):
    """The conditions a blow's tags apply, counted for the attacker."""
    if bits == 0:
        return
    n = 0
    b = bits
    while b:
        n += b & 1
        b >>= 1
    st[TAGS_APPLIED, att] += n
    inflict(st, who, bits, 0, ctx, ev, cnt)


# The two scans below stop at the last condition held: most combatants hold none, and
# they run at every beat, blow and round start.
@once
def cond_loss(K, bits, col):
    """Sum of a condition-table column over the conditions in `bits` (bits >= 0)."""
    cond = cond_table(K)
    total = 0
    k = 0
    while bits >> k and k < cond.shape[0]:
        if bits >> k & 1:
            total += cond[k, col]
        k += 1
    return total


@once
def cond_losses(K, bits):
    """cond_loss of C_LOSS and of C_ATTACKS, in one scan."""
    cond = cond_table(K)
    mom, attacks = 0, 0
    k = 0
    while bits >> k and k < cond.shape[0]:
        if bits >> k & 1:
            mom += cond[k, C_LOSS]
            attacks += cond[k, C_ATTACKS]
        k += 1
    return mom, attacks


@once
def cond_any(K, bits, col):
    cond = cond_table(K)
    k = 0
    while bits >> k and k < cond.shape[0]:
        if bits >> k & 1 and cond[k, col]:
            return True
        k += 1
    return False


@once
def single_loss(K, k):
    """Momentum the condition with index k (-1: none) costs next round."""
    if k < 0:
        return 0
    return cond_table(K)[k, C_LOSS]


@once
def distance(K, st, i, j):
    """Cells between combatants i and j (0 when everyone is engaged)."""
    R = K[2]
    if not R[R_SPATIAL]:
        return 0
    return metric(R[R_METRIC], st[PX, i] - st[PX, j], st[PY, i] - st[PY, j])


@once
def metric(kind, dx, dy):
    dx, dy = abs(dx), abs(dy)
    if kind == 0:
        return max(dx, dy)
    if kind == 1:
        return dx + dy
    return max(dx, dy) + min(dx, dy) // 2


@once
def free_cell(K, st, who, x, y):
    """Whether (x, y) is inside the grid and nobody standing but `who` is there."""
    R = K[2]
    if x < 0 or y < 0 or x >= R[R_GRID_W] or y >= R[R_GRID_H]:
        return False
    for j in range(st.shape[1]):
        if j != who and st[STATUS, j] == STANDING and st[PX, j] == x and st[PY, j] == y:
            return False
    return True


@once
def any_free_neighbour(K, st, who):
    """Whether free_neighbours would be above 0, stopping at the first free cell."""
    for k in range(8):
        if free_cell(K, st, who, st[PX, who] + NEIGHBOURS_X[k], st[PY, who] + NEIGHBOURS_Y[k]):
            return True
    return False


@once
def free_neighbours(K, st, who):
    n = 0
    for k in range(8):
        if free_cell(K, st, who, st[PX, who] + NEIGHBOURS_X[k], st[PY, who] + NEIGHBOURS_Y[k]):
            n += 1
    return n


@once
def dodge_step(K, st, who, seed, ctx, site, blow, ev, cnt):
    """Dodge's free step to an open neighbouring square, chosen with one uniform (drawn
    only when there is a choice)."""
    if not K[2][R_SPATIAL]:
        return
    n = free_neighbours(K, st, who)
    if n == 0:
        return
    nth = 0
    if n > 1:
        nth = min(int(keyed.uniform(seed, ctx[SK], ctx[RND], site, blow, 0) * n), n - 1)
    x0, y0 = st[PX, who], st[PY, who]
    for k in range(8):
        x, y = x0 + NEIGHBOURS_X[k], y0 + NEIGHBOURS_Y[k]
        if free_cell(K, st, who, x, y):
            if nth == 0:
                st[PX, who], st[PY, who] = x, y
                emit(ev, cnt, ctx, E_MOVE, who, x0, y0, x, y, 1)
                return
            nth -= 1


TIE = 10_000
SIDESTEPS = 3


@rule
def walk(K, st, i, goal, budget, stop, ctx, ev, cnt):
    """Step toward `goal` while a free neighbour is closer (or, a few times, as close):
    sim/battlefield.py's walk for one mover. Returns the cells moved."""
    R = K[2]
    kind = R[R_METRIC]
    x, y = st[PX, i], st[PY, i]
    x0, y0 = x, y
    px, py = -10**9, -10**9
    sidesteps = SIDESTEPS
    moved = 0
    diag_used = 0
    while budget > 0:
        tx, ty = (x, y) if goal == i else (st[PX, goal], st[PY, goal])
        m = metric(kind, x - tx, y - ty)
        if m <= stop:
            break
        here = m * TIE + (x - tx) ** 2 + (y - ty) ** 2
        best, score, best_cost = -1, 0, 1
        for k in range(8):
            cx, cy = x + NEIGHBOURS_X[k], y + NEIGHBOURS_Y[k]
            if (cx == px and cy == py) or not free_cell(K, st, i, cx, cy):
                continue
            cost = 1
            if k >= 4 and kind == 1:
                cost = 2
            elif k >= 4 and kind == 2 and diag_used % 2 == 1:
                cost = 2
            if cost > budget:
                continue
            ex, ey = cx - tx, cy - ty
            s = metric(kind, ex, ey) * TIE + ex * ex + ey * ey
            if best < 0 or s < score:
                best, score, best_cost = k, s, cost
        if best < 0:
            break
        better = score < here
        if not better and (score // TIE != here // TIE or sidesteps == 0):
            break
        if not better:
            sidesteps -= 1
        px, py = x, y
        x, y = x + NEIGHBOURS_X[best], y + NEIGHBOURS_Y[best]
        budget -= best_cost
        moved += best_cost
        if best >= 4:
            diag_used += 1
    st[PX, i], st[PY, i] = x, y
    if moved:
        emit(ev, cnt, ctx, E_MOVE, i, x0, y0, x, y, moved)
    return moved


@once
def soak(K, who, damage, mask, magical):
    """A monster's Armor Rating off a connecting blow (not spells, not armour-piercing tags)."""
    ci, R = K[0], K[2]
    from_armor = 0
    if R[R_MONSTER_ARMOR] == 1 and not magical and (mask & R[R_PIERCE]) == 0:
        from_armor = ci[who, ARMOR]
    return max(damage - from_armor, 0)
