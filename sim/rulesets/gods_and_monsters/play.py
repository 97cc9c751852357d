"""The surface the core calls: play a chunk, trace one skirmish, warm the kernel."""
from __future__ import annotations

import numpy as np

from sim import events
from sim.rulesets.base import Outcome
from sim.rulesets.base import STANDING
from sim.rulesets.gods_and_monsters import tables as T
from sim.rulesets.gods_and_monsters.tables import G_ADJ, G_CALLED, G_CORE, NSL, NW, Setup

START_KEYS = ("verve", "survival", "injuries", "status", "surprised")
# Conditions a start may carry in besides; each left out takes its value in a fresh skirmish.
CONDITION_KEYS = ("asleep", "bound", "held", "held_by", "holding", "drawn", "loaded", "spell_uses")
# Conditions a scenario alone may never reach, so a start carrying them plays every situation.
_UNREACHED = ("asleep", "bound", "held", "held_by", "holding")
COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken", "final_state", "down_round", "surprised",
           "verve_left", "survival_left", "injuries")
# A cold compile on the idle 2-core machine: 36 CPU-s (December
# 2026; 216 before the compile-cost work, docs/performance.md "Compile cost").
COMPILE_ESTIMATE_S = 40
_DTYPES = {"final_state": np.int8, "surprised": np.int8}  # the rest int32


def _tables(setup: Setup, start=None) -> tuple:
    flags = setup.flags
    if start is not None and set(start) & set(_UNREACHED):
        # A given start may hold what the scenario alone never reaches (holds, sleep):
        # no situation is skipped.
        flags = flags.copy()
        flags[G_CALLED:G_ADJ + 1] = 1
        flags[G_CORE] = 0
    return (flags, setup.ct, setup.cf, setup.st, setup.sp, setup.pair_mod, setup.close_reach,
            setup.cell_size)


def _policy(setup: Setup) -> tuple:
    t = setup.table
    return (t.op, t.arg, t.const, t.rule_code, t.rule_action, t.rule_target, t.rule_first, t.reads)


def initial_state(setup: Setup, n: int) -> dict:
    """The `start` of n fresh skirmishes with nobody surprised: every key play() takes but
    `asleep` and `holding` (left out, they follow from surprised and held_by), for a
    caller to change the few it carries in."""
    ct, st, C = setup.ct, setup.st, setup.ct.shape[1]
    full = lambda row: np.tile(row, (n, 1)).astype(np.int64)  # noqa: E731
    zeros = np.zeros((n, C), dtype=np.int64)
    uses = setup.sp[T.P_USES, :len(setup.spell_names)]
    return {"verve": full(ct[T.C_VERVE]), "survival": full(ct[T.C_SURV]), "injuries": zeros.copy(),
            "status": np.full((n, C), STANDING, dtype=np.int64), "surprised": zeros.copy(),
            "bound": zeros.copy(), "held": zeros.copy(),
            "held_by": np.full((n, C), -1, dtype=np.int64),
            "drawn": full(ct[T.C_DRAWN0]), "loaded": full(st[T.S_LOADED0]),
            "spell_uses": full(np.where(uses >= T.NEVER, -1, uses))}


def _array(start, key, n, width) -> np.ndarray:
    try:
        a = np.broadcast_to(np.asarray(start[key]), (n, width))
    except ValueError:
        raise ValueError(f"`start[{key!r}]` has shape {np.shape(start[key])}; give ({n}, {width}) "
                         f"or ({width},)") from None
    # Writable as well as contiguous: broadcast_to's read-only view is another type to
    # Numba, and a start given that way compiled the whole chunk kernel a second time.
    return np.require(a, np.int64, ["C", "W"])


def _conditions(setup: Setup, start, n: int, C: int) -> tuple:
    """The carried-in conditions as the kernel's arrays, each checked against the rules."""
    ct, st, sp = setup.ct, setup.st, setup.sp
    A, S = st.shape[1], len(setup.spell_names)
    unknown = set(start) - set(START_KEYS) - set(CONDITION_KEYS)
    if unknown:
        raise ValueError(f"`start` has unknown key(s) {', '.join(sorted(unknown))}; known: "
                         f"{', '.join(START_KEYS + CONDITION_KEYS)}")
    fresh = {**initial_state(setup, 1), "holding": np.full((1, C), -1, dtype=np.int64),
             "asleep": np.zeros((1, C), dtype=np.int64)}
    get = lambda k, w: _array(start, k, n, w) if k in start else _array(fresh, k, n, w)  # noqa: E731
    surprised = _array(start, "surprised", n, C)
    if "asleep" in start:
        # Carried in asleep: as after a sleep spell, until something wakes it.
        asleep = (get("asleep", C) != 0).astype(np.int64)
        wake = np.full((n, C), T.NEVER, dtype=np.int64)
    else:
        # The scenario's own sleepers: as in a fresh skirmish, awake at the start of round 2.
        asleep = ((setup.flags[T.G_SLEEPERS] != 0) & (surprised != 0) & (ct[T.C_SLEEPER] != 0)[None, :])
        asleep = asleep.astype(np.int64)
        wake = np.where(asleep == 1, 2, T.NEVER)
        asleep[surprised < 0] = -1  # surprise rolled in the kernel, which puts them to sleep
    bound = (get("bound", C) != 0).astype(np.int64)
    held, held_by = get("held", C), get("held_by", C)
    if not np.isin(held, (T.HELD_NONE, T.HELD_GRABBED, T.HELD_IMMOBILIZED)).all():
        raise ValueError("`start['held']` takes 0 (free), 1 (grabbed) or 2 (immobilized)")
    if ((held_by < -1) | (held_by >= C)).any() or ((held > 0) != (held_by >= 0)).any():
        raise ValueError("`start['held_by']` gives the holder's index where `held` is 1 or 2, else -1")
    if (held_by == np.arange(C)[None, :]).any():
        raise ValueError("`start['held_by']`: nobody holds itself")
    holding = np.full((n, C), -1, dtype=np.int64)
    rows = np.arange(n)
    for c in range(C):
        by = held_by[:, c] >= 0
        if (holding[rows[by], held_by[by, c]] >= 0).any():
            raise ValueError("`start['held_by']`: a holder holds one combatant at a time")
        holding[rows[by], held_by[by, c]] = c
    if "holding" in start and (get("holding", C) != holding).any():
        raise ValueError("`start['holding']` disagrees with `held_by` (holding[h] = c where held_by[c] = h)")
    drawn = (get("drawn", C) != 0).astype(np.int64)
    loaded = get("loaded", A)
    if ((loaded < 0) | (loaded > st[T.S_ACTIONS][None, :] - 1)).any():
        raise ValueError("`start['loaded']` counts the actions done per attack slot, 0 to the weapon's "
                         "actions - 1 (ready to fire)")
    uses = np.zeros((n, sp.shape[1]), dtype=np.int64)
    if S:
        given = get("spell_uses", S)
        uses[:, :S] = np.where(given < 0, T.NEVER, given)  # -1: unlimited
    return asleep, wake, bound, held, held_by, holding, drawn, loaded, uses


def _start(setup: Setup, start, n: int) -> tuple:
    C = setup.ct.shape[1]
    if start is None:
        empty = np.zeros((1, 1), dtype=np.int64)
        return (T.START_NONE, empty, empty, empty, empty, empty, (empty,) * 9)
    missing = [k for k in START_KEYS if k not in start]
    if missing:
        raise ValueError(f"`start` lacks {', '.join(missing)}; give (n, C) arrays of {', '.join(START_KEYS)} "
                         f"(play.initial_state(setup, n) gives them all)")
    arrays = [_array(start, k, n, C) for k in START_KEYS]
    kind = T.START_WITH_CONDITIONS if set(start) - set(START_KEYS) else T.START_PLAIN
    return (kind, *arrays, _conditions(setup, start, n, C))


def new_outcome(setup: Setup, n: int) -> Outcome:
    """An Outcome of n rows to be filled (play_into), in the types play returns."""
    C = setup.ct.shape[1]
    per = {k: np.empty((n, C), dtype=_DTYPES.get(k, np.int32)) for k in COLUMNS}
    per["surprised"] = per["surprised"].view(np.bool_)
    return Outcome(winner=np.empty(n, dtype=np.int16), rounds=np.empty(n, dtype=np.int32), per_combatant=per)


def play_into(setup: Setup, seed: int, first_skirmish: int, n: int, max_rounds: int, out: Outcome, row: int) -> int:
    """play(), the skirmishes written into rows row .. row + n - 1 of `out` (new_outcome):
    a run of many chunks fills its joined table without copying each chunk again.
    Returns the number of stalled skirmishes."""
    rows = slice(row, row + n)
    per = {k: v[rows].view(np.int8) if k == "surprised" else v[rows] for k, v in out.per_combatant.items()}
    return _run(setup, seed, first_skirmish, n, max_rounds, None, -1, events.no_buffer(),
                (out.winner[rows], out.rounds[rows], per)).stalled


def _run(setup: Setup, seed: int, first: int, n: int, max_rounds: int, start, trace_row: int, buffer, into=None):
    from sim.rulesets.gods_and_monsters.kernel import play_chunk
    C, A = setup.ct.shape[1], setup.st.shape[1]
    i64 = lambda shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
    if into is None:
        # The kernel writes every row in the outcome's types (surprised as 0/1 bytes, viewed as bool).
        into = (np.empty(n, dtype=np.int16), np.empty(n, dtype=np.int32),
                {k: np.empty((n, C), dtype=_DTYPES.get(k, np.int32)) for k in COLUMNS})
    winner, rounds, per = into
    stalled, uses_left = i64(1), i64((n, setup.sp.shape[1]))
    out = (winner, rounds, per["attacks"], per["hits"], per["damage_dealt"], per["damage_taken"],
           per["final_state"], per["down_round"], per["surprised"], per["verve_left"], per["survival_left"],
           per["injuries"], stalled, uses_left)
    scratch = (i64((C, C)), i64((C, C)), i64(setup.sp.shape[1]), i64(int(setup.flags[0])),
               np.zeros(C, dtype=np.bool_), np.zeros(C), np.zeros(C), np.zeros(len(setup.table.reads[0]) + C),
               np.zeros(setup.table.stack_size), np.zeros((C, len(setup.table.reads[0]))))
    ev, cnt = buffer
    play_chunk(np.uint64(seed), first, n, max_rounds, _tables(setup, start), _policy(setup), setup.zone, setup.zone_ptr,
               _start(setup, start, n), out, i64((NW, C)), i64((NSL, A)), scratch, i64(max(1, len(setup.zone))),
               trace_row, ev, cnt, i64((7, max(A, C))))
    per["surprised"] = per["surprised"].view(np.bool_)
    outcome = Outcome(winner=winner, rounds=rounds, per_combatant=per)
    outcome.stalled = int(stalled[0])
    uses_left = uses_left[:, :len(setup.spell_names)]
    outcome.per_spell = {"spell_uses_left": np.where(uses_left >= T.NEVER, -1, uses_left)}
    return outcome


def play(setup: Setup, seed: int, first_skirmish: int, n: int, max_rounds: int, start=None) -> Outcome:
    """Skirmishes first_skirmish .. first_skirmish + n - 1 of a run with `seed`.

    `start` (optional) carries state into every skirmish instead of a fresh one: a dict of
    arrays, each (n, width) or one row (width,) for all n. Required together:
      verve, survival, injuries, status (sim.rulesets.base codes), surprised (0/1, or -1:
      rolled as in a fresh skirmish, as the next fight of a day does), per combatant.
    Optional, each left out as in a fresh skirmish:
      asleep       per combatant, 0/1: asleep as after a sleep spell (immobile, cannot act)
                   until damage wakes it (`sleep_wakes_on_damage`). Left out: the scenario's
                   sleepers (`awareness: asleep`) sleep if `surprised`, waking in round 2;
      bound        per combatant, 0/1: tied up (immobile, cannot act) for the whole fight;
      held         per combatant: 0 free, 1 grabbed, 2 immobilized (tables.HELD_*);
      held_by      per combatant: the holder's index where held is 1 or 2, else -1. The hold
                   counts as made in an earlier round: the Fortitude contest is in round 1;
      holding      per combatant: whom it holds, -1 none; follows from held_by (checked
                   against it if given);
      drawn        per combatant, 0/1: weapon drawn (default: `weapon_drawn`);
      loaded       per attack slot (setup.slot_name order: combatants, then their weapons or
                   attacks as listed): actions already done, 0 .. the weapon's actions - 1
                   (ready to fire); default the weapon's `loaded`;
      spell_uses   per spell (setup.spell_names order): uses left, -1 unlimited; default
                   each spell's `uses`.
    Combatant columns follow setup.names. initial_state(setup, n) is a fresh start with
    nobody surprised, every key but asleep and holding filled, to change the few carried in.
    The Outcome's `per_spell["spell_uses_left"]` (n, spells) gives each spell's uses left
    at the end (-1 unlimited), in the form `spell_uses` takes, so a fight starts where the
    last one ended.
    """
    return _run(setup, seed, first_skirmish, n, max_rounds, start, -1, events.no_buffer())


def trace(setup: Setup, seed: int, skirmish: int, max_rounds: int, start=None):
    """(Outcome of that one skirmish, its blow-by-blow lines)."""
    from sim.rulesets.gods_and_monsters.trace_text import lines
    buffer = events.new_buffer()
    out = _run(setup, seed, skirmish, 1, max_rounds, start, 0, buffer)
    return out, lines(setup, events.rows(*buffer))


def _smallest_setup() -> Setup:
    import sim
    knife = [{"name": "knife", "damage": "d4"}]
    scen = sim.load_scenario({"name": "warm-up", "ruleset": "gods_and_monsters", "sides": {
        "a": {"combatants": [{"name": "A", "survival": 5, "weapons": knife}]},
        "b": {"combatants": [{"name": "B", "survival": 5, "weapons": knife}]}}})
    return scen.ruleset.build(scen)


def warm(setup: Setup | None = None) -> None:
    from sim import compiled

    def compile_now():
        play(setup if setup is not None else _smallest_setup(), 0, 0, 1, 5)

    compiled.warm("gods_and_monsters", "Gods & Monsters", COMPILE_ESTIMATE_S, compile_now)
