"""The Lifeforce ruleset on its compiled kernel: the scenario as flat tables, a chunk's
scratch, `play`, `trace` and `warm` (the surface sim/runner.py and sim/trace.py call).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import compiled, events, keyed, policy_vm
from sim.rulesets.base import Outcome
from sim.rulesets.lifeforce import engine, kdecide, kernel, kpack, kstunts, ktrace
from sim.rulesets.lifeforce import layout as L
from sim.rulesets.lifeforce import tables as TB
from sim.rulesets.lifeforce.kduel_tables import duel_tables

ACTION_NAMES = ("attack", "charge", "run", "grapple", "block", "opportunity", "hold", "step_back", "flee",
                "stand", "recover")
METRICS = {"chebyshev": 0, "alternating": 1, "manhattan": 2}
# A cold compile on the idle 2-core machine: 42 CPU-s (December
# 2026; 305 before the compile-cost work, docs/performance.md "Compile cost").
COMPILE_ESTIMATE_S = 50


@dataclass
class KernelSetup:
    legacy: engine.Setup  # the parsed scenario (names, rules, grid) the tables come from
    tables: tuple
    n_obs: int
    stack_size: int
    zone_cells: int
    duel: bool = False  # played by the fused duel loop (kduel.py) where a chunk allows
    duel_buy: np.ndarray | None = None  # its fixed-order stunt purchases


def phase_cells(movement: int, cell_size: float) -> list[int]:
    """Cells moved in each action phase: the metres of the split, counted cumulatively and
    rounded down, so a round never carries a creature farther than its Movement."""
    metres = np.cumsum([int(TB.movement_split(movement, p)) for p in range(TB.PHASES)])
    cells = np.floor(metres / cell_size + 1e-9).astype(int)
    return np.diff(np.concatenate([[0], cells])).tolist()


def _run_codes(scenario) -> tuple[list[int], list[int]]:
    """(K_RUN, K_DEFAULT_PLAY) per combatant. The default play is a policy that writes no
    `family`. K_RUN (kdecide.RUN_*): `run: false` never Runs; `run: true`, or a written
    family with `run` unwritten, Runs whenever two phases away (as those policies always
    have); the default play with `run` unwritten Runs when it pays."""
    runs, default = [], []
    for c in scenario.combatants:
        side = scenario.data["sides"][scenario.side_names[c.side]]
        written = "family" in {**(side.get("policy") or {}), **(c.stats.get("policy") or {})}
        run = c.policy.params["run"]
        runs.append(0 if run is False else 1 if run is True or written else 2)
        default.append(0 if written else 1)
    return runs, default


def _combatants(s: engine.Setup, scenario) -> np.ndarray:
    C = len(s.names)
    K = np.zeros((C, L.NK), dtype=np.int64)
    col = lambda name, values: K.__setitem__((slice(None), L.K_COLS[name]), values)
    runs, default = _run_codes(scenario)
    for name, values in (("SIDE", s.side), ("HP", s.hp), ("ORDER_ATTR", s.order_attr), ("OFFENCE", s.offence),
                         ("DODGE", s.dodge), ("REFLEX", s.reflex), ("WILL", s.will), ("ATHLETICS", s.athletics),
                         ("INTIMIDATE", s.intimidate), ("ARMOR", s.armor), ("HAS_SHIELD", s.has_shield),
                         ("SH_COUNT", s.shield_dice.counts), ("SH_SIDES", s.shield_dice.sides),
                         ("SH_BONUS", s.shield_dice.bonus), ("HASTENED", s.hastened), ("SLOWED", s.slowed),
                         ("SURPRISED", s.surprised), ("MELEE_W", s.melee_w), ("RANGED_W", s.ranged_w),
                         ("UNARMED_W", s.unarmed_w), ("HELD_W", s.held_w), ("GENERATES", s.generates),
                         ("READY_PREF", s.ready_pref), ("CONTEST_MODE", s.contest_mode), ("ESCAPE", s.escape),
                         ("ABANDON_MELEE", s.abandon_melee), ("ANSWER", s.answer), ("RUN", runs),
                         ("DEFAULT_PLAY", default),
                         ("FAMILY", s.family), ("KEEP_CELLS", s.keep_cells), ("TARGET_MODE", s.target_mode),
                         ("REACT_BLOCK", s.reacts["shield_block"]), ("REACT_AOO", s.reacts["attack_of_opportunity"]),
                         ("WANTS_NEAREST", s.wants_nearest)):
        col(name, np.asarray(values).astype(np.int64))
    for c, comb in enumerate(scenario.combatants):
        K[c, L.K_SPLIT0:L.K_SPLIT0 + 4] = phase_cells(comb.stats["movement"], s.grid.cell_size)
    K[s.scripted, L.K_SCRIPTED] = 1
    K[:, L.K_STUNT_EV] = [c.policy.params["stunts"] == "expected" and not c.policy.params["stunt_order"]
                          for c in scenario.combatants]
    K[:, L.K_X0], K[:, L.K_Y0] = s.layout.static[:, 0], s.layout.static[:, 1]
    K[:, L.K_SCATTER_SIDE] = -1
    for side in s.layout.scatter_sides:
        who = [i for i in s.layout.members[side] if not s.layout.explicit[i]]
        K[who, L.K_SCATTER_SIDE] = side
    return K


def _weapons(s: engine.Setup) -> np.ndarray:
    W = np.zeros((len(s.w_name), L.NW), dtype=np.int64)
    for name, values in (("SKILL", s.w_skill), ("D_COUNT", s.w_dice.counts), ("D_SIDES", s.w_dice.sides),
                         ("D_BONUS", s.w_dice.bonus), ("AP", s.w_ap), ("ARMOURED", s.w_armoured), ("TWO", s.w_two),
                         ("REACH", s.w_reach), ("RANGE", s.w_range), ("LOADING", s.w_loading), ("TABLE", s.w_table),
                         ("UNARMED", s.w_unarmed), ("STRIKE", s.w_strike)):
        W[:, L.W_COLS[name]] = np.asarray(values).astype(np.int64)
    return W


def _rules(s: engine.Setup, max_rounds_hint: int = 0) -> np.ndarray:
    r = s.rules
    R = np.zeros(L.NR, dtype=np.int64)
    values = {
        "ATTACK_DIE": r["attack_die"], "STUNT_STEP": r["stunt_step"],
        "REROLL_EACH": r["turn_order_reroll"] == "each_round", "CARRY": r["preparation_carries_over"],
        "PREP_DECLARED": r["prepared_target"] == "declared", "READIED_NEXT_TURN": r["readied_lasts"] == "next_turn",
        "REACTION_MODE": ("both", "reaction", "ap").index(r["reaction_actions"]),
        "CHARGE_MOVES_ATTACK": r["charge_moves_on_attack_phase"],
        "NO_ACTIONS_SURPRISE": r["surprise_round"] == "no_actions",
        "DS_DEFENCES": ("all", "touch", "touch_reflex").index(r["defensive_stance_defences"]),
        "SKIRMISH_CELLS": r["skirmish_stunt_cells"], "SEIZE_ON": r["seize_the_initiative"] != "none",
        "INITIATOR_D100": r["initiator_check"] == "d100_skill", "CRIT_BEFORE": r["critical_applies"] == "before_armor",
        "STAND_AP": r["stand_up_ap"], "RECOVER_AP": r["disarmed_recover_ap"], "LOADING_AP": r["loading_ap"],
        "THREATEN_PHASES": r["threaten_phases"],
        "GRAPPLE_BONUS": ("both", "initiator", "none").index(r["grapple_offence_bonus"]),
        "GRAPPLE_REROLL": r["grapple_ties"] == "reroll", "FIRST_IMMEDIATE": r["grapple_first_contest"] == "immediate",
        "HELD_KEEPS": r["held_keeps_preparation"], "AT_ZERO_DEAD": r["at_zero_hp"] == "dead",
        "METRIC": METRICS[s.grid.metric], "WIDTH": s.grid.width, "HEIGHT": s.grid.height, "N_SIDES": s.n_sides,
        "DUAL_MIN_COST": s.dual_min_cost, "ANY_LOADING": bool(s.w_loading.any()),
        "BLOCK_POSSIBLE": s.block_possible, "ANY_SCRIPTED": bool(s.scripted), "ANY_FOCUS": s.any_focus,
        "N_SCATTER": len(s.layout.scatter_sides),
    }
    for name, v in values.items():
        R[L.R_COLS[name]] = int(v)
    return R


def _zones(s: engine.Setup) -> tuple[np.ndarray, np.ndarray]:
    """Each side's free scatter cells end to end (ZONE) and where each side's begin (ZFIRST)."""
    lay = s.layout
    taken = {tuple(int(v) for v in lay.static[i]) for i in range(len(lay.static)) if lay.explicit[i]}
    cells, first = [], [0]
    for side in range(s.n_sides):
        if side in lay.scatter_sides:
            zone = [tuple(int(v) for v in z) for z in lay.zones[side] if tuple(int(v) for v in z) not in taken]
            who = [i for i in lay.members[side] if not lay.explicit[i]]
            if len(who) > len(zone):
                from sim.errors import ScenarioError
                raise ScenarioError(f"side {side} has more combatants than cells to scatter over; enlarge "
                                    "battlefield.height.", path="battlefield")
            cells += zone
        first.append(len(cells))
    zone = np.array(cells, dtype=np.int64).reshape(-1, 2) if cells else np.zeros((1, 2), dtype=np.int64)
    return zone, np.array(first, dtype=np.int64)


def build(scenario) -> KernelSetup:
    s = engine.build(scenario)
    C = len(s.names)
    ruleset = scenario.ruleset
    table = policy_vm.build_table(s.policies, list(kdecide.OBSERVATIONS), getattr(ruleset, "observation_aliases", {}))
    cond = np.stack([s.cond[col].astype(np.int64) for col in TB.CONDITION_FIELDS], axis=1)
    need = np.full(len(ACTION_NAMES), 2, dtype=np.int64)
    need[[kdecide.RUN, kdecide.GRAPPLE]] = 1
    need[kdecide.STAND] = s.rules["stand_up_ap"]
    need[kdecide.RECOVER] = s.rules["disarmed_recover_ap"]
    zone, zfirst = _zones(s)
    W = _weapons(s)
    K = _combatants(s, scenario)
    sbw = np.ascontiguousarray(s.sb_weapon, dtype=np.int64)
    ev, evr, evc = kstunts.damage_table(K, W, sbw, s.rules["critical_applies"] == "before_armor")
    tables = (K, W, _rules(s), cond, sbw,
              s.stunt_costs.astype(np.int64), s.stunt_priority.astype(np.int64), table.op.astype(np.int64),
              table.arg.astype(np.int64), table.const, table.rule_code.astype(np.int64),
              table.rule_action.astype(np.int64), table.rule_target.astype(np.int64),
              table.rule_first.astype(np.int64), table.reads.astype(np.int8), zone, zfirst, need,
              np.array([s.grid.cell_size]), ev, evr, evc)
    assert len(tables[0]) == C
    duel, duel_buy = duel_tables(K, W, tables[2], cond, tables[5], tables[6])
    return KernelSetup(legacy=s, tables=tables, n_obs=len(kdecide.OBSERVATIONS), stack_size=table.stack_size,
                       zone_cells=max(1, len(zone)), duel=duel, duel_buy=duel_buy)


def _scratch(setup: KernelSetup) -> tuple:
    C = len(setup.legacy.names)
    return (np.zeros((C, L.NS), dtype=np.int64), np.zeros((C, C), dtype=np.int64),
            np.zeros((8 * C + 8, 2 + C), dtype=np.int64), np.zeros(len(TB.STUNTS), dtype=np.int64),
            np.zeros(C), np.full(setup.legacy.n_sides, -1, dtype=np.int64), np.zeros(C, dtype=np.bool_),
            np.zeros(C), np.zeros(C), np.zeros(setup.n_obs), np.zeros(setup.stack_size + 1),
            np.zeros(C, dtype=np.int64), np.zeros(setup.zone_cells, dtype=np.int64), np.zeros(C, dtype=np.int64),
            np.zeros(len(TB.STUNTS)), np.zeros(C, dtype=np.int64))


def _start_array(setup: KernelSetup, n: int, start) -> tuple[np.ndarray, int]:
    """The start as (skirmish, creature, START_COLUMNS) and its kind: plain when nobody
    starts prone or disarmed (the fused duel plays it)."""
    C = len(setup.legacy.names)
    if not start:
        return np.zeros((1, C, len(L.START_COLUMNS)), dtype=np.int64), L.START_NONE
    unknown = set(start) - set(L.START_COLUMNS) - {"damage_taken"}
    if unknown:
        raise ValueError(f"a Lifeforce skirmish can start from {', '.join(L.START_COLUMNS + ('damage_taken',))}; "
                         f"not {', '.join(sorted(unknown))}")
    arr = np.zeros((n, C, len(L.START_COLUMNS)), dtype=np.int64)
    arr[:, :, 0] = setup.legacy.hp
    if "damage_taken" in start:
        arr[:, :, 0] -= np.asarray(start["damage_taken"], dtype=np.int64)
    for k, name in enumerate(L.START_COLUMNS):
        if name in start:
            arr[:, :, k] = np.asarray(start[name], dtype=np.int64)
    conditions = [L.START_COLUMNS.index(k) for k in ("ended_prone", "disarmed")]
    return arr, L.START_WITH_CONDITIONS if arr[:, :, conditions].any() else L.START_PLAIN


def _run(setup: KernelSetup, seed: int, first: int, n: int, max_rounds: int, start, traced: int, ev, cnt):
    keyed.check_key(seed, first + n)
    C = len(setup.legacy.names)
    tables = list(setup.tables)
    R = tables[2].copy()
    R[L.R_STALL_CHECK] = int(max_rounds > kernel.STALL_ROUNDS)
    tables[2] = R
    start_arr, has_start = _start_array(setup, n, start)
    # Written in place in the dtypes the outcome table keeps, column by column: no
    # conversion pass, and half the fresh memory (whose first touch the OS must zero).
    out_cols = np.empty((len(L.OUTCOME_COLUMNS), n, C), dtype=np.int32)
    win = np.empty(n, dtype=np.int16)
    rounds = np.empty(n, dtype=np.int32)
    stalled = np.zeros(n, dtype=np.int8)
    P = kpack.pack(tables, _scratch(setup), np.zeros(4, dtype=np.int64), seed, ev, cnt)
    kernel.play_chunk(P, first, max_rounds, traced, start_arr, has_start, out_cols, win, rounds, stalled,
                      setup.duel, setup.duel_buy)
    ev[...] = kpack.part(P, kpack.EV_PART, ev)  # the trace's events, written inside P
    cnt[...] = kpack.part(P, kpack.CNT_PART, cnt)
    per = {name: out_cols[k] for k, name in enumerate(L.OUTCOME_COLUMNS)}
    per["final_state"] = per["final_state"].astype(np.int8)
    per["ended_prone"] = per["ended_prone"].astype(bool)
    out = Outcome(winner=win, rounds=rounds, per_combatant=per)
    out.stalled = int(stalled.sum())
    return out


def play(setup: KernelSetup, seed: int, first_skirmish: int, n: int, max_rounds: int, start=None) -> Outcome:
    ev, cnt = events.no_buffer()
    return _run(setup, seed, first_skirmish, n, max_rounds, start, -1, ev, cnt)


def trace(setup: KernelSetup, seed: int, skirmish: int, max_rounds: int, start=None):
    ev, cnt = events.new_buffer()
    # One row for the traced skirmish, or one row per skirmish of the run.
    one = None if not start else {k: np.asarray(v) if len(np.asarray(v)) == 1 else
                                  np.asarray(v)[skirmish:skirmish + 1] for k, v in start.items()}
    out = _run(setup, seed, skirmish, 1, max_rounds, one, skirmish, ev, cnt)
    s = setup.legacy
    rows = events.rows(ev, cnt)
    text = ktrace.lines(rows, s.names, s.w_name, ACTION_NAMES, s.rules, s.grid, s.side)
    if cnt[1]:
        text.append(f"(the trace stops here: {int(cnt[1])} more events did not fit)")
    return out, text


def _probe() -> KernelSetup:
    """A smallest scenario, to compile the kernel when no scenario is at hand (the kernel's
    types do not depend on the scenario, so one compile serves them all)."""
    from sim.scenario import load_scenario
    fighter = {"hp": 10, "weapons": [{"name": "sword", "damage": "d6"}]}
    data = {"name": "probe", "ruleset": "lifeforce",
            "sides": {"a": {"combatants": [{"name": "A", **fighter}]}, "b": {"combatants": [{"name": "B", **fighter}]}}}
    return build(load_scenario(data))


def warm(setup: KernelSetup | None = None) -> None:
    compiled.warm("lifeforce", "Lifeforce", COMPILE_ESTIMATE_S,
                  lambda: play(setup if setup is not None else _probe(), 0, 0, 1, 1))
