"""Attacks of one skirmish's round: what kind each is, and resolving a set of them.

Called shots are "handled first in a round"; every other attack of a phase is rolled
against the state at the phase's start and applied together. Each slot's target
choice, attack roll and damage dice are one keyed block (SLOT_ROLLS, slot: tables.py)
whatever the target, so changing a defender changes only whether blows land, not the dice.
"""
from __future__ import annotations

from sim import events, keyed
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters.tables import (
    AGILITY_ATT, AGILITY_TGT, BYSTANDER, C_AGILITY, C_CALLED_WHEN, C_COVER, C_EVASION, C_EXTRA_UNAWARE, C_FIRST_SLOT,
    C_GRAB_WHEN, C_HEAD, C_KILLING, C_KNOCKOUT, C_KO_POINTS, C_MOVE_BONUS, C_PERCEPTION, C_SAVE0, C_SIZE, C_WARRIOR,
    CALLED, CARRIED_DAMAGE, CARRIED_SAVE, COVER_TABLE, COVERED, DISRUPT, EV_ATTACK, EV_DISRUPT_ROLL, EV_STRAY,
    EXTRA_ATTACK, EXTRA_DAMAGE, FULL, G_AIM, G_COVER_MELEE, G_EXTRA, G_HIGHER, G_INTO_MELEE, G_KO_COST, G_UNAWARE, GRAB,
    HELD_IMMOBILIZED, HELD_NONE, IMMOBILE, K_CALLED, K_GRAB, K_KILL, K_KO, KILL, KNOCKOUT, KO_SAVE, K_SLOT_ATTACK,
    K_SLOT_DAMAGE, L_WORD_ATTACK, L_WORD_DAMAGE, SLOT_ROLLS, L_ATTACKING, L_HIT, L_KIND, L_TARGET, ND_ATTACK, ND_DAMAGE,
    NORMAL, REACTION, S_BASE, S_CBONUS, S_CCOUNT, S_CSAVE, S_CSIDES, S_DBONUS, S_DCOUNT, S_DSIDES, S_OWNER, S_RANGED,
    STRAY, STRONG, UNAWARE, W_ACTION, W_ASLEEP, W_ATT_PEN, W_ATTACKS, W_BOUND, W_BUSY, W_COVERING, W_DEALT, W_DEF,
    W_FIRING, W_HELD, W_BLOCKED, W_HITS, W_HOLDING, W_LED, W_MELEE, W_MELEE_N, W_PDIRECT, W_PTAKEN, W_RDEALT,
    W_ROLL_PEN, W_STATUS, W_SURPRISED, W_TAKEN, W_UPSET)
from sim.jit import once, rule
from sim.rulesets.gods_and_monsters.schema import CALLED_SHOT_PENALTY, SURPRISED_ROLL_PENALTY  # noqa: F401

EV_RIDER = 40  # riders of the attack line before: (sub, slot, value)
R_KNOCKED, R_ROLLS_WITH, R_KILL, R_CARRIED, R_EXTRA_HIT, R_EXTRA_MISS = range(1, 7)


@once
def slot_damage(seed, g, rnd, st, a, site):
    return max(keyed.dice(st[S_DCOUNT, a], st[S_DSIDES, a], st[S_DBONUS, a], seed, g, rnd, site, a, 0), 0)


@once
def _slot_roll_damage(seed, g, rnd, SL, st, a):
    # The first die is the word kept from the slot's SLOT_ROLLS block, the rest follow it.
    count, sides = st[S_DCOUNT, a], st[S_DSIDES, a]
    total = st[S_DBONUS, a]
    if count > 0:
        total += keyed.die_word(SL[L_WORD_DAMAGE, a], sides, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_DAMAGE)
        total += keyed.dice4(count - 1, sides, 0, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_DAMAGE + 1)
    return max(total, 0)


@once
def immobile(W, c):
    return W[W_ASLEEP, c] or W[W_BOUND, c] or W[W_HELD, c] == HELD_IMMOBILIZED


@once
def contest_wins(roll_a, score_a, roll_b, score_b, higher):
    """(a wins, b wins) of a contest of d20 roll-under rolls."""
    ok_a, ok_b = roll_a <= score_a, roll_b <= score_b
    a_wins, b_wins = ok_a and not ok_b, ok_b and not ok_a
    if higher and ok_a and ok_b:
        a_wins, b_wins = roll_a > roll_b, roll_b > roll_a
    return a_wins, b_wins


@rule
def kinds(W, SL, ct, st):
    """Per attacking slot: a plain attack or which called shot (policy and scripted actions)."""
    A = SL.shape[1]
    for a in range(A):
        SL[L_KIND, a] = NORMAL
        t = SL[L_TARGET, a]
        if not SL[L_ATTACKING, a] or t < 0:
            continue
        o = st[S_OWNER, a]
        if W[W_SURPRISED, o]:
            # "While surprised, characters may not initiate ... any of the special conflict
            # maneuvers": a policy's called_shot / knockout / killing_blow / grab waits too,
            # as a scripted maneuver does (round.py).
            continue
        act = W[W_ACTION, o]
        when = ct[C_CALLED_WHEN, o]
        kind = NORMAL
        if when == 3 or (when == 1 and W[W_BUSY, t]) or (when == 2 and W[W_FIRING, t]) or act == CALLED:
            kind = K_CALLED
        t_immobile = immobile(W, t)
        covered = W[W_COVERING, o] == t and a == ct[C_FIRST_SLOT, o]
        if (act == KNOCKOUT or ct[C_KNOCKOUT, o]) and (W[W_SURPRISED, t] or t_immobile or covered):
            kind = K_KO
        if (act == KILL or ct[C_KILLING, o]) and t_immobile:
            kind = K_KILL
        if (act == KNOCKOUT or act == KILL) and kind == NORMAL:
            kind = K_CALLED
        gw = ct[C_GRAB_WHEN, o]
        want = act == GRAB or gw == 1 or (gw == 2 and W[W_BUSY, t]) or (gw == 3 and ct[C_SIZE, t] < ct[C_SIZE, o])
        if want and a == ct[C_FIRST_SLOT, o] and W[W_HOLDING, o] < 0 and W[W_HELD, t] == HELD_NONE \
                and not W[W_BOUND, t]:
            kind = K_GRAB
        SL[L_KIND, a] = kind


@once
def not_defending(W, flags, rnd, o, t, first):
    """The level in NOT_DEFENDING: the best that applies ("these bonuses do not combine").
    Covered: only the weapon that took aim (the first), once: the aim lasts one round."""
    level = 0
    if flags[G_UNAWARE] and rnd == 1 and W[W_SURPRISED, t]:
        level = UNAWARE
    if flags[G_AIM] and first and W[W_COVERING, o] == t:
        level = max(level, COVERED)
    if immobile(W, t):
        level = max(level, IMMOBILE)
    return level


@rule
def resolve(seed, g, rnd, now, W, SL, ct, st, pair_mod, flags, adj, tracing, ev, cnt):
    """Resolve the slots with now[a]: adds to W_PTAKEN / W_PDIRECT of the targets and the
    tallies; marks W_UPSET on targets whose complex action a called shot disrupted."""
    A = SL.shape[1]
    C = W.shape[1]
    for a in range(A):
        if not now[a]:
            continue
        o, t = st[S_OWNER, a], SL[L_TARGET, a]
        kind = SL[L_KIND, a]
        called = kind != NORMAL
        ranged = st[S_RANGED, a]
        first = a == ct[C_FIRST_SLOT, o]
        level = not_defending(W, flags, rnd, o, t, first)
        extra = False
        if flags[G_EXTRA] and not called:
            # A warrior may take an extra attack against an unaware target instead of the +4.
            if level == UNAWARE and ct[C_EXTRA_UNAWARE, o]:
                level = 0
                extra = first
            if flags[G_AIM] and level == COVERED and first:
                # "a free attack ... at a bonus of four to attack and one to damage": this roll;
                # free unless the covered combatant wins a Reaction contest, and then the
                # round's own attack follows it, plain (the extra roll).
                so = max(ct[C_PERCEPTION, o], ct[C_EVASION, o]) - W[W_ROLL_PEN, o]
                stt = max(ct[C_PERCEPTION, t], ct[C_EVASION, t]) - W[W_ROLL_PEN, t]
                _, covered_wins = contest_wins(keyed.die(20, seed, g, rnd, REACTION, o, 0), so,
                                               keyed.die(20, seed, g, rnd, REACTION, t, 0), stt, flags[G_HIGHER])
                extra = not covered_wins
        cover = ct[C_COVER, t] if (ranged or flags[G_COVER_MELEE]) else 0
        n_near = 0
        if flags[G_INTO_MELEE] and ranged:
            # Firing into close combat: "two to four combatants ... five or more combatants,
            # including the target" count everyone in the target's melee (round._melees), the
            # shooter excepted; the strays fall on the target's opponents in it.
            for j in range(C):
                if adj[t, j] and j != o:
                    n_near += 1
            n_in = W[W_MELEE_N, t] - (W[W_MELEE, o] == W[W_MELEE, t])
            melee_cover = FULL if n_in >= 5 else (STRONG if n_in >= 2 else 0)
            cover = max(cover, melee_cover)
        cover_bonus = COVER_TABLE[cover, 0 if (ct[C_WARRIOR, t] or W[W_LED, t]) else 1]
        def_t = W[W_DEF, t]
        need = (st[S_BASE, a] - def_t - W[W_ATT_PEN, o] - cover_bonus + ND_ATTACK[level]
                - CALLED_SHOT_PENALTY * called + pair_mod[a, t])
        if kind == K_KO and flags[G_KO_COST] and ct[C_WARRIOR, o]:
            need -= 2  # the two combat bonus points a warrior allots to the knockout injuries
        roll = keyed.die_word(SL[L_WORD_ATTACK, a], 20, seed, g, rnd, SLOT_ROLLS, a, K_SLOT_ATTACK)
        hit = roll <= need
        # "The arrow or other missile automatically misses ... unless the target of the
        # called shot makes an Evasion roll."
        if W[W_UPSET, o] and ranged:
            hit = False
        base_damage = _slot_roll_damage(seed, g, rnd, SL, st, a)
        dmg = base_damage + ND_DAMAGE[level]
        dealt = dmg if hit and kind != K_GRAB else 0
        direct = 0
        ko_failed = False
        if kind == K_KO and hit:
            saved = keyed.die(20, seed, g, rnd, KO_SAVE, a, 0) <= ct[C_EVASION, t] + ct[C_HEAD, t] - W[W_ROLL_PEN, t]
            ko_failed = not saved
            if ko_failed:
                direct = min(ct[C_KO_POINTS, o], dealt)
        if kind == K_KILL and hit:
            direct = (dealt + 1) // 2
        carried = 0
        if hit and called and st[S_CSAVE, a] >= 0 and kind != K_GRAB:
            score = ct[C_SAVE0 + st[S_CSAVE, a], t] - W[W_ROLL_PEN, t]
            if keyed.die(20, seed, g, rnd, CARRIED_SAVE, a, 0) > score:
                carried = max(keyed.dice(st[S_CCOUNT, a], st[S_CSIDES, a], st[S_CBONUS, a], seed, g, rnd,
                                         CARRIED_DAMAGE, a, 0), 0)
        extra_hit, extra_dealt = False, 0
        if extra:
            # Plain: the unaware's +4 was traded for it; the covered bonus went to the free attack.
            extra_hit = keyed.die(20, seed, g, rnd, EXTRA_ATTACK, a, 0) <= need - ND_ATTACK[level]
            if extra_hit:
                extra_dealt = slot_damage(seed, g, rnd, st, a, EXTRA_DAMAGE)
        on_target = dealt - direct + carried + extra_dealt
        W[W_PTAKEN, t] += on_target
        W[W_PDIRECT, t] += direct
        W[W_TAKEN, t] += on_target + direct
        W[W_ATTACKS, o] += 1 + extra
        W[W_HITS, o] += hit + extra_hit
        W[W_DEALT, o] += on_target + direct
        W[W_RDEALT, o] += on_target + direct
        SL[L_HIT, a] = hit
        if tracing:
            events.emit(ev, cnt, EV_ATTACK, rnd, a, t, need, roll, dealt if hit else -1, kind * 8 + level)
            if ko_failed:
                events.emit(ev, cnt, EV_RIDER, rnd, R_KNOCKED, a, direct, 0, 0, 0)
            elif kind == K_KO and hit:
                events.emit(ev, cnt, EV_RIDER, rnd, R_ROLLS_WITH, a, 0, 0, 0, 0)
            if kind == K_KILL and hit:
                events.emit(ev, cnt, EV_RIDER, rnd, R_KILL, a, direct, 0, 0, 0)
            if carried:
                events.emit(ev, cnt, EV_RIDER, rnd, R_CARRIED, a, carried, 0, 0, 0)
            if extra:
                events.emit(ev, cnt, EV_RIDER, rnd, R_EXTRA_HIT if extra_hit else R_EXTRA_MISS, a, extra_dealt,
                            0, 0, 0)
        if n_near:
            _strays(seed, g, rnd, a, o, t, hit, called, need, roll, def_t, dealt, base_damage, W, ct, adj, tracing,
                    ev, cnt)
        if called and hit and kind != K_GRAB:
            # "A called shot can disrupt complex actions ... The reaction against the
            # disrupting effects of a called shot is at a penalty of the damage done."
            score = ct[C_EVASION, t] + ct[C_MOVE_BONUS, t] - dealt - W[W_ROLL_PEN, t]
            r = keyed.die(20, seed, g, rnd, DISRUPT, a, 0)
            if r > score:
                W[W_UPSET, t] = 1
            if tracing and W[W_BUSY, t] | W[W_FIRING, t]:
                events.emit(ev, cnt, EV_DISRUPT_ROLL, rnd, t, r, score, int(r > score), 0, 0)


@once
def _strays(seed, g, rnd, a, o, t, hit, called, need, roll, def_t, dealt, base_damage, W, ct, adj, tracing, ev,
            cnt):
    # A hit that would also have hit others in the melee: they roll Evasion or take the
    # same damage (not for a called shot). A miss: a random adjacent opponent of the
    # target rolls Evasion with its Defense as a bonus, or is hit.
    C = W.shape[1]
    if hit and not called:
        for j in range(C):
            if adj[t, j] and j != o and roll <= need + def_t - W[W_DEF, j]:
                if keyed.die(20, seed, g, rnd, BYSTANDER, a * C + j, 0) > _evasion(W, ct, j):
                    _stray_hit(W, rnd, a, o, j, dealt, tracing, ev, cnt)
    elif not hit:
        m = 0
        for j in range(C):
            if adj[t, j] and j != o:
                m += 1
        nth = keyed.pick(m, seed, g, rnd, STRAY, a, 0)
        for j in range(C):
            if adj[t, j] and j != o:
                if nth == 0:
                    r = keyed.die(20, seed, g, rnd, BYSTANDER, a * C + j, 0)
                    if r > _evasion(W, ct, j) + W[W_DEF, j]:
                        _stray_hit(W, rnd, a, o, j, base_damage, tracing, ev, cnt)
                    break
                nth -= 1


@once
def _evasion(W, ct, j):
    return ct[C_EVASION, j] - W[W_ROLL_PEN, j]


@once
def _stray_hit(W, rnd, a, o, j, amount, tracing, ev, cnt):
    W[W_PTAKEN, j] += amount
    W[W_TAKEN, j] += amount
    W[W_DEALT, o] += amount
    W[W_RDEALT, o] += amount
    if tracing:
        events.emit(ev, cnt, EV_STRAY, rnd, o, j, amount, a, 0, 0)


@once
def agility_blocks(seed, g, rnd, W, SL, ct, st, flags, was_standing):
    """"If the opponent loses an Agility contest against the person making the called
    shot, the opponent falls before making their attack": W_BLOCKED of those felled."""
    A = SL.shape[1]
    for a in range(A):
        t = SL[L_TARGET, a]
        if not (SL[L_ATTACKING, a] and SL[L_KIND, a] != NORMAL and SL[L_KIND, a] != K_GRAB and SL[L_HIT, a]):
            continue
        if not (was_standing[t] and W[W_STATUS, t] != STANDING):
            continue
        o = st[S_OWNER, a]
        wins, _ = contest_wins(keyed.die(20, seed, g, rnd, AGILITY_ATT, a, 0),
                               ct[C_AGILITY, o] - W[W_ROLL_PEN, o],
                               keyed.die(20, seed, g, rnd, AGILITY_TGT, a, 0),
                               ct[C_AGILITY, t] - W[W_ROLL_PEN, t], flags[G_HIGHER])
        if wins:
            W[W_BLOCKED, t] = 1

