"""The Lens skirmish round as array operations over a batch.

A round: Momentum is dealt (3 + bonus, bracket and condition effects); characters who
act before the opponents spend it in beats; the monsters attack (the characters
defend, player-facing); characters who act after spend what is left; unspent Momentum
becomes Recovery. Python loops run over phases, beats (at most a few) and combatants;
every random draw of a round is made with a fixed shape whatever the rows do, so
variants of a scenario stay on common random numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.policy import choose_targets, keep_focus
from sim.rulesets.base import DRAW, STANDING, BatchState, Outcome
from sim.rulesets.lens import actions, policies as P, resolve, space
from sim.rulesets.lens import draws as D
from sim.rulesets.lens import tables as T
from sim.rulesets.lens.setup import Setup, build  # noqa: F401  (build is part of the surface)

BRACKETS = ("Confused", "Off-Balance", "Prepared", "Fluid")


@dataclass
class State(BatchState):
    round: int
    status: np.ndarray
    body: np.ndarray
    void: np.ndarray
    bracket: np.ndarray  # (N, C) 0..3 for characters, -1 for monsters
    mom: np.ndarray
    owed: np.ndarray
    turn_over: np.ndarray
    locked: np.ndarray
    cond: np.ndarray  # (N, C, 4)
    fresh: np.ndarray  # (N, C, 4) gained since the last round started
    formed: np.ndarray
    use_progress: np.ndarray
    items_left: np.ndarray
    attacks: np.ndarray
    hits: np.ndarray
    dealt: np.ndarray
    taken: np.ndarray
    spent: np.ndarray
    defences: np.ndarray
    recovered: np.ndarray
    down_round: np.ndarray
    focus: np.ndarray
    rounds: np.ndarray
    pos: np.ndarray | None = None
    early: np.ndarray | None = None  # (N, C) acts before the opponents this round
    dist: np.ndarray | None = None  # (N, C, C) cells, cached until somebody moves


def _beats(setup: Setup) -> int:
    # Enough beats to spend the largest possible Momentum, plus one for a free (tiny) Use.
    return int(setup.rules["momentum_per_round"] + setup.bonus.max(initial=0) + 2)


def init(setup: Setup, batch) -> State:
    n, C = batch.size, len(setup.names)
    z = lambda dt=np.int32: np.zeros((n, C), dtype=dt)
    u = batch.uniform(C, 5)
    bracket = np.full((n, C), -1, np.int8)
    for c in np.flatnonzero(setup.is_char):
        bracket[:, c] = resolve.challenge(setup, np.full(n, c), np.full(n, setup.init_ability[c]),
                                          int(setup.init_tn[c]), u[:, c])
    state = State(
        round=0, status=z(np.int8), body=np.broadcast_to(setup.body, (n, C)).copy(), void=z(), bracket=bracket,
        mom=z(np.int16), owed=z(np.int16), turn_over=z(bool), locked=z(bool),
        cond=np.zeros((n, C, 4), bool), fresh=np.zeros((n, C, 4), bool),
        formed=np.broadcast_to(setup.auto_cast, (n, C)).copy(), use_progress=z(np.int16),
        items_left=np.broadcast_to(setup.item_uses, (n, C)).copy(), attacks=z(), hits=z(), dealt=z(), taken=z(),
        spent=z(), defences=z(), recovered=z(), down_round=z(), focus=np.full((n, setup.n_sides), -1, np.int16),
        rounds=np.zeros(n, np.int32), pos=space.initial(setup, batch))
    t = batch.trace
    if t:
        for c in np.flatnonzero(setup.is_char):
            t.line(f"Initiative: {t.name(c)} rolls {setup.abilities[setup.init_ability[c]]} against TN "
                   f"{setup.init_tn[c]}: {T.OUTCOMES[bracket[t.pos, c]].upper()} -> {BRACKETS[bracket[t.pos, c]]}.")
        if state.pos is not None:
            from sim.battlefield import text_map
            standing = np.ones(C, bool)
            t.line("Start: " + ", ".join(f"{t.name(c)} {tuple(int(v) for v in state.pos[t.pos, c])}" for c in range(C)))
            labels = [nm[0].upper() if setup.side[c] == 0 else nm[0].lower() for c, nm in enumerate(setup.names)]
            m = text_map(state.pos[t.pos], labels, standing, setup.grid)
            if m:
                t.line(m)
        if setup.rules["surprise"] != "none":
            t.line(f"Surprise: {setup.rules['surprise'].replace('_', ' ')}; they lose the first round's actions.")
    return state


def _start_round(setup: Setup, state: State, surprised_chars: bool, t) -> np.ndarray:
    """Deal Momentum; returns the (N, C) attacks each monster loses this round."""
    standing = state.status == STANDING
    loss = (state.fresh.astype(np.int16) @ setup.cond_loss.astype(np.int16))
    lost_attacks = (state.fresh.astype(np.int16) @ setup.cond_attacks.astype(np.int16))
    state.fresh[:] = False
    state.cond &= setup.cond_lasting[None, None, :]
    early, pay = P.timing(setup, state)
    b = state.bracket
    base = (setup.rules["momentum_per_round"] + setup.bonus[None, :] + (b == 3) - (b == 0) - pay - loss
            - state.owed)
    state.mom[:] = np.where(setup.is_char[None, :] & standing, np.maximum(base, 0), 0)
    state.owed[:] = 0
    state.early = early
    state.locked[:] = False
    state.turn_over[:] = ~standing | ~setup.is_char[None, :] | surprised_chars
    if setup.rules["spell_stays_formed"] == "round":
        state.formed[:] = setup.auto_cast[None, :]
    if t:
        for c in np.flatnonzero(setup.is_char & standing[t.pos]):
            notes = [w for w, on in (("bracket", b[t.pos, c] in (0, 3)), ("goes first, -1", pay[t.pos, c]),
                                     (f"conditions -{loss[t.pos, c]}", loss[t.pos, c])) if on]
            t.line(f"{t.name(c)} ({BRACKETS[b[t.pos, c]]}, acts {'before' if early[t.pos, c] else 'after'} the "
                   f"opponents): {state.mom[t.pos, c]} Momentum" + (f" ({'; '.join(notes)})" if notes else "") + ".")
    return lost_attacks


def _update_focus(setup: Setup, state: State, noise: np.ndarray) -> None:
    """Each side's focus, settled at the round's start (sim.policy.keep_focus)."""
    standing = state.status == STANDING
    for s in range(setup.n_sides):
        state.focus[:, s] = keep_focus(state.focus[:, s], standing & (setup.side != s)[None, :], noise[:, s, :])


# A beat is played on the rows where somebody still acts, copied out and written back,
# once they are at most this share of the batch: after the first beats most characters
# have spent their Momentum, and the copy costs less than full-size masked work.
COMPRESS_SHARE = 0.6


def _phase(setup: Setup, state: State, batch, in_phase: np.ndarray, n: int, C: int, t) -> None:
    chars = np.flatnonzero(setup.is_char)
    for _ in range(_beats(setup)):
        # Draws are made for every row whatever happens (same stream, common random numbers).
        draws = D.beat_draws(setup, batch, n, C)
        # Nobody's turn_over is cleared inside a phase and nobody stands up, so the rows
        # where a character can act at the start of the beat hold every later actor too.
        can = (in_phase & (state.status == STANDING) & ~state.turn_over)[:, chars]
        live = np.zeros(len(can), dtype=bool)
        for j in range(can.shape[1]):  # a loop over the few characters beats .any(axis=1)
            live |= can[:, j]
        rows = np.flatnonzero(live)
        if len(rows) == 0:
            continue
        if len(rows) > COMPRESS_SHARE * n:
            _beat_all(setup, state, chars, in_phase, draws, t)
            continue
        sub, sub_t = resolve.subset(state, rows, t)
        _beat_all(setup, sub, chars, in_phase[rows], D.take(draws, rows), sub_t)
        resolve.put_back(setup, state, sub, rows)


def _beat_all(setup, state, chars, in_phase, draws, t) -> None:
    for c in chars:
        acting = in_phase[:, c] & (state.status[:, c] == STANDING) & ~state.turn_over[:, c]
        if acting.any():
            actions.beat(setup, state, c, acting, draws, t)


def _monster_phase(setup: Setup, state: State, batch, lost: np.ndarray, surprised: bool, n: int, C: int, t):
    S = len(setup.slot_owner)
    um = batch.uniform(max(S, 1), 15)
    noise = batch.uniform(max(S, 1), C)
    noise8 = batch.uniform(max(S, 1), 8)
    rows = batch.chunk_size if batch.crn else n
    dmg = setup.slot_dice.roll(batch.rng, rows) if S else np.zeros((rows, 0), np.int16)
    if batch.crn and n != batch.chunk_size:
        dmg = dmg[batch.ids]
    # One set per blow (read only by ripostes and Dodge's step): a character who ripostes
    # two blows in a round rolls the damage of each.
    wdmg = [D.LazyDice.roll(setup.weapon_dice, batch, n) for _ in range(max(S, 1))]
    if surprised or S == 0:
        return
    modes, idle = P.monster_rules(setup, state, t)
    if state.pos is not None:
        _monsters_close_in(setup, state, idle, t)
    for s in range(S):
        m = int(setup.slot_owner[s])
        standing = state.status == STANDING
        active = standing[:, m] & (setup.slot_rank[s] < _per_round(setup, m) - lost[:, m]) & ~idle[:, m]
        if not active.any():
            continue
        cand = standing & setup.enemy[m][None, :] & space.within(setup, state, m, setup.slot_reach[s])
        mode = (modes[m] if m in modes else np.full(n, setup.policies[m].target, np.int8))[:, None]
        focus = state.focus[:, setup.side[m]][:, None] if setup.uses_focus else None
        dist = space.distances(setup, state)
        tgt = choose_targets(mode, cand[:, None, :], state.body.astype(np.float32), focus, noise[:, s][:, None, :],
                             None if dist is None else dist[:, m][:, None, :])[:, 0]
        go = active & (tgt >= 0)
        if not go.any():
            continue
        tgt = np.maximum(tgt, 0)
        state.attacks[go, m] += 1
        if t is not None and go[t.pos]:
            t.line(f"  {t.name(m)} attacks {t.name(tgt[t.pos])} with {setup.slot_name[s]} "
                   f"({setup.slot_dice.dice[s]}, {setup.tags.describe(int(setup.slot_mask[s]))}; "
                   f"rolls {dmg[t.pos, s]}).")
        d = resolve.strike(setup, state, np.full(n, m), tgt, go, dmg[:, s].astype(np.int32),
                           np.full(n, setup.slot_mask[s]), setup.slot_missile[s], setup.slot_magical[s],
                           setup.slot_mean[s], um[:, s], {"weapon_damage": wdmg[s], "noise8": noise8[:, s]}, t)
        state.hits[go & (d > 0), m] += 1


def _per_round(setup, m):
    return int((setup.slot_owner == m).sum())


def _monsters_close_in(setup: Setup, state: State, idle: np.ndarray, t=None) -> None:
    """Monsters with nobody in reach walk their speed toward the nearest enemy (not those
    whose scripted rules hold this round: `idle`)."""
    n, C = state.status.shape
    standing = state.status == STANDING
    d = space.distances(setup, state)
    movers = np.zeros((n, C), bool)
    target = np.full((n, C), -1, np.int64)
    stop = np.ones((n, C), np.int64)
    for m in np.flatnonzero(~setup.is_char):
        reach = setup.slot_reach[setup.slot_owner == m]
        if len(reach) == 0:
            continue
        foes = standing & setup.enemy[m][None, :]
        dist = np.where(foes, d[:, m, :], 10**6)
        movers[:, m] = standing[:, m] & foes.any(axis=1) & (dist.min(axis=1) > reach.max()) & ~idle[:, m]
        target[:, m] = dist.argmin(axis=1)
        stop[:, m] = max(int(reach.max()), 1)
    if movers.any():
        before = state.pos.copy()
        moved = space.approach(setup, state, movers, target, np.broadcast_to(setup.speed_cells, (n, C)).copy(), stop)
        if t is not None:
            for m in np.flatnonzero(movers[t.pos]):
                t.line(f"  {t.name(m)} moves {actions._cell(before[t.pos, m])} -> "
                       f"{actions._cell(state.pos[t.pos, m])} ({moved[t.pos, m]} cells).")


def step(setup: Setup, state: State, batch) -> None:
    state.round = rnd = batch.round
    n, C = batch.size, len(setup.names)
    t = batch.trace
    if t:
        t.line(f"\n--- Round {rnd} ---")
    surprise = setup.rules["surprise"] if rnd == 1 else "none"
    focus_noise = batch.uniform(setup.n_sides, C)
    lost = _start_round(setup, state, surprise == "party_surprised", t)
    start = state.mom.copy()
    if setup.uses_focus:
        _update_focus(setup, state, focus_noise)
    _phase(setup, state, batch, state.early, n, C, t)
    if t:
        t.line("  (the opponents act)")
    _monster_phase(setup, state, batch, lost, surprise == "monsters_surprised", n, C, t)
    if t:
        t.line("  (characters acting after the opponents)")
    _phase(setup, state, batch, ~state.early, n, C, t)
    _end_round(setup, state, start, t)
    state.rounds[:] = rnd


def _end_round(setup: Setup, state: State, start: np.ndarray, t) -> None:
    standing = (state.status == STANDING) & setup.is_char[None, :]
    left = np.maximum(state.mom, 0) * standing
    gain = np.zeros_like(left)
    if setup.rules["recovery"] == "body":
        gain = np.minimum(left, setup.body[None, :] - state.body).astype(np.int32)
        state.body += gain
        state.recovered += gain
    if t:
        for c in np.flatnonzero(setup.is_char):
            if state.status[t.pos, c] == STANDING or start[t.pos, c]:
                t.line(f"End of round: {t.name(c)} had {start[t.pos, c]} Momentum, spent "
                       f"{start[t.pos, c] - state.mom[t.pos, c]}, left {left[t.pos, c]}"
                       + (f" -> Recovery +{gain[t.pos, c]} Body ({state.body[t.pos, c]}/{setup.body[c]})"
                          if gain[t.pos, c] else "") + ".")


def is_over(setup: Setup, state: State) -> np.ndarray:
    standing = state.status == STANDING
    left = np.zeros(standing.shape[0], np.int16)
    for s in range(setup.n_sides):
        left += _side_standing(setup, standing, s)
    return left <= 1


def _side_standing(setup: Setup, standing: np.ndarray, s: int) -> np.ndarray:
    """(N,) whether anybody of side s stands (a loop over its few columns)."""
    out = np.zeros(standing.shape[0], dtype=bool)
    for j in np.flatnonzero(setup.side == s):
        out |= standing[:, j]
    return out


def outcome(setup: Setup, state: State) -> Outcome:
    standing = state.status == STANDING
    winner = np.full(standing.shape[0], DRAW, np.int16)
    for s in range(setup.n_sides):
        winner[_side_standing(setup, standing, s)] = s
    return Outcome(winner=winner, rounds=state.rounds.copy(), per_combatant={
        "attacks": state.attacks, "hits": state.hits, "damage_dealt": state.dealt, "damage_taken": state.taken,
        "final_state": state.status, "down_round": state.down_round, "momentum_spent": state.spent,
        "defences_used": state.defences, "recovered": state.recovered, "void": state.void,
        "body_left": state.body, "bracket": state.bracket,
    })
