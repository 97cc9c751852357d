"""Blows landing: defences (player-facing, one per attack), pools, conditions.

Every function works on (N,) arrays: one blow per skirmish row, `who`/`att` giving the
defender and attacker column of each row, `rows` the rows where a blow happens.
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.lens import challenge as CH
from sim.rulesets.lens import draws as D
from sim.rulesets.lens import policies as P
from sim.rulesets.lens import space
from sim.rulesets.lens import tables as T

# Work done for every row of a batch costs the same whether a row matters or not: a blow
# (or a character's beat) that concerns at most this share of the rows is played on a
# copy of those rows and written back, which is cheaper than dozens of full-size masks.
SUBSET_SHARE = 0.5


class RowTrace:
    """The tracer seen from a subset of rows: the traced skirmish is row `pos` of it."""

    def __init__(self, t, pos: int):
        self._t, self.pos = t, pos

    def line(self, text: str) -> None:
        self._t.line(text)

    def name(self, c: int) -> str:
        return self._t.name(c)


class RowView:
    """Rows `rows` of a state (or of another view): each array is copied out on first use
    and only those are written back by `put_back`, so a blow that never looks at, say,
    the brackets or the item counts does not pay for copying them."""

    def __init__(self, state, rows: np.ndarray):
        self.__dict__["_parent"] = state
        self.__dict__["_rows"] = rows
        self.__dict__["_fetched"] = {}
        for name in state.per_batch:
            self.__dict__[name] = getattr(state, name)
        self.__dict__["per_batch"] = state.per_batch

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._parent, name)
        if isinstance(value, np.ndarray):
            value = value.take(self._rows, axis=0)
            self._fetched[name] = value
        self.__dict__[name] = value
        return value


def subset(state, rows: np.ndarray, t):
    """The rows `rows` of `state`, and the tracer as seen from them (None if not traced)."""
    sub = RowView(state, rows)
    sub_t = None
    if t is not None:
        k = int(np.searchsorted(rows, t.pos))
        if k < len(rows) and rows[k] == t.pos:
            sub_t = RowTrace(t, k)
    return sub, sub_t


# Arrays only the round's start writes (brackets, timing, focus): a view that still holds
# the very array it copied out has nothing to write back. (Not the distances: a nested
# view writes the rows where somebody moved into its parent's copy in place.)
READ_IN_BEATS = frozenset(("bracket", "early", "focus", "rounds"))


def put_back(setup, state, sub, rows: np.ndarray) -> None:
    """Write the arrays a view used back into the rows they came from."""
    fetched = sub._fetched
    for name, part in sub.__dict__.items():
        if name.startswith("_") or name in sub.per_batch:
            continue
        if name in READ_IN_BEATS and part is not None and part is fetched.get(name):
            continue
        full = getattr(state, name)
        if full is None:
            continue
        if part is None and name == "dist":
            # Somebody moved in these rows: their distances are redone, the others' kept.
            part = space.distances(setup, sub)
        if part is None:
            setattr(state, name, None)
        elif isinstance(part, np.ndarray):
            set_rows(full, rows, part)


set_rows = space.set_rows


def _ability_cols(setup) -> np.ndarray:
    cols = setup.extra.get("defence_cols")
    if cols is None:
        cols = setup.extra["defence_cols"] = np.array([setup.abilities.index(a) for a in T.DEFENCE_ABILITY])
    return cols


def _row_table(setup) -> tuple[list, np.ndarray]:
    """The defence rows as one (defence * row + 1, column) table, the last row being "no
    defence" (nothing happens, no condition): one gather per blow instead of one per column."""
    got = setup.extra.get("defence_row_table")
    if got is None:
        names = list(setup.defence_rows)
        cols = [setup.defence_rows[k].reshape(-1) for k in names]
        none = [0 if k not in ("def_cond", "att_cond") else -1 for k in names]
        table = np.concatenate([np.stack(cols, axis=1), np.array([none], dtype=cols[0].dtype)])
        got = setup.extra["defence_row_table"] = (names, table)
    return got


def challenge(setup, who: np.ndarray, ability: np.ndarray, tn, u: np.ndarray, assist=0, interfere=0) -> np.ndarray:
    """Efforts of character who[n] rolling ability[n] against tn[n]."""
    # One flat index for the (combatant, ability) tables, and the tool die and quality
    # modifier only under the variants that read them.
    variant = setup.rules["challenge"]
    A = setup.talent.shape[1]
    idx = np.asarray(who) * A + ability
    pick = lambda table: table.reshape(-1).take(idx)
    return CH.roll(u, pick(setup.talent), pick(setup.training), tn, variant,
                   pick(setup.tool) if variant == "tool_die" else 0,
                   pick(setup.qmod) if variant == "quality_modifier" else 0, assist, interfere)


def _has_alt(setup, d: int) -> bool:
    """Whether a defence's Sacrifice row offers an "or" branch under the chosen readings."""
    return any(v[d, 4] != v[d, 1] for v in setup.defence_rows.values())


def harm(setup, state, who: np.ndarray, amount: np.ndarray, rows: np.ndarray, t=None) -> np.ndarray:
    """Damage into Body, the excess into Void; returns who went down. Rows must be distinct targets."""
    r = np.flatnonzero(rows & (amount > 0) & (state.status[np.arange(len(who)), who] == STANDING))
    if len(r) == 0:
        return np.zeros(len(who), dtype=bool)
    w, a = who[r], amount[r].astype(np.int32)
    off = np.minimum(state.body[r, w], a)
    state.body[r, w] -= off
    state.void[r, w] += a - off
    state.taken[r, w] += a
    rules = setup.rules
    char = setup.is_char[w]
    if rules["zero_body"] == "out":
        down = state.body[r, w] <= 0
    else:
        down = (state.body[r, w] <= 0) & (~char | (state.void[r, w] >= rules["void_limit"]))
    dead = down & ((~char & (rules["monster_at_zero"] == "dead"))
                   | (char & (rules["void_death"] > 0) & (state.void[r, w] >= rules["void_death"])))
    state.status[r[down], w[down]] = np.where(dead[down], DEAD, UNCONSCIOUS)
    state.down_round[r[down], w[down]] = state.round
    out = np.zeros(len(who), dtype=bool)
    out[r[down]] = True
    if t is not None and t.pos in r:
        k = int(np.flatnonzero(r == t.pos)[0])
        c = int(w[k])
        line = f"    {t.name(c)} takes {a[k]}: Body {state.body[t.pos, c]}/{setup.body[c]}"
        line += f", Void {state.void[t.pos, c]}" if state.void[t.pos, c] else ""
        if down[k]:
            line += " -> " + ("DEAD" if dead[k] else "OUT (went zero)")
        t.line(line + ".")
    return out


def inflict(setup, state, who: np.ndarray, conds: np.ndarray, rows: np.ndarray, t=None, why="") -> None:
    """Conditions (N, 4) onto who[n] where rows[n]."""
    conds = conds & rows[:, None]
    if conds.shape[1] == 4:  # the four conditions of a row read as one 32-bit word
        r = np.flatnonzero(conds.view(np.uint32)[:, 0])
    else:
        r = np.flatnonzero(conds.any(axis=1))
    if len(r) == 0:
        return
    state.cond[r, who[r]] |= conds[r]
    state.fresh[r, who[r]] |= conds[r]
    if t is not None and t.pos in r:
        names = [T.CONDITIONS[k] for k in np.flatnonzero(conds[t.pos])]
        t.line(f"    {t.name(who[t.pos])} gains {', '.join(names)}{why}.")


def strike(setup, state, att, who, rows, damage, mask, missile, magical, mean, u, aux, t=None,
           defendable=True) -> np.ndarray:
    """A connecting blow: a monster target soaks with Armor Rating, a character defends.

    u: (N, 15) uniforms (defence roll, stacked Mitigate roll, riposte roll); aux: dict of
    per-round draws (riposte damage (N, C), dodge noise (N, 8)). Returns damage dealt.
    """
    n = len(who)
    missile = np.broadcast_to(np.asarray(missile), (n,))
    magical = np.broadcast_to(np.asarray(magical), (n,))
    mean = np.broadcast_to(np.asarray(mean, dtype=np.float32), (n,))
    rows = rows & (state.status[np.arange(n), who] == STANDING)
    dealt = np.zeros(n, dtype=np.int32)
    r = np.flatnonzero(rows)
    if len(r) == 0:
        return dealt
    if len(r) <= SUBSET_SHARE * n:
        sub, sub_t = subset(state, r, t)
        mask = np.broadcast_to(np.asarray(mask), (n,))
        sub_aux = D.take(aux, r)
        dealt[r] = strike(setup, sub, att[r], who[r], np.ones(len(r), bool), damage[r], mask[r], missile[r],
                          magical[r], mean[r], u[r], sub_aux, sub_t, defendable)
        put_back(setup, state, sub, r)
        return dealt
    mon = rows & ~setup.is_char[who]
    if mon.any():
        # Spells are not soaked by armour; PIERCING (any tag that ignores armour) is not either.
        soak = ~magical & ((mask & setup.tags.armor_piercing_mask) == 0) & (setup.rules["monster_armor"] == "reduce")
        cut = np.where(soak, setup.armor[who], 0)
        d = np.where(mon, np.maximum(damage - cut, 0), 0).astype(np.int32)
        inflict(setup, state, who, setup.tags.conditions(mask), mon & (d > 0), t, " from the tags")
        if t is not None and mon[t.pos] and cut[t.pos]:
            t.line(f"    Armor Rating {cut[t.pos]} takes {damage[t.pos]} down to {d[t.pos]}.")
        harm(setup, state, who, d, mon, t)
        dealt += d
    pc = rows & setup.is_char[who]
    if pc.any():
        dealt += defend(setup, state, att, who, pc, damage, mask, missile, magical, mean, u, aux, t, defendable)
    state.dealt[r, att[r]] += dealt[r]
    return dealt


def defend(setup, state, att, who, rows, damage, mask, missile, magical, mean, u, aux, t, defendable, choice=None):
    """A character's one defence against a blow (player-facing: the defender rolls).

    `choice` forces the defence per row (-1 none) instead of the policy's; tests use it
    to walk every outcome row.
    """
    n = len(who)
    ar_idx = np.arange(n)
    tn = setup.attack_rating[att]
    if choice is not None:
        d = np.asarray(choice)
    elif defendable:
        d = P.choose_defence(setup, state, who, tn, mean, mask, missile, magical, rows)
    else:
        d = np.full(n, -1)
    d = np.where(rows, d, -1)
    has = d >= 0
    dd = np.maximum(d, 0)
    cols = _ability_cols(setup)
    eff = np.where(has, challenge(setup, who, cols[dd], tn, u[:, 0:5]), 0)
    take = setup.pol["take_sacrifice"][who]
    row = np.where((eff == 1) & take, T.SACRIFICE_ALT, eff)
    names, table = _row_table(setup)
    width = (len(table) - 1) // len(T.DEFENCES)  # rows per defence
    Rm = table.take(np.where(has, dd * width + row, len(table) - 1), axis=0)
    R = {k: Rm[:, i] for i, k in enumerate(names)}
    active = has & T.ACTIVE[dd]
    pay = np.flatnonzero(active)
    state.mom[pay, who[pay]] -= 1
    state.spent[pay, who[pay]] += 1
    state.defences[np.flatnonzero(has), who[has]] += 1
    # Damage and tags after the defence row.
    ar = setup.armor[who]
    dmg = damage.astype(np.int32).copy()
    tags = mask.copy()
    dropped = setup.tags.drop_one(tags)
    prefer_tag = setup.pol["mitigate_tag"][who] & (dropped != tags)
    drop = (R["tag"] == 1) | ((R["tag"] == 2) & prefer_tag)
    reduce = (R["ar"] == -1) & ~((R["tag"] == 2) & prefer_tag)
    dmg = np.where(reduce, np.maximum(dmg - ar, 0), dmg)
    dmg = np.where(R["ar"] == 1, dmg + ar, dmg)
    tags = np.where(drop, dropped, tags)
    dmg = np.where(R["negate"] == 2, dmg // 2, dmg)
    negated = R["negate"] == 1
    stacked = np.zeros(n, dtype=bool)
    if setup.rules["defences_per_attack"] == "mitigate_stacks":
        # A failed active defence may still be followed by Mitigate.
        stacked = active & ~negated & (setup.armor[who] > 0) & setup.is_char[who] & \
            ((tags & setup.tags.defeat_mask[T.MITIGATE]) == 0)
        e2 = challenge(setup, who, np.full(n, cols[T.MITIGATE]), tn, u[:, 5:10])
        r2 = np.where((e2 == 1) & take, T.SACRIFICE_ALT, e2)
        m_ar = setup.defence_rows["ar"][T.MITIGATE, r2]
        dmg = np.where(stacked & (m_ar == -1), np.maximum(dmg - ar, 0), np.where(stacked & (m_ar == 1), dmg + ar, dmg))
    dmg = np.where(negated | ~rows, 0, dmg)
    if t is not None and rows[t.pos]:
        p = t.pos
        if has[p]:
            t.line(f"    {t.name(who[p])} defends with {T.DEFENCES[d[p]].upper()} (TN {tn[p]}): "
                   f"{T.OUTCOMES[eff[p]].upper()}"
                   + (" (takes the costly branch)" if row[p] == 4 and _has_alt(setup, d[p]) else "")
                   + (" -> attack nullified" if negated[p] else f" -> {dmg[p]} damage"
                      + (f" ({T.DEFENCES[1]} stacked)" if stacked[p] else "")) + ".")
        else:
            t.line(f"    {t.name(who[p])} does not defend.")
    # Conditions: the attack's tags (if not negated), the defence row's own.
    inflict(setup, state, who, setup.tags.conditions(tags), rows & ~negated & (dmg > 0), t, " from the tags")
    onehot = lambda col: (R[col][:, None] == np.arange(len(T.CONDITIONS))[None, :])
    inflict(setup, state, who, onehot("def_cond"), rows, t)
    inflict(setup, state, att, onehot("att_cond"), rows, t)
    lock = np.flatnonzero(R["lock"] == 1)
    state.locked[lock, who[lock]] = True
    lose = np.flatnonzero(R["momentum"] > 0)
    state.owed[lose, who[lose]] += (state.mom[lose, who[lose]] <= 0)
    state.mom[lose, who[lose]] = np.maximum(state.mom[lose, who[lose]] - 1, 0)
    space.dodge_step(setup, state, who, R["move"] == 1, aux["noise8"])
    harm(setup, state, who, dmg, rows, t)
    riposte = (R["riposte"] == 1) & setup.has_weapon[who]
    if riposte.any():
        e = challenge(setup, who, np.full(n, setup.abilities.index("weapon_use")), setup.defense[att], u[:, 10:15])
        hit = riposte & (e >= 2) & (state.status[ar_idx, att] == STANDING)
        rd = np.zeros(n, np.int32)
        rr = np.flatnonzero(hit)
        rd[rr] = aux["weapon_damage"][rr, who[rr]]
        state.attacks[riposte, who[riposte]] += 1
        state.hits[hit, who[hit]] += 1
        if t is not None and riposte[t.pos]:
            t.line(f"    {t.name(who[t.pos])} ripostes: {T.OUTCOMES[e[t.pos]].upper()}.")
        strike(setup, state, who, att, hit, rd, np.zeros(n, np.int64), False, False,
               setup.weapon_mean[who], u, aux, t, defendable=False)
    return dmg
