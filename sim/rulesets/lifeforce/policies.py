"""Planning a turn: targets, the family's choice of action and movement, scripted rules.

Every function works on the m rows whose actor takes its turn now: `rows` (m,) batch
rows and `a` (m,) the actor in each. Families are codes in `setup.family` so all rows
are decided together with masks, whatever mix of families acts at this turn position.
"""
from __future__ import annotations

import numpy as np

from sim.battlefield import FAR
from sim.policy import TARGET_MODES, choose_targets
from sim.rulesets.base import STANDING
from sim.rulesets.lifeforce import schema as S
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.resolve import (READY_BLOCK, READY_NONE, READY_OPPORTUNITY, condition_mods,
                                            condition_mods_at, flat)

ATTACK, CHARGE, RUN, GRAPPLE, BLOCK, OPPORTUNITY, HOLD, WITHDRAW, FLEE = range(len(S.ACTIONS))
STAND, RECOVER = len(S.ACTIONS), len(S.ACTIONS) + 1
ACTION_NAMES = S.ACTIONS + ("stand", "recover")
NO_PREP = HOLD, WITHDRAW, FLEE  # choices that prepare nothing and keep what is prepared
FAMILIES = S.POLICY_FIELDS["family"].choices
STEADY, CHARGER, SKIRMISHER, GUARDIAN, GRAPPLER = range(len(FAMILIES))
NO_MOVE, TOWARD, AWAY, LINE = range(4)
NEAREST = TARGET_MODES.index("nearest")
FOCUS = TARGET_MODES.index("focus")


def any_cols(x: np.ndarray) -> np.ndarray:
    """x.any(axis=1) for a short second axis, as a loop over its columns (numpy reduces a
    short last axis slowly)."""
    out = x[:, 0].copy()
    for j in range(1, x.shape[1]):
        out |= x[:, j]
    return out


def enemies_standing(setup, state, rows, a) -> np.ndarray:
    return setup.enemy[a] & (state.status[rows] == STANDING)


def pick_target(ctx, rows, a, modes) -> np.ndarray:
    """A new target per row by target mode (random, weakest, strongest, focus, nearest).

    `focus`: the whole side sticks to one enemy; a side without a standing focus takes
    the first new choice one of its focus-mode creatures makes (at random).
    """
    setup, state = ctx.setup, ctx.state
    cand = enemies_standing(setup, state, rows, a)
    dist = ctx.dist[rows, a].astype(np.float32)
    side = setup.side[a]
    focus = state.focus[rows, side]
    m = np.arange(len(rows))
    ok = (focus >= 0) & cand[m, np.maximum(focus, 0)]
    chosen = choose_targets(modes[:, None], cand[:, None], state.hp[rows].astype(np.float32),
                            np.where(ok, focus, -1)[:, None], ctx.noise[rows][:, None], distance=dist[:, None])[:, 0]
    adopt = (modes == FOCUS) & ~ok & (chosen >= 0)
    state.focus[rows[adopt], side[adopt]] = chosen[adopt]
    return chosen


def update_targets(ctx, rows, a) -> None:
    """Keep a standing target: forced by Threaten or a grapple, else re-picked when it fell
    or (abandon_when_out_of_reach) when it left reach while another enemy is in reach."""
    setup, state = ctx.setup, ctx.state
    C = ctx.C
    f = rows * C + a
    status = flat(state.status)
    cur = flat(state.target)[f]
    ok = (cur >= 0) & (status[rows * C + np.maximum(cur, 0)] == STANDING)
    modes = setup.target_mode[a]
    # A new pick is needed where the target fell; focus-mode picks are made every turn
    # too, as they may set the side's focus. Picks are row by row, so the others are skipped.
    need = ~ok | (modes == FOCUS) if setup.any_focus else ~ok
    if need.all():
        cur = np.where(ok, cur, pick_target(ctx, rows, a, modes))
    elif need.any():
        new = np.full(len(rows), -1, dtype=np.intp)
        new[need] = pick_target(ctx, rows[need], a[need], modes[need])
        cur = np.where(ok, cur, new)
    else:
        cur = cur.astype(np.intp)
    # Abandoning a target out of reach (melee creatures only): only rows whose target is
    # out of reach can, so only they look for another enemy in reach.
    may = setup.abandon_melee[a]
    if may.any():
        reach = np.where(flat(state.disarmed)[f], setup.unarmed_reach[a], setup.melee_reach[a])
        out = may & (flat(ctx.dist)[f * C + np.maximum(cur, 0)] > reach)
        if out.any():
            i = np.flatnonzero(out)
            r = rows[i]
            d = ctx.dist.reshape(-1, C)[f[i]]
            in_reach = enemies_standing(setup, state, r, a[i]) & (d <= reach[i][:, None])
            gone = np.flatnonzero(any_cols(in_reach))
            if len(gone):
                nearest_in_reach = np.where(in_reach[gone], d[gone] + ctx.noise[r[gone]], np.inf).argmin(axis=1)
                cur[i[gone]] = nearest_in_reach
    threat = flat(state.threatened_by)[f]
    forced = (threat >= 0)
    if forced.any():
        forced &= status[rows * C + np.maximum(threat, 0)] == STANDING
        cur = np.where(forced, threat, cur)
    partner = flat(state.partner)[f]
    cur = np.where(partner >= 0, partner, cur)
    flat(state.target)[f] = cur


def decide(ctx, rows, a):
    """(desired action, movement mode, whom to move toward/away from, stop distance) per row."""
    setup, state = ctx.setup, ctx.state
    C = ctx.C
    f = rows * C + a
    p = ctx.phase
    tgt = flat(state.target)[f]
    has_tgt = tgt >= 0
    d = np.where(has_tgt, flat(ctx.dist)[f * C + np.maximum(tgt, 0)], FAR)
    disarmed = flat(state.disarmed)[f]
    mw = np.where(disarmed, setup.unarmed_w[a], setup.melee_w[a])
    reach = setup.w_reach[mw]
    rw = setup.ranged_w[a]
    shoots = (rw >= 0) & ~disarmed
    rng = np.where(shoots, setup.w_range[np.maximum(rw, 0)], 0)
    mv, mv2 = setup.split_cells[:, p][a], setup.split_cells[:, (p + 1) % T.PHASES][a]
    in_reach = d <= reach
    melee_now = (in_reach & ~setup.w_unarmed[mw]) | ~shoots
    prep, pap = flat(state.prep_action)[f], flat(state.prep_ap)[f]
    fam = setup.family[a]
    nearest = None
    if setup.needs_nearest:
        # The nearest enemy, for the rows whose creature looks for it (see Setup.wants_nearest).
        ni = np.flatnonzero(setup.wants_nearest[a])
        cand = enemies_standing(setup, state, rows[ni], a[ni])
        dall = np.where(cand, ctx.dist.reshape(-1, C)[f[ni]], FAR)  # (len(ni), C)
        near_n = dall.argmin(axis=1)
        nearest = np.zeros(len(rows), dtype=near_n.dtype)
        nearest[ni] = near_n
        dn = np.zeros(len(rows), dtype=dall.dtype)
        dn[ni] = dall[np.arange(len(ni)), near_n]
        at_n = np.zeros(len(rows), dtype=np.intp)  # a row's place among ni
        at_n[ni] = np.arange(len(ni))

    # Steady: attack; walk into reach (or range), run when it is two phases away.
    desired = np.full(len(rows), ATTACK, dtype=np.int8)
    move = np.full(len(rows), TOWARD, dtype=np.int8)
    goal = tgt.copy()
    stop = np.where(melee_now, reach, rng)
    gap = d - stop
    far = setup.run[a] & (gap > mv + mv2) & ~((prep == ATTACK) & (pap > 0))
    desired[far] = RUN

    # Each family's part works on its own rows only.
    # Charger: charge when the target is reachable within the charge's movement.
    ci = np.flatnonzero(fam == CHARGER) if CHARGER in setup.families else ()
    if len(ci):
        r = rows[ci]
        charge_reach = mv[ci] + np.where(setup.rules["charge_moves_on_attack_phase"], mv2[ci], 0)
        melee_gap = d[ci] - reach[ci]
        pos2 = state.pos.reshape(-1, 2)
        here, there = pos2[f[ci]], pos2[r * C + np.maximum(tgt[ci], 0)]
        steps = line_steps(here, np.sign(there - here), there, reach[ci], charge_reach)
        charging = ~in_reach[ci] & (melee_gap >= 1) & (steps > 0)
        charging |= (prep[ci] == CHARGE) & (pap[ci] > 0)
        desired[ci[charging]] = CHARGE
        move[ci[charging]] = LINE
        stop[ci] = reach[ci]

    # Skirmisher: keep its distance from the nearest enemy while preparing its attack, but
    # not by stepping out of that enemy's reach (which provokes an Attack of Opportunity).
    si = np.flatnonzero(fam == SKIRMISHER) if SKIRMISHER in setup.families else ()
    if len(si):
        near_s, dn_s = nearest[si], dn[si]
        their_reach = np.where(flat(state.disarmed)[rows[si] * C + near_s], setup.unarmed_reach[near_s],
                               setup.melee_reach[near_s])
        kite = si[(dn_s < setup.keep_cells[a[si]]) & (dn_s > their_reach) & shoots[si]]
        move[kite] = AWAY
        goal[kite] = nearest[kite]
        desired[kite] = ATTACK

    # Guardian: hold ground; strike what comes into reach, else keep an action readied.
    # A readied (or half-prepared) Attack of Opportunity is kept while an enemy in reach
    # still has to move in: it is not adjacent yet, or it has declared a charge.
    gi = np.flatnonzero(fam == GUARDIAN) if GUARDIAN in setup.families else ()
    if len(gi):
        r, ag, dg = rows[gi], a[gi], dall[at_n[gi]]
        near = dg <= reach[gi][:, None]
        coming = near & ((dg > 1) | (state.prep_action[r] == CHARGE))
        ready_now = flat(state.ready)[f[gi]]
        holding = (ready_now == READY_OPPORTUNITY) | ((prep[gi] == OPPORTUNITY) & (pap[gi] > 0))
        keep_ready = holding & any_cols(coming) & (setup.ready_pref[ag] == READY_OPPORTUNITY)
        threat_near = any_cols(near) & ~keep_ready
        move[gi] = NO_MOVE
        g_attack = threat_near | (shoots[gi] & (d[gi] <= rng[gi]))
        new_tgt = threat_near & ~in_reach[gi]  # keep a target still in reach (and the preparation)
        if new_tgt.any():
            k = np.flatnonzero(new_tgt)
            pick = np.where(near[k], dg[k] + ctx.noise[r[k]], np.inf).argmin(axis=1)
            flat(state.target)[f[gi[k]]] = pick
        desired[gi[g_attack]] = ATTACK
        want = setup.ready_pref[ag]
        idle = ~g_attack
        desired[gi[idle]] = np.where((want != READY_NONE) & (ready_now != want),
                                     np.where(want == READY_BLOCK, BLOCK, OPPORTUNITY), HOLD)[idle]

    # Grappler: close in and engage; inside a grapple, attack when not contesting.
    ri = np.flatnonzero(fam == GRAPPLER) if GRAPPLER in setup.families else ()
    if len(ri):
        partner = flat(state.partner)
        engage = ri[(partner[f[ri]] < 0) & (partner[rows[ri] * C + np.maximum(tgt[ri], 0)] < 0)]
        desired[engage] = np.where(setup.run[a[engage]] & (d[engage] - 1 > mv[engage]), RUN, GRAPPLE)
        stop[engage] = 1

    # Inside a grapple (not contesting): hit the partner where it lies.
    inside = flat(state.partner)[f] >= 0
    if inside.any():
        desired[inside] = ATTACK
        move[inside] = NO_MOVE

    # Answering a declared attack with a readied Shield Block.
    ai = np.flatnonzero(setup.answer[a] & setup.has_shield[a] & ~inside) if setup.answer.any() else ()
    if len(ai):
        threats = threat_declared(ctx, rows[ai], a[ai])
        answer = ai[(threats > 0) & ~flat(state.reaction_left)[f[ai]] & (flat(state.ready)[f[ai]] != READY_BLOCK)]
        desired[answer] = BLOCK
        move[answer] = NO_MOVE

    # What conditions force: standing up, picking the weapon up, being held.
    cm = condition_mods_at(setup, state, f, ("moves", "begins"))
    prone = flat(state.prone)[f] & ~inside
    desired[prone] = STAND
    if setup.rules["disarmed_recover_ap"] > 0:
        rec = disarmed & ~prone & ~inside
        desired[rec] = RECOVER
        move[rec] = NO_MOVE
    desired[~cm["begins"] | ~has_tgt] = HOLD
    move[~cm["moves"] | ~has_tgt] = NO_MOVE

    if setup.scripted:
        desired, move, goal, stop = _scripted(ctx, rows, a, desired, move, goal, stop, reach, rng, melee_now,
                                              nearest)
    return desired, move, goal, stop


def _scripted(ctx, rows, a, desired, move, goal, stop, reach, rng, melee_now, nearest):
    setup, state = ctx.setup, ctx.state
    # Creatures with the same rules and target mode are decided together (rows are
    # independent: each has one actor).
    group = setup.script_group[a]
    for g, pol in enumerate(setup.script_policies):
        sel = np.flatnonzero(group == g)
        if not len(sel):
            continue
        obs = observe(ctx, rows[sel], a[sel])
        action, mode = pol.decide(obs, desired[sel])
        changed = action != desired[sel]
        retarget = mode != pol.target
        if retarget.any():
            idx = sel[retarget]
            state.target[rows[idx], a[idx]] = pick_target(ctx, rows[idx], a[idx], mode[retarget])
            goal[idx] = state.target[rows[idx], a[idx]]
        desired[sel] = action
        idx = sel[changed | retarget]
        act = desired[idx]
        move[idx] = np.select([act == CHARGE, act == WITHDRAW, np.isin(act, (ATTACK, RUN, GRAPPLE))],
                              [LINE, AWAY, TOWARD], NO_MOVE)
        stop[idx] = np.where(act == GRAPPLE, 1, np.where(melee_now[idx], reach[idx], rng[idx]))
        goal[idx] = np.where(act == WITHDRAW, nearest[idx], state.target[rows[idx], a[idx]])
        cm = condition_mods(setup, state, rows[idx], a[idx])
        move[idx] = np.where(cm["moves"], move[idx], NO_MOVE)
    return desired, move, goal, stop


def line_steps(start, direction, tpos, reach, limit) -> np.ndarray:
    """Squares along a straight line from `start` until `tpos` is within `reach`, or 0 if the
    line does not bring it within reach in `limit` squares (a charge must go straight)."""
    # After k squares the offset on each axis is k*d - o; |k*d - o| <= reach holds for k in
    # [d*o - reach, d*o + reach] when d is +-1, for every k or none when d is 0. The
    # answer is the smallest k in the intersection with [1, limit] (0 if it is empty).
    o = tpos.astype(np.int32) - start.astype(np.int32)
    d = direction.astype(np.int32)
    reach = np.asarray(reach, dtype=np.int32)
    lo = np.ones(len(start), dtype=np.int32)
    hi = np.broadcast_to(np.asarray(limit, dtype=np.int32), lo.shape)
    for ax in range(2):
        dd, oo = d[:, ax], o[:, ax]
        still = dd == 0
        lo = np.where(still, lo, np.maximum(lo, dd * oo - reach))
        hi = np.where(still, np.where(np.abs(oo) <= reach, hi, 0), np.minimum(hi, dd * oo + reach))
    return np.where(lo <= hi, lo, 0).astype(np.int32)


def threat_declared(ctx, rows, a) -> np.ndarray:
    """How many standing enemies are preparing an attack or charge declared against the actor."""
    state, setup = ctx.state, ctx.setup
    attacking = np.isin(state.prep_action[rows], (ATTACK, CHARGE)) & (state.prep_ap[rows] > 0)
    aimed = state.prep_target[rows] == a[:, None]
    return (attacking & aimed & enemies_standing(setup, state, rows, a)).sum(axis=1)


class _Observations(dict):
    """Observations computed on first use: rules usually test two or three of them."""

    def __init__(self, makers: dict):
        super().__init__()
        self.makers = makers

    def __missing__(self, key):
        value = self.makers[key]()
        self[key] = value
        return value


def observe(ctx, rows, a) -> dict:
    setup, state = ctx.setup, ctx.state
    n, C = len(rows), ctx.C
    f = rows * C + a
    at = lambda x: flat(x)[f]

    def distance():
        tgt = at(state.target)
        return np.where(tgt >= 0, flat(ctx.dist)[f * C + np.maximum(tgt, 0)], FAR)

    def standing_on(same_side: bool):
        mask = (state.status[rows] == STANDING) & (~setup.enemy[a] if same_side else setup.enemy[a])
        count = np.zeros(n, dtype=np.intp)  # a sum over the short axis, column by column
        for j in range(C):
            count += mask[:, j]
        return count

    return _Observations({
        "round": lambda: np.full(n, ctx.round), "phase": lambda: np.full(n, ctx.phase + 1),
        "hp": lambda: at(state.hp), "health": lambda: at(state.hp) / setup.hp[a],
        "distance": lambda: distance() * setup.grid.cell_size,
        "target_distance": lambda: distance() * setup.grid.cell_size,
        "in_reach": lambda: (distance() <= setup.w_reach[setup.current_melee(state, rows, a)]).astype(np.int8),
        "prepared": lambda: at(state.prep_ap),
        "reaction_left": lambda: at(state.reaction_left).astype(np.int8),
        "grappled": lambda: (at(state.track) > 0).astype(np.int8),
        "dominant": lambda: at(state.dominant).astype(np.int8),
        "grapple_track": lambda: at(state.track),
        "prone": lambda: at(state.prone).astype(np.int8),
        "disarmed": lambda: at(state.disarmed).astype(np.int8),
        "threatened": lambda: (at(state.threatened_by) >= 0).astype(np.int8),
        "threat_declared": lambda: threat_declared(ctx, rows, a),
        "allies_standing": lambda: standing_on(True),
        "enemies_standing": lambda: standing_on(False),
    })


def contest_choice(setup, state) -> np.ndarray:
    """(N, C) who actively contests its grapple this phase (decided at the phase's start)."""
    mode = setup.contest_mode[None, :]
    dom_pinned = state.dominant & (state.track == T.PINNED)
    contest = (mode == 0) | ((mode == 1) & ~dom_pinned)
    # Held or Pinned creatures can do nothing else, so they struggle unless told never to.
    stuck = ~state.dominant & (state.track >= T.HELD)
    return (state.track > 0) & (contest | (stuck & (mode != 2)))
