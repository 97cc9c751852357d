"""The round with the Conflicts chapter's special situations.

Plays when a scenario uses any of them (situations.build_situations); otherwise the
core round of engine.py plays. The core draws of a round are made first and in the
core's order; the situations draw from their own stream (`state.xrng`), so switching a
situation on or off leaves every core roll where it was (common random numbers).

Order of a round: snap out of surprise, wake, decide, flee, draw weapons, move, lead,
choose spells and targets, called shots ("handled first in a round"), then the other
attacks and spells, then holds, tying up, taking aim and withdrawing.
"""
from __future__ import annotations

import numpy as np

from sim.policy import choose_targets
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.gods_and_monsters import engine as E
from sim.rulesets.gods_and_monsters import grapple, movement, spells
from sim.rulesets.gods_and_monsters.attacks import AttackRound, kinds
from sim.rulesets.gods_and_monsters.policies import decide_situations
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.situations import (
    ATTACK, ATTACKING, CAST, COVER, FLEE, FOREVER, HELD_IMMOBILIZED, HELD_NONE, HOLD, K_GRAB, LEAD, MANEUVER, NORMAL,
    RELOAD, TIE_UP, WITHDRAW, contest)
from sim.rulesets.gods_and_monsters.lastaxis import any_last

class XDraws:
    """Draws from the situations' stream with the batch's common-random-numbers rule."""

    def __init__(self, batch, rng):
        self.batch, self.rng = batch, rng

    def _draw(self, fn, tail):
        b = self.batch
        if b.crn and b.size != b.chunk_size:
            return fn((b.chunk_size, *tail))[b.ids]
        return fn((b.size, *tail))

    def d(self, sides: int, *tail: int) -> np.ndarray:
        return self._draw(lambda shape: self.rng.integers(1, sides + 1, size=shape, dtype=np.int16), tail)

    def dice(self, table) -> np.ndarray:
        b = self.batch
        out = table.roll(self.rng, b.chunk_size if b.crn else b.size).astype(np.int32)
        return out[b.ids] if b.crn and b.size != b.chunk_size else out


def init_state(setup, state, batch) -> None:
    sx, rules = setup.sx, setup.rules
    n, C, A = batch.size, len(setup.names), len(setup.slot_owner)
    # A jumped copy of the batch's generator: an independent stream that leaves the core's untouched.
    state.xrng = np.random.Generator(batch.rng.bit_generator.jumped())
    asleep = np.zeros((n, C), dtype=bool)
    if rules["sleepers_immobile"]:
        sleeper = np.array([a == "asleep" for a in setup.awareness])
        asleep = state.surprised & sleeper[None, :]
    state.asleep = asleep
    state.wake_round = np.where(asleep, 2, FOREVER).astype(np.int32)
    state.bound = np.zeros((n, C), dtype=bool)
    state.held = np.zeros((n, C), dtype=np.int8)
    state.held_by = np.full((n, C), -1, dtype=np.int16)
    state.holding = np.full((n, C), -1, dtype=np.int16)
    state.covering = np.full((n, C), -1, dtype=np.int16)
    state.loaded = np.broadcast_to(sx.slot_loaded0, (n, A)).astype(np.int32)
    state.free_used = np.zeros((n, A), dtype=bool)
    state.drawn = np.broadcast_to(~sx.undrawn, (n, C)).copy()
    state.spell_uses = np.broadcast_to(sx.spell_uses, (n, len(sx.spell_uses))).astype(np.int32)
    state.cast_last = np.zeros((n, C), dtype=bool)
    t = batch.trace
    if t:
        for c in np.flatnonzero(asleep[t.pos]):
            t.line(f"{t.name(c)} sleeps through the first round: an immobile target.")


def step(setup, state, batch) -> None:
    sx, rules = setup.sx, setup.rules
    state.round = rnd = batch.round
    n, C, A = batch.size, len(setup.names), len(setup.slot_owner)
    rows = np.arange(n)[:, None]
    owner = setup.slot_owner
    cols = np.arange(C)
    t = batch.trace
    if t:
        t.line(f"\n--- Round {rnd} ---")

    # The core draws, in the core round's order.
    snap_roll, noise, focus_noise, attack_roll, damage, phases, health_roll, death_roll = E.core_draws(setup, batch)
    # The situations' draws, from their own stream.
    xd = XDraws(batch, state.xrng)
    ev = xd.d(20, A, 5)  # per slot: disruption, knockout/grab Evasion, carried save, target / attacker Agility
    crow = xd.d(20, C, 5)  # per combatant: lead, hold Fortitude, drawing, save against its spell, Reaction
    x_health = xd.d(20, C, 2)
    x_death = xd.d(20, C, 2, 2) if death_roll is not None else None
    by_roll = xd.d(20, A, C) if sx.into_melee else None
    extra_roll = xd.d(20, A) if sx.extra else None
    extra_damage = np.maximum(xd.dice(setup.slot_dice) + setup.slot_damage_bonus[None, :], 0) if sx.extra else None
    carried = xd.dice(sx.carried_dice) if sx.carried_dice is not None else None
    spell_damage = xd.dice(sx.spell_dice) if sx.spells else None

    standing = state.status == STANDING
    injury_pen = state.injuries if rules["injury_penalty"] == "all_rolls" else np.zeros((n, C), dtype=np.int32)

    if rnd > 1 and state.surprised.any():
        snapped = state.surprised & (snap_roll <= (setup.snap_target[None, :] - injury_pen))
        if t:
            for c in np.flatnonzero(state.surprised[t.pos] & standing[t.pos]):
                t.line(f"{t.name(c)} tries to snap out of surprise: rolls {snap_roll[t.pos, c]} against "
                       f"{setup.snap_target[c] - injury_pen[t.pos, c]}: "
                       f"{'snaps out' if snapped[t.pos, c] else 'still surprised (-2 defense, -3 to rolls)'}.")
        state.surprised &= ~snapped
    # The situations' reaction and ability rolls are "success rolls": surprised combatants
    # roll them at -3 after the first round, like their attacks.
    roll_pen = injury_pen + S.SURPRISED_ROLL_PENALTY * state.surprised if rnd > 1 else injury_pen
    if sx.immobile:
        woke = state.asleep & (state.wake_round <= rnd)
        state.asleep &= ~woke
        if t:
            for c in np.flatnonzero(woke[t.pos]):
                t.line(f"{t.name(c)} wakes up.")

    action, target_mode = decide_situations(setup, state, standing)
    # Who cannot act at all, who may not start a maneuver, and what holders do.
    unable = state.asleep | state.bound | (state.held > HELD_NONE)
    action[standing & unable] = HOLD
    action[state.surprised & MANEUVER[action]] = ATTACK
    forced = np.zeros((n, C), dtype=bool)
    if sx.grab:
        holding = state.holding >= 0
        hstate = np.take_along_axis(state.held, np.maximum(state.holding, 0).astype(np.intp), axis=1)
        forced = holding & (hstate == HELD_IMMOBILIZED) & sx.hold_attack[None, :]
        action[holding & ~forced] = HOLD
        action[forced] = ATTACK

    fleeing = standing & (action == FLEE)
    if fleeing.any():
        state.status[fleeing] = FLED
        state.down_round[fleeing] = rnd
        if t:
            for c in np.flatnonzero(fleeing[t.pos]):
                t.line(f"{t.name(c)} flees the fight.")
        standing = state.status == STANDING
    if setup.uses_focus:
        E._update_focus(setup, state, standing, focus_noise)

    lost_round = (rnd == 1) & state.surprised & (rules["surprised_first_round"] == "lose_round")
    if rnd == 1:
        attack_pen = np.where(state.surprised, rules["surprised_first_round_penalty"], 0)
        defense = np.broadcast_to(setup.defense, (n, C)).astype(np.int32)
    else:
        attack_pen = np.where(state.surprised, S.SURPRISED_ROLL_PENALTY, 0)
        defense = setup.defense[None, :] - S.SURPRISED_DEFENSE_PENALTY * state.surprised
    attack_pen = attack_pen + injury_pen
    if t:
        for c in np.flatnonzero(standing[t.pos] & lost_round[t.pos]):
            t.line(f"{t.name(c)} is surprised and cannot act this round.")
    if sx.draw:
        # "A character can attempt to draw and use an available weapon in the same round. An
        # Evasion roll is required ... On an unsuccessful roll, the character acts as if surprised."
        trying = standing & ~state.drawn & ATTACKING[action] & ~lost_round
        quick = trying & sx.quick_draw[None, :]
        failed = trying & ~(quick & (crow[:, :, 2] <= sx.evasion[None, :] - roll_pen))
        state.surprised |= failed & quick
        lost_round = lost_round | failed
        state.drawn |= trying
        if t:
            for c in np.flatnonzero(trying[t.pos]):
                t.line(f"{t.name(c)} draws a weapon" + (
                    f" and tries to attack at once: Evasion roll {crow[t.pos, c, 2]} against "
                    f"{sx.evasion[c] - roll_pen[t.pos, c]}: "
                    + ("fumbles, acts as if surprised" if failed[t.pos, c] else "attacks")
                    if quick[t.pos, c] else ", which takes the round") + ".")
    can_act = standing & ~lost_round & ~unable

    # Movement.
    before = state.pos
    if setup.static_dist is not None:
        dist = np.broadcast_to(setup.static_dist, (n, C, C))
    else:
        # Aiming, leading and withdrawing combatants do not close in.
        movers = can_act & (action != HOLD) & (action != COVER) & (action != LEAD) & (action != WITHDRAW) \
            & (state.holding < 0)
        dist = movement.move(setup, state, standing, movers, target_mode, noise, t)
    moved = any_last(state.pos != before)
    slot_enemy = setup.enemy[owner]
    slot_dist = None if setup.static_dist is not None else dist[:, owner, :]
    if slot_dist is None:
        reachable = (slot_enemy & (setup.static_dist[owner] <= setup.slot_reach[:, None]))[None]
    else:
        reachable = slot_enemy[None] & (slot_dist <= setup.slot_reach[None, :, None])
    # "Characters fighting within hand or extended weapon reach of their opponents are in close combat."
    adj = (dist <= sx.close_reach[None]) & setup.enemy[None] & standing[:, None, :]
    in_close = any_last(adj)
    health = (state.verve + state.survival).astype(np.float32)

    # Tying up an enemy an ally holds immobilized, when next to it.
    tying = np.zeros((n, C), dtype=bool)
    if sx.grab:
        immob = (state.held == HELD_IMMOBILIZED) & standing
        near_immob = adj & immob[:, None, :]
        tying = can_act & any_last(near_immob) & (state.holding < 0) & ~state.surprised & (
            (action == TIE_UP) | (sx.tie_up[None, :] & ATTACKING[action]))
        action[tying] = TIE_UP

    # Leading: "grant the warrior cover bonus to up to level companions" on a Perception roll.
    led = np.zeros((n, C), dtype=bool)
    if sx.leading:
        leaders = can_act & (action == LEAD) & sx.warrior[None, :]
        ok = leaders & (crow[:, :, 0] <= setup.perception[None, :] - roll_pen)
        for c in np.flatnonzero(ok.any(axis=0)):
            allies = standing & (setup.side == setup.side[c])[None, :] & (cols != c)[None, :] & ~led \
                & ~sx.warrior[None, :]
            led |= ok[:, c, None] & allies & (np.cumsum(allies, axis=1) <= sx.level[c])
        if t:
            for c in np.flatnonzero(leaders[t.pos]):
                t.line(f"{t.name(c)} leads: Perception roll {crow[t.pos, c, 0]} against "
                       f"{setup.perception[c] - roll_pen[t.pos, c]}: "
                       + ("companions take the warriors' cover bonus" if ok[t.pos, c] else "no one follows") + ".")

    # Spells: each caster picks its first spell with uses left and a target in range.
    casting = can_act & (action == CAST)
    spell_of = np.full((n, C), -1, dtype=np.int32)
    spell_tgt = np.full((n, C), -1, dtype=np.int32)
    if sx.spells and casting.any():
        for s, c in enumerate(sx.spell_owner):
            pick = casting[:, c] & (spell_of[:, c] < 0) & (state.spell_uses[:, s] > 0)
            if not pick.any():
                continue
            cand = standing & setup.enemy[c][None, :] & (dist[:, c, :] <= sx.spell_range[s])
            if sx.spell_sleep[s]:
                cand &= ~state.asleep
            focus = state.focus[:, setup.side[c]][:, None] if setup.uses_focus else None
            tg = choose_targets(target_mode[:, c][:, None], cand[:, None, :], health, focus,
                                noise[:, setup.first_slot[c]][:, None, :], dist[:, c][:, None, :])[:, 0]
            ok = pick & (tg >= 0)
            spell_of[ok, c], spell_tgt[ok, c] = s, tg[ok]
        no_spell = casting & (spell_of < 0)
        action[no_spell] = ATTACK
        casting &= ~no_spell
    can_attack = can_act & ATTACKING[action]

    # Which attack slots act this round, reloading multi-action weapons, and their targets.
    slot_action = action[:, owner]
    candidates = standing[:, None, :] & reachable
    reaches = any_last(candidates)
    reload_slot = np.zeros((n, A), dtype=bool)
    free_now = None
    if sx.multi:
        k = sx.slot_actions[None, :]
        # "Attacks which require more than one action ... gain one free action per use when
        # outside of close combat."
        free_now = ~in_close[:, owner] & ~state.free_used
        fire_ok = state.loaded + 1 + free_now >= k
        policy = sx.reload[owner][None, :]
        # out_of_close_combat reloads in close combat too when no other weapon reaches anyone.
        other = ((reaches & (k == 1)).astype(np.float32) @ setup.owner_onehot) > 0
        quiet = ~in_close[:, owner] | ~other[:, owner]
        may_reload = (policy == 1) | ((policy == 0) & quiet) | (slot_action == RELOAD)
        reload_slot = (k > 1) & ~fire_ok & may_reload
        usable = (reaches & fire_ok) | reload_slot
    else:
        usable = reaches
    acting = can_attack[:, owner]
    if setup.has_alternatives:
        acting &= (usable.astype(np.float32) @ setup.slot_earlier) == 0
    acting &= usable
    slot_modes = target_mode[:, owner]
    slot_side = setup.side[owner]
    focus = state.focus[:, slot_side] if setup.uses_focus else None

    def pick_targets(candidates, health):
        targets = choose_targets(slot_modes, candidates, health, focus, noise, slot_dist)
        if sx.grab and forced.any():
            # A holder strikes the target it holds immobilized.
            held_t = state.holding[:, owner].astype(np.intp)
            ok = forced[:, owner] & np.take_along_axis(candidates, np.maximum(held_t, 0)[..., None], axis=2)[..., 0]
            targets = np.where(ok, held_t, targets)
        return targets

    targets = pick_targets(candidates, health)
    aim_target = targets[:, setup.first_slot]  # (N, C) for covering
    reloading = acting & reload_slot
    attacking = acting & (targets >= 0) & ~reloading
    firing = (((attacking & sx.slot_ranged[None, :]).astype(np.float32) @ setup.owner_onehot) > 0)
    busy = casting | ((reloading.astype(np.float32) @ setup.owner_onehot) > 0)  # complex actions

    if sx.called:
        kind = kinds(setup, state, rows, targets, slot_action, attacking, busy, firing)
    else:
        kind = np.zeros((n, A), dtype=np.int8)
    called = attacking & (kind != NORMAL)
    pre_held = state.held > HELD_NONE
    if sx.grab:
        grabbing = ((called & (kind == K_GRAB)).astype(np.float32) @ setup.owner_onehot) > 0
        attacking &= ~(grabbing[:, owner] & (kind != K_GRAB))
        called &= attacking
        # "The combatant trying to immobilize their opponent has a penalty of two to their defense."
        defense = defense - S.IMMOBILIZER_DEFENSE_PENALTY * ((state.holding >= 0) | grabbing)
    ctx = AttackRound(setup, state, rows, defense, attack_pen, roll_pen, led, adj, damage, crow[:, :, 4])

    last_taken = np.zeros((n, C), dtype=np.int32)
    last_dealt = np.zeros((n, C), dtype=np.int32)
    upset = np.zeros((n, C), dtype=bool)  # disrupted or distracted by a called shot
    if called.any():
        was = standing
        r = ctx.resolve(targets, kind, called, attack_roll, ev, by_roll, noise, carried, None, None, t,
                        busy | firing)
        upset = r["upset"]
        if sx.grab:
            grapple.grabs(setup, state, rows, targets, kind, r["hit"], ev, roll_pen, t)
        last_taken += r["taken"] + r["direct"]
        last_dealt += r["dealt_by"]
        owed = E._apply_damage(setup, state, r["taken"], t, r["direct"])
        E._health_checks(setup, state, owed, x_health[:, :, 0], None if x_death is None else x_death[:, :, 0],
                         rnd, t)
        standing = state.status == STANDING
        down = was & ~standing
        if down.any():
            # "If the opponent loses an Agility contest against the person making the called
            # shot, the opponent falls before making their attack."
            tgt = np.maximum(targets, 0)
            att_wins, _ = contest(ev[:, :, 4], sx.agility[owner][None, :], ev[:, :, 3], sx.agility[tgt],
                                  rules["contest"])
            first = r["hit"] & att_wins & (kind != K_GRAB)
            falls = np.bincount((rows * C + tgt)[first], minlength=n * C).reshape(n, C) > 0
            blocked = down & falls
            can_attack &= ~blocked
            casting &= ~blocked
            if t:
                for c in np.flatnonzero(down[t.pos]):
                    t.line(f"  {t.name(c)} " + ("falls before it can act (lost the Agility contest)."
                                                  if blocked[t.pos, c] else "still acts this round."))

    normal = attacking & ~called
    pending = np.zeros((n, C), dtype=bool)
    active = can_attack.copy()  # who still strikes: those felled in an earlier phase do not
    for p in range(phases):
        in_phase = np.ones(A, dtype=bool) if phases == 1 else (slot_side == p)
        act = normal & in_phase[None, :] & active[:, owner]
        if phases > 1:
            # Later phases see who fell before them.
            candidates = standing[:, None, :] & reachable
            targets = pick_targets(candidates, (state.verve + state.survival).astype(np.float32))
            act &= targets >= 0
        taken = np.zeros((n, C), dtype=np.int32)
        direct = np.zeros((n, C), dtype=np.int32)
        if act.any():
            r = ctx.resolve(targets, np.zeros((n, A), dtype=np.int8), act, attack_roll, ev, by_roll, noise, None,
                            (extra_roll, extra_damage) if sx.extra else None, upset, t)
            taken += r["taken"]
            last_dealt += r["dealt_by"]
        casters = casting & (setup.side == p)[None, :] if phases > 1 else casting
        if sx.spells and casters.any():
            st, dl = spells.cast(setup, state, rows, casters & ~upset, spell_of, spell_tgt, crow, spell_damage,
                                 roll_pen, t)
            taken += st
            last_dealt += dl
            if t:
                for c in np.flatnonzero((casters & upset)[t.pos]):
                    t.line(f"  {t.name(c)}'s spell is disrupted (nothing is used up).")
        last_taken += taken
        owed = E._apply_damage(setup, state, taken, t, direct)
        if rules["health_check"] == "immediate" or phases == 1:
            E._health_checks(setup, state, owed, health_roll[:, :, p],
                             None if death_roll is None else death_roll[:, :, p], rnd, t)
            active &= ~(standing & (state.status != STANDING))
            standing = state.status == STANDING
        else:
            pending |= owed
    if pending.any():
        E._health_checks(setup, state, pending, health_roll[:, :, 0],
                         None if death_roll is None else death_roll[:, :, 0], rnd, t)
        standing = state.status == STANDING

    if sx.immobile and rules["sleep_wakes_on_damage"]:
        woke = state.asleep & (last_taken > 0)
        state.asleep &= ~woke
        if t:
            for c in np.flatnonzero(woke[t.pos] & standing[t.pos]):
                t.line(f"  {t.name(c)} wakes up.")
    if sx.multi:
        k = sx.slot_actions[None, :]
        done = reloading & ~upset[:, owner]
        state.loaded = np.where(done, state.loaded + 1 + free_now, state.loaded)
        state.free_used |= done & free_now
        shot = attacking & (k > 1)
        state.loaded = np.where(shot, 0, state.loaded)
        state.free_used &= ~shot
        if t:
            for a in np.flatnonzero(reloading[t.pos]):
                t.line(f"{t.name(owner[a])} loads the {setup.slot_name[a]}"
                       + (" (disrupted)" if upset[t.pos, owner[a]] else
                          f": {state.loaded[t.pos, a]} of {sx.slot_actions[a] - 1} actions done") + ".")
    if sx.grab:
        hit_held = attacking & (targets == state.holding[:, owner])
        on_held = ((hit_held.astype(np.float32) @ setup.owner_onehot) > 0)  # holder attacked its target
        grapple.hold_contests(setup, state, pre_held, on_held, crow, roll_pen, damage, x_health,
                              x_death, rnd, t, last_taken, last_dealt)
        grapple.tie_up(setup, state, tying & (state.status == STANDING), adj, t)
        standing = state.status == STANDING
        grapple.release(state, standing)
    if sx.aim:
        aimers = can_act & (action == COVER) & standing
        tgt = np.maximum(aim_target, 0)
        still = ~moved[rows, tgt] | state.surprised[rows, tgt] | state.asleep[rows, tgt]
        valid = aimers & (aim_target >= 0) & ~moved & still
        state.covering = np.where(valid, aim_target, -1).astype(np.int16)
        if t:
            for c in np.flatnonzero(aimers[t.pos]):
                t.line(f"{t.name(c)} takes aim at {t.name(aim_target[t.pos, c])}" if valid[t.pos, c]
                       else f"{t.name(c)} tries to take aim, but someone is moving.")
    withdrawing = (state.status == STANDING) & (action == WITHDRAW)
    if withdrawing.any():
        state.status[withdrawing] = FLED
        state.down_round[withdrawing] = rnd
        if t:
            for c in np.flatnonzero(withdrawing[t.pos]):
                t.line(f"{t.name(c)} withdraws from the fight.")
        if sx.grab:
            grapple.release(state, state.status == STANDING)
    state.cast_last = casting
    state.last_dealt, state.last_taken = last_dealt, last_taken
    state.rounds[:] = rnd


