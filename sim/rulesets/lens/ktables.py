"""A Lens scenario as the flat arrays the compiled kernel reads (sim/rulesets/lens/kernel.py).

Columns of the per-combatant tables are named by the constants below; rule options and
policy parameters are runtime numbers in `rules`, so one compile serves every scenario.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.policy_vm import build_table
from sim.rulesets.lens import challenge as CH
from sim.rulesets.lens import schema as S
from sim.rulesets.lens import tables as T

MAX_TN = 31
# Per-combatant integers (ci[c, X]).
(SIDE, IS_CHAR, BODY, ARMOR, DEFENSE, ATT_RATING, ABJ_TN, BONUS, TAG_CAP, HAS_WEAPON, W_MISSILE, W_REACH, SHIELD,
 HAS_SPELL, SPELL_TN, SPELL_SCHOOL, SPELL_MASK, SPELL_RANGE, AUTO_CAST, ITEM_COST, ITEM_USES, SPEED, INIT_TN,
 INIT_AB, W_COUNT, W_SIDES, W_BONUS, SP_COUNT, SP_SIDES, SP_BONUS, IT_COUNT, IT_SIDES, IT_BONUS, TARGET, SCRIPTED,
 HOLD, DEFEND, ACT, ASSIST, INTERFERE, SUPPORT_KEEP, CAST, TIMING, TAGS, TAKE_SAC, MITIGATE_TAG, DEF_ALLOWED,
 PER_ROUND, START_X, START_Y, SCATTER, EV, REACH_ANY, TIMING_SET, OWN, NCI) = range(56)
# The policy fields a default-play character's scenario writes (ci[c, OWN], one bit each):
# each replaces the choice by value with the value written (timing: TIMING_SET).
OWN_FIELDS = ("hold", "defend", "tags", "take_sacrifice", "momentum_value", "assist", "interfere")
OWN_HOLD, OWN_DEFEND, OWN_TAGS, OWN_TAKE, OWN_MV, OWN_ASSIST, OWN_INTERFERE = (1 << k for k in range(len(OWN_FIELDS)))
# Per-combatant floats (cf[c, X]).
W_MEAN, SP_MEAN, BIG_HIT, RECOVER_BELOW, HEAL_BELOW, MOMENTUM_VALUE, SLOT_MEAN, NCF = range(8)
# Monster attack slots (si[s, X]).
S_OWNER, S_RANK, S_COUNT, S_SIDES, S_BONUS, S_MASK, S_MISSILE, S_MAGICAL, S_REACH, NSI = range(10)
# Rule options and scenario-wide numbers (rules[X]).
(R_CHALLENGE, R_SURPRISE, R_MPR, R_RECOVERY, R_SAC_OWE, R_BOTCH_ENDS, R_TAG_COST, R_TRIUMPH_OVER, R_STACKS,
 R_MONSTER_ARMOR, R_FORMED_ROUND, R_ZERO_VOID, R_VOID_LIMIT, R_VOID_DEATH, R_MONSTER_DEAD, R_SPATIAL, R_GRID_W,
 R_GRID_H, R_METRIC, R_BEATS, R_USES_FOCUS, R_PVP, R_FIXES, R_PIERCE, R_SIDES, R_SLOTS, R_CELL_FEET,
 R_WEAPON_USE, R_SOURCE, R_DEF_AB0) = range(30)
# Where pack() put the other tables: rows of ci (integers) or cf (floats), and their sizes.
(R_OFF_PREFIX, R_OFF_SI, R_OFF_COND, R_N_COND, R_OFF_DROWS, R_OFF_TAGS, R_OFF_AB, R_N_AB, R_OFF_ZONES, R_ZMAX,
 R_OFF_ZLEN, R_OFF_PROB, R_OFF_SMEAN, R_OFF_SAVE, R_N_SRC) = range(R_DEF_AB0 + 5, R_DEF_AB0 + 20)  # after the defences
# Scenario-wide numbers the kernel would otherwise work out again every round or attack:
# the conditions that last past the round (bits), and who may help a roll (bit 0: some
# character may Assist, bit 1: some character may Interfere).
R_LASTING, R_HELP = R_N_SRC + 1, R_N_SRC + 2
NR = R_N_SRC + 3
DEF_ROWS = 5  # rows per defence: Botch, Sacrifice, Success, Triumph, the Sacrifice's costly branch
# The rule fixes of issue 13, one bit each in rules[R_FIXES] (0: the old readings, for the agreement checks).
FIX_TAGS, FIX_HOLD, FIX_SURPRISE, FIX_ZERO_CHANCE, FIX_OFF_BALANCE, FIX_MOVE, FIX_HAMSTRUNG = (1 << k for k in range(7))
FIX_ALL = (1 << 7) - 1
# Defence row columns (drows[d, row, X]), as tables.defence_table.
NEGATE, AR, TAG, DEF_COND, ATT_COND, MOVE, LOCK, RIPOSTE, MOM_LOSS = range(9)
# Condition table columns (cond[k, X]).
C_LOSS, C_ATTACKS, C_NO_PARRY, C_NO_WEAPON, C_NO_DODGE, C_LASTING = range(6)
METRICS = ("chebyshev", "manhattan")  # anything else: 1-2-1
VARIANTS = CH.VARIANTS
OBSERVATIONS = ("round", "momentum", "body", "health", "void", "bracket", "stun", "prone", "hamstrung", "disarmed",
                "distance", "in_reach", "spell_formed", "items_left", "allies_standing", "enemies_standing")
N_OBS = len(OBSERVATIONS)
FAMILY_EV = S.FAMILIES.index("expected_value")


@dataclass
class KernelTables:
    ci: np.ndarray
    cf: np.ndarray
    ab: np.ndarray  # (C, A, 4): talent, training, tool, quality modifier
    prob: np.ndarray  # (C, A, MAX_TN, 4) exact chances of Botch .. Triumph
    prefix: np.ndarray  # (C, 7) tag masks of the first k tags attached
    si: np.ndarray
    drows: np.ndarray
    tags: np.ndarray  # defeat masks (5), condition masks (4), count of removable tags, their bits
    cond: np.ndarray
    rules: np.ndarray
    zones: np.ndarray  # (sides, Z, 2) cells a scattered side draws from
    zone_len: np.ndarray
    smean: np.ndarray  # (S,) mean damage of each monster attack slot
    policy: tuple  # sim.policy_vm.PolicyTable.arrays()
    reads: np.ndarray
    stack_size: int


def build_tables(setup) -> KernelTables:
    scen = setup.extra["scenario"]
    C = len(setup.names)
    rules = setup.rules
    A = len(setup.abilities)
    ab = np.stack([setup.talent, setup.training, setup.tool, setup.qmod], axis=2).astype(np.int64)
    prob = np.zeros((C, A, MAX_TN, 4))
    for i in np.flatnonzero(setup.is_char):
        for a in range(A):
            for tn in range(MAX_TN):
                prob[i, a, tn] = CH.outcome_probs(int(ab[i, a, 0]), int(ab[i, a, 1]), max(tn, 1), rules["challenge"],
                                                  int(ab[i, a, 2]), int(ab[i, a, 3]))
    ci = np.zeros((C, NCI), np.int64)
    cf = np.zeros((C, NCF))
    p = setup.pol
    spatial = _spatial(setup)
    start = np.zeros((C, 2), np.int64)
    zones = np.zeros((setup.n_sides, 1, 2), np.int64)
    zone_len = np.zeros(setup.n_sides, np.int64)
    scatter = np.zeros(C, bool)
    if spatial:
        from sim.formations import Layout
        layout = Layout(scen)
        start = layout.static.astype(np.int64)
        if layout.scatter_sides:
            zmax = max(len(z) for z in layout.zones.values())
            zones = np.zeros((setup.n_sides, zmax, 2), np.int64)
            for s in layout.scatter_sides:
                taken = {tuple(int(v) for v in layout.static[i]) for i in range(C) if layout.explicit[i]}
                zone = [z for z in layout.zones[s] if tuple(int(v) for v in z) not in taken]
                zones[s, :len(zone)] = zone
                zone_len[s] = len(zone)
                for i in layout.members[s]:
                    scatter[i] = not layout.explicit[i]
    for c in range(C):
        row = ci[c]
        row[SIDE], row[IS_CHAR], row[BODY], row[ARMOR] = setup.side[c], setup.is_char[c], setup.body[c], setup.armor[c]
        row[DEFENSE], row[ATT_RATING], row[ABJ_TN] = setup.defense[c], setup.attack_rating[c], setup.abj_tn[c]
        row[BONUS], row[TAG_CAP], row[HAS_WEAPON] = setup.bonus[c], setup.tag_cap[c], setup.has_weapon[c]
        row[W_MISSILE], row[W_REACH], row[SHIELD] = setup.weapon_missile[c], setup.weapon_reach[c], setup.shield[c]
        row[HAS_SPELL], row[SPELL_TN], row[SPELL_SCHOOL] = setup.has_spell[c], setup.spell_tn[c], setup.spell_school[c]
        row[SPELL_MASK], row[SPELL_RANGE] = setup.spell_mask[c], setup.spell_range[c]
        row[AUTO_CAST] = setup.auto_cast[c]
        row[ITEM_COST], row[ITEM_USES], row[SPEED] = setup.item_cost[c], setup.item_uses[c], setup.speed_cells[c]
        row[INIT_TN], row[INIT_AB] = setup.init_tn[c], setup.init_ability[c]
        for base, table in ((W_COUNT, setup.weapon_dice), (SP_COUNT, setup.spell_dice), (IT_COUNT, setup.item_dice)):
            d = table.dice[c]
            row[base], row[base + 1], row[base + 2] = d.count, d.sides, d.bonus
        row[TARGET] = setup.policies[c].target
        row[SCRIPTED] = c in setup.scripted
        row[HOLD], row[DEFEND], row[ACT] = p["hold"][c], p["defend"][c], p["act"][c]
        row[ASSIST], row[INTERFERE], row[SUPPORT_KEEP] = p["assist"][c], p["interfere"][c], p["support_keep"][c]
        row[CAST], row[TIMING], row[TAGS] = p["cast"][c], p["timing"][c], p["tags"][c]
        row[TAKE_SAC], row[MITIGATE_TAG] = p["take_sacrifice"][c], p["mitigate_tag"][c]
        row[DEF_ALLOWED] = sum(1 << d for d in range(5) if p["defences"][c, d])
        row[PER_ROUND] = int((setup.slot_owner == c).sum())
        row[START_X], row[START_Y], row[SCATTER] = start[c, 0], start[c, 1], scatter[c]
        spec = scen.combatants[c].policy_spec
        row[EV] = setup.is_char[c] and spec.get("family") == "expected_value" and not setup.policies[c].rules
        row[TIMING_SET] = spec.get("timing") is not None
        row[OWN] = _own(setup.extra["written"][c]) if row[EV] else 0
        reach = setup.slot_reach[setup.slot_owner == c]
        row[REACH_ANY] = int(reach.max()) if len(reach) else -1
        cf[c, W_MEAN], cf[c, SP_MEAN] = setup.weapon_mean[c], setup.spell_dice.dice[c].mean
        cf[c, BIG_HIT], cf[c, RECOVER_BELOW] = p["big_hit"][c], p["recover_below"][c]
        cf[c, HEAL_BELOW] = p["heal_below"][c]
        cf[c, MOMENTUM_VALUE] = p["momentum_value"][c]
        means = setup.slot_mean[setup.slot_owner == c]
        cf[c, SLOT_MEAN] = float(means.mean()) if len(means) else 0.0
    S_ = max(len(setup.slot_owner), 1)
    si = np.zeros((S_, NSI), np.int64)
    for s in range(len(setup.slot_owner)):
        d = setup.slot_dice.dice[s]
        si[s] = (setup.slot_owner[s], setup.slot_rank[s], d.count, d.sides, d.bonus, setup.slot_mask[s],
                 setup.slot_missile[s], setup.slot_magical[s], setup.slot_reach[s], 0)[:NSI]
    cf_slot = np.zeros(S_)
    cf_slot[:len(setup.slot_owner)] = setup.slot_mean
    drows = np.stack([setup.defence_rows[k] for k in T._COLS], axis=2).astype(np.int64)
    tt = setup.tags
    removable = [tt.bit[n] for n in tt.removable]
    tags = np.array(list(tt.defeat_mask) + list(tt.condition_masks) + [len(removable)] + removable, np.int64)
    cond = np.stack([setup.cond_loss, setup.cond_attacks, setup.cond_no_parry, setup.cond_no_weapon,
                     setup.cond_no_dodge, setup.cond_lasting], axis=1).astype(np.int64)
    r = np.zeros(NR, np.int64)
    r[R_CHALLENGE] = VARIANTS.index(rules["challenge"])
    r[R_SURPRISE] = ("none", "party_surprised", "monsters_surprised").index(rules["surprise"])
    r[R_MPR], r[R_RECOVERY] = rules["momentum_per_round"], rules["recovery"] == "body"
    r[R_SAC_OWE], r[R_BOTCH_ENDS] = rules["attack_sacrifice_at_zero"] == "owe", rules["botch_ends_turn"]
    r[R_TAG_COST], r[R_TRIUMPH_OVER] = rules["tag_cost"], rules["triumph_tag_over_cap"]
    r[R_STACKS] = rules["defences_per_attack"] == "mitigate_stacks"
    r[R_MONSTER_ARMOR], r[R_FORMED_ROUND] = rules["monster_armor"] == "reduce", rules["spell_stays_formed"] == "round"
    r[R_ZERO_VOID] = rules["zero_body"] == "void_limit"
    r[R_VOID_LIMIT], r[R_VOID_DEATH] = rules["void_limit"], rules["void_death"]
    r[R_MONSTER_DEAD] = rules["monster_at_zero"] == "dead"
    r[R_SPATIAL] = spatial
    if spatial:
        g = setup.grid
        r[R_GRID_W], r[R_GRID_H] = g.width, g.height
        r[R_METRIC] = METRICS.index(g.metric) if g.metric in METRICS else 2
        r[R_CELL_FEET] = int(round(g.cell_size))
    else:
        r[R_CELL_FEET] = 5
    r[R_BEATS] = int(rules["momentum_per_round"] + setup.bonus.max(initial=0) + 2)
    r[R_USES_FOCUS], r[R_PVP] = setup.uses_focus, setup.extra["pvp"]
    r[R_FIXES] = setup.extra.get("fixes", FIX_ALL)
    r[R_PIERCE], r[R_SIDES], r[R_SLOTS] = tt.armor_piercing_mask, setup.n_sides, len(setup.slot_owner)
    r[R_WEAPON_USE], r[R_SOURCE] = setup.abilities.index("weapon_use"), setup.abilities.index("source")
    r[R_LASTING] = sum(1 << k for k in range(cond.shape[0]) if cond[k, C_LASTING])
    chars = ci[:, IS_CHAR] == 1
    by_value = lambda bit: (ci[:, EV] == 1) & ((ci[:, OWN] & bit) == 0)  # noqa: E731
    r[R_HELP] = int(bool(np.any(chars & ((ci[:, ASSIST] == 1) | by_value(OWN_ASSIST))))) \
        | 2 * int(bool(np.any(chars & ((ci[:, INTERFERE] == 1) | by_value(OWN_INTERFERE)))))
    for d, name in enumerate(T.DEFENCE_ABILITY):
        r[R_DEF_AB0 + d] = setup.abilities.index(name)
    from sim.rulesets.lens import RULESET
    table = build_table(setup.policies, list(OBSERVATIONS), RULESET.observation_aliases)
    return KernelTables(ci=ci, cf=cf, ab=ab, prob=prob, prefix=setup.weapon_prefix.astype(np.int64), si=si,
                        drows=drows, tags=tags, cond=cond, rules=r, zones=zones, zone_len=zone_len, smean=cf_slot,
                        policy=table.arrays(), reads=table.reads.astype(np.uint8), stack_size=table.stack_size)


def _own(written) -> int:
    """OWN's bits for the fields written; a written `big_hit` is a `defend` choice (setup.family_params)."""
    fields = set(written) | ({"defend"} if "big_hit" in written else set())
    return sum(1 << k for k, name in enumerate(OWN_FIELDS) if name in fields)


def _spatial(setup) -> bool:
    return setup.rules["engagement"] == "battlefield" and setup.grid is not None


def _stack(blocks: list[np.ndarray], dtype) -> tuple[np.ndarray, list[int]]:
    """2-D blocks one below the other, as wide as the widest; the first row of each."""
    width = max(b.shape[1] for b in blocks)
    out = np.zeros((sum(b.shape[0] for b in blocks), width), dtype)
    starts, row = [], 0
    for b in blocks:
        out[row:row + b.shape[0], :b.shape[1]] = b
        starts.append(row)
        row += b.shape[0]
    return out, starts


def pack(kt: KernelTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's K = (integers, floats, rules): the per-combatant integers and floats
    first (ci[c, X] and cf[c, X] read as before), the other tables below them at the
    offsets written into rules (kcore's accessors read them)."""
    C, A = kt.ab.shape[0], kt.ab.shape[1]
    assert kt.drows.shape[1] == DEF_ROWS
    ints, (_, o_prefix, o_si, o_cond, o_drows, o_tags, o_ab, o_zones, o_zlen) = _stack(
        [kt.ci, kt.prefix, kt.si, kt.cond, kt.drows.reshape(-1, kt.drows.shape[2]), kt.tags[None, :],
         kt.ab.reshape(C * A, 4), kt.zones.reshape(-1, 2), kt.zone_len[None, :]], np.int64)
    # Room for the defence savings (kvalue.fill_savings): a row of five per defender and
    # blow source (each monster attack slot, then each combatant's weapon and spell).
    sources = kt.si.shape[0] + 2 * C
    floats, (_, o_prob, o_smean, o_save) = _stack(
        [kt.cf, kt.prob.reshape(-1, 4), kt.smean[:, None], np.zeros((C * sources, 5))], np.float64)
    rules = kt.rules.copy()
    rules[[R_OFF_PREFIX, R_OFF_SI, R_OFF_COND, R_N_COND, R_OFF_DROWS, R_OFF_TAGS, R_OFF_AB, R_N_AB, R_OFF_ZONES,
           R_ZMAX, R_OFF_ZLEN, R_OFF_PROB, R_OFF_SMEAN, R_OFF_SAVE, R_N_SRC]] = (
        o_prefix, o_si, o_cond, kt.cond.shape[0], o_drows, o_tags, o_ab, A, o_zones, kt.zones.shape[1], o_zlen,
        o_prob, o_smean, o_save, sources)
    return ints, floats, rules
