"""What each combatant does this round: its policy family's choice, then scripted rules.

The family's parameters choose first (fleeing, routing, withdrawing, leading, covering,
casting); the first scripted rule whose condition holds overrides them. Covering is
chosen only where the aim can work (`aim_can_work`), else the combatant attacks. A scripted
rule's observations are filled only where `reads[c, o]` says some rule of c reads them.
"""
from __future__ import annotations

from sim import policy_vm
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters.tables import (
    ADVANCE, ATTACK, C_CAST, C_COVER_AIM, C_FIRST_SLOT, C_FLEE_BAD, C_KITE_CELLS, C_LEAD, C_MAX_REACH, C_MOVE_MODE,
    C_MULTI_SLOT, C_NSPELL, C_SIDE, C_SPELL_FIRST, C_SURV, C_TMODE, C_VERVE, CAST, COVER, G_MAY_MOVE, G_SIDES,
    F_FLEE_BELOW, F_ROUT_BELOW, F_WITHDRAW_BELOW, FAR, FLEE, HELD_IMMOBILIZED, HELD_NONE, KITE, L_LOADED, LEAD,
    O_ALLIES, O_DEALT, O_DISTANCE, O_ENEMIES, O_ENEMIES_CASTING, O_ENEMIES_IMMOBILE, O_HEALTH, O_HELD, O_HOLDING,
    O_IN_CLOSE, O_INJURIES, O_ROUND, O_SPELLS_LEFT, O_SURPRISED, O_SURVIVAL, O_TOOK, O_VERVE, O_WEAPON_READY,
    S_ACTIONS, S_REACH, W_ACTION, W_ASLEEP, W_BOUND, W_CAST_LAST, W_COVERING, W_HELD, W_HOLDING, W_INJ, W_LAST_DEALT,
    W_LAST_TAKEN, W_RULE_SEEN, W_STATUS, W_SURPRISED, W_SURV, W_TMODE, W_VERVE, W_WHY, W_X, W_Y, WHY_BAD_ROUND,
    WHY_HEALTH, WHY_ROUT, WHY_SCRIPT, WHY_WITHDRAW_HEALTH, WITHDRAW, WITHDRAW_MOVE)
from sim.jit import once, rule


@once
def health_share(W, ct, c):
    return (W[W_VERVE, c] + W[W_SURV, c]) / (ct[C_VERVE, c] + ct[C_SURV, c])


# Inlined: called once per combatant and round, the call itself was a tenth of a Yeti's
# compiled time (benchmarks/profile_kernel.py).
@once
def family_action(W, ct, cf, flags_sides, rnd, uses, c):
    """The policy family's action for a standing combatant c, and why (W_WHY)."""
    C = W.shape[1]
    health = health_share(W, ct, c)
    if health < cf[F_FLEE_BELOW, c]:
        W[W_WHY, c] = WHY_HEALTH
        return FLEE
    if ct[C_FLEE_BAD, c] and rnd > 1 and W[W_LAST_TAKEN, c] > 0 and W[W_LAST_DEALT, c] == 0:
        W[W_WHY, c] = WHY_BAD_ROUND
        return FLEE
    if cf[F_ROUT_BELOW, c] > 0:
        mine, up = 0, 0
        for j in range(C):
            if ct[C_SIDE, j] == ct[C_SIDE, c]:
                mine += 1
                up += W[W_STATUS, j] == STANDING
        if up / mine < cf[F_ROUT_BELOW, c]:
            W[W_WHY, c] = WHY_ROUT
            return FLEE
    if health < cf[F_WITHDRAW_BELOW, c]:
        W[W_WHY, c] = WHY_WITHDRAW_HEALTH
        return WITHDRAW
    if ct[C_LEAD, c]:
        return LEAD
    if ct[C_COVER_AIM, c] and W[W_COVERING, c] < 0:
        return COVER
    if ct[C_CAST, c]:
        for s in range(ct[C_SPELL_FIRST, c], ct[C_SPELL_FIRST, c] + ct[C_NSPELL, c]):
            if uses[s] > 0:
                return CAST
    return ATTACK


@once
def walks_this_round(W, ct, dist, j):
    """Whether j's movement mode walks it this round, from the positions at its start
    (moves.move_all's goals, before j's own decision: a guess that errs toward walking)."""
    if W[W_ASLEEP, j] or W[W_BOUND, j] or W[W_HELD, j] > HELD_NONE or W[W_HOLDING, j] >= 0:
        return False
    nd = FAR
    for k in range(W.shape[1]):
        if W[W_STATUS, k] == STANDING and ct[C_SIDE, k] != ct[C_SIDE, j]:
            nd = min(nd, dist[j, k])
    mode = ct[C_MOVE_MODE, j]
    if mode == WITHDRAW_MOVE or (mode == KITE and nd < ct[C_KITE_CELLS, j]):
        return True
    return nd > ct[C_MAX_REACH, j] and (mode == ADVANCE or mode == KITE)


@once
def aim_can_work(W, ct, st, dist, may_move, c):
    """Taking aim covers a target only if neither moves (round.py's end of round): c needs
    an enemy in its first weapon's reach now, and none of those may be about to walk."""
    reach = st[S_REACH, ct[C_FIRST_SLOT, c]]
    found = False
    for j in range(W.shape[1]):
        if W[W_STATUS, j] != STANDING or ct[C_SIDE, j] == ct[C_SIDE, c] or dist[c, j] > reach:
            continue
        found = True
        if may_move and not W[W_SURPRISED, j] and walks_this_round(W, ct, dist, j):
            return False
    return found


@once
def observe(W, SL, ct, st, dist, close_reach, cell_size, rnd, uses, reads, c, obs):
    """Fill obs with what c's rules read (standing = at the start of the round)."""
    C = W.shape[1]
    if reads[c, O_ROUND]:
        obs[O_ROUND] = rnd
    if reads[c, O_HEALTH]:
        obs[O_HEALTH] = health_share(W, ct, c)
    if reads[c, O_SURVIVAL]:
        obs[O_SURVIVAL] = W[W_SURV, c]
    if reads[c, O_VERVE]:
        obs[O_VERVE] = W[W_VERVE, c]
    if reads[c, O_INJURIES]:
        obs[O_INJURIES] = W[W_INJ, c]
    if reads[c, O_SURPRISED]:
        obs[O_SURPRISED] = W[W_SURPRISED, c]
    if reads[c, O_TOOK]:
        obs[O_TOOK] = W[W_LAST_TAKEN, c]
    if reads[c, O_DEALT]:
        obs[O_DEALT] = W[W_LAST_DEALT, c]
    allies, enemies, immobile, casting, close, nearest = 0, 0, 0, 0, 0, FAR
    # The counts are cheap; what else the enemies show is looked at only if some rule reads it.
    looks = (reads[c, O_DISTANCE] or reads[c, O_ENEMIES_IMMOBILE] or reads[c, O_ENEMIES_CASTING]
             or reads[c, O_IN_CLOSE])
    for j in range(C):
        if W[W_STATUS, j] != STANDING:
            continue
        if ct[C_SIDE, j] == ct[C_SIDE, c]:
            allies += 1
            continue
        enemies += 1
        if not looks:
            continue
        nearest = min(nearest, dist[c, j])
        immobile += W[W_ASLEEP, j] or W[W_BOUND, j] or W[W_HELD, j] == HELD_IMMOBILIZED
        casting += W[W_CAST_LAST, j]
        cheb = max(abs(W[W_X, c] - W[W_X, j]), abs(W[W_Y, c] - W[W_Y, j]))
        close |= cheb <= close_reach[c, j]
    obs[O_ALLIES], obs[O_ENEMIES], obs[O_DISTANCE] = allies, enemies, nearest * cell_size
    obs[O_ENEMIES_IMMOBILE], obs[O_ENEMIES_CASTING], obs[O_IN_CLOSE] = immobile, casting, close
    left = 0
    for s in range(ct[C_SPELL_FIRST, c], ct[C_SPELL_FIRST, c] + ct[C_NSPELL, c]):
        left += uses[s]
    obs[O_SPELLS_LEFT] = min(left, 1000)
    m = ct[C_MULTI_SLOT, c]
    obs[O_WEAPON_READY] = 1 if m < 0 else int(SL[L_LOADED, m] >= st[S_ACTIONS, m] - 1)
    obs[O_HELD] = 3 if W[W_BOUND, c] else W[W_HELD, c]
    obs[O_HOLDING] = int(W[W_HOLDING, c] >= 0)


@rule
def decide_all(W, SL, ct, cf, st, dist, close_reach, cell_size, flags, rnd, uses, pol, obs, stack, seen):
    """W_ACTION and W_TMODE of every standing combatant."""
    op, arg, const, rule_code, rule_action, rule_target, rule_first, reads = pol
    C = W.shape[1]
    for c in range(C):
        W[W_TMODE, c] = ct[C_TMODE, c]
        W[W_ACTION, c] = ATTACK
        W[W_WHY, c] = -1
        if W[W_STATUS, c] != STANDING:
            continue
        act = family_action(W, ct, cf, flags[G_SIDES], rnd, uses, c)
        if act == COVER and not aim_can_work(W, ct, st, dist, flags[G_MAY_MOVE], c):
            act = ATTACK  # an aim at a moving target never becomes valid
        W[W_ACTION, c] = act
    for c in range(C):
        if W[W_STATUS, c] != STANDING or rule_first[c + 1] == rule_first[c]:
            continue
        observe(W, SL, ct, st, dist, close_reach, cell_size, rnd, uses, reads, c, obs)
        r = _first_rule_seen(W, pol, c, obs, stack, seen)
        if r >= 0:
            W[W_ACTION, c] = rule_action[r]
            W[W_WHY, c] = WHY_SCRIPT + r - rule_first[c]
            if rule_target[r] >= 0:
                W[W_TMODE, c] = rule_target[r]


@once
def _first_rule_seen(W, pol, c, obs, stack, seen):
    """policy_vm.first_rule, remembered: a rule depends on nothing but what it reads, so
    while c's observations stay those of its last evaluation (W_RULE_SEEN: that result + 2,
    0 at the skirmish's start) the answer is the same."""
    op, arg, const, rule_code, rule_action, rule_target, rule_first, reads = pol
    if W[W_RULE_SEEN, c] > 0:
        same = True
        for o in range(seen.shape[1]):
            if reads[c, o] and obs[o] != seen[c, o]:
                same = False
                break
        if same:
            return W[W_RULE_SEEN, c] - 2
    r = policy_vm.first_rule(op, arg, const, rule_code, rule_first, c, obs, stack)
    for o in range(seen.shape[1]):
        seen[c, o] = obs[o]
    W[W_RULE_SEEN, c] = r + 2
    return r
