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

from sim import battlefield as bf
from sim.policy import choose_targets
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.gods_and_monsters import engine as E
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.situations import (
    ATTACK, ATTACKING, CALLED, CAST, COVER, COVER_TABLE, COVERED, FLEE, FOREVER, FULL, GRAB, HELD_GRABBED,
    HELD_IMMOBILIZED, HELD_NONE, HOLD, IMMOBILE, K_CALLED, K_GRAB, K_KILL, K_KO, KILL, KNOCKOUT, LEAD, MANEUVER,
    ND_ATTACK, ND_DAMAGE, NORMAL, RELOAD, STRONG, TIE_UP, UNAWARE, WITHDRAW, contest, half_up)

KIND_NAMES = {K_CALLED: "called shot", K_KO: "knockout blow", K_KILL: "killing blow", K_GRAB: "grab"}


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


def decide(setup, state, standing):
    """The family's choices (morale, leading, covering, casting), then scripted rules."""
    sx = setup.sx
    health = (state.verve + state.survival) / (setup.verve + setup.survival)[None, :]
    flee = (health < setup.flee_below[None, :]) & standing
    if setup.flee_after_bad_round.any() and state.round > 1:
        bad = (state.last_taken > 0) & (state.last_dealt == 0)
        flee |= bad & setup.flee_after_bad_round[None, :] & standing
    action = np.where(flee, FLEE, ATTACK).astype(np.int8)
    free = action == ATTACK
    if sx.morale:
        share = np.zeros_like(health)
        for s in range(setup.n_sides):
            mine = setup.side == s
            share[:, mine] = (standing[:, mine].sum(axis=1) / mine.sum())[:, None]
        action[free & standing & (share < sx.rout_below[None, :])] = FLEE
        action[free & standing & (health < sx.withdraw_below[None, :]) & (action == ATTACK)] = WITHDRAW
        free = action == ATTACK
    if sx.leading:
        action[free & sx.lead[None, :]] = LEAD
        free = action == ATTACK
    if sx.aim:
        action[free & sx.cover_aim[None, :] & (state.covering < 0)] = COVER
        free = action == ATTACK
    if sx.spells:
        has = np.zeros_like(standing)
        for s, c in enumerate(sx.spell_owner):
            has[:, c] |= state.spell_uses[:, s] > 0
        action[free & has & sx.cast[None, :]] = CAST
    target = np.broadcast_to(setup.default_target, action.shape).copy()
    for c in setup.scripted:
        a, m = setup.policies[c].decide(E.observe(setup, state, c, standing), action[:, c])
        action[:, c], target[:, c] = a, m
    return action, target


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
    snap_roll = batch.d(20, C)
    noise = batch.uniform(A, C)
    focus_noise = batch.uniform(setup.n_sides, C) if setup.uses_focus else None
    attack_roll = batch.d(20, A)
    damage = setup.slot_dice.roll(batch.rng, batch.chunk_size if batch.crn else n)
    if batch.crn and n != batch.chunk_size:
        damage = damage[batch.ids]
    damage = np.maximum(damage + setup.slot_damage_bonus[None, :], 0)
    phases = 1 if rules["resolution"] == "simultaneous" else setup.n_sides
    health_roll = batch.d(20, C, phases)
    death_roll = batch.d(20, C, phases, 2) if rules["death_rule"] == "guide_roll" else None
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
    if sx.immobile:
        woke = state.asleep & (state.wake_round <= rnd)
        state.asleep &= ~woke
        if t:
            for c in np.flatnonzero(woke[t.pos]):
                t.line(f"{t.name(c)} wakes up.")

    action, target_mode = decide(setup, state, standing)
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
    if sx.draw:
        # "A character can attempt to draw and use an available weapon in the same round. An
        # Evasion roll is required ... On an unsuccessful roll, the character acts as if surprised."
        trying = standing & ~state.drawn & ATTACKING[action] & ~lost_round
        quick = trying & sx.quick_draw[None, :]
        failed = trying & ~(quick & (crow[:, :, 2] <= sx.evasion[None, :] - injury_pen))
        state.surprised |= failed & quick
        lost_round = lost_round | failed
        state.drawn |= trying
        if t:
            for c in np.flatnonzero(trying[t.pos]):
                t.line(f"{t.name(c)} draws a weapon" + (
                    f" and tries to attack at once: Evasion roll {crow[t.pos, c, 2]} against "
                    f"{sx.evasion[c] - injury_pen[t.pos, c]}: "
                    + ("fumbles, acts as if surprised" if failed[t.pos, c] else "attacks")
                    if quick[t.pos, c] else ", which takes the round") + ".")
    if t:
        for c in np.flatnonzero(standing[t.pos] & lost_round[t.pos] & ~state.drawn[t.pos] if sx.draw else
                                standing[t.pos] & lost_round[t.pos] & state.surprised[t.pos]):
            t.line(f"{t.name(c)} is surprised and cannot act this round.")
    can_act = standing & ~lost_round & ~unable

    # Movement.
    before = state.pos
    if setup.static_dist is not None:
        dist = np.broadcast_to(setup.static_dist, (n, C, C))
    else:
        movers = can_act & (action != HOLD) & (state.holding < 0)
        dist = E._move(setup, state, standing, movers, target_mode, noise, t)
    moved = (state.pos != before).any(axis=2)
    slot_enemy = setup.enemy[owner]
    slot_dist = None if setup.static_dist is not None else dist[:, owner, :]
    if slot_dist is None:
        reachable = (slot_enemy & (setup.static_dist[owner] <= setup.slot_reach[:, None]))[None]
    else:
        reachable = slot_enemy[None] & (slot_dist <= setup.slot_reach[None, :, None])
    # "Characters fighting within hand or extended weapon reach of their opponents are in close combat."
    adj = (dist <= sx.close_reach[None]) & setup.enemy[None] & standing[:, None, :]
    in_close = adj.any(axis=2)
    health = (state.verve + state.survival).astype(np.float32)

    # Tying up an enemy an ally holds immobilized, when next to it.
    tying = np.zeros((n, C), dtype=bool)
    if sx.grab:
        immob = (state.held == HELD_IMMOBILIZED) & standing
        near_immob = adj & immob[:, None, :]
        tying = can_act & near_immob.any(axis=2) & (state.holding < 0) & (
            (action == TIE_UP) | (sx.tie_up[None, :] & ATTACKING[action]))
        action[tying] = TIE_UP

    # Leading: "grant the warrior cover bonus to up to level companions" on a Perception roll.
    led = np.zeros((n, C), dtype=bool)
    if sx.leading:
        leaders = can_act & (action == LEAD) & sx.warrior[None, :]
        ok = leaders & (crow[:, :, 0] <= setup.perception[None, :] - injury_pen)
        for c in np.flatnonzero(ok.any(axis=0)):
            allies = standing & (setup.side == setup.side[c])[None, :] & (cols != c)[None, :] & ~led \
                & ~sx.warrior[None, :]
            led |= ok[:, c, None] & allies & (np.cumsum(allies, axis=1) <= sx.level[c])
        if t:
            for c in np.flatnonzero(leaders[t.pos]):
                t.line(f"{t.name(c)} leads: Perception roll {crow[t.pos, c, 0]} against "
                       f"{setup.perception[c] - injury_pen[t.pos, c]}: "
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
    reaches = candidates.any(axis=2)
    reload_slot = np.zeros((n, A), dtype=bool)
    free_now = None
    if sx.multi:
        k = sx.slot_actions[None, :]
        # "Attacks which require more than one action ... gain one free action per use when
        # outside of close combat."
        free_now = ~in_close[:, owner] & ~state.free_used
        fire_ok = state.loaded + 1 + free_now >= k
        policy = sx.reload[owner][None, :]
        may_reload = (policy == 1) | ((policy == 0) & ~in_close[:, owner]) | (slot_action == RELOAD)
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
    targets = choose_targets(slot_modes, candidates, health, focus, noise, slot_dist)
    if sx.grab and forced.any():
        held_t = state.holding[:, owner].astype(np.intp)
        ok = forced[:, owner] & np.take_along_axis(candidates, np.maximum(held_t, 0)[..., None], axis=2)[..., 0]
        targets = np.where(ok, held_t, targets)
    aim_target = targets[:, setup.first_slot]  # (N, C) for covering
    reloading = acting & reload_slot
    attacking = acting & (targets >= 0) & ~reloading
    firing = (((attacking & sx.slot_ranged[None, :]).astype(np.float32) @ setup.owner_onehot) > 0)
    busy = casting | ((reloading.astype(np.float32) @ setup.owner_onehot) > 0)  # complex actions

    if sx.called:
        kind = _kinds(setup, state, rows, targets, slot_action, attacking, busy, firing)
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
    ctx = _Context(setup, state, rows, defense, attack_pen, injury_pen, led, adj, damage, crow[:, :, 4])

    last_taken = np.zeros((n, C), dtype=np.int32)
    last_dealt = np.zeros((n, C), dtype=np.int32)
    upset = np.zeros((n, C), dtype=bool)  # disrupted or distracted by a called shot
    if called.any():
        was = standing
        r = ctx.resolve(targets, kind, called, attack_roll, ev, by_roll, noise, carried, None, None, t)
        upset = r["upset"]
        if sx.grab:
            _grabs(setup, state, rows, targets, kind, r["hit"], ev, injury_pen, t)
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
    for p in range(phases):
        in_phase = np.ones(A, dtype=bool) if phases == 1 else (slot_side == p)
        act = normal & in_phase[None, :] & can_attack[:, owner]
        if phases > 1:
            # Later phases see who fell before them.
            candidates = standing[:, None, :] & reachable
            targets = choose_targets(slot_modes, candidates, (state.verve + state.survival).astype(np.float32),
                                     focus, noise, slot_dist)
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
            st, dl = _cast(setup, state, rows, casters & ~upset, spell_of, spell_tgt, crow, spell_damage,
                           injury_pen, t)
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
        _hold_contests(setup, state, pre_held, on_held, crow, injury_pen, damage, x_health,
                       x_death, rnd, t, last_taken, last_dealt)
        _tie_up(setup, state, tying & (state.status == STANDING), adj, t)
        standing = state.status == STANDING
        _release(state, standing)
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
            _release(state, state.status == STANDING)
    state.cast_last = casting
    state.last_dealt, state.last_taken = last_dealt, last_taken
    state.rounds[:] = rnd


class _Context:
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

    def resolve(self, targets, kind, acting, roll, ev, by_roll, noise, carried, extra, upset, t) -> dict:
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
        cover = sx.cover_level[tgt] * (sx.slot_ranged[None, :] | rules["cover_vs_melee"])
        bystanders = None
        if sx.into_melee:
            # Firing into close combat: the melee is the target and the opponents next to it
            # (the shooter excepted), "including the target".
            near = self.adj[rows, tgt] & (np.arange(C)[None, None, :] != owner[None, :, None]) \
                & sx.slot_ranged[None, :, None] & (targets >= 0)[..., None]
            count = 1 + near.sum(axis=2)
            melee_cover = np.where(count >= 5, FULL, np.where(count >= 2, STRONG, 0))
            cover = np.maximum(cover, melee_cover)
            bystanders = near if near.any() else None
        warrior_like = (sx.warrior[None, :] | self.led)[rows, tgt]
        cover_bonus = COVER_TABLE[cover, np.where(warrior_like, 0, 1)]
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
        taken = np.bincount((rows * C + tgt)[acting], weights=on_target[acting], minlength=n * C)
        taken = taken.reshape(n, C).astype(np.int32)
        direct_t = np.bincount((rows * C + tgt)[acting], weights=direct[acting], minlength=n * C)
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
            choice = np.where(bystanders, noise, -1.0).argmax(axis=2)
            has = bystanders.any(axis=2)
            r_choice = np.take_along_axis(by_roll, choice[..., None], axis=2)[..., 0]
            dodge = sx.evasion[choice] - self.injury_pen[rows, choice] + self.defense[rows, choice]
            stray = acting & ~hit & has & (r_choice > dodge)
            struck |= stray[..., None] & (np.arange(C)[None, None, :] == choice[..., None])
            amount = np.where(struck, dealt[..., None] + np.where(stray, self.damage, 0)[..., None], 0)
            taken += amount.sum(axis=1).astype(np.int32)
            stray_by = amount.sum(axis=2).astype(np.int32)
            if t:
                p = t.pos
                for a in np.flatnonzero(acting[p]):
                    for b in np.flatnonzero(struck[p, a]):
                        t.line(f"  A stray missile from {t.name(owner[a])} strikes {t.name(b)} for "
                               f"{amount[p, a, b]}.")
        onehot = setup.owner_onehot
        state.attacks += ((acting.astype(np.float32) + (acting & extra_slot)) @ onehot).astype(np.int32)
        state.hits += ((hit.astype(np.float32) + extra_hit) @ onehot).astype(np.int32)
        dealt_by = ((on_target + direct + stray_by).astype(np.float32) @ onehot).astype(np.int32)
        state.dealt += dealt_by
        state.taken += taken + direct_t
        upset_t = np.zeros((n, C), dtype=bool)
        if called.any():
            # "A called shot can disrupt complex actions ... The reaction against the disrupting
            # effects of a called shot is at a penalty of the damage done."
            react = ev[:, :, 0] <= sx.evasion[tgt] + sx.movement_bonus[tgt] - dealt - self.injury_pen[rows, tgt]
            fails = hit & called & (kind != K_GRAB) & ~react
            upset_t = np.bincount((rows * C + tgt)[fails], minlength=n * C).reshape(n, C) > 0
        if t:
            _trace(t, setup, acting, targets, roll, need, hit, dealt, kind, ko_failed, direct, extra_carried,
                   extra_hit, extra_dealt, level)
        return {"taken": taken, "direct": direct_t, "dealt_by": dealt_by, "hit": hit, "upset": upset_t}


def _kinds(setup, state, rows, targets, slot_action, attacking, busy, firing) -> np.ndarray:
    """Per slot: a plain attack or which called shot, from the policy and scripted actions."""
    sx = setup.sx
    owner = setup.slot_owner
    tgt = np.maximum(targets, 0)
    kind = np.zeros(targets.shape, dtype=np.int8)
    when = sx.called_when[owner][None, :]
    t_busy, t_firing = busy[rows, tgt], firing[rows, tgt]
    want = (when == 3) | ((when == 1) & t_busy) | ((when == 2) & t_firing) | (slot_action == CALLED)
    kind[want] = K_CALLED
    immobile = state.asleep | state.bound | (state.held == HELD_IMMOBILIZED)
    t_immobile = immobile[rows, tgt]
    covered = state.covering[:, owner] == tgt
    unaware = state.surprised[rows, tgt] | t_immobile | covered
    ko = ((slot_action == KNOCKOUT) | sx.knockout[owner][None, :]) & unaware
    kind[ko] = K_KO
    kind[((slot_action == KILL) | sx.killing[owner][None, :]) & t_immobile] = K_KILL
    kind[((slot_action == KNOCKOUT) | (slot_action == KILL)) & (kind == NORMAL)] = K_CALLED
    if sx.grab:
        gw = sx.grab_when[owner][None, :]
        want = (slot_action == GRAB) | (gw == 1) | ((gw == 2) & t_busy) | ((gw == 3) & (sx.size[tgt] < sx.size[owner]))
        first = (np.arange(len(owner)) == setup.first_slot[owner])[None, :]
        free = (state.holding[:, owner] < 0) & (state.held[rows, tgt] == HELD_NONE) & ~state.bound[rows, tgt]
        kind[want & first & free & attacking] = K_GRAB
    return kind


def _grabs(setup, state, rows, targets, kind, hit, ev, injury_pen, t) -> None:
    """A grab that hits: the target rolls Evasion (+2 per size level larger), else is held."""
    sx = setup.sx
    owner = setup.slot_owner
    tgt = np.maximum(targets, 0)
    larger = np.maximum(sx.size[tgt] - sx.size[owner][None, :], 0)
    dodge = ev[:, :, 1] <= sx.evasion[tgt] + S.GRAB_EVASION_PER_SIZE * larger - injury_pen[rows, tgt]
    caught = hit & (kind == K_GRAB) & ~dodge
    for a in np.flatnonzero(caught.any(axis=0)):
        c = owner[a]
        rs = np.flatnonzero(caught[:, a] & (state.held[np.arange(len(tgt)), tgt[:, a]] == HELD_NONE)
                            & (state.holding[:, c] < 0))
        state.held[rs, tgt[rs, a]] = HELD_GRABBED
        state.held_by[rs, tgt[rs, a]] = c
        state.holding[rs, c] = tgt[rs, a]
    if t:
        p = t.pos
        for a in np.flatnonzero(hit[p] & (kind[p] == K_GRAB)):
            t.line(f"  {t.name(tgt[p, a])} rolls Evasion {ev[p, a, 1]} against "
                   f"{sx.evasion[tgt[p, a]] + S.GRAB_EVASION_PER_SIZE * larger[p, a] - injury_pen[p, tgt[p, a]]}: "
                   + ("slips the grab." if dodge[p, a] else f"{t.name(owner[a])} has hold of it."))


def _hold_contests(setup, state, pre_held, on_held, crow, injury_pen, damage, x_health, x_death, rnd, t,
                   last_taken, last_dealt) -> None:
    """One Fortitude contest a round for every hold made in an earlier round."""
    sx = setup.sx
    n, C = state.held.shape
    # Holds made this round are first contested next round.
    held = pre_held & (state.held > HELD_NONE) & (state.status == STANDING)
    holder = np.maximum(state.held_by, 0).astype(np.intp)
    held &= np.take_along_axis(state.status == STANDING, holder, axis=1)
    if not held.any():
        return
    diff = sx.size[None, :] - sx.size[holder]
    weapon = np.take_along_axis(on_held, holder, axis=1)
    penalty = S.IMMOBILIZED_BREAK_PENALTY * ((state.held == HELD_IMMOBILIZED) & ~weapon)
    t_ok = crow[:, :, 1] <= setup.fortitude[None, :] + S.HOLD_FORTITUDE_PER_SIZE * np.maximum(diff, 0) \
        - penalty - injury_pen
    h_roll = np.take_along_axis(crow[:, :, 1], holder, axis=1)
    h_ok = h_roll <= setup.fortitude[holder] + S.HOLD_FORTITUDE_PER_SIZE * np.maximum(-diff, 0) \
        - np.take_along_axis(injury_pen, holder, axis=1)
    broken = held & t_ok & ~h_ok
    pinned = held & ~t_ok & h_ok
    state.held[pinned] = HELD_IMMOBILIZED
    if t:
        p = t.pos
        for c in np.flatnonzero(held[p]):
            h = holder[p, c]
            t.line(f"{t.name(c)} strains against {t.name(h)}'s hold (Fortitude {crow[p, c, 1]} against "
                   f"{setup.fortitude[c] + 4 * max(diff[p, c], 0) - penalty[p, c] - injury_pen[p, c]}, "
                   f"holder {h_roll[p, c]} against "
                   f"{setup.fortitude[h] + 4 * max(-diff[p, c], 0) - injury_pen[p, h]}): "
                   + ("breaks free and strikes back." if broken[p, c] else "is immobilized." if pinned[p, c]
                      else "neither gives way."))
    if broken.any():
        # "The target has broken the hold, and does an automatically successful attack."
        first = setup.first_slot
        blow = np.where(broken, damage[:, first], 0)
        hurt = np.zeros((n, C), dtype=np.int32)
        np.add.at(hurt, (np.nonzero(broken)[0], holder[broken]), blow[broken])
        state.dealt += blow
        state.taken += hurt
        last_dealt += blow
        last_taken += hurt
        owed = E._apply_damage(setup, state, hurt, t)
        E._health_checks(setup, state, owed, x_health[:, :, 1], None if x_death is None else x_death[:, :, 1],
                         rnd, t)
        state.held[broken] = HELD_NONE
        state.held_by[broken] = -1
        state.holding[np.nonzero(broken)[0], holder[broken]] = -1


def _tie_up(setup, state, tying, adj, t) -> None:
    if not tying.any():
        return
    n, C = tying.shape
    immob = (state.held == HELD_IMMOBILIZED) & (state.status == STANDING)
    near = adj & immob[:, None, :] & tying[:, :, None]
    tied = near.any(axis=1)
    state.bound |= tied
    rs, cs = np.nonzero(tied)
    state.holding[rs, np.maximum(state.held_by[rs, cs], 0)] = -1
    state.held[tied] = HELD_NONE
    state.held_by[tied] = -1
    if t:
        for c in np.flatnonzero(tied[t.pos]):
            t.line(f"{t.name(c)} is tied up.")


def _release(state, standing) -> None:
    """Holds end when the holder or the held falls or leaves."""
    holder = np.maximum(state.held_by, 0).astype(np.intp)
    gone = (state.held > HELD_NONE) & (~standing | ~np.take_along_axis(standing, holder, axis=1))
    if gone.any():
        rs, cs = np.nonzero(gone)
        state.holding[rs, holder[rs, cs]] = -1
        state.held[gone] = HELD_NONE
        state.held_by[gone] = -1
    loose = (state.holding >= 0) & ~standing
    if loose.any():
        rs, cs = np.nonzero(loose)
        state.held[rs, state.holding[rs, cs]] = HELD_NONE
        state.held_by[rs, state.holding[rs, cs]] = -1
        state.holding[loose] = -1


def _cast(setup, state, rows, casters, spell_of, spell_tgt, crow, spell_damage, injury_pen, t):
    """Spells resolve: the target rolls its save, else takes the damage and the condition."""
    sx = setup.sx
    n, C = casters.shape
    s = np.maximum(spell_of, 0)
    tg = np.maximum(spell_tgt, 0)
    score = sx.save_scores[tg, sx.spell_save[s]] - injury_pen[rows, tg]
    failed = casters & (crow[:, :, 3] > score)
    dmg = np.where(failed, spell_damage[rows, s], 0)
    taken = np.bincount((rows * C + tg)[casters], weights=dmg[casters], minlength=n * C).reshape(n, C)
    sleep = failed & sx.spell_sleep[s]
    if sleep.any():
        fell = np.bincount((rows * C + tg)[sleep], minlength=n * C).reshape(n, C) > 0
        state.asleep |= fell
        state.wake_round = np.where(fell, FOREVER, state.wake_round)
    rs, cs = np.nonzero(casters)
    np.subtract.at(state.spell_uses, (rs, s[rs, cs]), 1)
    state.taken += taken.astype(np.int32)
    state.dealt += dmg
    if t:
        p = t.pos
        for c in np.flatnonzero(casters[p]):
            save = S.SAVES[sx.spell_save[s[p, c]]]
            t.line(f"{t.name(c)} casts {sx.spell_names[s[p, c]]} at {t.name(tg[p, c])}: {save} roll "
                   f"{crow[p, c, 3]} against {score[p, c]}: "
                   + (("falls asleep; " if sleep[p, c] else "") + f"takes {dmg[p, c]}" if failed[p, c] else "resists")
                   + ".")
    return taken.astype(np.int32), dmg.astype(np.int32)


def _trace(t, setup, acting, targets, roll, need, hit, dealt, kind, ko_failed, direct, carried, extra_hit,
           extra_dealt, level) -> None:
    p = t.pos
    for a in np.flatnonzero(acting[p]):
        owner, tgt = setup.slot_owner[a], targets[p, a]
        label = KIND_NAMES.get(int(kind[p, a]), "attacks")
        how = f"{label} at" if kind[p, a] != NORMAL else "attacks"
        extras = []
        if level[p, a]:
            extras.append(S.NOT_DEFENDING[level[p, a]] + " target")
        verdict = f"HIT for {dealt[p, a]}" if hit[p, a] else "miss"
        if kind[p, a] == K_GRAB and hit[p, a]:
            verdict = "HIT (a grab: no damage)"
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
        t.line(f"{t.name(owner)} {how} {t.name(tgt)} with {setup.slot_name[a]}"
               + (f" ({', '.join(extras)})" if extras else "")
               + f": needs {need[p, a]} or lower, rolls {roll[p, a]}: {verdict}.")
