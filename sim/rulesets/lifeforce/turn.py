"""One creature's turn inside an action phase: grapple check, plan, movement, action.

"On your Turn, you perform Movement and may begin preparing an Action of your choice or
may execute that Action if you have acquired the required number of Action Points."
"""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.lifeforce import grapple as G
from sim.rulesets.lifeforce import policies as P
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.resolve import (READY_BLOCK, READY_NONE, READY_OPPORTUNITY, end_grapple, flat,
                                            opportunity_attacks, resolve_attack, walk)

TARGETED = (P.ATTACK, P.CHARGE, P.GRAPPLE)
# Action codes (HOLD .. RECOVER) as lookups: a gather beats np.isin on every turn.
_TARGETED = np.isin(np.arange(len(P.ACTION_NAMES)), TARGETED)
_NO_PREP = np.isin(np.arange(len(P.ACTION_NAMES)), P.NO_PREP)


def take_turn(ctx, a: np.ndarray, live: np.ndarray) -> None:
    """a (n,): the creature whose turn it is in each row; live (n,): fights still going."""
    state, rules = ctx.state, ctx.setup.rules
    C = ctx.C
    f = np.arange(len(a)) * C + a  # (row, actor) as one index into the (N, C) state arrays
    standing = (flat(state.status)[f] == STANDING) & live
    fs = f[standing]
    flat(state.ds)[fs] = False  # "until your next turn"
    if rules["readied_lasts"] == "next_turn":
        flat(state.ready)[fs] = READY_NONE
    act = standing & ~ctx.no_actions[a] if ctx.any_no_actions else standing
    t = ctx.trace
    if t is not None and standing[t.pos] and not act[t.pos]:
        t.line(f"  {t.name(a[t.pos])} is surprised and takes no action.")
    if state.track.any():
        check = act & (flat(state.track)[f] > 0) & flat(state.dominant)[f] & ~flat(state.gchecked)[f]
        if check.any():
            R = np.flatnonzero(check)
            grapple_check(ctx, R, a[R])
    free = act & ~flat(state.contesting)[f] if state.contesting.any() else act
    if t is not None and act[t.pos] and not free[t.pos]:
        t.line(f"  {t.name(a[t.pos])} contests the grapple and does nothing else.")
    rows = np.flatnonzero(free)
    if not len(rows):
        return
    a = a[rows]
    P.update_targets(ctx, rows, a)
    desired, move, goal, stop = P.decide(ctx, rows, a)
    if setup_scripted(ctx):
        gone = desired == P.FLEE
        if gone.any():
            _flee(ctx, rows[gone], a[gone])
            stay = ~gone
            rows, a, desired, move, goal, stop = rows[stay], a[stay], desired[stay], move[stay], goal[stay], stop[stay]
            if not len(rows):
                return
    tgt = flat(state.target)[rows * C + a]
    _declare(ctx, rows, a, desired, tgt)
    _move(ctx, rows, a, desired, move, goal, stop)
    _act(ctx, rows, a, desired)


def setup_scripted(ctx) -> bool:
    # Only scripted rules choose flee; the families never do.
    return bool(ctx.setup.scripted)


def _flee(ctx, rows, a) -> None:
    """Leave the fight now (the shared `flee`): out for good, final state fled. Leaving is
    not Movement, so it provokes no Attack of Opportunity; a grapple it was in ends."""
    state = ctx.state
    f = rows * ctx.C + a
    flat(state.status)[f] = FLED
    flat(state.down_round)[f] = ctx.round
    flat(state.prep_ap)[f] = 0
    flat(state.prep_action)[f] = -1
    flat(state.ready)[f] = READY_NONE
    if state.track.any():
        end_grapple(state, rows, a)
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        t.line(f"  {t.name(a[rows == t.pos][0])} flees the fight.")


def _declare(ctx, rows, a, desired, tgt) -> None:
    """Begin a new preparation where the choice differs from what is being prepared."""
    state = ctx.state
    f = rows * ctx.C + a
    cur = flat(state.prep_action)[f]
    switch = ~_NO_PREP[desired] & (desired != cur)
    targeted = _TARGETED[desired]
    if ctx.setup.rules["prepared_target"] == "declared":
        ptgt = flat(state.prep_target)[f]
        switch |= ~_NO_PREP[desired] & targeted & (tgt != ptgt)
    if not switch.any():
        return
    i = np.flatnonzero(switch)
    r, c, fi, des, tg, tgd = rows[i], a[i], f[i], desired[i], tgt[i], targeted[i]
    lost = flat(state.prep_ap)[fi]
    flat(state.prep_action)[fi] = des
    flat(state.prep_ap)[fi] = 0
    flat(state.prep_target)[fi] = np.where(tgd, tg, -1)
    flat(state.ready)[fi] = READY_NONE  # beginning another action drops a readied one
    charge = des == P.CHARGE
    if charge.any():
        d = bf.direction_to(state.pos[r[charge]], _as_targets(state, r[charge], c[charge], tg[charge]))
        state.charge_dir[r[charge], c[charge]] = d[np.arange(charge.sum()), c[charge]]
    t = ctx.trace
    if t is not None and (r == t.pos).any():
        i = int(np.flatnonzero(r == t.pos)[0])
        what = P.ACTION_NAMES[des[i]]
        on = f" against {t.name(tg[i])}" if tgd[i] and tg[i] >= 0 else ""
        dropped = f" (drops {P.ACTION_NAMES[cur[switch][i]]} with {lost[i]} AP)" if lost[i] > 0 else ""
        t.line(f"  {t.name(c[i])} declares {what}{on}{dropped}.")


def _as_targets(state, r, c, tgt):
    """(m, C) target array with only each row's actor aiming at its target."""
    out = np.full((len(r), state.pos.shape[1]), -1, dtype=np.int64)
    out[np.arange(len(r)), c] = tgt
    return out


def _move(ctx, rows, a, desired, move, goal, stop) -> None:
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    C = ctx.C
    f = rows * C + a
    allow = setup.split_cells[:, ctx.phase][a]
    allow = np.where(desired == P.RUN, 2 * allow, allow)  # "Double your Movement for this Action Phase"
    charging = move == P.LINE
    if charging.any():
        first = flat(state.prep_ap)[f] == 0
        charge_moves = charging & (first | rules["charge_moves_on_attack_phase"])
        allow = np.where(charging, np.where(charge_moves, np.maximum(allow, 1), 0), allow)  # "minimum of 1M"
        # "up to your Action Phase Movement": a charger stops once its target is in reach.
        ptgt = np.maximum(state.prep_target[rows, a], 0)
        reach = setup.w_reach[setup.current_melee(state, rows, a)]
        steps = P.line_steps(state.pos[rows, a], state.charge_dir[rows, a], state.pos[rows, ptgt], reach, allow)
        allow = np.where(charging & (steps > 0), steps, allow)
    go = (move != P.NO_MOVE) & (allow > 0) & (goal >= 0)
    # A walk toward a creature already within its stop distance takes no step.
    go &= (move != P.TOWARD) | (flat(ctx.dist)[f * C + np.maximum(goal, 0)] > stop)
    if not go.any():
        return
    gi = np.flatnonzero(go)
    rows, a, f, desired, move, goal, stop, allow = (x[gi] for x in (rows, a, f, desired, move, goal, stop, allow))
    # Distances are symmetric: the mover's row holds every creature's distance to it.
    before = ctx.dist.reshape(-1, C)[f]  # (m, C), a copy
    pos2 = state.pos.reshape(-1, 2)
    start = pos2[f]
    for mode in (P.TOWARD, P.AWAY, P.LINE):
        sel = move == mode
        if not sel.any():
            continue
        r, c = rows[sel], a[sel]
        pos = state.pos[r]
        blocking = state.status[r] == STANDING
        if mode == P.LINE:
            cell = walk(bf.move_line, pos, c, state.charge_dir[r, c][:, None, :], allow[sel], blocking, setup.grid)
        else:
            cell = walk(bf.step_toward if mode == P.TOWARD else bf.step_away, pos, c, goal[sel][:, None],
                        allow[sel], blocking, setup.grid, stop[sel] if mode == P.TOWARD else None)
        stepped = (cell != pos2[f[sel]]).any(axis=1)
        pos2[f[sel]] = cell
        if stepped.any():
            ctx.refresh(r[stepped], c[stepped])
    moved = (pos2[f] != start).any(axis=1)
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        i = int(np.flatnonzero(rows == t.pos)[0])
        if moved[i]:
            x, y = state.pos[t.pos, a[i]]
            how = {P.RUN: "runs", P.CHARGE: "charges"}.get(int(desired[i]), "moves")
            t.line(f"  {t.name(a[i])} {how} from ({start[i][0]}, {start[i][1]}) to ({x}, {y}).")
    if moved.any():
        # "When an enemy moves while already within your Reach": it started its move in
        # reach, or ended deeper inside than the edge, so its last step began in reach
        # (distance changes by at most one square a step).
        k = np.flatnonzero(moved)
        r, c = rows[k], a[k]
        start_d, end_d = before[k], ctx.dist.reshape(-1, C)[f[k]]
        reach = np.where(state.disarmed[r], setup.unarmed_reach, setup.melee_reach)
        passed = np.where(end_d < reach, np.minimum(start_d, reach), start_d)
        opportunity_attacks(ctx, r, c, passed, "moves")


def _act(ctx, rows, a, desired) -> None:
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    C = ctx.C
    f = rows * C + a
    alive = flat(state.status)[f] == STANDING
    prep = flat(state.prep_action)[f]
    busy = alive & (prep >= 0) & ~_NO_PREP[desired]
    if not busy.any():
        return
    # Only busy rows add a point, finish an action or hold one: the rest is about them.
    bi = np.flatnonzero(busy)
    rows, a, f, prep = rows[bi], a[bi], f[bi], prep[bi]
    ap = flat(state.prep_ap)[f] + 1
    flat(state.prep_ap)[f] = ap
    # What the prepared action needs, and whether it can be carried out now. Only a Loading
    # weapon's attack needs to know the weapon first; otherwise only ready rows aim.
    need = ctx.need[prep]
    if ctx.any_loading:
        aim = _aim(ctx, rows, a, f)
        reload = setup.w_loading[aim[-1]] & ~flat(state.loaded)[f]
        need = np.where(prep == P.ATTACK, 2 + reload * rules["loading_ap"], need)
    ready = ap >= need
    ri = np.flatnonzero(ready)
    if ctx.any_loading:
        tgt, tgt_ok, d, mw, in_reach, in_range, w = (x[ri] for x in aim)
    else:
        tgt, tgt_ok, d, mw, in_reach, in_range, w = _aim(ctx, rows[ri], a[ri], f[ri])
    r_, a_, f_, p_ = rows[ri], a[ri], f[ri], prep[ri]
    done_r = np.zeros(len(ri), dtype=bool)

    sel = (p_ == P.ATTACK) & (in_reach | in_range)
    if sel.any():
        i = np.flatnonzero(sel)
        _weapon_attack(ctx, r_[i], a_[i], tgt[i], w[i], in_range[i])
        done_r |= sel
    sel = p_ == P.CHARGE
    if sel.any():
        i = np.flatnonzero(sel)
        _charge(ctx, r_[i], a_[i], tgt[i], in_reach[i], mw[i])
        done_r |= sel
    if (p_ > P.CHARGE).any():  # anything but attacks and charges
        done_r |= p_ == P.RUN
        sel = p_ == P.GRAPPLE
        if sel.any():
            _engage(ctx, r_[sel], a_[sel], tgt[sel], tgt_ok[sel] & (d[sel] <= 1))
            done_r |= sel
        for code, ready_code in ((P.BLOCK, READY_BLOCK), (P.OPPORTUNITY, READY_OPPORTUNITY)):
            sel = p_ == code
            flat(state.ready)[f_[sel]] = ready_code
            done_r |= sel
        sel = p_ == P.STAND
        flat(state.prone)[f_[sel]] = False
        done_r |= sel
        sel = p_ == P.RECOVER
        flat(state.disarmed)[f_[sel]] = False
        done_r |= sel
    done = np.zeros(len(rows), dtype=bool)
    done[ri] = done_r
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        i = int(np.flatnonzero(rows == t.pos)[0])
        if not (done[i] and prep[i] in (P.ATTACK, P.CHARGE, P.GRAPPLE)):
            state_text = "done" if done[i] else f"{ap[i]}/{need[i]} AP"
            t.line(f"  {t.name(a[i])}: {P.ACTION_NAMES[prep[i]]} ({state_text}).")
    fd = f[done]
    flat(state.prep_ap)[fd] = 0
    flat(state.prep_action)[fd] = -1
    # A fully prepared action waits (capped) until it can be made.
    hold = ready & ~done
    flat(state.prep_ap)[f[hold]] = need[hold]


def _aim(ctx, rows, a, f):
    """The prepared action's target and the weapon it can be struck with now:
    (target, target standing, distance, melee weapon, in reach, in range, weapon)."""
    setup, state = ctx.setup, ctx.state
    C = ctx.C
    tgt = flat(state.prep_target if setup.rules["prepared_target"] == "declared" else state.target)[f]
    tg = np.maximum(tgt, 0)
    tgt_ok = (tgt >= 0) & (flat(state.status)[rows * C + tg] == STANDING)
    d = flat(ctx.dist)[f * C + tg]
    disarmed = flat(state.disarmed)[f]
    mw = np.where(disarmed, setup.unarmed_w[a], setup.melee_w[a])
    rw = setup.ranged_w[a]
    shoots = (rw >= 0) & ~disarmed
    in_reach = tgt_ok & (d <= setup.w_reach[mw])
    in_range = tgt_ok & shoots & (d <= setup.w_range[np.maximum(rw, 0)]) & ~(in_reach & ~setup.w_unarmed[mw])
    return tgt, tgt_ok, d, mw, in_reach, in_range, np.where(in_range, rw, mw)


def _weapon_attack(ctx, rows, a, tgt, w, ranged) -> None:
    setup, state = ctx.setup, ctx.state
    if ranged.any():
        # "when an enemy makes a Ranged Attack while within your Reach".
        r = rows[ranged]
        opportunity_attacks(ctx, r, a[ranged], ctx.dist[r, :, a[ranged]], "shoots")
    alive = state.status[rows, a] == STANDING
    rows, a, tgt, w, ranged = rows[alive], a[alive], tgt[alive], w[alive], ranged[alive]
    shot = setup.w_loading[w]
    state.loaded[rows[shot], a[shot]] = False  # Rapid Reload bought on this attack loads it again
    resolve_attack(ctx, rows, a, tgt, w)


def _charge(ctx, rows, a, tgt, in_reach, mw) -> None:
    """The charge's attack: +10 Offence and +2 damage against the target, or any enemy in reach."""
    setup, state = ctx.setup, ctx.state
    d = ctx.dist[rows, a]
    cand = P.enemies_standing(setup, state, rows, a) & (d <= setup.w_reach[mw][:, None])
    other = np.where(cand, d + ctx.noise[rows], np.inf).argmin(axis=1)
    victim = np.where(in_reach, tgt, np.where(cand.any(axis=1), other, -1))
    ok = victim >= 0
    state.charges[rows, a] += 1
    t = ctx.trace
    if t is not None and (rows == t.pos).any() and not ok[rows == t.pos][0]:
        t.line(f"  {t.name(a[rows == t.pos][0])}'s charge ends with no enemy in reach.")
    resolve_attack(ctx, rows[ok], a[ok], victim[ok], mw[ok], off_bonus=T.CHARGE_OFFENCE,
                   dmg_bonus=T.CHARGE_DAMAGE, what="charges into")


def _engage(ctx, rows, a, tgt, adjacent) -> None:
    """1 AP: contested Athletics (with Offence bonuses) to start a grapple as its dominant side."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    tg = np.maximum(tgt, 0)
    ok = adjacent & (state.partner[rows, a] < 0) & (state.partner[rows, tg] < 0)
    bonus = rules["grapple_offence_bonus"]
    mine = setup.athletics[a] + (setup.offence[a] if bonus != "none" else 0)
    theirs = setup.athletics[tg] + (setup.offence[tg] if bonus == "both" else 0)
    g = ctx.grap[rows].astype(np.int32)
    ti, td = g[:, 0, 0] + mine, g[:, 1, 0] + theirs
    retry = rules["grapple_ties"] == "reroll"
    won, level = G.engage(ti, td, g[:, 0, 2] + mine if retry else None, g[:, 1, 2] + theirs if retry else None)
    won &= ok
    r, c, b = rows[won], a[won], tg[won]
    state.partner[r, c], state.partner[r, b] = b, c
    state.track[r, c] = state.track[r, b] = T.GRAPPLING
    state.dominant[r, c], state.dominant[r, b] = True, False
    state.grapples_won[r, c] += 1
    first = rules["grapple_first_contest"] == "immediate"
    state.gchecked[r, c] = state.gchecked[r, b] = not first
    state.contesting[r, c] = state.contesting[r, b] = first
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        i = int(np.flatnonzero(rows == t.pos)[0])
        if ok[i]:
            t.line(f"  {t.name(a[i])} tries to grapple {t.name(tg[i])}: {ti[i]} vs {td[i]}: "
                   f"{'GRAPPLING' if won[i] else 'fails'}.")
        else:
            t.line(f"  {t.name(a[i])} cannot grapple {t.name(tg[i])} now.")
    if first and won.any():
        grapple_check(ctx, r, c)


def grapple_check(ctx, rows, a) -> None:
    """The dominant grappler's turn: both roll; the winner is dominant, progressing if it was."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    C = ctx.C
    fa = rows * C + a
    b = flat(state.partner)[fa]
    fb = rows * C + b
    level = flat(state.track)[fa]
    bonus = rules["grapple_offence_bonus"] == "both"
    mod_a = setup.athletics[a] + (setup.offence[a] if bonus else 0)
    mod_b = setup.athletics[b] + (setup.offence[b] if bonus else 0)
    # Pinned grants the dominant grappler advantage; not contesting gives disadvantage.
    contesting = flat(state.contesting)
    adv_a = G.net_advantage(level == T.PINNED, ~contesting[fa])
    adv_b = G.net_advantage(np.zeros(len(rows), dtype=bool), ~contesting[fb])
    g = ctx.grap[rows].astype(np.int32)
    ta = G.keep_roll(g[:, 0, :2], adv_a) + mod_a
    tb = G.keep_roll(g[:, 1, :2], adv_b) + mod_b
    retry = rules["grapple_ties"] == "reroll"
    a_wins, b_wins = G.contest(ta, tb, g[:, 0, 2] + mod_a if retry else None, g[:, 1, 2] + mod_b if retry else None)
    new_level, a_dom = G.transition(level, np.ones(len(rows), dtype=bool), a_wins, b_wins)
    flat(state.track)[fa] = new_level
    flat(state.track)[fb] = new_level
    flat(state.dominant)[fa], flat(state.dominant)[fb] = a_dom, ~a_dom
    flat(state.gchecked)[fa] = True
    flat(state.gchecked)[fb] = True
    flat(state.grapple_checks_won)[fa[a_wins]] += 1
    flat(state.grapple_checks_won)[fb[b_wins]] += 1
    fu = np.where(a_dom, fb, fa)  # the one underneath
    pinned = new_level == T.PINNED
    flat(state.prone)[fu[pinned]] = True  # "causing the non dominant grappler to become Prone"
    if not rules["held_keeps_preparation"]:
        held = new_level >= T.HELD
        flat(state.prep_ap)[fu[held]] = 0
        flat(state.prep_action)[fu[held]] = -1
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        i = int(np.flatnonzero(rows == t.pos)[0])
        top = a[i] if a_dom[i] else b[i]
        t.line(f"  Grappling check: {t.name(a[i])} {ta[i]} vs {t.name(b[i])} {tb[i]}: {t.name(top)} dominant, "
               f"{T.TRACK[new_level[i]].upper()}.")
    # "If after the grappling check you are the dominant grappler, you may choose to immediately end the grapple."
    top = np.where(a_dom, a, b)
    leave = setup.escape[top]
    if leave.any():
        if t is not None and (rows[leave] == t.pos).any():
            t.line(f"  {t.name(top[rows == t.pos][0])} ends the grapple.")
        end_grapple(state, rows[leave], top[leave])
