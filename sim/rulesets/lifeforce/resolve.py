"""Resolving attacks on the batch: conditions, Defence, stunts, damage, Shield Block,
Attacks of Opportunity. Each call handles one attack per row for a set of rows.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce import walk as W
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.attacks import (armor_after_penetration, buy_stunts, critical_multiplier,
                                            final_damage, strength_damage)

READY_NONE, READY_BLOCK, READY_OPPORTUNITY = 0, 1, 2
ST = T.STUNT


def flat(x: np.ndarray) -> np.ndarray:
    """A (N, C, ...) state array as one axis, a view: flat(x)[row * C + col] reads and writes
    x[row, col] several times faster than indexing by two arrays (state arrays are contiguous)."""
    return x.reshape(-1)


def _bits(state, rows, who) -> tuple[np.ndarray, ...]:
    """(m,) bool per condition of `who`, in tables.CONDITION_NAMES order."""
    track, dom = state.track[rows, who], state.dominant[rows, who]
    return (state.prone[rows, who], state.hastened[rows, who] > 0, state.slowed[rows, who] > 0,
            state.ds[rows, who], track > 0, (track == T.HELD) & ~dom, (track == T.PINNED) & ~dom,
            state.threatened_by[rows, who] >= 0, state.disarmed[rows, who])


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


def condition_mods(setup, state, rows, who) -> dict[str, np.ndarray]:
    # Looked up by the flags' bit pattern: the same values and dtypes as summing the
    # table's rows, without (m, K) temporaries for each of the five columns.
    bits = _bits(state, rows, who)
    code = bits[0].astype(np.intp)
    for i in range(1, len(bits)):
        code |= bits[i].astype(np.intp) << i
    return {k: v[code] for k, v in _mods_table(setup.cond).items()}


def can_react(setup, state, rows, who, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(by readied action, by Reaction) for a Shield Block or an Attack of Opportunity."""
    ready_code = READY_BLOCK if kind == "shield_block" else READY_OPPORTUNITY
    trained = setup.can_block[who] if kind == "shield_block" else setup.can_aoo[who]
    use = setup.use_reaction[who]
    mode = setup.rules["reaction_actions"]
    allowed = (use == "any") | (use == kind)
    readied = (state.ready[rows, who] == ready_code) & (mode != "reaction")
    reaction = ~readied & trained & allowed & state.reaction_left[rows, who] & (mode != "ap")
    if kind == "shield_block":
        readied &= setup.has_shield[who]
        reaction &= setup.has_shield[who]
    free = ~state.contesting[rows, who] & condition_mods(setup, state, rows, who)["begins"]
    return readied & free, reaction & free


def resolve_attack(ctx, rows, att, tgt, w, off_bonus=0, dmg_bonus=0, allow_stunts=True, what="attacks"):
    """One attack per row: roll, stunts, damage. Returns the hit mask (m,)."""
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    if len(rows) == 0:
        return np.zeros(0, dtype=bool)
    melee = setup.w_range[w] == 0
    am, tm = condition_mods(setup, state, rows, att), condition_mods(setup, state, rows, tgt)
    flat = ctx.flat_footed[rows, tgt]
    defence = (T.DEFENCE_BASE + np.where(flat, 0, setup.dodge[tgt])
               + np.where(melee, tm["melee_defence"], tm["ranged_defence"]))
    offence = setup.w_skill[w] + setup.offence[att] + off_bonus + am["offence"]
    roll = (ctx.roll[rows, att] if allow_stunts else ctx.sec[rows, att, 2]).astype(np.int32)
    total = roll + offence
    hit = total > defence
    generates = allow_stunts & setup.generates[att] & ~state.stunted[rows, att]
    points = np.where(hit & generates, (total - defence) // rules["stunt_step"], 0)
    state.stunted[rows[points > 0], att[points > 0]] = True

    # Which stunts could do anything here, then the policy's buying order.
    # Only hits with stunt points buy anything (a miss's stunts are void), so only their
    # rows look for a second target and go through the buying.
    buying = points > 0
    second = np.full(len(rows), -1, dtype=np.intp)
    if allow_stunts and buying.any():
        second[buying] = _second_target(ctx, rows[buying], att[buying], tgt[buying], w[buying])
    applicable = np.ones((len(rows), len(T.STUNTS)), dtype=bool)
    applicable[:, ST["rapid_reload"]] = setup.w_loading[w]
    applicable[:, ST["skirmish"]] = rules["skirmish_stunt_cells"] > 0
    applicable[:, ST["disarm"]] = ~state.disarmed[rows, tgt] & ~setup.w_unarmed[setup.held_w[tgt]]
    applicable[:, ST["threaten"]] = state.threatened_by[rows, tgt] != att
    applicable[:, ST["knock_prone"]] = ~state.prone[rows, tgt]
    applicable[:, ST["dual_strike"]] = second >= 0
    applicable[:, ST["seize_the_initiative"]] = rules["seize_the_initiative"] != "none"
    applicable[:, ST["defensive_stance"]] = ~state.ds[rows, att]
    costs = setup.stunt_costs[setup.w_table[w]]
    bought = np.zeros(applicable.shape, dtype=np.int16)
    if buying.any():
        bought[buying] = buy_stunts(points[buying], setup.stunt_priority[att[buying]], costs[buying],
                                    applicable[buying])

    # Damage of a hit.
    sb = np.where(melee, strength_damage(setup.sb[att], setup.w_two[w], rules["two_handed_multiplier"]), 0)
    rolled = np.maximum(ctx.damage(rows, att, w, 0 if allow_stunts else 1), 0) + sb + dmg_bonus
    armor = armor_after_penetration(setup.armor[tgt], setup.w_ap[w], setup.w_armoured[w])
    block_ready, block_reaction = can_react(setup, state, rows, tgt, "shield_block")
    block = hit & (block_ready | block_reaction)
    shield = np.where(block, ctx.shield(rows, tgt), 0)
    dmg = np.where(hit, final_damage(rolled, armor, critical_multiplier(bought), shield,
                                     rules["critical_applies"]), 0)
    used_ready = block & block_ready
    state.ready[rows[used_ready], tgt[used_ready]] = READY_NONE
    used_reaction = block & ~block_ready
    state.reaction_left[rows[used_reaction], tgt[used_reaction]] = False
    state.blocks[rows[block], tgt[block]] += 1

    state.attacks[rows, att] += 1
    state.hits[rows, att] += hit
    state.dealt[rows, att] += dmg
    state.taken[rows, tgt] += dmg
    state.stunt_points[rows, att] += points
    state.hp[rows, tgt] -= dmg

    t = ctx.trace
    if t is not None:
        _trace(ctx, t, rows, att, tgt, w, what, roll, offence, total, defence, hit, points, bought, dmg,
               shield, block)
    _apply_stunts(ctx, rows, att, tgt, w, total, bought, hit, second)
    knock_down(ctx, rows, tgt)
    return hit


def knock_down(ctx, rows, who) -> None:
    """Creatures at 0 hit points or below are down; a grapple with them ends."""
    state = ctx.state
    down = (state.hp[rows, who] <= 0) & (state.status[rows, who] == STANDING)
    if not down.any():
        return
    r, c = rows[down], who[down]
    state.status[r, c] = DEAD if ctx.setup.rules["at_zero_hp"] == "dead" else UNCONSCIOUS
    state.down_round[r, c] = ctx.round
    end_grapple(state, r, c)
    t = ctx.trace
    if t is not None and (r == t.pos).any():
        c0 = int(c[r == t.pos][0])
        t.line(f"      {t.name(c0)} drops to {state.hp[t.pos, c0]} hit points: "
               f"{'DEAD' if ctx.setup.rules['at_zero_hp'] == 'dead' else 'UNCONSCIOUS'}.")


def end_grapple(state, rows, who) -> None:
    partner = state.partner[rows, who]
    has = partner >= 0
    for r_, c_ in ((rows, who), (rows[has], partner[has])):
        state.partner[r_, c_] = -1
        state.track[r_, c_] = T.NONE
        state.dominant[r_, c_] = False
        # `contesting` stays set: a creature that contested this phase takes no other action
        # in it even when the grapple ends during the phase.


def _second_target(ctx, rows, att, tgt, w) -> np.ndarray:
    """Dual Strike: another standing enemy within 1 square of the target and in reach or range."""
    setup, state = ctx.setup, ctx.state
    d = ctx.dist[rows]  # (m, C, C)
    m = len(rows)
    reach = np.where(setup.w_range[w] > 0, setup.w_range[w], setup.w_reach[w])
    near_t = d[np.arange(m), tgt] <= 1
    in_reach = d[np.arange(m), att] <= reach[:, None]
    ok = (near_t & in_reach & setup.enemy[att] & (state.status[rows] == STANDING))
    ok[np.arange(m), tgt] = False
    score = np.where(ok, ctx.noise[rows], -1.0)
    best = score.argmax(axis=1)
    return np.where(ok.any(axis=1), best, -1)


def _apply_stunts(ctx, rows, att, tgt, w, total, bought, hit, second) -> None:
    setup, state, rules = ctx.setup, ctx.state, ctx.setup.rules
    has = lambda name: hit & (bought[:, ST[name]] > 0)
    sel = has("defensive_stance")
    state.ds[rows[sel], att[sel]] = True
    sel = has("rapid_reload")
    state.loaded[rows[sel], att[sel]] = True
    sel = has("seize_the_initiative")
    state.seize[rows[sel], att[sel]] = 1
    d_ds = rules["defensive_stance_defences"]
    ds_tgt = state.ds[rows, tgt] * T.CONDITIONS["defensive_stance"][1]
    sec = ctx.sec[rows, att].astype(np.int32)
    initiator = rules["initiator_check"] == "d100_skill"
    # Disarm: the target rolls an attack with what it holds (its first weapon); lower than
    # our total drops it, and it fights bare-handed until it picks the weapon up.
    sel = has("disarm")
    tw = setup.held_w[tgt]
    their = sec[:, 1] + setup.w_skill[tw] + setup.offence[tgt]
    drop = sel & (their < total)
    state.disarmed[rows[drop], tgt[drop]] = True
    # Threaten: Intimidate against Will Defence.
    sel = has("threaten")
    check = np.where(initiator, sec[:, 3] + setup.intimidate[att], total)
    will = T.DEFENCE_BASE + setup.will[tgt] + np.where(d_ds == "all", ds_tgt, 0)
    ok = sel & (check > will)
    state.threatened_by[rows[ok], tgt[ok]] = att[ok]
    # Counted down at the end of every phase, this one included: "over the next 2 action phases".
    state.threat_left[rows[ok], tgt[ok]] = rules["threaten_phases"] + 1
    # Knock Prone: weapon skill against Reflex Defence.
    sel = has("knock_prone")
    check = np.where(initiator, sec[:, 0] + setup.w_skill[w] + setup.offence[att], total)
    flat = ctx.flat_footed[rows, tgt]  # Flat-Footed also loses the skill part of Reflex Defence
    reflex = T.DEFENCE_BASE + np.where(flat, 0, setup.reflex[tgt]) + np.where(d_ds != "touch", ds_tgt, 0)
    ok = sel & (check > reflex)
    state.prone[rows[ok], tgt[ok]] = True
    t = ctx.trace
    if t is not None and (rows == t.pos).any():
        i = int(np.flatnonzero(rows == t.pos)[0])
        if drop[i]:
            t.line(f"      Disarm: {t.name(tgt[i])} rolls {their[i]} < {total[i]}: drops the weapon.")
        if has("threaten")[i]:
            t.line(f"      Threaten: {check[i] if not has('knock_prone')[i] else ''} vs Will "
                   f"{will[i]}: {'THREATENED' if state.threatened_by[t.pos, tgt[i]] == att[i] else 'resisted'}.")
        if has("knock_prone")[i]:
            t.line(f"      Knock Prone: {check[i]} vs Reflex {reflex[i]}: "
                   f"{'PRONE' if state.prone[t.pos, tgt[i]] else 'keeps its feet'}.")
    # Skirmish: step back from the target, a square per stunt bought.
    sel = has("skirmish")
    if sel.any():
        r, c = rows[sel], att[sel]
        allowance = bought[sel, ST["skirmish"]] * rules["skirmish_stunt_cells"]
        state.pos[r, c] = W.away(state.pos[r], setup.grid, c, tgt[sel], allowance, state.status[r] == STANDING,
                                 setup.grid.metric)
        ctx.refresh(r, c)
    # Dual Strike: an attack on a second target that cannot generate stunt points.
    sel = has("dual_strike") & (second >= 0)
    if sel.any():
        resolve_attack(ctx, rows[sel], att[sel], second[sel], w[sel], allow_stunts=False, what="dual-strikes")


def opportunity_attacks(ctx, rows, mover, start_dist, trigger: str) -> None:
    """Enemies that had `mover` within reach attack it, by readied action or Reaction.

    start_dist (m, C): distance from each creature to the mover before it moved / shot.
    """
    setup, state = ctx.setup, ctx.state
    for e in range(len(setup.names)):
        e_arr = np.full(len(rows), e)
        w = setup.current_melee(state, rows, e_arr)
        cand = (setup.enemy[e, mover] & (state.status[rows, e] == STANDING) & (mover != e)
                & (state.status[rows, mover] == STANDING) & (start_dist[:, e] <= setup.w_reach[w]))
        if not cand.any():
            continue
        readied, reaction = can_react(setup, state, rows, e_arr, "attack_of_opportunity")
        go = cand & (readied | reaction)
        if not go.any():
            continue
        r, m_, wv = rows[go], mover[go], w[go]
        by_ready = readied[go]
        state.ready[r[by_ready], e] = READY_NONE
        state.reaction_left[r[~by_ready], e] = False
        state.opportunity[r, e] += 1
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
