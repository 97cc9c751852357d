"""Gods & Monsters compiled into flat tables: what the kernel reads about a scenario.

A scenario becomes a handful of int64 / float64 arrays, one row per property and one
column per combatant, attack slot or spell, plus the rule options as runtime values
in `flags`. The kernel is compiled once for every scenario: nothing here is a global
or a closure the compiled code could specialise on.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import battlefield as bf
from sim import policy_vm
from sim.policy import TARGET_MODES
from sim.rulesets.gods_and_monsters import schema as S


NEVER = 1 << 30  # a surprise target no d20 misses; unlimited spell uses
# What a chunk starts from (play._start): fresh skirmishes; a given start with conditions
# (holds, sleep, drawn weapons, loads, spell uses), which only the general round plays;
# one of status, verve, survival, injuries and surprise alone, which the fused pass plays too.
START_NONE, START_WITH_CONDITIONS, START_PLAIN = 0, 1, 2
FAR = bf.FAR

# --- event sites of keyed randomness (sim/keyed.py): (site, actor, k) ---
(SURPRISE, SNAP, TARGET, ATTACK_ROLL, DAMAGE, HEALTH, DEATH_GUIDE, FOCUS_SITE, PLACE, DRAW_ROLL, LEAD_ROLL,
 SPELL_SAVE, SPELL_DAMAGE, DISRUPT, KO_SAVE, CARRIED_SAVE, CARRIED_DAMAGE, AGILITY_ATT, AGILITY_TGT, REACTION,
 EXTRA_ATTACK, EXTRA_DAMAGE, BYSTANDER, STRAY, GRAB_DODGE, HOLD_BREAK, HOLD_KEEP, MOVE_GOAL, SPELL_TARGET,
 SLOT_ROLLS) = range(1, 31)
# SLOT_ROLLS is a blocked site (keyed.block): a slot's numbers of a round from one
# evaluation, keyed by the slot whatever its target: k 0-1 the target's uniform, k 2
# the attack roll, k 3.. the damage dice.
K_SLOT_ATTACK, K_SLOT_DAMAGE = 2, 3
# k of the HEALTH / DEATH_GUIDE rolls beside the phase number (0.. sides - 1)
K_CALLED_PHASE, K_HOLD_BREAK = 64, 65

# --- actions ---
A_ = {name: i for i, name in enumerate(S.ACTIONS)}
ATTACK, HOLD, FLEE = A_["attack"], A_["hold"], A_["flee"]
CALLED, KNOCKOUT, KILL, GRAB = A_["called_shot"], A_["knockout"], A_["killing_blow"], A_["immobilize"]
TIE_UP, CAST, LEAD, COVER, RELOAD, WITHDRAW = (A_[a] for a in ("tie_up", "cast", "lead", "cover", "reload", "withdraw"))
# Actions that use the combatant's attacks this round.
ATTACKING = np.zeros(len(S.ACTIONS), dtype=np.int64)
ATTACKING[[ATTACK, CALLED, KNOCKOUT, KILL, GRAB, RELOAD]] = 1
# "Surprised characters may not initiate complex actions such as casting spells ... or any
# of the special conflict maneuvers": these fall back to a plain attack while surprised.
MANEUVER = np.zeros(len(S.ACTIONS), dtype=np.int64)
MANEUVER[[CALLED, KNOCKOUT, KILL, GRAB, TIE_UP, CAST, LEAD, COVER]] = 1

RANDOM, WEAKEST, STRONGEST, FOCUS, NEAREST = (TARGET_MODES.index(m) for m in
                                              ("random", "weakest", "strongest", "focus", "nearest"))
AUTO, ADVANCE, HOLD_GROUND, KITE, WITHDRAW_MOVE = range(len(S.MOVES))
NORMAL, K_CALLED, K_KO, K_KILL, K_GRAB = range(5)
HELD_NONE, HELD_GRABBED, HELD_IMMOBILIZED = 0, 1, 2
UNAWARE, COVERED, IMMOBILE = (S.NOT_DEFENDING.index(k) for k in ("unaware", "covered", "immobile"))
ND_ATTACK = np.array([S.NOT_DEFENDING_BONUS[k][0] for k in S.NOT_DEFENDING], dtype=np.int64)
ND_DAMAGE = np.array([S.NOT_DEFENDING_BONUS[k][1] for k in S.NOT_DEFENDING], dtype=np.int64)
COVER_TABLE = np.array([S.COVER_BONUS[k] for k in S.COVER_LEVELS], dtype=np.int64)  # (level, [warrior, other])
STRONG, FULL = S.COVER_LEVELS.index("strong"), S.COVER_LEVELS.index("full")
METRIC_CODES = {m: i for i, m in enumerate(bf.METRICS)}  # chebyshev 0, alternating 1, manhattan 2

# --- rows of the combatant table CT (int64, (NCT, C)) ---
(C_SIDE, C_VERVE, C_SURV, C_USES_VERVE, C_DEFENSE, C_FORT, C_SURPRISE_T, C_SNAP_T, C_PERCEPTION, C_EVASION,
 C_AGILITY, C_SIZE, C_HEAD, C_MOVE_BONUS, C_COVER, C_LEVEL, C_WARRIOR, C_FIRST_SLOT, C_NSLOT, C_MAX_REACH,
 C_MOVE_MODE, C_MOVE_CELLS, C_KITE_CELLS, C_TMODE, C_CALLED_WHEN, C_KNOCKOUT, C_KILLING, C_GRAB_WHEN,
 C_HOLD_ATTACK, C_TIE_UP, C_LEAD, C_COVER_AIM, C_CAST, C_RELOAD, C_QUICK_DRAW, C_EXTRA_UNAWARE, C_DRAWN0,
 C_KO_POINTS, C_FLEE_BAD, C_SLEEPER, C_SPELL_FIRST, C_NSPELL, C_X0, C_Y0, C_SCATTER, C_MULTI_SLOT,
 C_SAVE0) = range(47)
NCT = C_SAVE0 + len(S.SAVES)
# --- rows of the float combatant table CF ---
F_FLEE_BELOW, F_WITHDRAW_BELOW, F_ROUT_BELOW, NCF = range(4)
# --- rows of the slot table ST (int64, (NST, A)) ---
(S_OWNER, S_BASE, S_REACH, S_RANGED, S_ACTIONS, S_LOADED0, S_DCOUNT, S_DSIDES, S_DBONUS, S_CSAVE, S_CCOUNT,
 S_CSIDES, S_CBONUS, S_ALT, NST) = range(15)
# --- rows of the spell table SP ---
P_OWNER, P_COUNT, P_SIDES, P_BONUS, P_SAVE, P_SLEEP, P_RANGE, P_USES, NSP = range(9)

# --- flags: the rule options as values ---
(G_SIDES, G_PHASES, G_LOSE_ROUND, G_FIRST_PEN, G_INJ_ALL, G_GUIDE, G_CHECK_NOW, G_HIGHER, G_COVER_MELEE,
 G_INTO_MELEE, G_SLEEPERS, G_UNAWARE, G_SLEEP_WAKES, G_USE_NEAREST, G_STATIC, G_WIDTH, G_HEIGHT, G_METRIC,
 G_MAY_MOVE, G_AIM, G_EXTRA, G_KO_COST, G_CALLED, G_HOLDS, G_SPELLS, G_LEAD, G_MULTI, G_ADJ,
 G_CORE, G_PURSUIT, NFLAGS) = range(31)
PURSUIT_SIMULTANEOUS, PURSUIT_START = range(2)  # rule option `pursuit`, in S.PURSUIT order
# G_CALLED .. G_ADJ: whether a scenario can ever use a situation (called shots of any
# kind, holds, spells, leading, multi-action weapons, who is next to whom); the round
# skips the work of those it cannot, so a branch costs only where it is taken. G_CORE:
# none of them, nor movement, phases or scripts: core.play_round_core plays the round.

OBSERVATION_NAMES = list(S.OBSERVATIONS)
(O_ROUND, O_HEALTH, O_SURVIVAL, O_VERVE, O_INJURIES, O_SURPRISED, O_ALLIES, O_ENEMIES, O_TOOK, O_DEALT,
 O_DISTANCE, O_IN_CLOSE, O_SPELLS_LEFT, O_WEAPON_READY, O_HELD, O_HOLDING, O_ENEMIES_IMMOBILE,
 O_ENEMIES_CASTING) = range(len(OBSERVATION_NAMES))
assert OBSERVATION_NAMES[O_DISTANCE] == "distance" and OBSERVATION_NAMES[-1] == "enemies_casting"


@dataclass
class Setup:
    """A scenario as the kernel takes it, and what the trace text needs beside."""
    names: list[str]
    side_names: list[str]
    slot_name: list[str]
    slot_dice: list[str]
    spell_names: list[str]
    flags: np.ndarray
    cell_size: float
    ct: np.ndarray
    cf: np.ndarray
    st: np.ndarray
    sp: np.ndarray
    pair_mod: np.ndarray  # (A, C) need change per slot and target: high ground, unseen targets
    close_reach: np.ndarray  # (C, C) cells within which two opponents are in close combat
    zone: np.ndarray  # (Z, 2) cells scattered sides spread over, side by side
    zone_ptr: np.ndarray  # (sides + 1,)
    table: policy_vm.PolicyTable
    grid: bf.Grid
    rules: dict
    awareness: list[str]
    rule_texts: list[list[str]]  # per combatant: its scripted rules' conditions, for traces


def strength_bonus(strength, table: dict) -> int:
    if strength is None:
        return 0
    bonus = 0
    for level, value in sorted((int(k), int(v)) for k, v in table.items()):
        if strength >= level:
            bonus = value
    return bonus


def build(scenario) -> Setup:
    rules = scenario.rules
    cs = scenario.combatants
    C = len(cs)
    grid = scenario.battlefield
    layout = scenario.layout
    lower = lambda names: {a.lower() for a in names}  # noqa: E731
    verve_arch, warrior_arch = lower(rules["verve_archetypes"]), lower(rules["warrior_archetypes"])
    is_arch = lambda c, arch: any(a.lower() in arch for a in c.stats["archetypes"])  # noqa: E731

    slots = []  # (owner, entry, alternative)
    for i, c in enumerate(cs):
        # `attacks` are all made every round; `weapons` are alternatives: each round the
        # first one (in the listed order) that reaches an enemy is used.
        entries = [(e, 0) for e in c.stats["attacks"]] or [(e, 1) for e in c.stats["weapons"]]
        slots += [(i, e, alt) for e, alt in entries]
    A = len(slots)
    st = np.zeros((NST, A), dtype=np.int64)
    for a, (i, e, alt) in enumerate(slots):
        stats = cs[i].stats
        extra = stats["damage_bonus"] + strength_bonus(stats["strength"], rules["strength_damage_bonus"])
        carried = e["carried"]
        st[:, a] = 0
        st[S_OWNER, a], st[S_ALT, a] = i, alt
        st[S_BASE, a] = S.BASE_TARGET + stats["combat"] + stats["attack"] + e["attack"]
        st[S_REACH, a] = grid.cells(e["range"] if e["range"] else e["reach"])
        st[S_RANGED, a] = bool(e["range"])
        st[S_ACTIONS, a] = e["actions"]
        st[S_LOADED0, a] = e["actions"] - 1 if e["loaded"] is None else min(e["actions"] - 1, e["loaded"])
        st[S_DCOUNT, a], st[S_DSIDES, a] = e["damage"].count, e["damage"].sides
        st[S_DBONUS, a] = e["damage"].bonus + extra
        st[S_CSAVE, a] = S.SAVES.index(carried["save"]) if carried else -1
        if carried:
            st[S_CCOUNT, a], st[S_CSIDES, a], st[S_CBONUS, a] = (carried["damage"].count, carried["damage"].sides,
                                                                 carried["damage"].bonus)
    owner = st[S_OWNER]

    spells = [(i, sp) for i, c in enumerate(cs) for sp in c.stats["spells"]]
    sp = np.zeros((NSP, max(1, len(spells))), dtype=np.int64)
    for s, (i, spell) in enumerate(spells):
        d = spell["damage"]
        sp[:, s] = (i, d.count if d else 0, d.sides if d else 0, d.bonus if d else 0, S.SAVES.index(spell["save"]),
                    spell["condition"] == "sleep", grid.cells(spell["range"]), spell["uses"] or NEVER)

    ct = np.zeros((NCT, C), dtype=np.int64)
    cf = np.zeros((NCF, C), dtype=np.float64)
    warrior = np.array([is_arch(c, warrior_arch) for c in cs])
    for i, c in enumerate(cs):
        st_, p = c.stats, c.policy.params
        mine = np.flatnonzero(owner == i)
        ranged = bool(st[S_RANGED, mine].any())
        spell_reach = max([grid.cells(x["range"]) for x in st_["spells"]], default=0)
        aware = st_["awareness"]
        rolls = aware != "aware" or rules["surprise_roll_for_aware"]
        move = S.MOVES.index(p["move"])
        multi = [a for a in mine if st[S_ACTIONS, a] > 1]
        col = {
            C_SIDE: c.side, C_VERVE: st_["verve"], C_SURV: st_["survival"], C_USES_VERVE: is_arch(c, verve_arch),
            C_DEFENSE: st_["defense"], C_FORT: st_["fortitude"],
            C_SURPRISE_T: st_["perception"] + S.AWARENESS_SURPRISE_MODIFIER[aware] if rolls else NEVER,
            C_SNAP_T: {"best": max(st_["willpower"], st_["fortitude"]), "willpower": st_["willpower"],
                       "fortitude": st_["fortitude"]}[rules["snap_out_roll"]],
            C_PERCEPTION: st_["perception"], C_EVASION: st_["evasion"], C_AGILITY: st_["agility"],
            C_SIZE: S.SIZES.index(st_["size"]), C_HEAD: st_["head_protection"],
            C_MOVE_BONUS: int(st_["movement"] // 10) if rules["disruption_movement_bonus"] else 0,
            C_COVER: S.COVER_LEVELS.index(st_["cover"]), C_LEVEL: st_["level"], C_WARRIOR: warrior[i],
            C_FIRST_SLOT: mine[0], C_NSLOT: len(mine),
            C_MAX_REACH: max(int(st[S_REACH, mine].max()), spell_reach),
            C_MOVE_MODE: (KITE if ranged else ADVANCE) if move == AUTO else move,
            C_MOVE_CELLS: grid.cells(st_["movement"]), C_KITE_CELLS: grid.cells(p["kite_distance"]),
            C_TMODE: c.policy.target, C_CALLED_WHEN: S.CALLED_SHOT_WHEN.index(p["called_shot"]),
            C_KNOCKOUT: p["knockout"], C_KILLING: p["killing_blow"],
            C_GRAB_WHEN: S.IMMOBILIZE_WHEN.index(p["immobilize"]),
            C_HOLD_ATTACK: p["hold_then"] == "attack", C_TIE_UP: p["tie_up"], C_LEAD: p["lead"] and warrior[i],
            C_COVER_AIM: p["cover"], C_CAST: p["cast"],
            C_RELOAD: ("out_of_close_combat", "always", "never").index(p["reload"]),
            C_QUICK_DRAW: p["quick_draw"], C_EXTRA_UNAWARE: p["unaware_extra_attack"] and warrior[i],
            C_DRAWN0: st_["weapon_drawn"],
            C_KO_POINTS: rules["warrior_knockout_injuries"] if warrior[i] else rules["knockout_injuries"],
            C_FLEE_BAD: p["flee_after_bad_round"], C_SLEEPER: aware == "asleep",
            C_SPELL_FIRST: next((s for s, (o, _) in enumerate(spells) if o == i), 0), C_NSPELL: len(st_["spells"]),
            C_X0: layout.static[i, 0], C_Y0: layout.static[i, 1],
            C_SCATTER: c.side in layout.scatter_sides and not layout.explicit[i],
            C_MULTI_SLOT: multi[0] if multi else -1,
        }
        for row, value in col.items():
            ct[row, i] = int(value)
        saves = (st_["evasion"], st_["willpower"], st_["fortitude"], st_["perception"], st_["agility"], -100)
        ct[C_SAVE0:C_SAVE0 + len(saves), i] = saves
        cf[:, i] = (p["flee_below"], p["withdraw_below"], p["rout_below"])

    melee = np.array([max([int(st[S_REACH, a]) for a in np.flatnonzero(owner == i) if not st[S_RANGED, a]],
                          default=1) for i in range(C)], dtype=np.int64)
    pair_mod = _pair_modifiers(cs, st)
    zone, zone_ptr = _scatter_zones(layout, len(scenario.side_names))
    static = _static(layout, grid, ct)
    flags = np.zeros(NFLAGS, dtype=np.int64)
    flags[[G_SIDES, G_PHASES]] = len(scenario.side_names), (1 if rules["resolution"] == "simultaneous"
                                                            else len(scenario.side_names))
    flags[G_LOSE_ROUND] = rules["surprised_first_round"] == "lose_round"
    flags[G_FIRST_PEN] = rules["surprised_first_round_penalty"]
    flags[G_INJ_ALL] = rules["injury_penalty"] == "all_rolls"
    flags[G_GUIDE] = rules["death_rule"] == "guide_roll"
    flags[G_CHECK_NOW] = rules["health_check"] == "immediate" or flags[G_PHASES] == 1
    flags[G_HIGHER] = rules["contest"] == "higher_success"
    flags[G_COVER_MELEE] = rules["cover_vs_melee"]
    flags[G_PURSUIT] = S.PURSUIT.index(rules["pursuit"])
    flags[G_INTO_MELEE] = rules["firing_into_close_combat"] and bool(st[S_RANGED].any())
    flags[G_SLEEPERS] = rules["sleepers_immobile"]
    flags[G_UNAWARE] = rules["surprised_are_unaware"]
    flags[G_SLEEP_WAKES] = rules["sleep_wakes_on_damage"]
    # Under fixed distances `nearest` picks at random, as the array engine did (every
    # enemy in reach of a melee in contact is "near").
    flags[G_USE_NEAREST] = not static
    flags[G_STATIC] = static
    flags[[G_WIDTH, G_HEIGHT, G_METRIC]] = grid.width, grid.height, METRIC_CODES[grid.metric]
    flags[G_MAY_MOVE] = not static and bool((ct[C_MOVE_MODE] != HOLD_GROUND).any())
    flags[G_AIM] = bool(ct[C_COVER_AIM].any()) or COVER in _scripted_actions(cs)
    flags[G_EXTRA] = bool(ct[C_EXTRA_UNAWARE].any()) or flags[G_AIM]
    flags[G_KO_COST] = rules["knockout_costs_combat_bonus"]
    _situations(flags, ct, st, sp, cs, len(spells))
    table = policy_vm.build_table([c.policy for c in cs], OBSERVATION_NAMES, {"nearest_enemy": "distance"})
    flags[G_CORE] = (flags[G_PHASES] == 1 and flags[G_STATIC] and not flags[G_MAY_MOVE] and not flags[G_USE_NEAREST]
                     and not flags[[G_CALLED, G_HOLDS, G_SPELLS, G_LEAD, G_MULTI, G_ADJ, G_AIM, G_EXTRA,
                                    G_INTO_MELEE]].any() and int(table.rule_first[-1]) == 0)
    names = [c.name for c in cs]
    return Setup(
        names=names, side_names=list(scenario.side_names), slot_name=[e["name"] for _, e, _ in slots],
        slot_dice=[_dice_text(e["damage"], int(st[S_DBONUS, a]) - e["damage"].bonus)
                   for a, (_, e, _) in enumerate(slots)], spell_names=[x["name"] for _, x in spells],
        flags=flags, cell_size=float(grid.cell_size), ct=ct, cf=cf, st=st, sp=sp, pair_mod=pair_mod,
        close_reach=np.maximum(melee[:, None], melee[None, :]), zone=zone, zone_ptr=zone_ptr, table=table,
        grid=grid, rules=rules, awareness=[c.stats["awareness"] for c in cs],
        rule_texts=[[str(r.text) for r in c.policy.rules] for c in cs])


def _situations(flags, ct, st, sp, cs, n_spells: int) -> None:
    """The G_CALLED .. G_ADJ flags: conservative (1 unless the situation cannot arise)."""
    scripted = _scripted_actions(cs)
    sleep = bool(ct[C_SLEEPER].any()) or bool(n_spells and sp[P_SLEEP].any())
    flags[G_HOLDS] = bool((ct[C_GRAB_WHEN] != 0).any()) or GRAB in scripted
    # Immobile targets come from sleep or holds; killing blows and knockouts need them
    # (or surprise, for knockouts).
    flags[G_CALLED] = (bool((ct[C_CALLED_WHEN] != 0).any()) or bool(ct[C_KNOCKOUT].any()) or flags[G_HOLDS]
                       or bool(scripted & {CALLED, KNOCKOUT, KILL, GRAB})
                       or (bool(ct[C_KILLING].any()) and sleep))
    flags[G_SPELLS] = n_spells > 0
    flags[G_LEAD] = bool(ct[C_LEAD].any()) or LEAD in scripted
    flags[G_MULTI] = bool((st[S_ACTIONS] > 1).any())
    flags[G_ADJ] = flags[G_INTO_MELEE] or flags[G_MULTI] or flags[G_HOLDS] or TIE_UP in scripted


def _dice_text(dice, extra: int) -> str:
    return f"{dice}{extra:+d}" if extra else str(dice)


def _scripted_actions(cs) -> set:
    return {r.action for c in cs for r in c.policy.rules}


def _pair_modifiers(cs, st) -> np.ndarray:
    # +1 to attack (or to defense) "from the higher end of a reasonable slope": only
    # against an opponent who lacks the advantage; unseen targets are harder to hit.
    pols = [c.policy.params for c in cs]
    high = np.array([c.stats["high_ground"] and p["high_ground"] != "none" for c, p in zip(cs, pols)])
    atk = np.array([p["high_ground"] == "attack" for p in pols])
    unseen = np.array([c.stats["unseen"] for c in cs])
    owner = st[S_OWNER]
    pm = np.zeros((len(owner), len(cs)), dtype=np.int64)
    pm += (high[owner] & atk[owner])[:, None] & ~high[None, :]
    pm -= (~high[owner])[:, None] & (high & ~atk)[None, :]
    pm *= S.HIGH_GROUND_BONUS
    penalty = np.where(st[S_RANGED] > 0, S.UNSEEN_PENALTY["ranged"], S.UNSEEN_PENALTY["close"])
    pm -= penalty[:, None] * unseen[None, :]
    return np.ascontiguousarray(pm)


def _scatter_zones(layout, n_sides: int):
    cells, ptr = [], [0]
    taken = {tuple(int(v) for v in layout.static[i]) for i in range(len(layout.static)) if layout.explicit[i]}
    for s in range(n_sides):
        if s in layout.scatter_sides:
            zone = [tuple(int(v) for v in z) for z in layout.zones[s] if tuple(int(v) for v in z) not in taken]
            cells += zone
        ptr.append(len(cells))
    zone = np.array(cells if cells else [(0, 0)], dtype=np.int64).reshape(-1, 2)
    return zone, np.array(ptr, dtype=np.int64)


def _static(layout, grid, ct) -> bool:
    """True when nobody can ever need to move: every enemy starts in reach, nobody kites,
    withdraws or is scattered (enemies only fall), so distances hold for the whole fight."""
    if layout.scatter_sides or ((ct[C_MOVE_MODE] == KITE) | (ct[C_MOVE_MODE] == WITHDRAW_MOVE)).any():
        return False
    dist = bf.distances(layout.static[None], grid.metric)[0]
    enemy = ct[C_SIDE][:, None] != ct[C_SIDE][None, :]
    return not (enemy & (dist > ct[C_MAX_REACH][:, None])).any()


# --- rows of the per-combatant work array W (int64, (NW, C)), one skirmish at a time ---
(W_STATUS, W_VERVE, W_SURV, W_INJ, W_SURPRISED, W_WAS_SURPRISED, W_ASLEEP, W_WAKE, W_BOUND, W_HELD, W_HELD_BY,
 W_HOLDING, W_COVERING, W_DRAWN, W_CAST_LAST, W_LAST_DEALT, W_LAST_TAKEN, W_X, W_Y, W_ATTACKS, W_HITS, W_DEALT,
 W_TAKEN, W_DOWN, W_ACTION, W_TMODE, W_LOST, W_CAN_ACT, W_ROLL_PEN, W_ATT_PEN, W_DEF, W_STAND0, W_LED, W_SPELL_OF,
 W_SPELL_TGT, W_CASTING, W_CAN_ATTACK, W_IN_CLOSE, W_FIRING, W_BUSY, W_GRABBING, W_UPSET, W_ACTIVE, W_OWED,
 W_PENDING, W_PTAKEN, W_PDIRECT, W_MOVED, W_TYING, W_PRE_HELD, W_ON_HELD, W_FORCED, W_AIM_T, W_RTAKEN, W_RDEALT,
 W_GOAL_CLOSE, W_GOAL_AWAY, W_WHY, W_BLOCKED, W_PX, W_PY, W_MAY_MOVE, W_NOW_DOWN, W_RULE_SEEN, W_MELEE, W_MELEE_N,
 NW) = range(67)
# W_MELEE: the melee a combatant stands in this round (its lowest member), W_MELEE_N its size:
# set only where firing into close combat can arise (round._melees).
# --- rows of the per-slot work array SL (int64, (NSL, A)) ---
(L_LOADED, L_FREE_USED, L_TARGET, L_ACTING, L_RELOAD, L_FREE_NOW, L_ATTACKING, L_KIND, L_HIT, L_REACHES,
 L_USABLE, L_NOW, L_WORD_ATTACK, L_WORD_DAMAGE, NSL) = range(15)
# L_WORD_*: words K_SLOT_ATTACK and K_SLOT_DAMAGE of the slot's SLOT_ROLLS block this
# round, kept from choosing its target for resolving its attack.

# --- event codes of the trace buffer (sim/events.py); trace_text.py gives their text ---
(EV_SURPRISE, EV_POS, EV_MAP, EV_ROUND, EV_SNAP, EV_WAKE, EV_FLEE, EV_LOST_ROUND, EV_DRAW, EV_MOVE, EV_LEAD,
 EV_ATTACK, EV_TAKES, EV_DIES, EV_CONSCIOUS, EV_STRAY, EV_DISRUPT_ROLL, EV_FALLS_FIRST, EV_SPELL, EV_SPELL_DISRUPTED,
 EV_WAKES_HIT, EV_LOAD, EV_GRAB, EV_STRAIN, EV_TIED, EV_AIM, EV_WITHDRAW, EV_SLEEPS, EV_FOCUS, EV_END,
 EV_STALLED, EV_UNFINISHED, EV_RULE) = range(1, 34)
# why a combatant flees or withdraws (EV_FLEE / EV_WITHDRAW)
WHY_HEALTH, WHY_BAD_ROUND, WHY_ROUT, WHY_WITHDRAW_HEALTH, WHY_SCRIPT = range(5)
