"""The Gods & Monsters core round after its draws, compiled (Numba).

`attack_phases` plays every phase of a round for one skirmish row at a time: attack
modifiers, the slots' attacks (sim.kernels.attack_slots), damage onto verve, survival
and injuries, and the rolls to stay conscious, exactly as the array code of
engine.py did it (engine._apply_damage and engine._health_checks stay the reference
the extended round uses). The draws are made by engine.core_draws beforehand, so the
random streams are untouched.

A traced replay passes the row to follow; the kernel copies that row's per-phase
numbers into small buffers and `trace_round` writes the trace lines from them.

Like sim/kernels.py, the kernel runs without reference counting: its work arrays
come from `scratch`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.kernels import attack_slots, inline, kernel, slot_arrays
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.gods_and_monsters.schema import ACTIONS, SURPRISED_DEFENSE_PENALTY, SURPRISED_ROLL_PENALTY

ATTACK = ACTIONS.index("attack")

# Rows of the per-combatant trace buffer.
T_TAKEN, T_VERVE, T_SURVIVAL, T_INJURIES, T_OWED, T_RESULT, T_NEED = range(7)
# Rows of the per-slot trace buffer.
T_ACTING, T_TARGET, T_SLOT_NEED, T_HIT = range(4)
# T_RESULT codes of a roll to stay conscious.
STAYS, FAINTS, DIES = 1, 2, 3


@dataclass
class KernelArrays:
    """Static arrays of a setup in the form the kernel takes."""
    slots: dict  # phases (1, or one per side) -> the slots tuple of sim.kernels.attack_slots
    no_death_roll: np.ndarray  # stands in for the guide roll's dice when the death rule has none


def kernel_arrays(setup) -> KernelArrays:
    slot_side = setup.side[setup.slot_owner]
    A = len(setup.slot_owner)
    phase_sets = {1: np.ones((1, A), dtype=bool),
                  setup.n_sides: slot_side[None, :] == np.arange(setup.n_sides)[:, None]}
    slots = {p: slot_arrays(in_phase, setup.slot_owner, slot_side, setup.slot_target_base, setup.slot_reach,
                            setup.slot_earlier) for p, in_phase in phase_sets.items()}
    return KernelArrays(slots, np.zeros((1, 1, 1, 2), dtype=np.int16))


def scratch(A: int, C: int) -> tuple:
    """Work arrays of one row: (per combatant, per slot)."""
    b, i32 = np.bool_, np.int32
    return ((np.empty(C, b), np.empty(C, b), np.empty(C, b), np.empty(C, b), np.empty(C, np.float32),
             np.empty(C, i32), np.empty(C, i32), np.empty(C, i32)),
            (np.empty((A, C), b), np.empty(A, b), np.empty(A, b), np.empty(A, i32), np.empty(A, i32), np.empty(A, b)))


@kernel
def attack_phases(rnd, phases, check_now, lose_round, first_pen, injury_all, guide, use_nearest,
                  status, verve, survival, injuries, surprised, down_round,
                  attacks, hits, dealt, taken_total, last_dealt, last_taken,
                  action, target_mode, focus, noise, dist, attack_roll, damage, health_roll, death_roll,
                  slots, enemy, uses_verve, fortitude, defense_base, trace_row, trace_slots, trace_comb,
                  comb_scratch, slot_scratch):
    n, C = status.shape
    slot_owner = slots[1]
    A = slot_owner.shape[0]
    standing, can_act, owed, pending, health, defense, pen, taken = comb_scratch
    cand, usable, acting, targets, need, hit = slot_scratch
    for i in range(n):
        di = i if dist.shape[0] > 1 else 0
        for c in range(C):
            s = surprised[i, c]
            # Surprise costs no defense in the first round; the modifiers hold for the whole round.
            defense[c] = defense_base[c] - (SURPRISED_DEFENSE_PENALTY * s if rnd > 1 else 0)
            pen[c] = (s * (first_pen if rnd == 1 else SURPRISED_ROLL_PENALTY)) + (injuries[i, c] if injury_all else 0)
            can_act[c] = action[i, c] == ATTACK and not (rnd == 1 and s and lose_round)
            last_dealt[i, c] = 0
            last_taken[i, c] = 0
            pending[c] = False
        for p in range(phases):
            for c in range(C):
                standing[c] = status[i, c] == STANDING
                health[c] = np.float32(verve[i, c] + survival[i, c])
                taken[c] = 0
            attack_slots(i, p, slots, standing, can_act, enemy, dist, di, target_mode, health, focus, use_nearest,
                         noise, attack_roll, damage, defense, pen, cand, usable, acting, targets,
                         need, hit, taken, attacks, hits, dealt)
            for c in range(C):
                taken_total[i, c] += taken[c]
                last_taken[i, c] += taken[c]
            for a in range(A):
                if hit[a]:
                    last_dealt[i, slot_owner[a]] += damage[i, a]
            _apply_damage(i, taken, uses_verve, status, verve, survival, injuries, owed)
            if i == trace_row:
                for a in range(A):
                    trace_slots[p, T_ACTING, a] = acting[a]
                    trace_slots[p, T_TARGET, a] = targets[a]
                    trace_slots[p, T_SLOT_NEED, a] = need[a]
                    trace_slots[p, T_HIT, a] = hit[a]
                for c in range(C):
                    trace_comb[p, T_TAKEN, c] = taken[c]
                    trace_comb[p, T_VERVE, c] = verve[i, c]
                    trace_comb[p, T_SURVIVAL, c] = survival[i, c]
                    trace_comb[p, T_INJURIES, c] = injuries[i, c]
            if check_now:
                _health_checks(i, owed, p, p, rnd, guide, fortitude, status, injuries, surprised, down_round,
                               health_roll, death_roll, trace_row, trace_comb)
            else:
                for c in range(C):
                    pending[c] |= owed[c]
        if not check_now:
            _health_checks(i, pending, 0, phases, rnd, guide, fortitude, status, injuries, surprised, down_round,
                           health_roll, death_roll, trace_row, trace_comb)


@inline
def _apply_damage(i, taken, uses_verve, status, verve, survival, injuries, owed):
    # Verve first where fighting is archetypal, then survival, then injuries; a roll is
    # owed when survival just reached 0 or injuries grew (engine._apply_damage).
    for c in range(taken.shape[0]):
        left = taken[c]
        if uses_verve[c]:
            off = min(verve[i, c], left)
            verve[i, c] -= off
            left -= off
        had_survival = survival[i, c] > 0
        off = min(survival[i, c], left)
        survival[i, c] -= off
        left -= off
        injuries[i, c] += left
        owed[c] = status[i, c] == STANDING and ((had_survival and survival[i, c] == 0 and taken[c] > 0) or left > 0)


@inline
def _health_checks(i, owed, p, k, rnd, guide, fortitude, status, injuries, surprised, down_round,
                   health_roll, death_roll, trace_row, trace):
    # p: the phase whose dice are rolled; k: the row of the trace buffer.
    # Death first: a combatant past its limit is dead whether or not it stays conscious.
    for c in range(owed.shape[0]):
        result = 0
        need = fortitude[c] - injuries[i, c] - SURPRISED_ROLL_PENALTY * surprised[i, c]
        if owed[c]:
            inj = injuries[i, c]
            if guide:
                dies = inj > 0 and death_roll[i, c, p, 0] <= inj and death_roll[i, c, p, 1] > fortitude[c]
            else:
                dies = inj > fortitude[c]
            if dies:
                status[i, c] = DEAD
                down_round[i, c] = rnd
                result = DIES
            elif health_roll[i, c, p] > need:
                status[i, c] = UNCONSCIOUS
                down_round[i, c] = rnd
                result = FAINTS
            else:
                result = STAYS
        if i == trace_row:
            trace[k, T_INJURIES, c] = injuries[i, c]
            trace[k, T_OWED, c] = owed[c]
            trace[k, T_RESULT, c] = result
            trace[k, T_NEED, c] = need


def trace_round(t, setup, phases: int, check_now: bool, slots: np.ndarray, comb: np.ndarray,
                 roll, damage, health_roll) -> None:
    """The kernel's record of the traced row, in the order the round happened."""
    p = t.pos
    for ph in range(phases):
        for a in np.flatnonzero(slots[ph, T_ACTING]):
            owner, tgt, hit = setup.slot_owner[a], slots[ph, T_TARGET, a], slots[ph, T_HIT, a]
            verdict = f"HIT for {damage[p, a]} ({setup.slot_dice.dice[a]}" + (
                f"{setup.slot_damage_bonus[a]:+d}" if setup.slot_damage_bonus[a] else "") + ")" if hit else "miss"
            t.line(f"{t.name(owner)} attacks {t.name(tgt)} with {setup.slot_name[a]}: needs "
                   f"{slots[ph, T_SLOT_NEED, a]} or lower, rolls {roll[p, a]}: {verdict}.")
        c_ = comb[ph]
        for c in np.flatnonzero(c_[T_TAKEN] > 0):
            t.line(f"  {t.name(c)} takes {c_[T_TAKEN, c]}: verve {c_[T_VERVE, c]}, survival "
                   f"{c_[T_SURVIVAL, c]}, injuries {c_[T_INJURIES, c]}.")
        if check_now:
            _trace_checks(t, comb[ph], health_roll[p, :, ph])
    if not check_now:
        _trace_checks(t, comb[phases], health_roll[p, :, 0])


def _trace_checks(t, comb: np.ndarray, roll: np.ndarray) -> None:
    for c in np.flatnonzero(comb[T_OWED]):
        if comb[T_RESULT, c] == DIES:
            t.line(f"  {t.name(c)} dies ({comb[T_INJURIES, c]} injuries).")
        else:
            t.line(f"  {t.name(c)} rolls to stay conscious: {roll[c]} against {comb[T_NEED, c]}: "
                   f"{'falls UNCONSCIOUS' if comb[T_RESULT, c] == FAINTS else 'stays conscious'}.")
