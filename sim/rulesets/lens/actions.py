"""A character's actions in one beat: Attack (with Tags), Cast, Use, Move.

Each function handles one character column `c` over all rows at once; `go` says in
which rows the character takes that action. Assist and Interfere ride on the rolls of
Attack and Cast ("Nearby Ally/Enemy takes Action"); defences are reactions and are
neither assisted nor interfered with.
"""
from __future__ import annotations

import numpy as np

from sim.policy import choose_targets
from sim.rulesets.base import FLED, STANDING
from sim.rulesets.lens import draws as D
from sim.rulesets.lens import policies as P
from sim.rulesets.lens import resolve, space
from sim.rulesets.lens import tables as T


def _pay(state, rows: np.ndarray, c: int, cost) -> None:
    # Arithmetic on the whole column: cheaper than a boolean-mask gather and scatter.
    amount = np.where(rows, cost, 0)
    state.mom[:, c] -= amount.astype(state.mom.dtype, copy=False)
    state.spent[:, c] += amount.astype(state.spent.dtype, copy=False)


def pick_target(setup, state, c, mode, reach, noise) -> np.ndarray:
    standing = state.status == STANDING
    cand = standing & setup.enemy[c][None, :] & space.within(setup, state, c, reach)
    focus = state.focus[:, setup.side[c]][:, None] if setup.uses_focus else None
    dist = space.distances(setup, state)
    return choose_targets(mode[:, None], cand[:, None, :], state.body.astype(np.float32), focus,
                          noise[:, None, :], None if dist is None else dist[:, c][:, None, :])[:, 0]


def helpers(setup, state, c: int, ability: int, go: np.ndarray, t=None) -> tuple[np.ndarray, np.ndarray]:
    """Talent-die sides of the ally who Assists and the enemy who Interferes (0 = none), paid for."""
    standing = state.status == STANDING
    keep = setup.pol["support_keep"][None, :]
    ready = standing & setup.is_char[None, :] & (state.mom - keep >= 1)
    out = []
    for flag, mine, better in (("assist", True, np.argmax), ("interfere", False, np.argmin)):
        if not setup.pol[flag].any():
            out.append(0)
            continue
        same = setup.side == setup.side[c]
        who = ready & setup.pol[flag][None, :] & (same if mine else ~same)[None, :] & go[:, None]
        who[:, c] = False
        if not who.any():
            out.append(0)
            continue
        talent = setup.talent[:, ability].astype(np.float32)
        score = np.where(who, talent[None, :], np.inf if not mine else -np.inf)
        pick = better(score, axis=1)
        has = who.any(axis=1)
        r = np.flatnonzero(has)
        state.mom[r, pick[r]] -= 1
        state.spent[r, pick[r]] += 1
        if t is not None and has[t.pos]:
            t.line(f"    {t.name(pick[t.pos])} {'assists' if mine else 'interferes'} "
                   f"(Talent d{setup.talent[pick[t.pos], ability]}).")
        out.append(np.where(has, setup.talent[pick, ability], 0))
    return out[0], out[1]


def _connects(setup, state, c, eff, go, t, what):
    """Outcome of an attack-like roll: hit, and the Sacrifice's costly branch paid."""
    take = setup.pol["take_sacrifice"][c]
    sac = go & (eff == 1) & take
    can_pay = state.mom[:, c] >= 1
    owe = setup.rules["attack_sacrifice_at_zero"] == "owe"
    sac_hit = sac & (can_pay | owe)
    pay = sac_hit & can_pay
    _pay(state, pay, c, 1)
    state.owed[sac_hit & ~can_pay, c] += 1
    hit = go & ((eff >= 2) | sac_hit)
    if setup.rules["botch_ends_turn"]:
        state.turn_over[go & (eff == 0), c] = True
    if t is not None and go[t.pos]:
        e = int(eff[t.pos])
        note = {0: "misses; the turn ends" if setup.rules["botch_ends_turn"] else "misses",
                1: "hits for 1 more Momentum" if sac_hit[t.pos] else "misses", 2: "connects",
                3: "connects with an extra tag"}[e]
        t.line(f"    {what}: {T.OUTCOMES[e].upper()}, {note}.")
    return hit


def attack(setup, state, c, go, tagged, mode, draws, t) -> None:
    u, noise = draws["u"][:, c], draws["noise"][:, c]
    weapon_ok = setup.has_weapon[c] & ~P.has_cond(state.cond[:, c], setup.cond_no_weapon)
    tgt = pick_target(setup, state, c, mode, setup.weapon_reach[c], noise)
    go = go & weapon_ok & (tgt >= 0) & (state.mom[:, c] >= 1)
    if not go.any():
        return
    tgt = np.maximum(tgt, 0)
    cost = setup.rules["tag_cost"]
    cap = int(setup.tag_cap[c])
    scripted = c in setup.scripted
    threat_left = state.early[:, c] | (setup.enemy[c] & setup.is_char).any()
    spare = state.mom[:, c] - np.where(threat_left & ~scripted, setup.pol["hold"][c], 0) - 1
    want = cap if scripted else min(int(setup.pol["tags"][c]), cap)
    k = np.where(tagged, np.minimum(want, spare // cost if cost else want), 0).clip(0, 6)
    _pay(state, go, c, 1 + k * cost)
    ab = setup.abilities.index("weapon_use")
    state.attacks[go, c] += 1
    if t is not None and go[t.pos]:
        t.line(f"  {t.name(c)} attacks {t.name(tgt[t.pos])} with {setup.weapon_name[c]} "
               f"({setup.weapon_dice.dice[c]}, {setup.tags.describe(setup.weapon_prefix[c, k[t.pos]])}; "
               f"TN {setup.defense[tgt[t.pos]]}, Momentum {state.mom[t.pos, c]} left)")
    assist, interfere = helpers(setup, state, c, ab, go, t)
    eff = resolve.challenge(setup, np.full(len(go), c), np.full(len(go), ab), setup.defense[tgt], u[:, 0:5],
                            assist, interfere)
    hit = _connects(setup, state, c, eff, go, t, "roll")
    state.hits[hit, c] += 1
    extra = (eff == 3) & ((k < cap) | setup.rules["triumph_tag_over_cap"])
    mask = setup.weapon_prefix[c, np.minimum(k + extra, 6)]
    # Dice totals only where a blow lands (the uniforms were drawn for every row).
    dmg = np.zeros(len(go), np.int32)
    r = np.flatnonzero(hit)
    dmg[r] = draws["weapon"][r, c]
    resolve.strike(setup, state, np.full(len(go), c), tgt, hit, dmg, mask, setup.weapon_missile[c], False,
                   setup.weapon_mean[c], u[:, 5:20], draws["aux"], t)


def cast(setup, state, c, go, mode, draws, t) -> None:
    u, noise = draws["u"][:, c], draws["noise"][:, c]
    go = go & setup.has_spell[c] & (state.mom[:, c] >= 1)
    if not go.any():
        return
    n = len(go)
    form = go & ~state.formed[:, c]
    if form.any():  # the Source roll against the spell's complexity
        _pay(state, form, c, 1)
        e = resolve.challenge(setup, np.full(n, c), np.full(n, setup.abilities.index("source")),
                              int(setup.spell_tn[c]), u[:, 0:5])
        sac = form & (e == 1) & setup.pol["take_sacrifice"][c] & (state.mom[:, c] >= 1)
        _pay(state, sac, c, 1)
        state.formed[:, c] |= form & ((e >= 2) | sac)
        if t is not None and form[t.pos]:
            t.line(f"  {t.name(c)} forms {setup.spell_name[c]} (Source vs complexity {setup.spell_tn[c]}): "
                   f"{T.OUTCOMES[e[t.pos]].upper()}, {'formed' if state.formed[t.pos, c] else 'not formed'}.")
    go = go & ~form
    tgt = pick_target(setup, state, c, mode, setup.spell_range[c], noise)
    go &= (tgt >= 0) & (state.mom[:, c] >= 1)
    if not go.any():
        return
    tgt = np.maximum(tgt, 0)
    _pay(state, go, c, 1)
    school = int(setup.spell_school[c])
    tn = setup.abj_tn[tgt]
    state.attacks[go, c] += 1
    if t is not None and go[t.pos]:
        t.line(f"  {t.name(c)} casts {setup.spell_name[c]} at {t.name(tgt[t.pos])} ({setup.abilities[school]} vs "
               f"Abjuration {tn[t.pos]})")
    assist, interfere = helpers(setup, state, c, school, go, t)
    eff = resolve.challenge(setup, np.full(n, c), np.full(n, school), tn, u[:, 0:5], assist, interfere)
    hit = _connects(setup, state, c, eff, go, t, "school roll")
    state.hits[hit, c] += 1
    resolve.strike(setup, state, np.full(n, c), tgt, hit, draws["spell"][:, c], np.full(n, setup.spell_mask[c]),
                   False, True, setup.spell_dice.dice[c].mean, u[:, 5:20], draws["aux"], t)


def use(setup, state, c, go, draws, t) -> None:
    """Use: a healing item (its size's Momentum, over several rounds when short) or re-arming."""
    frac = state.body[:, c] / setup.body[c]
    heal = go & (state.items_left[:, c] > 0) & (frac < setup.pol["heal_below"][c])
    rearm = go & ~heal & state.cond[:, c, T.DISARMED] & (state.mom[:, c] >= 1)
    if rearm.any():
        _pay(state, rearm, c, 1)
        state.cond[rearm, c, T.DISARMED] = False
        if t is not None and rearm[t.pos]:
            t.line(f"  {t.name(c)} re-arms (Use, 1 Momentum).")
    if heal.any():
        need = setup.item_cost[c] - state.use_progress[:, c]
        pay = np.where(heal, np.minimum(need, np.maximum(state.mom[:, c], 0)), 0)
        _pay(state, heal, c, pay)
        state.use_progress[:, c] += pay
        done = heal & (state.use_progress[:, c] >= setup.item_cost[c])
        gain = np.minimum(draws["item"][:, c], setup.body[c] - state.body[:, c])
        state.body[done, c] += gain[done]
        state.items_left[done, c] -= 1
        state.use_progress[done, c] = 0
        if t is not None and heal[t.pos]:
            t.line(f"  {t.name(c)} uses {setup.item_name[c]} ({pay[t.pos]} Momentum): "
                   + (f"Body +{gain[t.pos]} -> {state.body[t.pos, c]}." if done[t.pos]
                      else f"{state.use_progress[t.pos, c]}/{setup.item_cost[c]} done."))
    # Nothing to use: the beat is over for it.
    state.turn_over[go & ~heal & ~rearm, c] = True


def move(setup, state, c, go, mode, draws, t) -> None:
    """Move 30 ft (speed) per Momentum toward the chosen enemy, stopping within reach."""
    go = go & (state.mom[:, c] >= 1)
    if state.pos is None or not go.any():
        state.turn_over[go, c] = True  # everyone is engaged: nowhere to go
        return
    standing = state.status == STANDING
    cand = standing & setup.enemy[c][None, :]
    # A focusing side walks toward its focus too, or it would zig-zag between random enemies.
    focus = state.focus[:, setup.side[c]][:, None] if setup.uses_focus else None
    tgt = choose_targets(mode[:, None], cand[:, None, :], state.body.astype(np.float32), focus,
                         draws["noise"][:, c][:, None, :], space.distances(setup, state)[:, c][:, None, :])[:, 0]
    go &= tgt >= 0
    n, C = state.status.shape
    movers = np.zeros((n, C), bool)
    movers[:, c] = go
    target = np.full((n, C), -1, np.int64)
    target[:, c] = tgt
    casts = (setup.pol["cast"][c] or not setup.has_weapon[c]) and setup.has_spell[c]
    reach = setup.spell_range[c] if casts else setup.weapon_reach[c]
    before = state.pos[:, c].copy() if t is not None else None
    moved = space.approach(setup, state, movers, target, np.broadcast_to(setup.speed_cells, (n, C)).copy(),
                           np.full((n, C), max(int(reach), 1)))
    _pay(state, go, c, 1)
    state.turn_over[go & (moved[:, c] == 0), c] = True
    if t is not None and go[t.pos]:
        t.line(f"  {t.name(c)} moves {_cell(before[t.pos])} -> {_cell(state.pos[t.pos, c])} "
               f"({moved[t.pos, c]} cells, 1 Momentum).")


def flee(setup, state, c, go, t) -> None:
    """Leave the fight now (the shared `flee`): out for good, final state fled. It costs no
    Momentum and provokes nothing: the text has no rule for leaving, so it is clean."""
    r = np.flatnonzero(go & (state.status[:, c] == STANDING))
    state.status[r, c] = FLED
    state.down_round[r, c] = state.round
    state.turn_over[r, c] = True
    if t is not None and go[t.pos]:
        t.line(f"  {t.name(c)} flees the fight.")


def _cell(p) -> str:
    return f"({int(p[0])}, {int(p[1])})"


def beat(setup, state, c: int, acting: np.ndarray, draws, t) -> None:
    rows = np.flatnonzero(acting)
    if len(rows) <= resolve.SUBSET_SHARE * len(acting):
        sub, sub_t = resolve.subset(state, rows, t)
        _beat(setup, sub, c, np.ones(len(rows), bool), D.take(draws, rows), sub_t)
        resolve.put_back(setup, state, sub, rows)
    else:
        _beat(setup, state, c, acting, draws, t)


def _beat(setup, state, c: int, acting: np.ndarray, draws, t) -> None:
    action, mode = P.decide(setup, state, c, acting)
    go = lambda a: acting & (action == a)
    if (go(P.ATTACK) | go(P.TAG_ATTACK)).any():
        attack(setup, state, c, go(P.ATTACK) | go(P.TAG_ATTACK), go(P.TAG_ATTACK), mode, draws, t)
    if go(P.CAST).any():
        cast(setup, state, c, go(P.CAST), mode, draws, t)
    if go(P.USE).any():
        use(setup, state, c, go(P.USE), draws, t)
    if go(P.MOVE).any():
        move(setup, state, c, go(P.MOVE), mode, draws, t)
    if go(P.FLEE).any():
        flee(setup, state, c, go(P.FLEE), t)
    state.turn_over[go(P.HOLD), c] = True
