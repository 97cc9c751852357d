"""Resolving attacks on the batch: conditions, Defence, stunts, damage, Shield Block,
Attacks of Opportunity. Each call handles one attack per row for a set of rows.
"""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.attacks import (armor_after_penetration, buy_stunts, critical_multiplier,
                                            final_damage)

READY_NONE, READY_BLOCK, READY_OPPORTUNITY = 0, 1, 2
ST = T.STUNT


def flat(x: np.ndarray) -> np.ndarray:
    """A (N, C, ...) state array as one axis, a view: flat(x)[row * C + col] reads and writes
    x[row, col] several times faster than indexing by two arrays (state arrays are contiguous)."""
    return x.reshape(-1)


def _bits(state, rows, who) -> tuple[np.ndarray, ...]:
    """(m,) bool per condition of `who`, in tables.CONDITION_NAMES order."""
    return _bits_at(state, rows * state.prone.shape[1] + who)


def _bits_at(state, f) -> tuple[np.ndarray, ...]:
    track, dom = flat(state.track)[f], flat(state.dominant)[f]
    return (flat(state.prone)[f], flat(state.hastened)[f] > 0, flat(state.slowed)[f] > 0,
            flat(state.ds)[f], track > 0, (track == T.HELD) & ~dom, (track == T.PINNED) & ~dom,
            flat(state.threatened_by)[f] >= 0, flat(state.disarmed)[f])


def flags(state, rows, who) -> np.ndarray:
    """(m, K) which conditions `who` has, in tables.CONDITION_NAMES order."""
    return np.stack(_bits(state, rows, who), axis=1)


def _mods(f, tab) -> dict[str, np.ndarray]:
    return {
        "offence": (f * tab["offence"]).sum(axis=1),
        "melee_defence": (f * tab["melee_defence"]).sum(axis=1),
        "ranged_defence": (f * tab["ranged_defence"]).sum(axis=1),
        "moves": ~(f & ~tab["moves"]).any(axis=1),
        "begins": ~(f & ~tab["begins"]).any(axis=1),
    }


_LUTS: dict[int, tuple] = {}


def _mods_table(tab) -> dict[str, np.ndarray]:
    """_mods for every combination of flags, indexed by the flags as bits (built once per table)."""
    hit = _LUTS.get(id(tab))
    if hit is None or hit[0] is not tab:
        if len(_LUTS) > 64:  # sweeps build many setups; keep the cache small
            _LUTS.clear()
        K = len(T.CONDITION_NAMES)
        combos = (np.arange(1 << K)[:, None] >> np.arange(K)[None, :]) & 1 == 1
        hit = _LUTS[id(tab)] = (tab, _mods(combos, tab))
    return hit[1]


def condition_mods(setup, state, rows, who, keys=None) -> dict[str, np.ndarray]:
    return condition_mods_at(setup, state, rows * state.prone.shape[1] + who, keys)


def condition_mods_at(setup, state, f, keys=None) -> dict[str, np.ndarray]:
    """condition_mods for flat (row * C + creature) indices f; `keys`: only these columns."""
    # Looked up by the flags' bit pattern: the same values and dtypes as summing the
    # table's rows, without (m, K) temporaries for each of the five columns.
    lut = _mods_table(setup.cond)
    code = _code(setup, state, f).astype(np.intp)
    return {k: lut[k].take(code) for k in (keys or lut)}


def _code(setup, state, f) -> np.ndarray:
    """The conditions of flat indices f as bits (tables.CONDITION_NAMES order). Conditions
    this scenario can never give (Setup.cond_live) are not looked up."""
    live = getattr(setup, "cond_live", None)
    if live is None or state.track.any():
        bits = _bits_at(state, f)
        code = bits[0].astype(np.uint16)
        for i in range(1, len(bits)):
            code |= bits[i].astype(np.uint16) << np.uint16(i)
        return code
    # Nobody grapples now: Grappling, Held and Pinned (bits 4-6) are off.
    code = np.zeros(len(f), dtype=np.uint16)
    for i, (on, bit) in enumerate(zip(live, (
            lambda: flat(state.prone)[f], lambda: flat(state.hastened)[f] > 0, lambda: flat(state.slowed)[f] > 0,
            lambda: flat(state.ds)[f], None, None, None, lambda: flat(state.threatened_by)[f] >= 0,
            lambda: flat(state.disarmed)[f]))):
        if on and bit is not None:
            code |= bit().astype(np.uint16) << np.uint16(i)
    return code


def can_react(setup, state, rows, who, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(by readied action, by Reaction) for a Shield Block or an Attack of Opportunity."""
    f = rows * state.status.shape[1] + who
    block = kind == "shield_block"
    mode = setup.rules["reaction_actions"]
    readied = flat(state.ready)[f] == (READY_BLOCK if block else READY_OPPORTUNITY)
    if mode == "reaction":
        readied[:] = False
    # Trained for it, kept for it and (a Shield Block) with a shield: see Setup.reacts.
    reaction = ~readied & setup.reacts[kind][who] & flat(state.reaction_left)[f] if mode != "ap" else \
        np.zeros(len(f), dtype=bool)
    if block:
        readied &= setup.has_shield[who]
    free = ~flat(state.contesting)[f] & condition_mods_at(setup, state, f, ("begins",))["begins"]
    return readied & free, reaction & free


def resolve_attack(ctx, rows, att, tgt, w, off_bonus=0, dmg_bonus=0, allow_stunts=True, what="attacks"):
    """One attack per row: roll, stunts, damage. Returns the hit mask (m,)."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    m = len(rows)
    if m == 0:
        return np.zeros(0, dtype=bool)
    C = ctx.C
    fa, ft = rows * C + att, rows * C + tgt
    melee = setup.w_range[w] == 0
    am = condition_mods_at(setup, state, fa, ("offence",))
    tm = condition_mods_at(setup, state, ft, ("melee_defence", "ranged_defence"))
    flat_footed = ctx.flat_footed[tgt]
    defence = (T.DEFENCE_BASE + np.where(flat_footed, 0, setup.dodge[tgt])
               + np.where(melee, tm["melee_defence"], tm["ranged_defence"]))
    offence = setup.w_skill[w] + setup.offence[att] + off_bonus + am["offence"]
    roll = (flat(ctx.roll)[fa] if allow_stunts else flat(ctx.sec)[fa * 4 + 2]).astype(np.int32)
    total = roll + offence
    hit = total > defence
    generates = allow_stunts & setup.generates[att] & ~flat(state.stunted)[fa]
    points = np.where(hit & generates, (total - defence) // rules["stunt_step"], 0)
    # Only hits with stunt points buy anything (a miss's stunts are void): only their rows
    # look for a second target and go through the buying.
    buy = np.flatnonzero(points > 0)
    flat(state.stunted)[fa[buy]] = True
    if len(buy):
        bought_b, second_b = _buy(ctx, rows[buy], att[buy], tgt[buy], w[buy], points[buy])

    # Damage of a hit, worked out for the rows that hit.
    hi = np.flatnonzero(hit)
    dmg = np.zeros(m, dtype=np.int32)
    shield = np.zeros(m, dtype=np.int64)
    block = np.zeros(m, dtype=bool)
    if len(hi):
        r, a_, t_, wh = rows[hi], att[hi], tgt[hi], w[hi]
        sb = flat(setup.sb_weapon)[a_.astype(np.intp) * setup.sb_weapon.shape[1] + wh]
        rolled = np.maximum(ctx.damage(fa[hi], wh, 0 if allow_stunts else 1), 0) + sb + dmg_bonus
        armor = armor_after_penetration(setup.armor[t_], setup.w_ap[wh], setup.w_armoured[wh])
        mult = np.ones(m)
        if len(buy):
            mult[buy] = critical_multiplier(bought_b)
        if setup.block_possible:
            block_ready, block_reaction = can_react(setup, state, r, t_, "shield_block")
            blk = block_ready | block_reaction
            if blk.any():
                # Floored like weapon dice: a shield with a negative bonus blocks nothing, it never adds damage.
                shield[hi[blk]] = np.maximum(ctx.shield(ft[hi[blk]], t_[blk]), 0)
                ftb = ft[hi]
                flat(state.ready)[ftb[blk & block_ready]] = READY_NONE
                flat(state.reaction_left)[ftb[blk & ~block_ready]] = False
                flat(state.blocks)[ftb[blk]] += 1
                block[hi] = blk
        dmg[hi] = final_damage(rolled, armor, mult[hi], shield[hi], rules["critical_applies"])

    flat(state.attacks)[fa] += 1
    fh, th, dh = fa[hi], ft[hi], dmg[hi]
    flat(state.hits)[fh] += 1
    flat(state.dealt)[fh] += dh
    flat(state.taken)[th] += dh
    flat(state.stunt_points)[fa[buy]] += points[buy]
    flat(state.hp)[th] -= dh

    t = ctx.trace
    if t is not None:
        bought = np.zeros((m, len(T.STUNTS)), dtype=np.int16)
        if len(buy):
            bought[buy] = bought_b
        _trace(ctx, t, rows, att, tgt, w, what, roll, offence, total, defence, hit, points, bought, dmg,
               shield, block)
    if len(buy):
        _apply_stunts(ctx, rows[buy], att[buy], tgt[buy], w[buy], total[buy], bought_b, second_b)
    # Only a hit target can have dropped to 0 (every attack ends with this check).
    knock_down(ctx, rows[hi], tgt[hi])
    return hit


def _buy(ctx, rows, att, tgt, w, points):
    """Stunts bought by attacks with stunt points: (bought (k, S), Dual Strike's second target)."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    C = ctx.C
    fa, ft = rows * C + att, rows * C + tgt
    second = np.full(len(rows), -1, dtype=np.intp)
    if setup.dual_min_cost:
        # Fewer points than Dual Strike costs cannot buy it, whatever the second target.
        can = np.flatnonzero(points >= setup.dual_min_cost)
        if len(can):
            second[can] = _second_target(ctx, rows[can], att[can], tgt[can], w[can])
    applicable = np.ones((len(rows), len(T.STUNTS)), dtype=bool)
    applicable[:, ST["rapid_reload"]] = setup.w_loading[w]
    applicable[:, ST["skirmish"]] = rules["skirmish_stunt_cells"] > 0
    applicable[:, ST["disarm"]] = ~flat(state.disarmed)[ft] & ~setup.w_unarmed[setup.held_w[tgt]]
    applicable[:, ST["threaten"]] = flat(state.threatened_by)[ft] != att
    applicable[:, ST["knock_prone"]] = ~flat(state.prone)[ft]
    applicable[:, ST["dual_strike"]] = second >= 0
    applicable[:, ST["seize_the_initiative"]] = rules["seize_the_initiative"] != "none"
    applicable[:, ST["defensive_stance"]] = ~flat(state.ds)[fa]
    costs = setup.stunt_costs[setup.w_table[w]]
    return buy_stunts(points, setup.stunt_priority[att], costs, applicable), second


def knock_down(ctx, rows, who) -> None:
    """Creatures at 0 hit points or below are down; a grapple with them ends."""
    state = ctx.state
    f = rows * ctx.C + who
    down = (flat(state.hp)[f] <= 0) & (flat(state.status)[f] == STANDING)
    if not down.any():
        return
    r, c = rows[down], who[down]
    flat(state.status)[f[down]] = DEAD if ctx.setup.rules["at_zero_hp"] == "dead" else UNCONSCIOUS
    flat(state.down_round)[f[down]] = ctx.round
    end_grapple(state, r, c)
    t = ctx.trace
    if t is not None and (r == t.pos).any():
        c0 = int(c[r == t.pos][0])
        t.line(f"      {t.name(c0)} drops to {state.hp[t.pos, c0]} hit points: "
               f"{'DEAD' if ctx.setup.rules['at_zero_hp'] == 'dead' else 'UNCONSCIOUS'}.")


def end_grapple(state, rows, who) -> None:
    C = state.partner.shape[1]
    f = rows * C + who
    partner = flat(state.partner)[f]
    has = partner >= 0
    for f_ in (f, rows[has] * C + partner[has]):
        flat(state.partner)[f_] = -1
        flat(state.track)[f_] = T.NONE
        flat(state.dominant)[f_] = False
        # `contesting` stays set: a creature that contested this phase takes no other action
        # in it even when the grapple ends during the phase.


def _second_target(ctx, rows, att, tgt, w) -> np.ndarray:
    """Dual Strike: another standing enemy within 1 square of the target and in reach or range."""
    setup, state = ctx.setup, ctx.state
    C = ctx.C
    d = ctx.dist.reshape(-1, C)  # symmetric: row (skirmish, x) holds distances from x
    m = len(rows)
    near_t = d[rows * C + tgt] <= 1
    in_reach = d[rows * C + att] <= setup.w_strike[w][:, None]
    ok = (near_t & in_reach & setup.enemy[att] & (state.status[rows] == STANDING))
    ok[np.arange(m), tgt] = False
    score = np.where(ok, ctx.noise[rows], -1.0)
    best = score.argmax(axis=1)
    return np.where(ok.any(axis=1), best, -1)


def _apply_stunts(ctx, rows, att, tgt, w, total, bought, second) -> None:
    """Effects of the stunts bought, for rows that hit with stunt points."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    C = ctx.C
    fa, ft = rows * C + att, rows * C + tgt
    has = lambda name: bought[:, ST[name]] > 0
    t = ctx.trace
    traced = t is not None and (rows == t.pos).any()
    flat(state.ds)[fa[has("defensive_stance")]] = True
    flat(state.loaded)[fa[has("rapid_reload")]] = True
    flat(state.seize)[fa[has("seize_the_initiative")]] = 1
    d_ds = rules["defensive_stance_defences"]
    initiator = rules["initiator_check"] == "d100_skill"
    dis, thr, kp = has("disarm"), has("threaten"), has("knock_prone")
    if dis.any() or thr.any() or kp.any() or traced:
        ds_tgt = flat(state.ds)[ft] * T.CONDITIONS["defensive_stance"][1]
        sec = ctx.sec.reshape(-1, 4)[fa].astype(np.int32)
        # Disarm: the target rolls an attack with what it holds (its first weapon); lower than
        # our total drops it, and it fights bare-handed until it picks the weapon up.
        tw = setup.held_w[tgt]
        their = sec[:, 1] + setup.w_skill[tw] + setup.offence[tgt]
        drop = dis & (their < total)
        flat(state.disarmed)[ft[drop]] = True
        # Threaten: Intimidate against Will Defence.
        check = np.where(initiator, sec[:, 3] + setup.intimidate[att], total)
        will = T.DEFENCE_BASE + setup.will[tgt] + np.where(d_ds == "all", ds_tgt, 0)
        ok = thr & (check > will)
        flat(state.threatened_by)[ft[ok]] = att[ok]
        # Counted down at the end of every phase, this one included: "over the next 2 action phases".
        flat(state.threat_left)[ft[ok]] = rules["threaten_phases"] + 1
        # Knock Prone: weapon skill against Reflex Defence.
        check = np.where(initiator, sec[:, 0] + setup.w_skill[w] + setup.offence[att], total)
        flat_footed = ctx.flat_footed[tgt]  # Flat-Footed also loses the skill part of Reflex Defence
        reflex = (T.DEFENCE_BASE + np.where(flat_footed, 0, setup.reflex[tgt])
                  + np.where(d_ds != "touch", ds_tgt, 0))
        ok = kp & (check > reflex)
        flat(state.prone)[ft[ok]] = True
    if traced:
        i = int(np.flatnonzero(rows == t.pos)[0])
        if drop[i]:
            t.line(f"      Disarm: {t.name(tgt[i])} rolls {their[i]} < {total[i]}: drops the weapon.")
        if thr[i]:
            # (`check` is Knock Prone's here; it is shown only when Knock Prone was not bought.)
            t.line(f"      Threaten: {check[i] if not kp[i] else ''} vs Will "
                   f"{will[i]}: {'THREATENED' if state.threatened_by[t.pos, tgt[i]] == att[i] else 'resisted'}.")
        if kp[i]:
            t.line(f"      Knock Prone: {check[i]} vs Reflex {reflex[i]}: "
                   f"{'PRONE' if state.prone[t.pos, tgt[i]] else 'keeps its feet'}.")
    # Skirmish: step back from the target, a square per stunt bought.
    sel = has("skirmish")
    if sel.any():
        r, c = rows[sel], att[sel]
        allowance = bought[sel, ST["skirmish"]] * rules["skirmish_stunt_cells"]
        state.pos[r, c] = walk(bf.step_away, state.pos[r], c, tgt[sel][:, None], allowance,
                               state.status[r] == STANDING, setup.grid)
        ctx.refresh(r, c)
    # Dual Strike: an attack on a second target that cannot generate stunt points.
    sel = has("dual_strike") & (second >= 0)
    if sel.any():
        resolve_attack(ctx, rows[sel], att[sel], second[sel], w[sel], allow_stunts=False, what="dual-strikes")


def walk(fn, pos, who, toward, allowance, blocking, grid, stop=None) -> np.ndarray:
    """The battlefield's walk `fn` (step_toward, step_away, move_line) for one mover per
    row, `who`: its new cell (m, 2). `toward` (m, 1) is the goal creature, or (m, 1, 2)
    the direction of a line; allowance and stop (m,)."""
    m, C = pos.shape[:2]
    k = np.arange(m)
    movers = np.arange(C)[None, :] == who[:, None]  # the battlefield moves each column's rows in turn
    wide = lambda x: np.broadcast_to(x, (m, C) + x.shape[2:])
    allow = wide(np.asarray(allowance)[:, None])
    if fn is bf.move_line:
        out, _ = fn(pos, grid, movers, wide(toward), allow, blocking)
    elif fn is bf.step_toward:
        out, _ = fn(pos, grid, movers, wide(toward), allow, blocking, np.asarray(stop)[:, None], grid.metric)
    else:
        out, _ = fn(pos, grid, movers, wide(toward), allow, blocking, grid.metric)
    return out[k, who]


def opportunity_attacks(ctx, rows, mover, start_dist, trigger: str) -> None:
    """Enemies that had `mover` within reach attack it, by readied action or Reaction.

    start_dist (m, C): distance from each creature to the mover before it moved / shot.
    """
    setup, state = ctx.setup, ctx.state
    C = ctx.C
    status = flat(state.status)
    fm = rows * C + mover
    # Who could strike at all, for every creature at once: an enemy of the mover, standing,
    # with the mover in reach at the start, the mover standing. Attacks below can only knock
    # creatures down (the mover) or take the mover's weapon, so this holds a superset of
    # each creature's rows, and each creature checks its rows afresh.
    reach = np.where(state.disarmed[rows], setup.unarmed_reach, setup.melee_reach)
    pre = setup.enemy[mover] & (state.status[rows] == STANDING) & (start_dist <= reach)
    pre &= (status[fm] == STANDING)[:, None]
    if not pre.any():
        return
    for e in range(C):
        cand = pre[:, e]
        if not cand.any():
            continue
        ci = np.flatnonzero(cand)
        r = rows[ci]
        fe = r * C + e
        wv = np.where(flat(state.disarmed)[fe], setup.unarmed_w[e], setup.melee_w[e])
        ok = ((status[fe] == STANDING) & (status[fm[ci]] == STANDING) & (start_dist[ci, e] <= setup.w_reach[wv]))
        if not ok.any():
            continue
        ci, r, fe, wv = ci[ok], r[ok], fe[ok], wv[ok]
        readied, reaction = can_react(setup, state, r, np.full(len(r), e), "attack_of_opportunity")
        go = readied | reaction
        if not go.any():
            continue
        r, m_, wv, fe = r[go], mover[ci[go]], wv[go], fe[go]
        by_ready = readied[go]
        flat(state.ready)[fe[by_ready]] = READY_NONE
        flat(state.reaction_left)[fe[~by_ready]] = False
        flat(state.opportunity)[fe] += 1
        t = ctx.trace
        if t is not None and (r == t.pos).any():
            i = int(np.flatnonzero(r == t.pos)[0])
            t.line(f"    {t.name(e)} makes an Attack of Opportunity ({'readied' if by_ready[i] else 'Reaction'}) "
                   f"as {t.name(m_[i])} {trigger}:")
        resolve_attack(ctx, r, np.full(len(r), e), m_, wv, what="strikes at")


def _trace(ctx, t, rows, att, tgt, w, what, roll, offence, total, defence, hit, points, bought, dmg,
           shield, block) -> None:
    where = np.flatnonzero(rows == t.pos)
    if not len(where):
        return
    i = int(where[0])
    setup = ctx.setup
    verdict = "HIT" if hit[i] else "miss"
    line = (f"  {t.name(att[i])} {what} {t.name(tgt[i])} with {setup.w_name[w[i]]}: d{setup.rules['attack_die']} "
            f"{roll[i]} {offence[i]:+d} = {total[i]} vs Touch {defence[i]}: {verdict}")
    if hit[i]:
        if points[i]:
            names = [f"{T.STUNT_NAMES[s]}" + (f" x{bought[i, s]}" if bought[i, s] > 1 else "")
                     for s in np.flatnonzero(bought[i])]
            line += f", {points[i]} stunt point(s) -> {', '.join(names) or 'nothing'}"
        if block[i]:
            line += f", Shield Block {shield[i]}"
        line += f", {dmg[i]} damage (hp {ctx.state.hp[t.pos, tgt[i]]})"
    t.line(line + ".")
