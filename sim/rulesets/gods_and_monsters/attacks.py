"""Attack resolution with the special situations: modifiers, called shots and their effects.

One `AttackRound` holds the modifiers of a round (defense, penalties, who is led, who is
in close combat) and resolves a set of attack slots: first the called shots ("handled
first in a round"), then the others.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.situations import (
    CALLED, COVER_TABLE, COVERED, FULL, GRAB, HELD_IMMOBILIZED, HELD_NONE, IMMOBILE, K_CALLED, K_GRAB, K_KILL, K_KO,
    KILL, KNOCKOUT, ND_ATTACK, ND_DAMAGE, NORMAL, STRONG, UNAWARE, contest, half_up)
from sim.rulesets.gods_and_monsters.lastaxis import any_last, argmax_last, sum_last

KIND_NAMES = {K_CALLED: "makes a called shot", K_KO: "tries a knockout blow", K_KILL: "tries a killing blow",
              K_GRAB: "tries to grab"}


class AttackRound:
    """The modifiers of one round, shared by the called-shot phase and the other attacks."""

    def __init__(self, setup, state, rows, defense, attack_pen, injury_pen, led, adj, damage, reaction):
        self.setup, self.state, self.rows, self.reaction = setup, state, rows, reaction
        self.defense, self.attack_pen, self.injury_pen = defense, attack_pen, injury_pen
        self.led, self.adj, self.damage = led, adj, damage

    def not_defending(self, targets) -> np.ndarray:
        """(N, A) level in NOT_DEFENDING: the best that applies ("these bonuses do not combine")."""
        setup, state, rows, sx = self.setup, self.state, self.rows, self.setup.sx
        tgt = np.maximum(targets, 0)
        owner = setup.slot_owner
        level = np.zeros(targets.shape, dtype=np.int32)
        if sx.unaware and state.round == 1:
            level = np.maximum(level, UNAWARE * state.surprised[rows, tgt])
        if sx.aim:
            level = np.maximum(level, COVERED * (state.covering[:, owner] == tgt))
        if sx.immobile:
            immobile = state.asleep | state.bound | (state.held == HELD_IMMOBILIZED)
            level = np.maximum(level, IMMOBILE * immobile[rows, tgt])
        return level

    def resolve(self, targets, kind, acting, roll, ev, by_roll, noise, carried, extra, upset, t,
                busy=None) -> dict:
        """Resolve the attacks of `acting` slots; `busy` (N, C): who is casting, reloading or shooting."""
        setup, state, rows, sx = self.setup, self.state, self.rows, self.setup.sx
        rules = setup.rules
        n, A = acting.shape
        C = len(setup.names)
        owner = setup.slot_owner
        tgt = np.maximum(targets, 0)
        called = kind != NORMAL
        level = self.not_defending(targets)
        extra_slot = np.zeros((n, A), dtype=bool)
        if sx.extra:
            first = (np.arange(A) == setup.first_slot[owner])[None, :]
            # A warrior may take an extra attack against an unaware target instead of the +4.
            warrior_extra = (level == UNAWARE) & sx.extra_unaware[owner][None, :]
            level = np.where(warrior_extra, 0, level)
            extra_slot = first & warrior_extra
            if sx.aim:
                # The covered attack is free unless the covered combatant wins a Reaction contest.
                score = np.maximum(setup.perception, sx.evasion)
                crow_r = self.reaction
                _, covered_wins = contest(crow_r[:, owner], score[owner][None, :], crow_r[rows, tgt], score[tgt],
                                          rules["contest"])
                extra_slot |= first & (level == COVERED) & ~covered_wins
        cover = sx.cover_level[tgt] * (sx.slot_ranged[None, :] | rules["cover_vs_melee"]) if sx.cover_any else None
        bystanders = None
        if sx.into_melee:
            # Firing into close combat: the melee is the target and the opponents next to it
            # (the shooter excepted), "including the target".
            near = self.adj[rows, tgt] & (np.arange(C)[None, None, :] != owner[None, :, None]) \
                & sx.slot_ranged[None, :, None] & (targets >= 0)[..., None]
            count = 1 + sum_last(near)
            melee_cover = np.where(count >= 5, FULL, np.where(count >= 2, STRONG, 0))
            cover = np.maximum(cover, melee_cover)
            bystanders = near if near.any() else None
        if cover is not None:
            warrior_like = np.take_along_axis(sx.warrior[None, :] | self.led, tgt, axis=1)
            cover_bonus = COVER_TABLE[cover, np.where(warrior_like, 0, 1)]
        else:
            cover_bonus = 0
        def_t = self.defense[rows, tgt]
        need = (setup.slot_target_base[None, :] - def_t - self.attack_pen[:, owner] - cover_bonus
                + ND_ATTACK[level] - S.CALLED_SHOT_PENALTY * called)
        if sx.pair_mod is not None:
            need = need + sx.pair_mod[np.arange(A)[None, :], tgt]
        dmg = self.damage + ND_DAMAGE[level]
        hit = acting & (roll <= need)
        if upset is not None and upset.any():
            # "The arrow or other missile automatically misses ... unless the target of the
            # called shot makes an Evasion roll."
            hit &= ~(upset[:, owner] & sx.slot_ranged[None, :])
        dealt = np.where(hit & (kind != K_GRAB), dmg, 0)
        direct = np.zeros_like(dealt)
        ko_failed = np.zeros_like(hit)
        if (kind == K_KO).any():
            ko_hit = hit & (kind == K_KO)
            saved = ev[:, :, 1] <= sx.evasion[tgt] + sx.head[tgt] - self.injury_pen[rows, tgt]
            ko_failed = ko_hit & ~saved
            direct = np.where(ko_failed, np.minimum(sx.ko_points[owner][None, :], dealt), direct)
        if (kind == K_KILL).any():
            direct = np.where(hit & (kind == K_KILL), half_up(dealt), direct)
        body = dealt - direct
        extra_carried = np.zeros_like(dealt)
        if carried is not None:
            c_hit = hit & called & (sx.carried_save >= 0)[None, :] & (kind != K_GRAB)
            save = ev[:, :, 2] <= sx.save_scores[tgt, np.maximum(sx.carried_save, 0)[None, :]] - self.injury_pen[rows, tgt]
            extra_carried = np.where(c_hit & ~save, carried, 0)
        extra_hit = np.zeros_like(hit)
        extra_dealt = np.zeros_like(dealt)
        if extra is not None and extra_slot.any():
            e_roll, e_damage = extra
            extra_hit = acting & extra_slot & (e_roll <= need)
            extra_dealt = np.where(extra_hit, e_damage + ND_DAMAGE[level], 0)
        on_target = body + extra_carried + extra_dealt
        # Slots not acting deal nothing (every amount is masked by a hit), so all slots go
        # in: no boolean gathers.
        cell = (rows * C + tgt).ravel()
        taken = np.bincount(cell, weights=on_target.ravel(), minlength=n * C)
        taken = taken.reshape(n, C).astype(np.int32)
        direct_t = np.zeros((n, C), dtype=np.int32)
        if direct.any():
            direct_t = np.bincount(cell, weights=direct.ravel(), minlength=n * C)
            direct_t = direct_t.reshape(n, C).astype(np.int32)
        stray_by = np.zeros((n, A), dtype=np.int32)
        if bystanders is not None:
            # A hit that would also have hit others in the melee: they roll Evasion or take the
            # same damage (not for a called shot). A miss: a random adjacent opponent of the
            # target rolls Evasion with its Defense as a bonus, or is hit.
            ev_score = (sx.evasion[None, :] - self.injury_pen)[:, None, :]
            other_need = need[..., None] + def_t[..., None] - self.defense[:, None, :]
            would = (hit & ~called)[..., None] & bystanders & (roll[..., None] <= other_need)
            struck = would & (by_roll > ev_score)
            choice = argmax_last(np.where(bystanders, noise, -1.0))
            has = any_last(bystanders)
            r_choice = np.take_along_axis(by_roll, choice[..., None], axis=2)[..., 0]
            dodge = sx.evasion[choice] - self.injury_pen[rows, choice] + self.defense[rows, choice]
            stray = acting & ~hit & has & (r_choice > dodge)
            struck |= stray[..., None] & (np.arange(C)[None, None, :] == choice[..., None])
            amount = np.where(struck, dealt[..., None] + np.where(stray, self.damage, 0)[..., None], 0)
            taken += amount.sum(axis=1).astype(np.int32)
            stray_by = sum_last(amount).astype(np.int32)
        onehot = setup.owner_onehot
        state.attacks += ((acting.astype(np.float32) + (acting & extra_slot)) @ onehot).astype(np.int32)
        state.hits += ((hit.astype(np.float32) + extra_hit) @ onehot).astype(np.int32)
        dealt_by = ((on_target + direct + stray_by).astype(np.float32) @ onehot).astype(np.int32)
        state.dealt += dealt_by
        state.taken += taken + direct_t
        if t:
            _trace(t, setup, acting, targets, roll, need, hit, dealt, kind, ko_failed, direct, extra_carried,
                   extra_hit, extra_dealt, level)
            if bystanders is not None:
                p = t.pos
                for a in np.flatnonzero(acting[p]):
                    for b in np.flatnonzero(struck[p, a]):
                        t.line(f"  A stray missile from {t.name(owner[a])} strikes {t.name(b)} for "
                               f"{amount[p, a, b]}.")
        upset_t = np.zeros((n, C), dtype=bool)
        if called.any():
            # "A called shot can disrupt complex actions ... The reaction against the disrupting
            # effects of a called shot is at a penalty of the damage done."
            react = ev[:, :, 0] <= sx.evasion[tgt] + sx.movement_bonus[tgt] - dealt - self.injury_pen[rows, tgt]
            fails = hit & called & (kind != K_GRAB) & ~react
            upset_t = np.bincount((rows * C + tgt)[fails], minlength=n * C).reshape(n, C) > 0
            if t and busy is not None:
                p = t.pos
                for a in np.flatnonzero(hit[p] & called[p] & (kind[p] != K_GRAB) & busy[p, tgt[p]]):
                    score = sx.evasion[tgt[p, a]] + sx.movement_bonus[tgt[p, a]] - dealt[p, a] \
                        - self.injury_pen[p, tgt[p, a]]
                    t.line(f"  {t.name(tgt[p, a])} rolls Evasion {ev[p, a, 0]} against {score} to keep to its "
                           "action: " + ("disrupted." if fails[p, a] else "carries on."))
        return {"taken": taken, "direct": direct_t, "dealt_by": dealt_by, "hit": hit, "upset": upset_t}


def kinds(setup, state, rows, targets, slot_action, attacking, busy, firing) -> np.ndarray:
    """Per slot: a plain attack or which called shot, from the policy and scripted actions."""
    sx = setup.sx
    owner = setup.slot_owner
    tgt = np.maximum(targets, 0)
    kind = np.zeros(targets.shape, dtype=np.int8)
    when = sx.called_when[owner][None, :]
    # Only what some policy can ask about is looked up (these gathers are the cost of this step).
    none = np.zeros(targets.shape, dtype=bool)
    pick = lambda cond, values: np.take_along_axis(values, tgt, axis=1) if cond else none
    t_busy = pick(bool((sx.called_when == 1).any() or (sx.grab_when == 2).any()), busy)
    t_firing = pick(bool((sx.called_when == 2).any()), firing)
    want = (when == 3) | ((when == 1) & t_busy) | ((when == 2) & t_firing) | (slot_action == CALLED)
    kind[want] = K_CALLED
    t_immobile = pick(sx.immobile, state.asleep | state.bound | (state.held == HELD_IMMOBILIZED))
    ko_asked = (slot_action == KNOCKOUT) | sx.knockout[owner][None, :]
    if ko_asked.any():
        covered = (state.covering[:, owner] == tgt) if sx.aim else none
        unaware = pick(bool(state.surprised.any()), state.surprised) | t_immobile | covered
        kind[ko_asked & unaware] = K_KO
    kind[((slot_action == KILL) | sx.killing[owner][None, :]) & t_immobile] = K_KILL
    kind[((slot_action == KNOCKOUT) | (slot_action == KILL)) & (kind == NORMAL)] = K_CALLED
    if sx.grab:
        gw = sx.grab_when[owner][None, :]
        want = (slot_action == GRAB) | (gw == 1) | ((gw == 2) & t_busy) | ((gw == 3) & (sx.size[tgt] < sx.size[owner]))
        first = (np.arange(len(owner)) == setup.first_slot[owner])[None, :]
        free = (state.holding[:, owner] < 0) & (state.held[rows, tgt] == HELD_NONE) & ~state.bound[rows, tgt]
        kind[want & first & free & attacking] = K_GRAB
    return kind


def _trace(t, setup, acting, targets, roll, need, hit, dealt, kind, ko_failed, direct, carried, extra_hit,
           extra_dealt, level) -> None:
    p = t.pos
    for a in np.flatnonzero(acting[p]):
        owner, tgt = setup.slot_owner[a], targets[p, a]
        how = "attacks" if kind[p, a] == NORMAL else KIND_NAMES[int(kind[p, a])] + ("" if kind[p, a] == K_GRAB else " at")
        extras = []
        if level[p, a]:
            extras.append(S.NOT_DEFENDING[level[p, a]] + " target")
        verdict = f"HIT for {dealt[p, a]}" if hit[p, a] else "miss"
        if kind[p, a] == K_GRAB and hit[p, a]:
            verdict = "HIT (no damage)"
        if ko_failed[p, a]:
            verdict += f", a knockout: {direct[p, a]} to injuries"
        elif kind[p, a] == K_KO and hit[p, a]:
            verdict += ", the target rolls with the blow"
        if kind[p, a] == K_KILL and hit[p, a]:
            verdict += f", {direct[p, a]} of it to injuries"
        if carried[p, a]:
            verdict += f", its carried effect adds {carried[p, a]}"
        if extra_hit[p, a]:
            verdict += f"; extra attack HITS for {extra_dealt[p, a]}"
        weapon = "" if kind[p, a] == K_GRAB else f" with {setup.slot_name[a]}"
        t.line(f"{t.name(owner)} {how} {t.name(tgt)}{weapon}"
               + (f" ({', '.join(extras)})" if extras else "")
               + f": needs {need[p, a]} or lower, rolls {roll[p, a]}: {verdict}.")
