"""Column layout of the flat arrays the Lifeforce kernel reads and writes.

The kernel works on a few integer tables instead of dozens of arguments: the scenario's
combatants (`K`, one row each), weapons (`W`), rule options (`R`) and one skirmish's
live state (`S`, one row per combatant). These names are column indices; they describe
the memory layout, never a scenario's values (those arrive at run time).
"""
from __future__ import annotations

from sim.rulesets.lifeforce.tables import STUNT_NAMES


def _columns(names: str) -> dict[str, int]:
    return {n: i for i, n in enumerate(names.split())}


# Combatant table K (C, NK).
K_COLS = _columns(
    "SIDE HP ORDER_ATTR OFFENCE DODGE REFLEX WILL ATHLETICS INTIMIDATE ARMOR HAS_SHIELD SH_COUNT SH_SIDES "
    "SH_BONUS HASTENED SLOWED SURPRISED MELEE_W RANGED_W UNARMED_W HELD_W SPLIT0 SPLIT1 SPLIT2 SPLIT3 "
    "GENERATES READY_PREF CONTEST_MODE ESCAPE ABANDON_MELEE ANSWER RUN FAMILY KEEP_CELLS TARGET_MODE "
    "REACT_BLOCK REACT_AOO SCRIPTED WANTS_NEAREST X0 Y0 SCATTER_SIDE STUNT_EV DEFAULT_PLAY")
# Weapon table W (rows, NW).
W_COLS = _columns("SKILL D_COUNT D_SIDES D_BONUS AP ARMOURED TWO REACH RANGE LOADING TABLE UNARMED STRIKE")
# Rule options R (NR,), as integer codes.
R_COLS = _columns(
    "ATTACK_DIE STUNT_STEP REROLL_EACH CARRY PREP_DECLARED READIED_NEXT_TURN REACTION_MODE CHARGE_MOVES_ATTACK "
    "NO_ACTIONS_SURPRISE DS_DEFENCES SKIRMISH_CELLS SEIZE_ON INITIATOR_D100 CRIT_BEFORE STAND_AP RECOVER_AP "
    "LOADING_AP THREATEN_PHASES GRAPPLE_BONUS GRAPPLE_REROLL FIRST_IMMEDIATE HELD_KEEPS AT_ZERO_DEAD METRIC "
    "WIDTH HEIGHT N_SIDES DUAL_MIN_COST ANY_LOADING BLOCK_POSSIBLE ANY_SCRIPTED ANY_FOCUS N_SCATTER STALL_CHECK")
# One skirmish's state S (C, NS).
S_COLS = _columns(
    "STATUS HP DOWN_ROUND X Y HAST SLOW HASTE_BONUS SEIZE ROLL0 ROLL1 ROLL2 REACTION_LEFT PREP_ACTION PREP_AP "
    "PREP_TARGET CDX CDY READY TARGET PRONE DS DISARMED THREAT_BY THREAT_LEFT PARTNER DOMINANT TRACK "
    "CONTESTING GCHECKED STUNTED LOADED ATTACKS HITS DEALT TAKEN SPOINTS BLOCKS OPP CHARGES GWON GCWON NATT "
    "NBLK NGRAP " + " ".join(f"BUY_{n.upper()}" for n in STUNT_NAMES))
# Outcome columns written per skirmish, O (n, C, NO): the ruleset's outcome table, in this order.
OUTCOME_COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken", "final_state", "down_round", "hp_left",
                   "stunt_points", "shield_blocks", "opportunity_attacks", "charges", "grapples_won",
                   "grapple_checks_won", "ended_prone") + tuple(f"stunt_{n}" for n in STUNT_NAMES)
# How many times each combatant bought each stunt (a Skirmish bought twice on one blow
# counts 2): the inert-rules list reads which stunts never came into play.
OUTCOME_FROM_STATE = ("ATTACKS", "HITS", "DEALT", "TAKEN", "STATUS", "DOWN_ROUND", "HP", "SPOINTS", "BLOCKS",
                      "OPP", "CHARGES", "GWON", "GCWON", "PRONE") + tuple(
    f"BUY_{n.upper()}" for n in STUNT_NAMES)

NK, NW, NR, NS = len(K_COLS), len(W_COLS), len(R_COLS), len(S_COLS)

(K_SIDE, K_HP, K_ORDER_ATTR, K_OFFENCE, K_DODGE, K_REFLEX, K_WILL, K_ATHLETICS, K_INTIMIDATE, K_ARMOR,
 K_HAS_SHIELD, K_SH_COUNT, K_SH_SIDES, K_SH_BONUS, K_HASTENED, K_SLOWED, K_SURPRISED, K_MELEE_W, K_RANGED_W,
 K_UNARMED_W, K_HELD_W, K_SPLIT0, K_SPLIT1, K_SPLIT2, K_SPLIT3, K_GENERATES, K_READY_PREF, K_CONTEST_MODE,
 K_ESCAPE, K_ABANDON_MELEE, K_ANSWER, K_RUN, K_FAMILY, K_KEEP_CELLS, K_TARGET_MODE, K_REACT_BLOCK,
 K_REACT_AOO, K_SCRIPTED, K_WANTS_NEAREST, K_X0, K_Y0, K_SCATTER_SIDE, K_STUNT_EV, K_DEFAULT_PLAY) = range(44)
(W_SKILL, W_D_COUNT, W_D_SIDES, W_D_BONUS, W_AP, W_ARMOURED, W_TWO, W_REACH, W_RANGE, W_LOADING, W_TABLE,
 W_UNARMED, W_STRIKE) = range(13)
(R_ATTACK_DIE, R_STUNT_STEP, R_REROLL_EACH, R_CARRY, R_PREP_DECLARED, R_READIED_NEXT_TURN, R_REACTION_MODE,
 R_CHARGE_MOVES_ATTACK, R_NO_ACTIONS_SURPRISE, R_DS_DEFENCES, R_SKIRMISH_CELLS, R_SEIZE_ON, R_INITIATOR_D100,
 R_CRIT_BEFORE, R_STAND_AP, R_RECOVER_AP, R_LOADING_AP, R_THREATEN_PHASES, R_GRAPPLE_BONUS, R_GRAPPLE_REROLL,
 R_FIRST_IMMEDIATE, R_HELD_KEEPS, R_AT_ZERO_DEAD, R_METRIC, R_WIDTH, R_HEIGHT, R_N_SIDES, R_DUAL_MIN_COST,
 R_ANY_LOADING, R_BLOCK_POSSIBLE, R_ANY_SCRIPTED, R_ANY_FOCUS, R_N_SCATTER, R_STALL_CHECK) = range(34)
(S_STATUS, S_HP, S_DOWN_ROUND, S_X, S_Y, S_HAST, S_SLOW, S_HASTE_BONUS, S_SEIZE, S_ROLL0, S_ROLL1, S_ROLL2,
 S_REACTION_LEFT, S_PREP_ACTION, S_PREP_AP, S_PREP_TARGET, S_CDX, S_CDY, S_READY, S_TARGET, S_PRONE, S_DS,
 S_DISARMED, S_THREAT_BY, S_THREAT_LEFT, S_PARTNER, S_DOMINANT, S_TRACK, S_CONTESTING, S_GCHECKED, S_STUNTED,
 S_LOADED, S_ATTACKS, S_HITS, S_DEALT, S_TAKEN, S_SPOINTS, S_BLOCKS, S_OPP, S_CHARGES, S_GWON, S_GCWON,
 S_NATT, S_NBLK, S_NGRAP) = range(45)
S_BUY0 = S_COLS["BUY_" + STUNT_NAMES[0].upper()]  # then one column per stunt, tables.STUNTS order

import numpy as np  # noqa: E402  (the table below needs the column names above)

OUTCOME_INDEX = np.array([S_COLS[name] for name in OUTCOME_FROM_STATE], dtype=np.int64)
START_COLUMNS = ("hp_left", "final_state", "ended_prone", "disarmed")  # what a skirmish may start from
# kernel.play_chunk's has_start: none; hit points and states only (the fused duel plays
# it); with someone prone or disarmed (the general round only).
START_NONE, START_PLAIN, START_WITH_CONDITIONS = 0, 1, 2
assert (K_DEFAULT_PLAY, W_STRIKE, R_STALL_CHECK, S_BUY0 + len(STUNT_NAMES)) == (NK - 1, NW - 1, NR - 1, NS)
