"""How characters spend Momentum: family choices as array operations, then scripted rules.

A family is a preset of parameters (schema.FAMILY_DEFAULTS); every decision below reads
those parameters as (C,) arrays, so mixed families in one scenario cost nothing extra.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import STANDING
from sim.rulesets.lens import schema as S
from sim.rulesets.lens import space
from sim.rulesets.lens import tables as T

ATTACK, TAG_ATTACK, CAST, USE, MOVE, HOLD, FLEE = range(len(S.ACTIONS))  # the old engine holds for flee
NEVER, ALWAYS, BIG_HITS = range(3)
BEFORE, AFTER, AUTO = range(3)


def body_frac(setup, state) -> np.ndarray:
    return state.body / setup.body[None, :]


def timing(setup, state) -> tuple[np.ndarray, np.ndarray]:
    """Who acts before the opponents this round, and who pays 1 Momentum for it.

    Confused acts after; Prepared before; Fluid chooses freely; Off-Balance chooses every
    round (docs/rules/lens.md, Gaps and contradictions, 'Off-Balance every round') and
    pays 1 Momentum to go first.
    """
    pref = setup.pol["timing"][None, :]
    early_pref = (pref == BEFORE) | ((pref == AUTO) & (body_frac(setup, state) >= 0.5))
    b = state.bracket
    early = (b == 2) | (((b == 1) | (b == 3)) & early_pref)
    return early & setup.is_char[None, :], early & (b == 1)


def observe(setup, state, c: int) -> dict:
    n = state.status.shape[0]
    standing = state.status == STANDING
    same = setup.side == setup.side[c]
    # A monster reaches as far as its longest attack; a character as its weapon in hand.
    own = setup.slot_reach[setup.slot_owner == c]
    weapon_reach = setup.weapon_reach[c] if setup.is_char[c] or not len(own) else own.max()
    reach = space.within(setup, state, c, weapon_reach) & standing & setup.enemy[c][None, :]
    return {
        "round": np.full(n, state.round),
        "momentum": state.mom[:, c],
        "body": state.body[:, c],
        "health": state.body[:, c] / setup.body[c],
        "void": state.void[:, c],
        "bracket": state.bracket[:, c],
        "stun": state.cond[:, c, T.STUN].astype(np.int8),
        "prone": state.cond[:, c, T.PRONE].astype(np.int8),
        "hamstrung": state.cond[:, c, T.HAMSTRUNG].astype(np.int8),
        "disarmed": state.cond[:, c, T.DISARMED].astype(np.int8),
        "distance": space.nearest_enemy(setup, state, c) * space.cell_feet(setup),
        "in_reach": reach.any(axis=1).astype(np.int8),
        "spell_formed": state.formed[:, c].astype(np.int8),
        "items_left": state.items_left[:, c],
        "allies_standing": standing[:, same].sum(axis=1),
        "enemies_standing": standing[:, ~same].sum(axis=1),
    }


def monster_rules(setup, state, t=None) -> tuple[dict, np.ndarray]:
    """Scripted rules of the monsters, once at the start of their phase.

    Returns each monster's target mode for this round, {column: (N,)}, and (N, C) who
    holds (makes no attacks and does not move). `flee` leaves the fight at once; every
    other action means attacking as usual (a monster has no Momentum to spend on it).
    """
    from sim.rulesets.lens import actions  # actions imports this module
    n, C = state.status.shape
    modes = {}
    idle = np.zeros((n, C), dtype=bool)
    for m in setup.scripted:
        if setup.is_char[m]:
            continue
        action, mode = setup.policies[m].decide(observe(setup, state, m), np.full(n, ATTACK, np.int8))
        actions.flee(setup, state, m, action == FLEE, t)
        idle[:, m] = action == HOLD
        modes[m] = mode
    return modes, idle


def has_cond(cond: np.ndarray, which: np.ndarray) -> np.ndarray:
    """(N,) whether a row of (N, 4) conditions holds any of `which` (4,), as a loop over
    the few conditions that matter (often none or one)."""
    out = _any_of(np.flatnonzero(which), lambda k: cond[:, k])
    return np.zeros(len(cond), dtype=bool) if out is None else out


def _any_of(cols, pick) -> np.ndarray | None:
    """OR of pick(j) over a few columns j (None for no columns): a loop over the short
    combatant axis beats numpy's reduction over it."""
    out = None
    for j in cols:
        out = pick(j) if out is None else out | pick(j)
    return out


def decide(setup, state, c: int, acting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Action and target mode of character c for this beat, (N,) each."""
    p = setup.pol
    n = state.status.shape[0]
    standing = state.status == STANDING
    none = np.zeros(n, dtype=bool)
    if p["act"][c]:
        alone = True  # not read
    else:
        allied = np.flatnonzero((setup.side == setup.side[c]) & setup.is_char)
        count = sum(standing[:, j].astype(np.int64) for j in allied)
        alone = count <= 1
    # Held Momentum is for defending; after the monsters have acted it is only kept back
    # when enemy characters (who may still attack) are in the fight.
    threat_left = state.early[:, c] | (setup.enemy[c] & setup.is_char).any()
    spare = state.mom[:, c] - np.where(threat_left, p["hold"][c], 0)
    frac = state.body[:, c] / setup.body[c]
    enemies = np.flatnonzero(setup.enemy[c])
    any_foe = _any_of(enemies, lambda j: standing[:, j])
    any_foe = none if any_foe is None else any_foe
    d = space.distances(setup, state)

    def reachable(reach) -> np.ndarray:
        if d is None:
            return any_foe
        return _any_of(enemies, lambda j: (d[:, c, j] <= reach) & standing[:, j])

    in_reach = reachable(setup.weapon_reach[c])
    disarmed = state.cond[:, c, T.DISARMED]
    heal = (state.items_left[:, c] > 0) & (frac < p["heal_below"][c])
    # "TINY items require 0 momentum": usable even with nothing to spare.
    wants = acting & ((spare >= 1) | (heal & (setup.item_cost[c] == 0))) & (p["act"][c] | alone)
    # A character whose only attack is a spell casts it whatever its family.
    casts = (p["cast"][c] | ~setup.has_weapon[c]) & setup.has_spell[c]
    cast = reachable(setup.spell_range[c]) if casts else none
    if setup.has_weapon[c]:
        barred = _any_of(np.flatnonzero(setup.cond_no_weapon), lambda k: state.cond[:, c, k])
        weapon_ok = ~barred if barred is not None else ~none
    else:
        weapon_ok = none
    hurt = frac < p["recover_below"][c]
    attack = TAG_ATTACK if p["tags"][c] > 0 else ATTACK
    # np.select's first-true-wins, written as nested wheres from the last choice back.
    choice = np.where(any_foe, MOVE, HOLD)
    choice = np.where(weapon_ok & in_reach, attack, choice)
    choice = np.where(cast, CAST, choice)
    if setup.has_weapon[c]:
        choice = np.where(disarmed & ~cast, USE, choice)
    choice = np.where(hurt, HOLD, choice)
    choice = np.where(heal, USE, choice)
    action = np.where(wants, choice, HOLD).astype(np.int8)
    target = np.full(n, setup.policies[c].target, dtype=np.int8)
    if c in setup.scripted:
        action, target = setup.policies[c].decide(observe(setup, state, c), action)
        action = np.where(acting & (action != FLEE), action, HOLD).astype(np.int8)
    return action, target


def defence_values(setup, state, who: np.ndarray, tn: np.ndarray, mean: np.ndarray, mask: np.ndarray,
                   missile: np.ndarray, magical: np.ndarray, live: np.ndarray | None = None) -> np.ndarray:
    """(N, 5) expected damage each defence saves (minus its Momentum), -inf where not allowed.

    Probabilities are exact (precomputed per character, defence and TN); the defender
    knows the attack's tags and mean damage, not the roll to come.
    """
    n = len(who)
    rows = np.arange(n)
    K = setup.dprob.shape[2]
    key = who * K + np.clip(tn, 0, K - 1)
    if n and (mean == mean[0]).all():
        # The saving depends on (defender, TN, mean damage) only, and a blow's mean is one
        # number: look the rows up in a table made once per mean.
        saved = _saved_table(setup, mean[0]).take(key, axis=0)
    else:
        saved = _saved(setup, _dprob_flat(setup).take(key, axis=0).reshape(n, -1, 4), who, mean)
    allowed = _allowed(setup, state, who, mask, missile, magical, rows, live)
    defend = setup.pol["defend"][who]
    active_ok = (defend == ALWAYS) | ((defend == BIG_HITS) & (mean >= setup.pol["big_hit"][who]))
    allowed[:, T.ACTIVE] &= active_ok[:, None]
    return np.where(allowed & (saved > 0), saved, -np.inf)


def _dprob_flat(setup) -> np.ndarray:
    """dprob as (defender * TN, defence * outcome), for one flat gather per blow."""
    flat = setup.extra.get("dprob_flat")
    if flat is None:
        C, D, K, _ = setup.dprob.shape
        flat = setup.extra["dprob_flat"] = np.ascontiguousarray(setup.dprob.transpose(0, 2, 1, 3)).reshape(C * K, D * 4)
    return flat


def _saved_table(setup, mean0) -> np.ndarray:
    """_saved for every (defender, TN) pair at mean damage mean0, rows keyed defender * TN + TN."""
    tables = setup.extra.setdefault("saved_tables", {})
    tab = tables.get(float(mean0))
    if tab is None:
        C, D, K, _ = setup.dprob.shape
        who = np.repeat(np.arange(C), K)
        mean = np.full(C * K, mean0, dtype=np.float32)
        tab = tables[float(mean0)] = _saved(setup, _dprob_flat(setup).reshape(C * K, D, 4), who, mean)
    return tab


def _saved(setup, p: np.ndarray, who: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """(N, 5) expected damage saved by each defence minus its Momentum; p: (N, 5, 4) outcome probabilities."""
    pb, ps, pg, pt = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    take = setup.pol["take_sacrifice"][who][:, None]
    R = setup.defence_rows
    negate_main = (R["negate"][None, :, 2] == 1) * pg + (R["negate"][None, :, 3] == 1) * pt
    alt_neg = (R["negate"][None, :, 4] == 1) + 0.5 * (R["negate"][None, :, 4] == 2)
    saved = (negate_main + take * ps * alt_neg) * mean[:, None]
    ar = setup.armor[who].astype(np.float32)
    cut = np.minimum(ar, mean)
    M = T.MITIGATE
    alt_cut = take[:, 0] * ps[:, M] * (R["ar"][M, 4] < 0)
    saved[:, M] = (pg[:, M] + pt[:, M] + alt_cut) * cut - pb[:, M] * ar
    mv = setup.pol["momentum_value"][who][:, None]
    return saved - T.ACTIVE[None, :] * mv * (1 + pb)


def _allowed(setup, state, who, mask, missile, magical, rows, live=None) -> np.ndarray:
    cond = state.cond[rows, who]  # (N, 4)
    mom = state.mom[rows, who] >= 1
    defeated = (mask[:, None] & setup.tags.defeat_mask[None, :]) != 0
    ok = np.zeros((len(who), len(T.DEFENCES)), dtype=bool)
    ok[:, T.ABJURE] = magical
    ok[:, T.MITIGATE] = setup.armor[who] > 0
    ok[:, T.BLOCK] = setup.shield[who] & ~state.locked[rows, who] & mom
    dodge = mom & ~has_cond(cond, setup.cond_no_dodge) & setup.is_char[who] & \
        ((mask & setup.tags.defeat_mask[T.DODGE]) == 0)
    if live is not None:
        dodge &= live
    ok[:, T.DODGE] = space.open_square(setup, state, who, dodge)
    ok[:, T.PARRY] = (mom & setup.has_weapon[who] & ~missile
                      & ~has_cond(cond, setup.cond_no_parry | setup.cond_no_weapon))
    return ok & ~defeated & setup.is_char[who][:, None] & setup.pol["defences"][who]


def choose_defence(setup, state, who, tn, mean, mask, missile, magical, live=None) -> np.ndarray:
    """(N,) the defence with the largest expected saving, -1 for none (`live`: rows with a blow)."""
    v = defence_values(setup, state, who, tn, mean, mask, missile, magical, live)
    # argmax (first of equals) and max over the five defences as a loop over columns:
    # numpy reduces a short last axis slowly.
    best = v[:, 0].copy()
    pick = np.zeros(len(v), dtype=np.intp)
    for j in range(1, v.shape[1]):
        col = v[:, j]
        pick[col > best] = j
        np.maximum(best, col, out=best)
    return np.where(np.isfinite(best), pick, -1)
