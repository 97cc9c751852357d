"""Gods & Monsters core combat over a batch of skirmishes.

Shapes: N skirmishes (active rows), C combatants, A attack slots (every attack every
combatant may make in a round, flattened), P phases (1 when simultaneous, one per
side when sequential). Every random draw of a round is made up front with a fixed
shape, so variants of a scenario stay on common random numbers. Decisions, focus and
movement are array operations; the attack phases that follow the draws run row by
row in a compiled kernel (kernels.py), which uses the same draws, so results are
those of the array code it replaced, bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim import battlefield as bf
from sim.dice import DiceTable
from sim.policy import TARGET_MODES
from sim.rulesets.base import DEAD, DRAW, FLED, STANDING, UNCONSCIOUS, BatchState, Outcome
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters import movement, situations
from sim.rulesets.gods_and_monsters.policies import decide, observe  # noqa: F401 (observe: for scripted rules)
from sim.rulesets.gods_and_monsters.lastaxis import any_last

ATTACK, HOLD, FLEE = (S.ACTIONS.index(a) for a in ("attack", "hold", "flee"))
FOCUS = TARGET_MODES.index("focus")
HEALTH_MODES = (TARGET_MODES.index("weakest"), TARGET_MODES.index("strongest"))
RANDOM, NEAREST = TARGET_MODES.index("random"), TARGET_MODES.index("nearest")
AUTO, ADVANCE, HOLD_GROUND, KITE, WITHDRAW = range(len(S.MOVES))


@dataclass
class Setup:
    """Static arrays compiled from a scenario (one entry per combatant or attack slot)."""
    names: list[str]
    side: np.ndarray  # (C,)
    n_sides: int
    survival: np.ndarray
    verve: np.ndarray
    perception: np.ndarray
    willpower: np.ndarray
    fortitude: np.ndarray
    defense: np.ndarray
    uses_verve: np.ndarray  # (C,) bool
    awareness: list[str]
    surprise_target: np.ndarray  # (C,) d20 <= this avoids surprise; large if no roll
    snap_target: np.ndarray
    slot_owner: np.ndarray  # (A,)
    slot_name: list[str]
    slot_target_base: np.ndarray  # (A,) 11 + combat + attack + weapon attack
    slot_dice: DiceTable
    slot_damage_bonus: np.ndarray  # (A,) added to the dice table's own bonus
    owner_onehot: np.ndarray  # (A, C) float32, sums slot counters per combatant
    enemy: np.ndarray  # (C, C) bool
    policies: list
    flee_below: np.ndarray  # (C,)
    flee_after_bad_round: np.ndarray  # (C,) bool
    default_target: np.ndarray  # (C,) int8
    scripted: list[int]  # combatants whose policy has rules
    uses_focus: bool
    rules: dict
    grid: bf.Grid
    layout: object
    slot_reach: np.ndarray  # (A,) cells: melee reach, or range for missile weapons
    slot_earlier: np.ndarray  # (A, A) float32: [b, a] = b is an earlier weapon of a's owner
    first_slot: np.ndarray  # (C,) the owner's first slot (its noise row steers movement)
    max_reach: np.ndarray  # (C,) cells of the longest reach or range
    move_mode: np.ndarray  # (C,) resolved: advance, hold, kite or withdraw
    move_cells: np.ndarray  # (C,)
    kite_cells: np.ndarray  # (C,)
    may_move: bool
    static_dist: np.ndarray | None  # (C, C) when nobody can ever need to move, else None
    has_alternatives: bool  # some combatant carries several weapons
    slot_entries: list | None = None  # the weapon records behind the slots
    sx: object = None  # situations.Situations, or None when the scenario uses none (the core round)
    evasion: np.ndarray | None = None
    uses_health: bool = True  # some policy targets the weakest or strongest (needs health left per round)
    kernel: object = None  # kernels.KernelArrays: the slots as the compiled round takes them (made on first use)


@dataclass
class State(BatchState):
    # Fields that change every round whatever happens; the engine's stall check ignores them.
    counters = ("attacks", "rounds")
    round: int
    status: np.ndarray  # (N, C) int8 final-state codes
    verve: np.ndarray
    survival: np.ndarray
    injuries: np.ndarray
    surprised: np.ndarray  # (N, C) bool, currently surprised
    was_surprised: np.ndarray  # (N, C) bool, surprised at the start
    attacks: np.ndarray
    hits: np.ndarray
    dealt: np.ndarray
    taken: np.ndarray
    last_dealt: np.ndarray
    last_taken: np.ndarray
    down_round: np.ndarray
    focus: np.ndarray  # (N, sides) the side's focus target or -1
    rounds: np.ndarray  # (N,)
    pos: np.ndarray  # (N, C, 2) cells
    dist: np.ndarray | None = None  # (N, C, C) distances between the cells in pos (movement.move keeps it)
    # Special situations (None unless the scenario uses them; see situations.py)
    xrng: object = None  # the situations' own random stream, so the core draws stay in step
    asleep: np.ndarray | None = None  # (N, C) bool: immobile, cannot act
    wake_round: np.ndarray | None = None  # (N, C) round at whose start a sleeper wakes
    bound: np.ndarray | None = None  # (N, C) tied up
    held: np.ndarray | None = None  # (N, C) int8 HELD_* state as a target
    held_by: np.ndarray | None = None  # (N, C) int16 holder or -1
    holding: np.ndarray | None = None  # (N, C) int16 held target or -1
    covering: np.ndarray | None = None  # (N, C) int16 covered target or -1
    loaded: np.ndarray | None = None  # (N, A) actions done toward the next use
    free_used: np.ndarray | None = None  # (N, A) the free action of this use is spent
    drawn: np.ndarray | None = None  # (N, C)
    spell_uses: np.ndarray | None = None  # (N, S)
    cast_last: np.ndarray | None = None  # (N, C) cast or tried to cast last round


def strength_bonus(strength, table: dict) -> int:
    if strength is None:
        return 0
    levels = sorted((int(k), int(v)) for k, v in table.items())
    bonus = 0
    for level, value in levels:
        if strength >= level:
            bonus = value
    return bonus


def build(scenario) -> Setup:
    rules = scenario.rules
    cs = scenario.combatants
    C = len(cs)
    stat = lambda key: np.array([c.stats[key] for c in cs], dtype=np.int32)
    side = np.array([c.side for c in cs], dtype=np.int16)
    verve_arch = {a.lower() for a in rules["verve_archetypes"]}
    uses_verve = np.array([any(a.lower() in verve_arch for a in c.stats["archetypes"]) for c in cs])
    awareness = [c.stats["awareness"] for c in cs]
    perception = stat("perception")
    never = np.full(C, 10**6, dtype=np.int32)
    rolls = np.array([a != "aware" or rules["surprise_roll_for_aware"] for a in awareness])
    mods = np.array([S.AWARENESS_SURPRISE_MODIFIER[a] for a in awareness], dtype=np.int32)
    surprise_target = np.where(rolls, perception + mods, never)
    willpower, fortitude = stat("willpower"), stat("fortitude")
    snap = {"best": np.maximum(willpower, fortitude), "willpower": willpower, "fortitude": fortitude}[
        rules["snap_out_roll"]]

    grid = scenario.battlefield
    owners, names, bases, dice, bonuses, reach, choice_group, entries_all = [], [], [], [], [], [], [], []
    for i, c in enumerate(cs):
        # `attacks` are all made every round; `weapons` are alternatives: each round the
        # first one (in the listed order) that reaches an enemy is used.
        entries = [(e, -1) for e in c.stats["attacks"]] or [(e, i) for e in c.stats["weapons"]]
        extra = c.stats["damage_bonus"] + strength_bonus(c.stats["strength"], rules["strength_damage_bonus"])
        for e, group in entries:
            owners.append(i)
            names.append(e["name"])
            bases.append(S.BASE_TARGET + c.stats["combat"] + c.stats["attack"] + e["attack"])
            dice.append(e["damage"])
            bonuses.append(extra)
            reach.append(grid.cells(e["range"] if e["range"] else e["reach"]))
            choice_group.append(group)
            entries_all.append(e)
    slot_owner = np.array(owners, dtype=np.int16)
    group = np.array(choice_group)
    idx = np.arange(len(owners))
    slot_earlier = ((group[:, None] == group[None, :]) & (group[:, None] >= 0)
                    & (idx[:, None] < idx[None, :])).astype(np.float32)
    slot_reach = np.array(reach, dtype=np.int32)
    ranged = np.array([bool(e["range"]) for c in cs for e in (c.stats["attacks"] or c.stats["weapons"])])
    spell_reach = [max([grid.cells(sp["range"]) for sp in c.stats["spells"]], default=0) for c in cs]
    max_reach = np.array([max(slot_reach[slot_owner == i].max(), spell_reach[i]) for i in range(C)], dtype=np.int32)
    has_ranged = np.array([ranged[slot_owner == i].any() for i in range(C)])
    modes = np.array([S.MOVES.index(c.policy.params["move"]) for c in cs], dtype=np.int8)
    move_mode = np.where(modes == AUTO, np.where(has_ranged, KITE, ADVANCE), modes).astype(np.int8)
    owner_onehot = (slot_owner[:, None] == np.arange(C)[None, :]).astype(np.float32)
    enemy = side[:, None] != side[None, :]
    policies = [c.policy for c in cs]
    setup = _drop_unused_alternatives(Setup(
        names=[c.name for c in cs], side=side, n_sides=len(scenario.side_names),
        survival=stat("survival"), verve=stat("verve"), perception=perception, willpower=willpower,
        fortitude=fortitude, defense=stat("defense"), uses_verve=uses_verve, awareness=awareness,
        surprise_target=surprise_target, snap_target=snap,
        slot_owner=slot_owner, slot_name=names, slot_target_base=np.array(bases, dtype=np.int32),
        slot_dice=DiceTable(dice), slot_damage_bonus=np.array(bonuses, dtype=np.int32),
        owner_onehot=owner_onehot, enemy=enemy, policies=policies,
        flee_below=np.array([p.params["flee_below"] for p in policies], dtype=np.float64),
        flee_after_bad_round=np.array([p.params["flee_after_bad_round"] for p in policies]),
        default_target=np.array([p.target for p in policies], dtype=np.int8),
        scripted=[i for i, p in enumerate(policies) if p.rules],
        uses_focus=any(p.target == FOCUS or any(r.target == FOCUS for r in p.rules) for p in policies),
        uses_health=any(p.target in HEALTH_MODES or any(r.target in HEALTH_MODES for r in p.rules) for p in policies),
        rules=rules, grid=grid, layout=scenario.layout, slot_reach=slot_reach, slot_earlier=slot_earlier,
        first_slot=np.array([np.flatnonzero(slot_owner == i)[0] for i in range(C)]),
        max_reach=max_reach, move_mode=move_mode,
        move_cells=np.array([grid.cells(c.stats["movement"]) for c in cs], dtype=np.int32),
        kite_cells=np.array([grid.cells(c.policy.params["kite_distance"]) for c in cs], dtype=np.int32),
        may_move=bool((move_mode != HOLD_GROUND).any()),
        has_alternatives=bool(slot_earlier.any()),
        static_dist=movement.static_distances(scenario.layout, grid, enemy, max_reach, move_mode),
        evasion=stat("evasion"), slot_entries=entries_all,
    ))
    # The situations are compiled from the slots that are left.
    setup.sx = situations.build_situations(scenario, setup.slot_owner, setup.slot_entries, grid)
    return setup


def _drop_unused_alternatives(setup: Setup) -> Setup:
    """Remove alternative weapons that can never be drawn.

    When nobody ever moves and a combatant's first weapon reaches every enemy, its other
    weapons are never used; dropping their slots saves every per-slot draw and array
    (a dagger-and-staff monk otherwise costs a fifth more per round in the Yeti fight).
    """
    if setup.static_dist is None or not setup.has_alternatives:
        return setup
    enemy_dist = np.where(setup.enemy, setup.static_dist, 0)
    keep = np.ones(len(setup.slot_owner), dtype=bool)
    for a, owner in enumerate(setup.slot_owner):
        earlier = np.flatnonzero(setup.slot_earlier[:, a])
        # A weapon needing several actions is not always ready: what follows it is kept.
        if len(earlier) and setup.slot_entries[earlier[0]]["actions"] == 1 \
                and (enemy_dist[owner] <= setup.slot_reach[earlier[0]]).all():
            keep[a] = False
    if keep.all():
        return setup
    idx = np.flatnonzero(keep)
    owner = setup.slot_owner[idx]
    return replace(
        setup, slot_owner=owner, slot_name=[setup.slot_name[i] for i in idx],
        slot_target_base=setup.slot_target_base[idx],
        slot_dice=DiceTable([setup.slot_dice.dice[i] for i in idx]),
        slot_damage_bonus=setup.slot_damage_bonus[idx], owner_onehot=setup.owner_onehot[idx],
        slot_reach=setup.slot_reach[idx], slot_earlier=setup.slot_earlier[np.ix_(idx, idx)],
        first_slot=np.array([np.flatnonzero(owner == i)[0] for i in range(len(setup.names))]),
        has_alternatives=bool(setup.slot_earlier[np.ix_(idx, idx)].any()),
        slot_entries=[setup.slot_entries[i] for i in idx],
    )


def init(setup: Setup, batch) -> State:
    n, C = batch.size, len(setup.names)
    zeros = lambda dtype=np.int32: np.zeros((n, C), dtype=dtype)
    roll = batch.d(20, C)
    # Injuries are 0 at the start, so the surprise roll has no injury penalty.
    surprised = roll > setup.surprise_target[None, :]
    t = batch.trace
    if t:
        for c in range(C):
            if setup.surprise_target[c] < 10**6:
                r, need = int(roll[t.pos, c]), int(setup.surprise_target[c])
                t.line(f"Surprise: {t.name(c)} ({setup.awareness[c]}) rolls {r} against Perception "
                       f"{need}: {'SURPRISED' if surprised[t.pos, c] else 'not surprised'}.")
    state = State(
        round=0, status=zeros(np.int8), verve=np.broadcast_to(setup.verve, (n, C)).copy(),
        survival=np.broadcast_to(setup.survival, (n, C)).copy(), injuries=zeros(),
        surprised=surprised, was_surprised=surprised.copy(), attacks=zeros(), hits=zeros(), dealt=zeros(),
        taken=zeros(), last_dealt=zeros(), last_taken=zeros(), down_round=zeros(np.int32),
        focus=np.full((n, setup.n_sides), -1, dtype=np.int16), rounds=np.zeros(n, dtype=np.int32),
        pos=setup.layout.place(batch),
    )
    if setup.sx is not None:
        from sim.rulesets.gods_and_monsters import extended
        extended.init_state(setup, state, batch)
    if t:
        t.line("Starting positions (x, y), 1 cell = "
               f"{setup.grid.cell_size:g} {setup.grid.unit}: " + ", ".join(
                   f"{t.name(c)} ({state.pos[t.pos, c, 0]}, {state.pos[t.pos, c, 1]})" for c in range(C)))
        movement.trace_map(t, setup, state, np.ones(C, dtype=bool)[None].repeat(batch.size, 0))
    return state


def core_draws(setup: Setup, batch):
    """Every draw of a core round, in one fixed order and shape whatever the state.

    Both the core round and the extended round (special situations) take their dice
    from here, so with every situation switched off they play identical fights, and
    variants of a scenario stay on common random numbers.
    """
    n, C, A = batch.size, len(setup.names), len(setup.slot_owner)
    rules = setup.rules
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
    return snap_roll, noise, focus_noise, attack_roll, damage, phases, health_roll, death_roll


def step(setup: Setup, state: State, batch) -> None:
    if setup.sx is not None:
        from sim.rulesets.gods_and_monsters import extended
        return extended.step(setup, state, batch)
    # Numba (and what it loads on first use) only when a scenario plays the core round.
    from sim.rulesets.gods_and_monsters import kernels as K
    rules = setup.rules
    state.round = rnd = batch.round
    C = len(setup.names)
    t = batch.trace
    if t:
        t.line(f"\n--- Round {rnd} ---")

    # Every draw of the round, up front and in a fixed order (common random numbers).
    snap_roll, noise, focus_noise, attack_roll, damage, phases, health_roll, death_roll = core_draws(setup, batch)

    standing = state.status == STANDING
    injury_pen = state.injuries if rules["injury_penalty"] == "all_rolls" else 0

    # Snapping out of surprise, at the start of every round after the first.
    if rnd > 1 and state.surprised.any():
        snapped = state.surprised & (snap_roll <= (setup.snap_target[None, :] - injury_pen))
        if t:
            for c in np.flatnonzero(state.surprised[t.pos] & standing[t.pos]):
                t.line(f"{t.name(c)} tries to snap out of surprise: rolls {snap_roll[t.pos, c]} against "
                       f"{setup.snap_target[c] - (injury_pen[t.pos, c] if np.ndim(injury_pen) else 0)}: "
                       f"{'snaps out' if snapped[t.pos, c] else 'still surprised (-2 defense, -3 to rolls)'}.")
        state.surprised &= ~snapped

    action, target_mode = decide(setup, state, standing)
    fleeing = standing & (action == FLEE)
    if fleeing.any():
        state.status[fleeing] = FLED
        state.down_round[fleeing] = rnd
        if t:
            for c in np.flatnonzero(fleeing[t.pos]):
                t.line(f"{t.name(c)} flees the fight.")
        standing = state.status == STANDING

    if setup.uses_focus:
        _update_focus(setup, state, standing, focus_noise)

    # The kernel applies the attack modifiers of the round; movement and the trace need who lost it.
    lose_round = rules["surprised_first_round"] == "lose_round"
    if t or setup.static_dist is None:
        lost_round = (rnd == 1) & state.surprised & lose_round
    if t:
        for c in np.flatnonzero(standing[t.pos] & lost_round[t.pos]):
            t.line(f"{t.name(c)} is surprised and cannot act this round.")

    if setup.static_dist is not None:
        dist = setup.static_dist[None]
    else:
        dist = movement.move(setup, state, standing, standing & ~lost_round & (action != HOLD), target_mode, noise, t)
    if setup.kernel is None:
        setup.kernel = K.kernel_arrays(setup)
    k = setup.kernel
    check_now = rules["health_check"] == "immediate" or phases == 1
    guide = death_roll is not None
    trace_slots = np.zeros((phases, 4, len(setup.slot_owner)), dtype=np.int32)
    trace_comb = np.zeros((phases + 1, 7, C), dtype=np.int32)
    K.attack_phases(
        rnd, phases, check_now, lose_round,
        int(rules["surprised_first_round_penalty"]), rules["injury_penalty"] == "all_rolls", guide,
        setup.static_dist is None,
        state.status, state.verve, state.survival, state.injuries, state.surprised, state.down_round,
        state.attacks, state.hits, state.dealt, state.taken, state.last_dealt, state.last_taken,
        action, target_mode, state.focus, noise, np.ascontiguousarray(dist), attack_roll, damage, health_roll,
        death_roll if guide else k.no_death_roll,
        k.slots[phases], setup.enemy, setup.uses_verve, setup.fortitude, setup.defense,
        t.pos if t else -1, trace_slots, trace_comb, *K.scratch(len(setup.slot_owner), C))
    if t:
        K.trace_round(t, setup, phases, check_now, trace_slots, trace_comb, attack_roll, damage, health_roll)
    state.rounds[:] = rnd


def _update_focus(setup: Setup, state: State, standing: np.ndarray, focus_noise: np.ndarray) -> None:
    for s in range(setup.n_sides):
        enemies = standing & (setup.side != s)[None, :]
        current = state.focus[:, s]
        ok = (current >= 0) & np.take_along_axis(enemies, np.maximum(current, 0)[:, None].astype(np.intp),
                                                 axis=1)[:, 0]
        fresh = np.where(enemies, focus_noise[:, s, :], -1.0).argmax(axis=1)
        state.focus[:, s] = np.where(ok, current, np.where(enemies.any(axis=1), fresh, -1))


def _apply_damage(setup: Setup, state: State, taken: np.ndarray, t, direct: np.ndarray | None = None) -> np.ndarray:
    """Verve first where fighting is archetypal, then survival, then injuries.

    `direct` are injury points dealt straight (knockout and killing blows).
    Returns where a roll to stay conscious is owed: survival just reached 0, or injuries grew.
    The extended round uses this; the core round's kernel (kernels._apply_damage) mirrors it.
    """
    left = taken.copy()
    off_verve = np.where(setup.uses_verve[None, :], np.minimum(state.verve, left), 0)
    state.verve -= off_verve
    left -= off_verve
    had_survival = state.survival > 0
    off_survival = np.minimum(state.survival, left)
    state.survival -= off_survival
    left -= off_survival
    state.injuries += left
    active = state.status == STANDING
    owed = active & ((had_survival & (state.survival == 0) & (taken > 0)) | (left > 0))
    if direct is not None:
        state.injuries += direct
        owed |= active & (direct > 0)
        taken = taken + direct
    if t:
        for c in np.flatnonzero(taken[t.pos] > 0):
            t.line(f"  {t.name(c)} takes {taken[t.pos, c]}: verve {state.verve[t.pos, c]}, survival "
                   f"{state.survival[t.pos, c]}, injuries {state.injuries[t.pos, c]}.")
    return owed


def _health_checks(setup: Setup, state: State, owed: np.ndarray, roll: np.ndarray, death_roll, rnd: int, t) -> None:
    # The extended round's; the core round's kernel (kernels._health_checks) mirrors it.
    if not owed.any():
        return
    # Death first: a combatant past its limit is dead whether or not it stays conscious.
    if setup.rules["death_rule"] == "injuries_exceed_fortitude":
        dies = owed & (state.injuries > setup.fortitude[None, :])
    else:
        guide = death_roll[..., 0] <= state.injuries
        dies = owed & (state.injuries > 0) & guide & (death_roll[..., 1] > setup.fortitude[None, :])
    need = setup.fortitude[None, :] - state.injuries - S.SURPRISED_ROLL_PENALTY * state.surprised
    faints = owed & ~dies & (roll > need)
    if t:
        for c in np.flatnonzero(owed[t.pos]):
            if dies[t.pos, c]:
                t.line(f"  {t.name(c)} dies ({state.injuries[t.pos, c]} injuries).")
            else:
                t.line(f"  {t.name(c)} rolls to stay conscious: {roll[t.pos, c]} against {need[t.pos, c]}: "
                       f"{'falls UNCONSCIOUS' if faints[t.pos, c] else 'stays conscious'}.")
    np.putmask(state.status, dies, DEAD)
    np.putmask(state.status, faints, UNCONSCIOUS)
    np.putmask(state.down_round, dies | faints, rnd)


def row_bytes(setup: Setup) -> int:
    """Rough peak bytes of one skirmish's round: (attack slots x combatants) float and int
    temporaries dominate (measured about 24 bytes per pair with a thousand combatants).
    The core round's kernel needs less, but the estimate stays: it sets how a big chunk
    is sliced, and so the order of its random draws."""
    return 32 * len(setup.slot_owner) * len(setup.names) + 256 * len(setup.names)


def _side_alive(setup: Setup, standing: np.ndarray, s: int) -> np.ndarray:
    # An OR over the side's columns (a short-axis any() is several times slower).
    return any_last(standing[:, setup.side == s])


def is_over(setup: Setup, state: State) -> np.ndarray:
    standing = state.status == STANDING
    sides_left = np.zeros(standing.shape[0], dtype=np.int16)
    for s in range(setup.n_sides):
        sides_left += _side_alive(setup, standing, s)
    return sides_left <= 1


def outcome(setup: Setup, state: State) -> Outcome:
    standing = state.status == STANDING
    n = standing.shape[0]
    winner = np.full(n, DRAW, dtype=np.int16)
    for s in range(setup.n_sides):
        alive = _side_alive(setup, standing, s)
        winner[alive] = s  # is_over guarantees at most one side is left
    return Outcome(winner=winner, rounds=state.rounds.copy(), per_combatant={
        "attacks": state.attacks, "hits": state.hits, "damage_dealt": state.dealt, "damage_taken": state.taken,
        "final_state": state.status, "down_round": state.down_round,
        "surprised": state.was_surprised, "verve_left": state.verve, "survival_left": state.survival,
        "injuries": state.injuries,
    })
