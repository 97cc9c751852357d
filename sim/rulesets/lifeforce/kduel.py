"""One-on-one melee in one fused loop: what kernel.play_chunk plays for a duel, faster.

`duel_tables` (kduel_tables.py) decides at build time whether a scenario is a duel this
loop plays: two combatants on opposite sides, melee weapons only (none Loading), the
steady family, no scripted rules, a fixed start on one row or column of the grid, no
Skirmish stunt step.
kernel.play_chunk hands such a chunk here unless it traces a skirmish, starts from a
given state or watches for stalls. Every rule option and every other policy parameter
plays as in the general round (stunt buyers, shields and Shield Block, readied blocks
for `answer_threats`, armour and penetration, surprise, Hastened / Slowed and Seize the
Initiative, turn-order options, reach and Attacks of Opportunity, Knock Prone, Disarm,
Threaten), with the same keyed numbers: tests/test_lf_duel.py compares the two paths
skirmish by skirmish.

The saving is in the shape, not the rules: the two turns of a phase in one loop with no
calls and no scans over combatants (the only enemy is the other one, always the target,
never a choice to draw noise for); the distance a number, since a walk toward the other
along their row is the walk's own straight steps (kgrid.walk) and stops in reach, so no
square is ever blocked; a fixed buying order's purchase a table lookup by points and the
four states it depends on (`BUY`), a condition modifier one by the set of conditions
held; the roll-offs drawn only when the turn order can read them (equal Reaction). What
follows a coin toss (hit or miss, the points it makes, what they buy, a condition taken)
is worked out without branches where that is cheap: a mispredicted branch costs more
than the arithmetic it skips.
"""
from __future__ import annotations

import numpy as np

from sim import keyed
from sim.rulesets.lifeforce import katt as A
from sim.rulesets.lifeforce import kdecide as P
from sim.rulesets.lifeforce import kstunts
from sim.rulesets.lifeforce import tables as TB
from sim.jit import once, rule
from sim.rulesets.lifeforce.kstart import fresh_creature, new_round_creature
from sim.rulesets.lifeforce.korder import DRAW, ROLL_OFFS, TWO_POW_MINUS_32, UNFINISHED, goes_before
from sim.rulesets.lifeforce.kduel_tables import BUY_POINTS, BUY_STATES, N_DUEL_CONDITIONS, N_LIVE, N_MODS
from sim.rulesets.lifeforce.kpack import context, unpack
from sim.rulesets.lifeforce.layout import (
    K_REACT_AOO, K_REACT_BLOCK, R_AT_ZERO_DEAD, R_REACTION_MODE, S_DOWN_ROUND, W_D_BONUS, W_D_COUNT, W_D_SIDES,
    K_ANSWER, K_ARMOR, K_DODGE, K_GENERATES, K_HAS_SHIELD, K_HELD_W, K_INTIMIDATE,
    K_MELEE_W, K_OFFENCE, K_ORDER_ATTR, K_REFLEX, K_RUN, K_SH_BONUS, K_SH_COUNT,
    K_SH_SIDES, K_SIDE, K_SPLIT0, K_STUNT_EV, K_SURPRISED, K_UNARMED_W, K_WILL, K_X0, K_Y0,
    OUTCOME_INDEX,
    R_ATTACK_DIE, R_BLOCK_POSSIBLE, R_CARRY, R_CRIT_BEFORE, R_DS_DEFENCES,
    R_INITIATOR_D100, R_NO_ACTIONS_SURPRISE, R_READIED_NEXT_TURN, R_RECOVER_AP,
    R_REROLL_EACH, R_STUNT_STEP, R_THREATEN_PHASES,
    S_ATTACKS, S_BLOCKS, S_BUY0, S_DEALT, S_DISARMED, S_DS, S_HAST, S_HITS, S_HP,
    S_LOADED, S_NATT, S_NBLK, S_OPP, S_PREP_ACTION, S_PREP_AP, S_PREP_TARGET, S_PRONE,
    S_REACTION_LEFT, S_READY, S_ROLL0, S_SEIZE, S_SLOW, S_SPOINTS, S_STATUS, S_STUNTED, S_TAKEN, S_THREAT_BY,
    S_THREAT_LEFT,
    W_AP, W_ARMOURED, W_REACH, W_SKILL)

CONTROL = (1 << A.ST_DISARM) | (1 << A.ST_THREATEN) | (1 << A.ST_PRONE)
_M32, _U32 = np.uint64(0xFFFFFFFF), np.uint64(32)


# -- the loop -----------------------------------------------------------------------------
# The rare numbers (a die word rejected, Shield Block and check dice, more than three
# damage dice) and the rare rules (a control stunt's effect, the expected-worth buyer)
# are compiled once and called; the hot path is inlined by LLVM (forceinline): inlined
# in Numba's IR instead, the many Philox copies of the keyed dice doubled the compile.

@rule
def _die_word_rare(word, sides, seed, g, rnd, site, actor, k):
    return keyed.die_word(word, sides, seed, g, rnd, site, actor, k)


@once
def _die_word(word, sides, seed, g, rnd, site, actor, k):
    """keyed.die_word: its first branch here, its rejection loop called."""
    m = np.uint64(word) * np.uint64(sides)
    if (m & _M32) >= np.uint64(sides):
        return np.int64(m >> _U32) + 1
    return _die_word_rare(word, sides, seed, g, rnd, np.int64(site), actor, k)


@rule
def _dice(count, sides, bonus, seed, g, rnd, site, actor, k0):
    return keyed.dice(count, sides, bonus, seed, g, rnd, site, actor, k0)


@rule
def _dice4(count, sides, bonus, seed, g, rnd, site, actor, k0):
    return keyed.dice4(count, sides, bonus, seed, g, rnd, site, actor, k0)


@once
def _damage_dice(W, w, words, seed, g, rnd, att, ordinal, hit):
    """katt.damage_dice (on a miss, 0 for more than three dice: they would need their own blocks)."""
    count, sides = W[w, W_D_COUNT], W[w, W_D_SIDES]
    if count > 3:
        if not hit:
            return 0
        return _dice4(count, sides, W[w, W_D_BONUS], seed, g, rnd, np.int64(A.SITE_DAMAGE), att, ordinal * 64)
    total = W[w, W_D_BONUS]
    for j in range(count):
        total += _die_word(words[1 + j], sides, seed, g, rnd, A.SITE_ATTACK, att, 4 * ordinal + 1 + j)
    return total


@once
def _buy_expected(PK, BOUGHT, att, tgt, w, points, total):
    """The default buyer (kstunts.buy_best) on the live state, as a bit mask."""
    kstunts.buy_best_called(PK, att, tgt, w, points, total, np.int64(-1))
    mask = 0
    for s in range(A.N_STUNTS):
        if BOUGHT[s]:
            mask |= 1 << s
    return mask


@rule
def _control(PK, att, tgt, w, total, ordinal, mask):
    """katt.apply_stunts' Disarm, Threaten and Knock Prone (after its Defensive Stance)."""
    T, X = unpack(PK)
    G, seed = context(PK)[:2]
    K, W, R = T[0], T[1], T[2]
    S = X[0]
    ds_tgt = A.DS_BONUS if S[tgt, S_DS] else 0
    initiator = R[R_INITIATOR_D100] != 0
    if mask >> A.ST_DISARM & 1:
        tw = K[tgt, K_HELD_W]
        if A._check_die(R, G, seed, att, ordinal, 1) + W[tw, W_SKILL] + K[tgt, K_OFFENCE] < total:
            S[tgt, S_DISARMED] = 1
    if mask >> A.ST_THREATEN & 1:
        check = A._check_die(R, G, seed, att, ordinal, 3) + K[att, K_INTIMIDATE] if initiator else total
        if check > TB.DEFENCE_BASE + K[tgt, K_WILL] + (ds_tgt if R[R_DS_DEFENCES] == 0 else 0):
            S[tgt, S_THREAT_BY] = att
            S[tgt, S_THREAT_LEFT] = R[R_THREATEN_PHASES] + 1
    if mask >> A.ST_PRONE & 1:
        check = A._check_die(R, G, seed, att, ordinal, 0) + W[w, W_SKILL] + K[att, K_OFFENCE] if initiator else total
        skill = min(K[tgt, K_REFLEX], 0) if A.flat_footed(K, G, tgt) else K[tgt, K_REFLEX]
        if check > TB.DEFENCE_BASE + skill + (ds_tgt if R[R_DS_DEFENCES] != 1 else 0):
            S[tgt, S_PRONE] = 1


@once
def _conditions(S, c, live):
    """katt.cond_mask over DUEL_CONDITIONS (bit k for DUEL_CONDITIONS[k]), only the bits
    in `live` (the conditions that do something in the column asked about: LIVE). Six
    tests ORed, not six branches: in a fight of Knock Prone and Threaten whether a
    condition holds is no pattern a branch predictor learns."""
    m = ((1 if S[c, S_PRONE] != 0 else 0) | (2 if S[c, S_HAST] > 0 else 0) | (4 if S[c, S_SLOW] > 0 else 0)
         | (8 if S[c, S_DS] != 0 else 0) | (16 if S[c, S_THREAT_BY] >= 0 else 0)
         | (32 if S[c, S_DISARMED] != 0 else 0))
    return m & live


@once
def _mods(S, MODS, c, col, live):
    """katt.cond_sum."""
    return MODS[col << N_DUEL_CONDITIONS | _conditions(S, c, live)]


@once
def _may_react(K, R, S, who, block, live_begins):
    """katt.can_react: (by a readied action, by the Reaction)."""
    mode = R[R_REACTION_MODE]
    readied = S[who, S_READY] == (A.READY_BLOCK if block else A.READY_OPPORTUNITY) and mode != 1
    trained = K[who, K_REACT_BLOCK] if block else K[who, K_REACT_AOO]
    reaction = (not readied) and trained != 0 and S[who, S_REACTION_LEFT] != 0 and mode != 2
    if block and K[who, K_HAS_SHIELD] == 0:
        readied = False
    free = _conditions(S, who, live_begins) == 0
    return readied and free, reaction and free


RECIP_LIMIT = 1 << 16


@once
def _step_points(margin, step, recip):
    """margin // step by a multiply with recip = ceil(2**32 / step) (a 64-bit division
    waits some 15 cycles on the attack total): exact while margin and step are below
    2**16, since the rounding up in recip (below step) times margin stays below 2**32."""
    if margin < RECIP_LIMIT and recip:
        return np.int64((np.uint64(margin) * np.uint64(recip)) >> _U32)
    return margin // step


@once
def _strike(PK, K, W, R, COND, SBW, S, BOUGHT, BUY, LIVE, recip, seed, g, rnd, att, tgt):
    """katt._blow's one blow in a duel (no Dual Strike: there is no second enemy)."""
    MODS = LIVE[N_LIVE:]
    kind = 1 if S[att, S_DISARMED] else 0
    w = K[att, K_UNARMED_W] if kind else K[att, K_MELEE_W]
    skill = min(K[tgt, K_DODGE], 0) if K[tgt, K_SURPRISED] != 0 and rnd == 1 else K[tgt, K_DODGE]
    defence = TB.DEFENCE_BASE + skill + _mods(S, MODS, tgt, A.C_MELEE, LIVE[A.C_MELEE])
    offence = W[w, W_SKILL] + K[att, K_OFFENCE] + _mods(S, MODS, att, A.C_OFFENCE, LIVE[A.C_OFFENCE])
    ordinal = S[att, S_NATT]
    S[att, S_NATT] = ordinal + 1
    words = keyed.block(seed, g, rnd, A.SITE_ATTACK, att, ordinal)
    total = _die_word(words[0], R[R_ATTACK_DIE], seed, g, rnd, A.SITE_ATTACK, att, 4 * ordinal) + offence
    hit = total > defence
    # Hit or miss is a coin toss the branch predictor cannot learn: the damage is worked
    # out either way (its dice are in the attack's block already) and kept on a hit.
    points = _step_points(max(total - defence, 0), R[R_STUNT_STEP], recip) if K[att, K_GENERATES] and \
        S[att, S_STUNTED] == 0 else 0
    if K[att, K_STUNT_EV] and points > 0:
        mask = _buy_expected(PK, BOUGHT, att, tgt, w, points, total)
    else:
        state = ((1 if S[tgt, S_DISARMED] else 0) | (2 if S[tgt, S_THREAT_BY] == att else 0)
                 | (4 if S[tgt, S_PRONE] else 0) | (8 if S[att, S_DS] else 0))
        mask = BUY[((att * 2 + kind) * (BUY_POINTS + 1) + min(points, BUY_POINTS)) * BUY_STATES + state]
    S[att, S_STUNTED] |= 1 if points > 0 else 0
    for s in range(A.N_STUNTS):  # every bit, no loop to the last set one: its length is a coin toss too
        S[att, S_BUY0 + s] += mask >> s & 1
    S[att, S_ATTACKS] += 1
    rolled = max(_damage_dice(W, w, words, seed, g, rnd, att, ordinal, hit), 0) + SBW[att, w]
    armour = max(K[tgt, K_ARMOR] - W[w, W_AP], 0) if W[w, W_ARMOURED] else 0
    mult2 = 4 if mask >> A.ST_MAJOR & 1 else (3 if mask >> A.ST_MINOR & 1 else 2)
    if R[R_CRIT_BEFORE]:
        dmg = max(A.times_half(rolled, mult2) - armour, 0)
    else:
        dmg = A.times_half(max(rolled - armour, 0), mult2)
    dmg = dmg if hit else 0
    if R[R_BLOCK_POSSIBLE] and dmg > 0:
        by_ready, by_reaction = _may_react(K, R, S, tgt, True, LIVE[A.C_BEGINS])
        if by_ready or by_reaction:
            nb = S[tgt, S_NBLK]
            S[tgt, S_NBLK] = nb + 1
            shield = max(_dice(K[tgt, K_SH_COUNT], K[tgt, K_SH_SIDES], K[tgt, K_SH_BONUS], seed, g, rnd,
                               np.int64(A.SITE_SHIELD), tgt, nb * 64), 0)
            if by_ready:
                S[tgt, S_READY] = A.READY_NONE
            else:
                S[tgt, S_REACTION_LEFT] = 0
            S[tgt, S_BLOCKS] += 1
            dmg = max(dmg - shield, 0)
    S[att, S_HITS] += 1 if hit else 0
    S[att, S_DEALT] += dmg
    S[tgt, S_TAKEN] += dmg
    hp = S[tgt, S_HP] - dmg  # kept for the knock-down test: _control's call would make it a reload
    S[tgt, S_HP] = hp
    S[att, S_SPOINTS] += points
    S[att, S_DS] |= mask >> A.ST_DS & 1  # katt.apply_stunts, unconditionally (no branch on the purchase)
    S[att, S_LOADED] |= mask >> A.ST_RAPID & 1
    S[att, S_SEIZE] |= mask >> A.ST_SEIZE & 1
    if mask & CONTROL:
        _control(PK, att, tgt, w, total, ordinal, mask)
    if hp <= 0 and S[tgt, S_STATUS] == A.STANDING:  # katt.knock_down, no grapple to end
        S[tgt, S_STATUS] = A.DEAD if R[R_AT_ZERO_DEAD] != 0 else A.UNCONSCIOUS
        S[tgt, S_DOWN_ROUND] = rnd


@once
def _plan(K, W, R, COND, NEED, S, POSN, LIVE, a, b, p, dist, reach, prep, pap):
    """kdecide.plan for the steady family one on one: (action, whether it walks)."""
    desired, walks = P.ATTACK, True
    if K[a, K_RUN] and dist - reach > K[a, K_SPLIT0 + p] + K[a, K_SPLIT0 + (p + 1) % 4] and not (
            prep == P.ATTACK and pap > 0):
        # kdecide.approach: b, steady, always comes for a unless it may not move.
        comes = S[b, S_STATUS] == A.STANDING and _conditions(S, b, LIVE[A.C_MOVES]) == 0
        their_cap = max(dist - W[A.melee_weapon(K, S, b), W_REACH], 0) if comes else 0
        if K[a, K_RUN] == P.RUN_TWO_AWAY or P.run_pays(K, a, b, p, dist - reach, POSN[b] > POSN[a], their_cap):
            desired = P.RUN
    if (K[a, K_ANSWER] and K[a, K_HAS_SHIELD] and S[b, S_PREP_AP] > 0 and S[b, S_PREP_ACTION] == P.ATTACK
            and S[b, S_PREP_TARGET] == a and S[a, S_REACTION_LEFT] == 0 and S[a, S_READY] != A.READY_BLOCK
            and (pap == 0 or prep == P.BLOCK)):
        mine = 2 - (pap if prep == P.BLOCK else 0)  # kdecide.block_in_time
        theirs = max(NEED[P.ATTACK] - S[b, S_PREP_AP],
                     P.turns_to_close(K, b, p, POSN[b] > POSN[a], dist - W[A.melee_weapon(K, S, b), W_REACH]))
        if not (mine > theirs or (mine == theirs and POSN[a] > POSN[b])):
            desired, walks = P.BLOCK, False
    if S[a, S_PRONE]:
        desired = P.STAND
    elif R[R_RECOVER_AP] > 0 and S[a, S_DISARMED]:
        desired, walks = P.RECOVER, False
    if _conditions(S, a, LIVE[A.C_BEGINS]):
        desired = P.HOLD
    if _conditions(S, a, LIVE[A.C_MOVES]):
        walks = False
    return desired, walks


@once
def _turn(PK, K, W, R, COND, SBW, NEED, S, D, POSN, BOUGHT, BUY, LIVE, recip, seed, g, a, p, rnd, dist):
    """kturn.take_turn for a against the other; returns the distance after it."""
    b = 1 - a
    S[a, S_DS] = 0
    if R[R_READIED_NEXT_TURN]:
        S[a, S_READY] = A.READY_NONE
    if R[R_NO_ACTIONS_SURPRISE] and K[a, K_SURPRISED] != 0 and rnd == 1:
        return dist
    # The turn's own state in locals, not read back from S after each store: every turn
    # reads what the one before stored, and each reload waits on store forwarding.
    reach = W[A.melee_weapon(K, S, a), W_REACH]
    prep, pap = S[a, S_PREP_ACTION], S[a, S_PREP_AP]
    desired, walks = _plan(K, W, R, COND, NEED, S, POSN, LIVE, a, b, p, dist, reach, prep, pap)
    if desired != P.HOLD:  # kturn.declare
        if desired == P.BLOCK and S[a, S_READY] == A.READY_BLOCK:
            desired = P.HOLD
        elif desired != prep:
            S[a, S_PREP_ACTION] = desired
            S[a, S_PREP_AP] = 0
            S[a, S_PREP_TARGET] = b if desired == P.ATTACK else -1
            S[a, S_READY] = A.READY_NONE
            prep, pap = desired, 0
    struck = False  # by b's Attack of Opportunity, which may have disarmed a
    # Two stages, each of which may end in one blow: the walk (b's Attack of
    # Opportunity), then the action (a's attack). One strike site serves both.
    for stage in range(2):
        att = -1
        if stage == 0:
            allow = K[a, K_SPLIT0 + p] * (2 if desired == P.RUN else 1)
            if not walks or allow <= 0 or dist <= reach:
                continue
            dist = max(dist - allow, reach)
            D[a, b] = D[b, a] = dist
            if dist < W[A.melee_weapon(K, S, b), W_REACH]:  # kturn.do_move's scan: b had a in reach
                by_ready, by_reaction = _may_react(K, R, S, b, False, LIVE[A.C_BEGINS])
                if by_ready or by_reaction:
                    if by_ready:
                        S[b, S_READY] = A.READY_NONE
                    else:
                        S[b, S_REACTION_LEFT] = 0
                    S[b, S_OPP] += 1
                    att = b
                    struck = True
        else:  # kturn.act
            if S[a, S_STATUS] != A.STANDING or prep < 0 or desired == P.HOLD:
                break
            ap = pap + 1
            need = NEED[prep]
            if ap < need:
                S[a, S_PREP_AP] = ap
                break
            done = True
            if prep == P.ATTACK:
                if dist <= (W[A.melee_weapon(K, S, a), W_REACH] if struck else reach):
                    att = a
                else:
                    done = False
            elif prep == P.BLOCK:
                S[a, S_READY] = A.READY_BLOCK
            elif prep == P.STAND:
                S[a, S_PRONE] = 0
            elif prep == P.RECOVER:
                S[a, S_DISARMED] = 0
            if done:
                S[a, S_PREP_AP], S[a, S_PREP_ACTION] = 0, -1
            else:
                S[a, S_PREP_AP] = need
        if att >= 0:
            _strike(PK, K, W, R, COND, SBW, S, BOUGHT, BUY, LIVE, recip, seed, g, rnd, att, a + b - att)
    return dist


@once
def _roll_offs(S, RU, seed, g, rnd):
    """kernel.roll_offs for two creatures."""
    for c in range(2):
        w = keyed.block(seed, g, rnd, A.SITE_ROLLOFF, c, 0)
        for k in range(ROLL_OFFS):
            S[c, S_ROLL0 + k] = _die_word(w[k], 10, seed, g, rnd, A.SITE_ROLLOFF, c, k)
        RU[c] = float(w[ROLL_OFFS]) * TWO_POW_MINUS_32


@once
def _fresh(K, S):
    """kernel.init_skirmish's state for two creatures on fixed squares."""
    for c in range(2):
        fresh_creature(K, S, c)


@once
def _new_round(S):
    for c in range(2):
        new_round_creature(S, c)


@once
def _count_down_threats(S):
    for c in range(2):
        left = S[c, S_THREAT_LEFT]
        left -= 1 if left > 0 else 0
        S[c, S_THREAT_LEFT] = left
        S[c, S_THREAT_BY] = S[c, S_THREAT_BY] if left > 0 else -1


@once
def _outcome(K, S):
    up0, up1 = S[0, S_STATUS] == A.STANDING, S[1, S_STATUS] == A.STANDING
    if up0 and up1:
        return UNFINISHED
    return K[0, K_SIDE] if up0 else (K[1, K_SIDE] if up1 else DRAW)


@rule
def play_duel_chunk(PK, BUY, first, max_rounds, START, has_start, OUT, WIN, ROUNDS):
    """kernel.play_chunk for a duel chunk (no trace, no stall watch; a start of hit
    points and states only, nobody prone or disarmed: layout.START_PLAIN)."""
    T, X = unpack(PK)
    G, seed = context(PK)[:2]
    K, W, R, COND, SBW, NEED = T[0], T[1], T[2], T[3], T[4], T[17]
    S, D, BOUGHT, RU, POSN = X[0], X[1], X[3], X[4], X[13]
    LIVE = BUY[BUY.shape[0] - N_LIVE - N_MODS:]  # then MODS
    dist0 = abs(K[0, K_X0] - K[1, K_X0]) + abs(K[0, K_Y0] - K[1, K_Y0])
    ties = K[0, K_ORDER_ATTR] == K[1, K_ORDER_ATTR]  # otherwise the roll-offs are never read
    step = R[R_STUNT_STEP]
    recip = ((1 << 32) + step - 1) // step if 0 < step < RECIP_LIMIT else 0
    G[3] = 0
    for i in range(WIN.shape[0]):
        g = first + i
        G[0], G[1], G[2] = g, 0, 0
        _fresh(K, S)
        if has_start:
            for c in range(2):
                S[c, S_HP], S[c, S_STATUS] = START[i, c, 0], START[i, c, 1]
        D[0, 0] = D[1, 1] = 0
        D[0, 1] = D[1, 0] = dist0
        if ties:
            _roll_offs(S, RU, seed, g, np.int64(0))
        dist = dist0
        result = _outcome(K, S)  # kernel.winner_now: a creature carried in down ends it before round 1
        rnd = 0
        while result == UNFINISHED and rnd < max_rounds:
            rnd += 1
            G[1] = rnd
            _new_round(S)
            if R[R_REROLL_EACH] and rnd > 1 and ties:
                _roll_offs(S, RU, seed, g, rnd)
            lead = 1 if goes_before(K, S, RU, 1, 0) else 0
            POSN[lead], POSN[1 - lead] = 0, 1
            for p in range(4):  # G[2], the phase, is left alone: nothing a duel calls reads it
                S[0, S_STUNTED] = S[1, S_STUNTED] = 0
                for k in range(2):
                    a = lead if k == 0 else 1 - lead
                    if S[a, S_STATUS] != A.STANDING:
                        continue
                    # A call site per creature: its index a constant in each inlined copy, every
                    # S[a, .] and K[a, .] a fixed offset that LLVM can keep apart from the other's
                    # (duel 4.5% faster for 16 CPU-s more cold compile, 159.5 -> 175.4; a strike site per
                    # attacker too: no faster, 22 more).
                    if a == 0:
                        dist = _turn(PK, K, W, R, COND, SBW, NEED, S, D, POSN, BOUGHT, BUY, LIVE, recip, seed, g, 0, p,
                                     rnd, dist)
                    else:
                        dist = _turn(PK, K, W, R, COND, SBW, NEED, S, D, POSN, BOUGHT, BUY, LIVE, recip, seed, g, 1, p,
                                     rnd, dist)
                    result = _outcome(K, S)
                    if result != UNFINISHED:
                        break
                _count_down_threats(S)
                if result != UNFINISHED:
                    break
            if result == UNFINISHED and not R[R_CARRY]:
                for c in range(2):
                    S[c, S_PREP_AP], S[c, S_PREP_ACTION] = 0, -1
        WIN[i] = result
        ROUNDS[i] = rnd
        for k in range(OUTCOME_INDEX.shape[0]):
            for c in range(2):
                OUT[k, i, c] = S[c, OUTCOME_INDEX[k]]
