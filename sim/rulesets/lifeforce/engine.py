"""Lifeforce skirmish combat as array operations over a batch of skirmishes.

A ruleset step plays one ROUND: four action phases, and in each every creature's turn
in turn order. The order differs per skirmish (roll-offs, Hastened, Slowed), so turns
are taken by turn position: "the k-th creature to act" is a gather over rows, and all
per-skirmish work is array operations. Shapes: N rows, C creatures, W weapon rows
(each creature's weapons plus its bare hands).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim import battlefield as bf
from sim.dice import DiceTable, parse_dice
from sim.rulesets.base import DRAW, STANDING, BatchState, Outcome
from sim.rulesets.lifeforce import policies as P
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.attacks import strength_damage
from sim.rulesets.lifeforce.resolve import READY_BLOCK, READY_NONE, READY_OPPORTUNITY, end_grapple
from sim.rulesets.lifeforce.turn import take_turn
from sim.rulesets.lifeforce.turn_order import roll_offs, turn_order

READY_CODES = {"none": READY_NONE, "block": READY_BLOCK, "opportunity": READY_OPPORTUNITY}
CONTEST_CODES = {"always": 0, "until_pinned": 1, "never": 2}


@dataclass
class Setup:
    names: list[str]
    side: np.ndarray
    n_sides: int
    enemy: np.ndarray  # (C, C)
    hp: np.ndarray
    order_attr: np.ndarray
    offence: np.ndarray
    dodge: np.ndarray
    reflex: np.ndarray
    will: np.ndarray
    athletics: np.ndarray
    intimidate: np.ndarray
    sb: np.ndarray
    armor: np.ndarray
    has_shield: np.ndarray
    shield_dice: DiceTable
    can_block: np.ndarray
    can_aoo: np.ndarray
    hastened: np.ndarray
    slowed: np.ndarray
    surprised: np.ndarray
    w_name: list[str]
    w_skill: np.ndarray
    w_dice: DiceTable
    w_ap: np.ndarray
    w_armoured: np.ndarray
    w_two: np.ndarray
    w_reach: np.ndarray  # cells
    w_range: np.ndarray  # cells, 0 for melee
    w_loading: np.ndarray
    w_table: np.ndarray  # 0 weapon stunts, 1 spell stunts
    w_unarmed: np.ndarray
    melee_w: np.ndarray  # (C,)
    ranged_w: np.ndarray  # (C,) or -1
    unarmed_w: np.ndarray
    held_w: np.ndarray  # (C,) the weapon in hand that Disarm knocks away: the first listed
    split_cells: np.ndarray  # (C, 4) cells moved per action phase
    stunt_costs: np.ndarray  # (2, S)
    stunt_priority: np.ndarray  # (C, P)
    generates: np.ndarray
    use_reaction: np.ndarray  # (C,) str
    ready_pref: np.ndarray
    contest_mode: np.ndarray
    escape: np.ndarray
    abandon: np.ndarray
    answer: np.ndarray
    run: np.ndarray
    family: np.ndarray
    keep_cells: np.ndarray
    target_mode: np.ndarray
    policies: list
    scripted: list[int]
    cond: dict
    grid: object
    layout: object
    rules: dict

    def __post_init__(self):
        self.melee_reach = self.w_reach[self.melee_w]
        self.unarmed_reach = self.w_reach[self.unarmed_w]
        # Who may use its Reaction for each kind: trained, keeping it for that, and (Shield
        # Block) carrying a shield.
        keeps = lambda kind: (self.use_reaction == "any") | (self.use_reaction == kind)
        self.families = set(self.family.tolist())
        # Scripted creatures grouped by identical rules and target mode (see policies._scripted).
        keys, self.script_policies = {}, []
        self.script_group = np.full(len(self.names), -1, dtype=np.intp)
        for c in self.scripted:
            pol = self.policies[c]
            key = (pol.target, tuple((r.action, r.target, r.text) for r in pol.rules))
            if key not in keys:
                keys[key] = len(self.script_policies)
                self.script_policies.append(pol)
            self.script_group[c] = keys[key]
        self.any_focus = bool((self.target_mode == P.FOCUS).any())
        self.abandon_melee = self.abandon & (self.ranged_w < 0)
        # The nearest enemy: skirmishers keep from it, guardians watch it, scripted rules withdraw from it.
        self.wants_nearest = np.isin(self.family, (P.SKIRMISHER, P.GUARDIAN))
        self.wants_nearest[self.scripted] = True
        self.needs_nearest = bool(self.wants_nearest.any())
        # Which conditions can ever arise here (tables.CONDITION_NAMES order): Hastened from the
        # stat block or Seize the Initiative, Slowed only from the stat block, the others from
        # the stunts a creature may buy or (Prone) a Pin; the grapple track is checked as it goes.
        bought = set(self.stunt_priority.ravel().tolist())
        may_grapple = P.GRAPPLER in self.families or any(r.action == P.GRAPPLE for p in self.policies
                                                         for r in p.rules)
        has = lambda name: T.STUNT[name] in bought
        self.cond_live = (has("knock_prone") or may_grapple, bool(self.hastened.any()) or has("seize_the_initiative"),
                          bool(self.slowed.any()), has("defensive_stance"), True, True, True, has("threaten"),
                          has("disarm"))
        self.block_possible = bool(self.has_shield.any())
        # Strength Benefit on a hit by creature c with weapon w (melee weapons only).
        melee = self.w_range == 0
        self.sb_weapon = np.where(melee[None, :], strength_damage(self.sb[:, None], self.w_two[None, :],
                                                                  self.rules["two_handed_multiplier"]), 0)
        self.w_strike = np.where(self.w_range > 0, self.w_range, self.w_reach)  # Dual Strike's reach
        dual = T.STUNT["dual_strike"]
        costs = self.stunt_costs[:, dual]
        in_use = (self.stunt_priority == dual).any() and (costs > 0).any()
        self.dual_min_cost = int(costs[costs > 0].min()) if in_use else 0
        self.reacts = {"shield_block": self.can_block & keeps("shield_block") & self.has_shield,
                       "attack_of_opportunity": self.can_aoo & keeps("attack_of_opportunity")}

    def current_melee(self, state, rows, who) -> np.ndarray:
        """The weapon row a creature strikes with in melee: its melee weapon, or its hands if disarmed."""
        return np.where(state.disarmed[rows, who], self.unarmed_w[who], self.melee_w[who])


@dataclass
class State(BatchState):
    round: int
    status: np.ndarray
    hp: np.ndarray
    down_round: np.ndarray
    pos: np.ndarray  # (N, C, 2)
    hastened: np.ndarray
    slowed: np.ndarray
    haste_bonus: np.ndarray  # Hastened sources from Seize the Initiative, this round only
    seize: np.ndarray  # Seize the Initiative bought this round, Hastened next round
    rolloffs: np.ndarray  # (N, C, K)
    reaction_left: np.ndarray
    prep_action: np.ndarray
    prep_ap: np.ndarray
    prep_target: np.ndarray
    charge_dir: np.ndarray  # (N, C, 2)
    ready: np.ndarray
    target: np.ndarray
    prone: np.ndarray
    ds: np.ndarray
    disarmed: np.ndarray
    threatened_by: np.ndarray
    threat_left: np.ndarray
    partner: np.ndarray
    dominant: np.ndarray
    track: np.ndarray
    contesting: np.ndarray
    gchecked: np.ndarray
    stunted: np.ndarray
    loaded: np.ndarray
    attacks: np.ndarray
    hits: np.ndarray
    dealt: np.ndarray
    taken: np.ndarray
    stunt_points: np.ndarray
    blocks: np.ndarray
    opportunity: np.ndarray
    charges: np.ndarray
    grapples_won: np.ndarray
    grapple_checks_won: np.ndarray
    focus: np.ndarray  # (N, sides) the enemy a side's focus-mode creatures stick to, or -1
    rounds: np.ndarray
    # (N, C, C) grid distances, kept up to date by every move (Ctx.refresh) from round to round.
    dist: np.ndarray


class Ctx:
    """What a turn works with: the state, the phase, the distances and this turn's dice."""

    def __init__(self, setup: Setup, state: State, batch):
        self.setup, self.state, self.batch = setup, state, batch
        self.round = batch.round
        self.phase = 0
        self.trace = batch.trace
        C = len(setup.names)
        # Per creature (C,): both depend on the round only, not on the row.
        self.flat_footed = setup.surprised & (self.round == 1)
        self.no_actions = self.flat_footed & (setup.rules["surprise_round"] == "no_actions")
        self.any_no_actions = bool(self.no_actions.any())
        self.any_loading = bool(setup.w_loading.any())
        # Action points each prepared action needs (a Loading weapon's attack adds its reload).
        need = np.full(len(P.ACTION_NAMES), 2, dtype=np.int64)
        need[[P.RUN, P.GRAPPLE]] = 1
        need[P.STAND] = setup.rules["stand_up_ap"]
        need[P.RECOVER] = setup.rules["disarmed_recover_ap"]
        self.need = need
        self.C = C
        self._cols = np.arange(C)
        self.dist = state.dist  # refreshed in place as creatures move

    def refresh(self, rows=None, who=None) -> None:
        """Distances after movement, for the rows given (all by default).

        With `who` (the one creature that moved in each row) only its row and column of
        the distance matrix change: every metric is symmetric, so one (m, C) vector
        serves both, instead of the full (m, C, C) recomputation."""
        if rows is None:
            self.dist[...] = bf.distances(self.state.pos, self.setup.grid.metric)
        elif who is None:
            self.dist[rows] = bf.distances(self.state.pos[rows], self.setup.grid.metric)
        else:
            C = self.C
            who = np.asarray(who, dtype=np.intp)  # who * C must not overflow int16
            pos = self.state.pos[rows]
            if self.setup.grid.width + self.setup.grid.height > 16000:  # else differences fit int16
                pos = pos.astype(np.int32)
            d = pos - pos.reshape(-1, 2)[np.arange(len(rows)) * C + who][:, None, :]
            m = bf._metric(d[..., 0], d[..., 1], self.setup.grid.metric)
            self.dist.reshape(-1, C)[rows * C + who] = m  # dist[rows, who, :]
            self.dist.reshape(-1)[(rows * (C * C) + who)[:, None] + self._cols * C] = m  # dist[rows, :, who]

    def new_turn(self) -> None:
        """Every die a turn may need, drawn with fixed shapes (common random numbers)."""
        b, C, die = self.batch, self.C, self.setup.rules["attack_die"]
        # Kept as drawn (int16); the few rows that use a die widen it to int32 when read.
        self.roll = b.d(die, C)
        self.sec = b.d(die, C, 4)
        self.grap = b.d(die, 2, 3)
        # Damage dice as uniforms per possible attacker (its attack, its Dual Strike) and
        # per defender (its shield); faces are computed only for the rows that hit.
        self.u_damage = b.uniform(C, 2, self.setup.w_dice.max_count or 1)
        self.u_shield = b.uniform(C, self.setup.shield_dice.max_count or 1)
        self.noise = b.uniform(C)

    def damage(self, f, w, slot: int) -> np.ndarray:
        """Weapon dice of weapon rows `w` for attackers at flat (row * C + creature) indices f
        (slot 0 attack, 1 Dual Strike)."""
        u = self.u_damage
        return _faces(self.setup.w_dice, w, u.reshape(-1, u.shape[-1])[f * 2 + slot])

    def shield(self, f, who) -> np.ndarray:
        """Shield dice of defenders `who` at flat indices f."""
        u = self.u_shield
        return _faces(self.setup.shield_dice, who, u.reshape(-1, u.shape[-1])[f])


def _faces(table: DiceTable, idx, u) -> np.ndarray:
    """Totals of the table's dice expressions `idx` (m,) from uniforms u (m, max dice)."""
    if table.max_count <= 1:
        # One die at most: no (m, 1) temporaries and no sum over a length-1 axis.
        faces = (u[:, 0] * table.sides[idx]).astype(np.int32) + 1
        if table.max_count == 0 or (table.counts == 0).any():
            faces *= table.counts[idx] > 0
        return faces + table.bonus[idx]
    sides = table.sides[idx][:, None]
    faces = (u[:, :max(table.max_count, 1)] * sides).astype(np.int32) + 1
    used = np.arange(faces.shape[1])[None, :] < table.counts[idx][:, None]
    return (faces * used).sum(axis=1) + table.bonus[idx]


def build(scenario) -> Setup:
    rules = scenario.rules
    cs = scenario.combatants
    C = len(cs)
    grid = scenario.battlefield
    stat = lambda key: np.array([c.stats[key] for c in cs], dtype=np.int32)
    side = np.array([c.side for c in cs], dtype=np.int16)
    W = {k: [] for k in ("name", "skill", "dice", "ap", "armoured", "two", "reach", "range", "loading", "table",
                         "unarmed")}
    melee_w, ranged_w, unarmed_w, held_w = [], [], [], []

    def add(name, skill, dice, dtype, ap, two, reach, rng, loading, table, unarmed):
        W["name"].append(name)
        W["skill"].append(skill)
        W["dice"].append(dice)
        W["armoured"].append(dtype in T.ARMOURED_TYPES)
        W["ap"].append(ap)
        W["two"].append(two)
        W["reach"].append(max(1, grid.cells(reach)) if not rng else 0)
        W["range"].append(grid.cells(rng) if rng else 0)
        W["loading"].append(loading)
        W["table"].append(table)
        W["unarmed"].append(unarmed)
        return len(W["name"]) - 1

    for c in cs:
        first_melee = first_ranged = -1
        for w in c.stats["weapons"]:
            i = add(w["name"], w["skill"], w["damage"], w["damage_type"], w["armor_penetration"], w["two_handed"],
                    w["reach"], w["range"], w["loading"], int(w["stunts"] == "spell"), False)
            if w["range"] and first_ranged < 0:
                first_ranged = i
            if not w["range"] and first_melee < 0:
                first_melee = i
        # The option's default is the text "d3" (a file's value arrives parsed).
        hands = add("bare hands", 0, parse_dice(rules["unarmed_damage"]) if isinstance(rules["unarmed_damage"], str)
                    else rules["unarmed_damage"], "bludgeoning", 0, False, 1, 0, False, 0, True)
        melee_w.append(first_melee if first_melee >= 0 else hands)
        ranged_w.append(first_ranged)
        unarmed_w.append(hands)
        held_w.append(hands - len(c.stats["weapons"]) if c.stats["weapons"] else hands)

    sb = []
    for c in cs:
        if c.stats["strength_benefit"] is not None:
            sb.append(c.stats["strength_benefit"])
        elif c.stats["strength"] is not None:
            sb.append(int(T.strength_benefit(c.stats["strength"], rules["strength_benefit_divisor"])))
        else:
            sb.append(0)
    attr_key = "initiative" if rules["turn_order_by"] == "initiative" else "reaction"
    order_attr = np.array([c.stats[attr_key] if c.stats[attr_key] is not None else c.stats["reaction"]
                           for c in cs], dtype=np.int32)
    policies = [c.policy for c in cs]
    prio = []
    for p in policies:
        names = p.params["stunt_order"] or T.STUNT_PRIORITIES[p.params["stunts"]]
        prio.append([T.STUNT[s] for s in names])
    width = max(1, max(len(x) for x in prio))
    priority = np.full((C, width), -1, dtype=np.int16)
    for i, x in enumerate(prio):
        priority[i, :len(x)] = x
    movement = stat("movement")
    split = np.stack([[grid.cells(m) if m > 0 else 0 for m in T.movement_split(movement, p)]
                      for p in range(T.PHASES)], axis=1).astype(np.int32)
    family = np.array([P.FAMILIES.index(p.params["family"]) for p in policies], dtype=np.int8)
    cond_over = dict(rules["conditions"])
    if rules["grappled_can_move"]:
        cond_over.setdefault("grappling", {})["moves"] = True
    return Setup(
        names=[c.name for c in cs], side=side, n_sides=len(scenario.side_names),
        enemy=side[:, None] != side[None, :], hp=stat("hp"), order_attr=order_attr, offence=stat("offence"),
        dodge=stat("dodge"), reflex=stat("reflex"), will=stat("will"), athletics=stat("athletics"),
        intimidate=stat("intimidate"), sb=np.array(sb, dtype=np.int32), armor=stat("armor"),
        has_shield=np.array([c.stats["shield"] is not None for c in cs]),
        shield_dice=DiceTable([c.stats["shield"] or parse_dice(0) for c in cs]),
        can_block=np.array(["shield_block" in c.stats["reactions"] for c in cs]),
        can_aoo=np.array(["attack_of_opportunity" in c.stats["reactions"] for c in cs]),
        hastened=stat("hastened"), slowed=stat("slowed"), surprised=np.array([c.stats["surprised"] for c in cs]),
        w_name=W["name"], w_skill=np.array(W["skill"], dtype=np.int32), w_dice=DiceTable(W["dice"]),
        w_ap=np.array(W["ap"], dtype=np.int32), w_armoured=np.array(W["armoured"]), w_two=np.array(W["two"]),
        w_reach=np.array(W["reach"], dtype=np.int32), w_range=np.array(W["range"], dtype=np.int32),
        w_loading=np.array(W["loading"]), w_table=np.array(W["table"], dtype=np.int8),
        w_unarmed=np.array(W["unarmed"]), melee_w=np.array(melee_w), ranged_w=np.array(ranged_w),
        unarmed_w=np.array(unarmed_w), held_w=np.array(held_w), split_cells=split,
        stunt_costs=np.stack([T.stunt_costs("weapon", rules["spell_stunt_costs"]),
                              T.stunt_costs("spell", rules["spell_stunt_costs"])]),
        stunt_priority=priority,
        generates=np.array([p.params["stunts"] != "none" or bool(p.params["stunt_order"]) for p in policies]),
        use_reaction=np.array([p.params["use_reaction"] for p in policies]),
        ready_pref=np.array([READY_CODES[p.params["ready"]] for p in policies], dtype=np.int8),
        contest_mode=np.array([CONTEST_CODES[p.params["contest_grapple"]] for p in policies], dtype=np.int8),
        escape=np.array([p.params["escape_grapple"] and p.params["family"] != "grappler" for p in policies]),
        abandon=np.array([p.params["abandon_when_out_of_reach"] for p in policies]),
        answer=np.array([p.params["answer_threats"] for p in policies]),
        run=np.array([p.params["run"] is not False for p in policies]), family=family,
        keep_cells=np.array([grid.cells(p.params["keep_distance"]) for p in policies], dtype=np.int32),
        target_mode=np.array([p.target for p in policies], dtype=np.int8),
        policies=policies, scripted=[i for i, p in enumerate(policies) if p.rules],
        cond=T.condition_table(cond_over), grid=grid, layout=scenario.layout, rules=rules,
    )


def init(setup: Setup, batch) -> State:
    n, C = batch.size, len(setup.names)
    z = lambda dtype=np.int32: np.zeros((n, C), dtype=dtype)
    full = lambda v, dtype: np.full((n, C), v, dtype=dtype)
    pos = setup.layout.place(batch)
    return State(
        round=0, status=z(np.int8), hp=np.broadcast_to(setup.hp, (n, C)).copy(), down_round=z(), pos=pos,
        hastened=np.broadcast_to(setup.hastened, (n, C)).astype(np.int16),
        slowed=np.broadcast_to(setup.slowed, (n, C)).astype(np.int16), haste_bonus=z(np.int16),
        seize=z(np.int16), rolloffs=roll_offs(batch, C), reaction_left=full(True, bool),
        prep_action=full(-1, np.int8), prep_ap=z(np.int8), prep_target=full(-1, np.int16),
        charge_dir=np.zeros((n, C, 2), dtype=np.int8), ready=z(np.int8), target=full(-1, np.int16),
        prone=z(bool), ds=z(bool), disarmed=z(bool), threatened_by=full(-1, np.int16), threat_left=z(np.int8),
        partner=full(-1, np.int16), dominant=z(bool), track=z(np.int8), contesting=z(bool), gchecked=z(bool),
        stunted=z(bool), loaded=full(True, bool), attacks=z(), hits=z(), dealt=z(), taken=z(),
        stunt_points=z(), blocks=z(), opportunity=z(), charges=z(), grapples_won=z(), grapple_checks_won=z(),
        focus=np.full((n, setup.n_sides), -1, dtype=np.int16), rounds=np.zeros(n, dtype=np.int32),
        dist=bf.distances(pos, setup.grid.metric),
    )


def step(setup: Setup, state: State, batch) -> None:
    rules = setup.rules
    state.round = rnd = batch.round
    n, C = state.hp.shape
    # Seize the Initiative: Hastened for this round only, one more source.
    state.hastened -= state.haste_bonus
    state.haste_bonus = state.seize.copy()
    state.hastened += state.haste_bonus
    state.seize[:] = 0
    state.reaction_left[:] = True
    if rules["turn_order_reroll"] == "each_round" and rnd > 1:
        state.rolloffs = roll_offs(batch, C)
    order = turn_order(setup.order_attr, state.hastened, state.slowed, state.rolloffs)
    ctx = Ctx(setup, state, batch)
    t = ctx.trace
    if t is not None:
        _trace_round(t, setup, state, order, rnd)
    rows = np.arange(n)
    for p in range(T.PHASES):
        ctx.phase = p
        state.stunted[:] = False
        state.gchecked[:] = False
        _start_phase(setup, state, t)
        if t is not None:
            t.line(f" Phase {p + 1}")
        # Finished fights stay in the batch until the engine compacts it; skip their turns.
        live = ~is_over(setup, state)
        for k in range(C):
            ctx.new_turn()
            take_turn(ctx, order[rows, k], live)
        left = state.threat_left > 0
        state.threat_left[left] -= 1
        state.threatened_by[state.threat_left <= 0] = -1
        if not (live & ~is_over(setup, state)).any():
            break
    if not rules["preparation_carries_over"]:
        state.prep_ap[:] = 0
        state.prep_action[:] = -1
    state.rounds[:] = rnd


def _start_phase(setup: Setup, state: State, t) -> None:
    """Both grapplers decide whether to contest; if neither does, the grapple ends."""
    if not state.track.any():  # nobody grapples: nobody contests
        state.contesting = np.zeros(state.track.shape, dtype=bool)
        return
    state.contesting = P.contest_choice(setup, state)
    ingr = state.partner >= 0
    if not ingr.any():
        return
    partner = np.maximum(state.partner, 0)
    other = np.take_along_axis(state.contesting, partner.astype(np.intp), axis=1)
    lapse = ingr & ~state.contesting & ~other
    if lapse.any():
        r, c = np.nonzero(lapse)
        if t is not None and (r == t.pos).any():
            t.line(f"  Neither contests: the grapple of {t.name(c[r == t.pos][0])} ends.")
        end_grapple(state, r, c)


def _trace_round(t, setup: Setup, state: State, order, rnd: int) -> None:
    p = t.pos
    standing = state.status[p] == STANDING
    t.line(f"\n--- Round {rnd} ---")
    parts = []
    for c in order[p]:
        if not standing[c]:
            continue
        net = int(state.hastened[p, c]) - int(state.slowed[p, c])
        tag = " (Hastened)" if net > 0 else " (Slowed)" if net < 0 else ""
        parts.append(f"{t.name(c)} [Reaction {setup.order_attr[c]}, hp {state.hp[p, c]}]{tag}")
    t.line("Turn order: " + ", ".join(parts))
    labels = [(n[0].upper() if setup.side[i] == 0 else n[0].lower()) for i, n in enumerate(setup.names)]
    drawing = bf.text_map(state.pos[p], labels, standing, setup.grid)
    if drawing:
        t.line(drawing)


def is_over(setup: Setup, state: State) -> np.ndarray:
    standing = state.status == STANDING
    sides_left = np.zeros(standing.shape[0], dtype=np.int16)
    for s in range(setup.n_sides):
        sides_left += standing[:, setup.side == s].any(axis=1)
    return sides_left <= 1


def outcome(setup: Setup, state: State) -> Outcome:
    standing = state.status == STANDING
    winner = np.full(standing.shape[0], DRAW, dtype=np.int16)
    for s in range(setup.n_sides):
        winner[standing[:, setup.side == s].any(axis=1)] = s
    return Outcome(winner=winner, rounds=state.rounds.copy(), per_combatant={
        "attacks": state.attacks, "hits": state.hits, "damage_dealt": state.dealt, "damage_taken": state.taken,
        "final_state": state.status, "down_round": state.down_round, "hp_left": state.hp,
        "stunt_points": state.stunt_points, "shield_blocks": state.blocks,
        "opportunity_attacks": state.opportunity, "charges": state.charges, "grapples_won": state.grapples_won,
        "grapple_checks_won": state.grapple_checks_won, "ended_prone": state.prone,
    })
