"""The baseline for The Lens: the skirmish as a plain Python loop, one skirmish at a time.

The program one would write without the batch engine: `random` for the dice, loops over
skirmishes, rounds, beats, combatants and attacks. It plays the engine's default rules
(docs/rules/lens.md): initiative brackets; Momentum dealt each round, spent in beats before
or after the monsters and left over as Recovery; Attack with Tags, Sacrifice, Botch and
Triumph; healing items and re-arming; one defence per monster blow, chosen by expected
saving; conditions costing Momentum or attacks; reach, Dodge's free square, monsters closing
in and Move on the battlefield; the Momentum families' parameters with random or focus
targeting. It plays the rules as fixed in issue 13 (tags on soaked blows, held Momentum kept, no
attack at a 0% chance, Off-Balance paying to go first only when told, a Move that goes
nowhere free, the costly branch's HAMSTRUNG priced) and the fixed families, not the
expected_value default play. It reads the fighters from the same scenario file (the loader, the Lens tables
and family presets, none of the engine's round code), so its results must agree with the
engine's within sampling error: the speed yardstick of docs/performance.md and an
independent implementation the tests compare with.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from benchmarks.tally import Tally
from sim.dice import Dice
from sim.policy import TARGET_MODES
from sim.rulesets.lens import schema as S
from sim.rulesets.lens import tables as T
from sim.rulesets.lens.setup import family_params
from sim.scenario import load_scenario

STANDING, UNCONSCIOUS, DEAD, FLED = "standing", "unconscious", "dead", "fled"
RANDOM, FOCUS = TARGET_MODES.index("random"), TARGET_MODES.index("focus")
ABJURE, MITIGATE, BLOCK, DODGE, PARRY = range(5)
STUN, PRONE, HAMSTRUNG, DISARMED = (1 << i for i in range(4))  # conditions as bits
# Neighbouring cells, straight steps first (the battlefield's order: ties prefer them).
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
SIDESTEPS = 3  # equal-distance steps a walker may take round a blocker
TIE = 10_000  # a cell scores grid distance * TIE + squared straight-line distance


def _row(negated=False, mine=0, theirs=0, step=False, lock=False, riposte=False) -> tuple:
    return negated, mine, theirs, step, lock, riposte


# What a defence roll does (docs/rules/lens.md), by outcome: Botch, Sacrifice, Success, Triumph,
# and the Sacrifice's costly branch: negated, the defender's and the attacker's new condition,
# a free step to an open square, Blocks locked for the round, a riposte. Mitigate changes damage.
FULL, NEGATED, SACRIFICE_PAID = _row(), _row(True), 4
ROWS = {ABJURE: (FULL, FULL, NEGATED, NEGATED, FULL),
        BLOCK: (_row(mine=STUN), FULL, NEGATED, _row(True, theirs=STUN), _row(True, lock=True)),
        DODGE: (_row(mine=PRONE), FULL, _row(True, step=True), _row(True, theirs=PRONE, step=True),
                _row(True, mine=HAMSTRUNG)),
        PARRY: (_row(mine=DISARMED), FULL, NEGATED, _row(True, riposte=True), _row(True, mine=HAMSTRUNG))}
SUPPORTED_RULES = {"momentum_per_round", "recovery", "attack_sacrifice_at_zero", "botch_ends_turn", "tag_cost",
                   "triumph_tag_over_cap", "monster_armor", "monster_at_zero", "void_death", "engagement",
                   "item_costs"}


def roll(rnd, d: Dice) -> int:
    return sum(int(rnd() * d.sides) + 1 for _ in range(d.count)) + d.bonus


@dataclass
class Slot:
    """One of a monster's attacks in a round."""
    owner: int
    rank: int
    dice: Dice
    mean: float
    conds: int  # conditions its tags inflict (bits) ...
    conds_dropped: int  # ... once Mitigate removed a tag
    pierce: bool
    droppable: bool  # it has a tag Mitigate can remove
    defeats: set  # defences its tags defeat
    missile: bool
    magical: bool
    reach: int


@dataclass
class Fighter:
    name: str
    side: int
    char: bool
    body: int
    armor: int
    defense: int
    attack_rating: int
    speed: int  # cells
    target: int
    rolls: dict  # ability -> (talent sides, training sides, 0 = untrained)
    init: tuple = ()  # talent, training, TN of the initiative roll
    bonus: int = 0
    weapon: Dice | None = None
    reach: int = -1  # cells (a monster: its longest attack's)
    tag_cap: int = 0
    tags: tuple = ()  # (conditions, pierces) of the first k tags attached, k = 0..6
    shield: bool = False
    item: tuple = (0, 0, None)  # a healing item's Momentum cost, uses, Body restored
    pol: dict | None = None  # a character's policy parameters
    pays_to_go_first: bool = False  # Off-Balance pays 1 to act first only when `timing: before` is written


def efforts(rnd, talent: int, training: int, tn: int) -> int:
    """The challenge: a Talent die and two Training dice, one effort per die at or over the TN."""
    e = int(rnd() * talent) + 1 >= tn
    if training:
        e += (int(rnd() * training) + 1 >= tn) + (int(rnd() * training) + 1 >= tn)
    return e


def outcome_probs(talent: int, training: int, tn: int) -> list[Fraction]:
    """Exact chances of 0..3 efforts (Botch, Sacrifice, Success, Triumph)."""
    hit = lambda s: Fraction(min(max(s - tn + 1, 0), s), s)
    dist = [Fraction(1)]
    for s in [talent] + ([training, training] if training else []):
        p = hit(s)
        dist = [(dist[k] if k < len(dist) else 0) * (1 - p) + (dist[k - 1] * p if k else 0)
                for k in range(len(dist) + 1)]
    return dist + [Fraction(0)] * (4 - len(dist))


def _tag_info(names, table) -> tuple[int, set, bool]:
    """Conditions the tags inflict (bits), the defences they defeat, whether they pierce armour."""
    conds = sum({1 << T.CONDITIONS.index(table[n]["inflicts"]) for n in names if table[n]["inflicts"]})
    return (conds, {T.DEFENCES.index(d) for n in names for d in table[n]["defeats"]},
            any(table[n]["ignores_armor"] for n in names))


class Game:
    """A Lens scenario compiled for the loop; rejects what the loop does not play."""

    def __init__(self, scenario):
        if scenario.ruleset_name != "lens":
            raise ValueError(f"the plain Lens loop plays Lens scenarios; this one is {scenario.ruleset_name!r}")
        rules = self.rules = scenario.rules
        for key, value in rules.items():
            if key not in SUPPORTED_RULES and value != S.RULE_OPTIONS[key].default:
                raise ValueError(f"the plain Lens loop plays the default rules only; {key} is {value!r}")
        tags, conds = T.DEFAULT_TAGS, T.DEFAULT_CONDITIONS
        per_mask = lambda key: [sum(conds[n][key] for i, n in enumerate(T.CONDITIONS) if m >> i & 1)
                                for m in range(16)]
        self.loss, self.attacks_lost = per_mask("momentum_loss"), per_mask("attacks_lost")
        bits = lambda key: sum(1 << i for i, n in enumerate(T.CONDITIONS) if conds[n][key])
        self.lasting, self.no_weapon = bits("until_rearmed"), bits("no_weapon_attack")
        self.no_parry, self.no_dodge = bits("no_parry") | self.no_weapon, bits("no_dodge")
        cs = scenario.combatants
        self.sides = len(scenario.side_names)
        self.grid = None
        if rules["engagement"] == "battlefield":
            grid = scenario.battlefield
            if grid.metric != "chebyshev" or "scattered" in scenario.formations:
                raise ValueError("the plain Lens loop plays the chebyshev metric and fixed formations only")
            self.grid, self.start = grid, [tuple(int(v) for v in p) for p in scenario.layout.static]
        cells = lambda feet: 0 if feet <= 0 else (self.grid.cells(feet) if self.grid else 1)
        self.fighters, self.slots = [], []
        for i, c in enumerate(cs):
            st = c.stats
            if c.policy.rules or c.policy.target not in (RANDOM, FOCUS):
                raise ValueError(f"{c.name}: the plain Lens loop plays random or focus targeting without "
                                 "scripted rules")
            f = Fighter(c.name, c.side, st["kind"] == "character", st["body"], st["armor_rating"], st["defense"],
                        st["attack_rating"], cells(st["speed"]), c.policy.target, {})
            self.fighters.append(f)
            if not f.char:
                n = st["attacks_per_round"] if st["attacks_per_round"] is not None else len(st["attacks"])
                for k in range(n):
                    a = st["attacks"][k % len(st["attacks"])]
                    full, defeats, pierce = _tag_info(a["tags"], tags)
                    removable = [t for t in tags if t in a["tags"] and tags[t]["inflicts"]
                                 and t not in T.UNREMOVABLE_TAGS]
                    dropped = _tag_info([t for t in a["tags"] if t != removable[0]] if removable else a["tags"],
                                        tags)[0]
                    self.slots.append(Slot(i, k, a["damage"], a["damage"].mean, full, dropped, pierce,
                                           bool(removable), defeats, a["missile"], a["magical"],
                                           cells(a["range"] if a["missile"] else a["reach"])))
                continue
            pol = family_params(c.policy_spec)
            if pol["family"] == "expected_value":
                raise ValueError(f"{c.name}: the plain Lens loop plays the fixed families (all_out, "
                                 "hold_for_defence, ...), not expected_value")
            f.pays_to_go_first = c.policy_spec.get("timing") == "before"
            if pol["assist"] or pol["interfere"] or pol["cast"] or st["spells"]:
                raise ValueError(f"{c.name}: the plain Lens loop plays weapons only (no spells, Assist or "
                                 "Interfere)")
            if any(d.side != c.side and d.stats["kind"] == "character" for d in cs):
                raise ValueError(f"{c.name}: the plain Lens loop plays characters against monsters only")
            f.pol = pol
            f.bonus = st["bonus_momentum"]
            for name in T.ABILITIES:
                ab = st["abilities"].get(name, {"talent": None, "training": "untrained"})
                f.rolls[name] = (ab["talent"] or st["talent"], T.TRAINING_DICE[ab["training"]])
            foes = [cs[j].stats["initiative"] for j in range(len(cs)) if cs[j].side != c.side]
            tn = max(foes)
            if st["initiative_ability"]:
                f.init = f.rolls[st["initiative_ability"]] + (tn,)
            else:  # the ability with the best expected bracket (first on ties)
                score = lambda a, f=f, tn=tn: sum(k * p for k, p in enumerate(outcome_probs(*f.rolls[a], tn)))
                f.init = f.rolls[max(T.ABILITIES, key=score)] + (tn,)
            w = st["weapons"][0]
            f.weapon = w["damage"] if w["damage"] is not None else Dice(
                T.WEAPON_SIZE_DICE[w["size"]], T.WORKMANSHIP_DIE[w["workmanship"]], 0)
            f.reach = cells(w["range"] if w["missile"] else w["reach"])
            f.tag_cap = T.TAG_CAP[st["abilities"].get("weapon_use", {"training": "untrained"})["training"]]
            # Tags are attached in this order: the policy's, then those that inflict or pierce, then the rest.
            first = [n for n in pol["tag_order"] if n in w["tags"]]
            useful = [n for n in w["tags"] if n not in first and (tags[n]["inflicts"] or tags[n]["ignores_armor"])]
            order = first + useful + [n for n in w["tags"] if n not in first and n not in useful]
            f.tags = tuple(_tag_info(order[:k], tags)[::2] for k in range(7))
            f.shield = st["shield"] is not None
            item = next((it for it in st["items"] if it["heal"].count or it["heal"].bonus), None)
            if item:
                f.item = (rules["item_costs"][item["size"]], item["uses"], item["heal"])
        self.beats = rules["momentum_per_round"] + max(f.bonus for f in self.fighters) + 2
        self.chars = [i for i, f in enumerate(self.fighters) if f.char]
        self.per_round = [sum(s.owner == i for s in self.slots) for i in range(len(cs))]
        for s in self.slots:
            self.fighters[s.owner].reach = max(self.fighters[s.owner].reach, s.reach)
        self.enemies = [[j for j, g in enumerate(self.fighters) if g.side != f.side] for f in self.fighters]
        self.uses_focus = any(f.target == FOCUS for f in self.fighters)
        self.can_hit = {(i, j): self._can_hit(self.fighters[i], self.fighters[j]) for i in self.chars
                        for j in range(len(cs))}
        self.prefs = {(i, s): self._preferences(self.fighters[i], slot)
                      for i in self.chars for s, slot in enumerate(self.slots)}

    def _can_hit(self, f: Fighter, target: Fighter) -> bool:
        pb, ps, pg, pt = outcome_probs(*f.rolls["weapon_use"], target.defense)
        return pg + pt + (ps if f.pol["take_sacrifice"] else 0) > 0

    def _preferences(self, f: Fighter, slot: Slot) -> list[int]:
        """Defences worth taking against a blow, best expected saving first.

        The defender knows the blow's tags and mean damage: a defence saves its chance of
        negating times the mean (Mitigate: its Armor Rating, less a Botch's extra AR), an
        active one costs `momentum_value` per Momentum, a Botch's condition counting as one
        more. Whether Momentum, a free square or an unlocked shield is at hand is checked
        when the blow comes."""
        p = f.pol
        active_ok = p["defend"] == "always" or (p["defend"] == "big_hits" and slot.mean >= p["big_hit"])
        take = int(p["take_sacrifice"])
        mean, tn = Fraction(slot.mean), self.fighters[slot.owner].attack_rating
        ranked = []
        for d, ability in enumerate(T.DEFENCE_ABILITY):
            if T.DEFENCES[d] not in p["defences"] or d in slot.defeats:
                continue
            if (d == ABJURE and not slot.magical) or (d == MITIGATE and f.armor <= 0) or (d == BLOCK and not f.shield) \
                    or (d == PARRY and slot.missile) or (d >= BLOCK and not active_ok):
                continue
            pb, ps, pg, pt = outcome_probs(*f.rolls[ability], tn)
            if d == ABJURE:
                saved = (pg + pt) * mean
            elif d == MITIGATE:
                saved = (pg + pt + take * ps) * min(f.armor, mean) - pb * f.armor
            else:  # a Botch's condition and the HAMSTRUNG of Dodge's and Parry's costly branch cost a Momentum
                hamstrung = take * ps if d in (DODGE, PARRY) else 0
                saved = (pg + pt + take * ps) * mean - Fraction(p["momentum_value"]) * (1 + pb + hamstrung)
            if saved > 0:
                ranked.append((-saved, d))
        return [d for _, d in sorted(ranked)]


class Fight:
    """One skirmish's state and its round, played with plain Python."""

    def __init__(self, game: Game, rng: random.Random):
        self.g = game
        self.rnd = rnd = rng.random
        fs = self.fs = game.fighters
        n = len(fs)
        self.body, self.items, self.status = [f.body for f in fs], [f.item[1] for f in fs], [STANDING] * n
        self.bracket = [efforts(rnd, *f.init) if f.char else -1 for f in fs]
        self.void, self.cond, self.fresh, self.owed, self.progress = ([0] * n for _ in range(5))
        self.pos = [list(p) for p in game.start] if game.grid else None
        self.focus = [-1] * game.sides

    # --- space ---------------------------------------------------------------------------
    def dist(self, i: int, j: int) -> int:
        if self.pos is None:  # everyone is engaged
            return 0
        (a, b), (c, d) = self.pos[i], self.pos[j]
        return max(abs(a - c), abs(b - d))

    def free_cells(self, i: int) -> list[tuple[int, int]]:
        grid, (x, y) = self.g.grid, self.pos[i]
        taken = {tuple(p) for p, s in zip(self.pos, self.status) if s == STANDING}
        return [(x + dx, y + dy) for dx, dy in NEIGHBOURS
                if 0 <= x + dx < grid.width and 0 <= y + dy < grid.height and (x + dx, y + dy) not in taken]

    def walk(self, i: int, goal: int, budget: int, stop: int) -> int:
        """Step toward `goal` while a free neighbour is closer (or, a few times, as close)."""
        grid = self.g.grid
        blockers = {tuple(p) for j, (p, s) in enumerate(zip(self.pos, self.status)) if s == STANDING and j != i}
        (x, y), (tx, ty) = self.pos[i], self.pos[goal]
        prev, sidesteps, moved = None, SIDESTEPS, 0
        while budget > 0:
            m = max(abs(x - tx), abs(y - ty))
            if m <= stop:
                break
            here = m * TIE + (x - tx) ** 2 + (y - ty) ** 2
            best = score = None
            for dx, dy in NEIGHBOURS:
                cell = (x + dx, y + dy)
                if not (0 <= cell[0] < grid.width and 0 <= cell[1] < grid.height) or cell == prev or cell in blockers:
                    continue
                ex, ey = cell[0] - tx, cell[1] - ty
                s = max(abs(ex), abs(ey)) * TIE + ex * ex + ey * ey
                if score is None or s < score:
                    best, score = cell, s
            if score is None or (score >= here and (score // TIE != m or sidesteps == 0)):
                break
            sidesteps -= score >= here
            prev, (x, y) = (x, y), best
            budget -= 1
            moved += 1
        self.pos[i] = [x, y]
        return moved

    def pick(self, c: int, cands: list[int]) -> int:
        focus = self.focus[self.fs[c].side]
        if self.fs[c].target == FOCUS and focus in cands:
            return focus
        return cands[int(self.rnd() * len(cands))]

    # --- blows -----------------------------------------------------------------------------
    def inflict(self, who: int, conds: int) -> None:
        self.cond[who] |= conds
        self.fresh[who] |= conds

    def harm(self, who: int, amount: int) -> None:
        if amount <= 0 or self.status[who] != STANDING:
            return
        off = min(self.body[who], amount)
        self.body[who] -= off
        self.void[who] += amount - off
        if self.body[who] <= 0:  # "going zero": out
            rules, char = self.g.rules, self.fs[who].char
            dead = (not char and rules["monster_at_zero"] == "dead") or (
                char and 0 < rules["void_death"] <= self.void[who])
            self.status[who] = DEAD if dead else UNCONSCIOUS

    def hit_monster(self, who: int, damage: int, conds: int, pierce: bool) -> None:
        if self.status[who] != STANDING:
            return
        soak = not pierce and self.g.rules["monster_armor"] == "reduce"
        d = max(damage - (self.fs[who].armor if soak else 0), 0)
        self.inflict(who, conds)  # a connecting blow carries its tags even when armour takes it to 0
        self.harm(who, d)

    def defend(self, att: int, who: int, s: int, damage: int) -> None:
        """A monster's blow on a character: one defence, chosen by the policy, rolled by the defender."""
        f, slot, g = self.fs[who], self.g.slots[s], self.g
        tn = self.fs[att].attack_rating
        d = -1
        for k in g.prefs[(who, s)]:
            ok = k <= MITIGATE
            if k == BLOCK:
                ok = self.mom[who] >= 1 and not self.locked[who]
            elif k == DODGE:
                ok = self.mom[who] >= 1 and not self.cond[who] & g.no_dodge and (
                    self.pos is None or bool(self.free_cells(who)))
            elif k == PARRY:
                ok = self.mom[who] >= 1 and not self.cond[who] & g.no_parry
            if ok:
                d = k
                break
        conds, row = slot.conds, FULL
        if d >= 0:
            e = efforts(self.rnd, *f.rolls[T.DEFENCE_ABILITY[d]], tn)
            r = SACRIFICE_PAID if e == 1 and f.pol["take_sacrifice"] else e
            if d >= BLOCK:
                self.mom[who] -= 1
            if d == MITIGATE:  # Armor Rating off the damage (Success: or a tag removed), onto it on a Botch
                if r == 0:
                    damage += f.armor
                elif r == 2 and f.pol["mitigate"] == "tag" and slot.droppable:
                    conds = slot.conds_dropped
                elif r != 1:
                    damage = max(damage - f.armor, 0)
                    conds = slot.conds_dropped if r == 3 else conds
            else:
                row = ROWS[d][r]
        negated, mine, theirs, step, lock, riposte = row
        if negated:
            damage = 0
        else:
            self.inflict(who, conds)
        self.inflict(who, mine)
        self.inflict(att, theirs)
        self.locked[who] |= lock
        if step and self.pos is not None:
            free = self.free_cells(who)
            if free:
                self.pos[who] = list(free[int(self.rnd() * len(free))])
        self.harm(who, damage)
        if riposte and efforts(self.rnd, *f.rolls["weapon_use"], self.fs[att].defense) >= 2:
            self.hit_monster(att, roll(self.rnd, f.weapon), 0, False)

    # --- a character's beat ------------------------------------------------------------------
    def beat(self, c: int) -> None:
        f, p, g, rnd = self.fs[c], self.fs[c].pol, self.g, self.rnd
        hold = p["hold"] if self.early[c] else 0  # after the monsters nothing is left to defend against
        spare = self.mom[c] - hold
        frac = self.body[c] / f.body
        foes = [j for j in g.enemies[c] if self.status[j] == STANDING]
        heal = self.items[c] > 0 and frac < p["heal_below"] and bool(foes)  # no draught once the enemy is down
        acts = p["act"] or sum(self.status[j] == STANDING for j in g.chars if self.fs[j].side == f.side) <= 1
        cost, _, heals = f.item
        if not ((spare >= 1 or (heal and cost == 0)) and acts):
            self.turn_over[c] = True
            return
        in_reach = [j for j in foes if self.dist(c, j) <= f.reach]
        chance = [j for j in in_reach if g.can_hit[(c, j)]]  # never an attack at a 0% chance
        if heal:  # Use the healing item, paid over several beats or rounds when short, never from `hold`
            pay = min(cost - self.progress[c], max(self.mom[c] - hold, 0))
            self.mom[c] -= pay
            self.turn_over[c] |= pay == 0 and self.progress[c] < cost
            self.progress[c] += pay
            if self.progress[c] >= cost:
                self.body[c] += min(roll(rnd, heals), f.body - self.body[c])
                self.items[c] -= 1
                self.progress[c] = 0
        elif frac < p["recover_below"]:
            self.turn_over[c] = True
        elif self.cond[c] & DISARMED:  # Use: re-arm
            self.mom[c] -= 1
            self.cond[c] &= ~DISARMED
        elif chance and not self.cond[c] & g.no_weapon:
            self.attack(c, f, p, chance, spare - 1, hold)
        elif in_reach and not self.cond[c] & g.no_weapon:
            self.turn_over[c] = True
        elif foes and self.pos is not None:
            # Move toward the side's focus (focus targeting) or an enemy drawn afresh, stopping within reach.
            moved = self.walk(c, self.pick(c, foes), f.speed, max(f.reach, 1))
            self.mom[c] -= moved > 0  # a step that goes nowhere costs nothing
            self.turn_over[c] |= moved == 0
        else:
            self.turn_over[c] = True

    def attack(self, c: int, f: Fighter, p: dict, cands: list[int], spare: int, hold: int) -> None:
        rules = self.g.rules
        tgt = self.pick(c, cands)
        cost = rules["tag_cost"]
        want = min(p["tags"], f.tag_cap)
        k = max(0, min(want, spare // cost if cost else want, 6)) if p["tags"] > 0 else 0
        self.mom[c] -= 1 + k * cost
        e = efforts(self.rnd, *f.rolls["weapon_use"], self.fs[tgt].defense)
        hit = e >= 2
        if e == 1 and p["take_sacrifice"]:  # hit for 1 more Momentum
            if self.mom[c] - hold >= 1:  # held Momentum stays for defence
                self.mom[c] -= 1
                hit = True
            elif rules["attack_sacrifice_at_zero"] == "owe":
                self.owed[c] += 1
                hit = True
        if e == 0 and rules["botch_ends_turn"]:
            self.turn_over[c] = True
        if hit:
            k = min(k + (e == 3 and (k < f.tag_cap or rules["triumph_tag_over_cap"])), 6)
            self.hit_monster(tgt, roll(self.rnd, f.weapon), *f.tags[k])

    # --- the round ---------------------------------------------------------------------------
    def monsters(self, lost: list[int]) -> None:
        g, fs, status = self.g, self.fs, self.status
        if self.pos is not None:  # monsters with nobody in reach walk toward the nearest enemy
            walks = []
            for m, f in enumerate(fs):
                foes = [j for j in g.enemies[m] if status[j] == STANDING]
                if f.char or f.reach < 0 or status[m] != STANDING or not foes:
                    continue
                near = min(foes, key=lambda j: self.dist(m, j))
                if self.dist(m, near) > f.reach:
                    walks.append((m, near, max(f.reach, 1)))
            for m, near, stop in walks:
                self.walk(m, near, fs[m].speed, stop)
        for s, slot in enumerate(g.slots):
            m = slot.owner
            if status[m] != STANDING or slot.rank >= g.per_round[m] - lost[m]:
                continue
            cands = [j for j in g.enemies[m] if status[j] == STANDING and self.dist(m, j) <= slot.reach]
            if not cands:
                continue
            tgt = self.pick(m, cands)
            damage = roll(self.rnd, slot.dice)
            if fs[tgt].char:
                self.defend(m, tgt, s, damage)
            else:
                self.hit_monster(tgt, damage, slot.conds, slot.pierce)

    def round(self) -> None:
        g, fs, status = self.g, self.fs, self.status
        n = len(fs)
        self.mom, self.early, self.locked, lost = [0] * n, [False] * n, [False] * n, [0] * n
        self.turn_over = [True] * n
        for i, f in enumerate(fs):
            loss, lost[i] = g.loss[self.fresh[i]], g.attacks_lost[self.fresh[i]]
            self.fresh[i] = 0
            self.cond[i] &= g.lasting
            if not f.char:
                continue
            b, timing = self.bracket[i], f.pol["timing"]
            wants_early = timing == "before" or (timing == "auto" and self.body[i] / f.body >= 0.5)
            # Confused acts after, Prepared before; Fluid chooses; Off-Balance chooses and pays 1 to go first.
            self.early[i] = b == 2 or (b == 3 and wants_early) or (b == 1 and f.pays_to_go_first)
            if status[i] == STANDING:
                self.mom[i] = max(g.rules["momentum_per_round"] + f.bonus + (b == 3) - (b == 0)
                                  - (self.early[i] and b == 1) - loss - self.owed[i], 0)
                self.turn_over[i] = False
            self.owed[i] = 0
        if g.uses_focus:  # a side keeps its focus until it falls
            for side in range(g.sides):
                foes = [j for j, f in enumerate(fs) if f.side != side and status[j] == STANDING]
                if self.focus[side] not in foes:
                    self.focus[side] = foes[int(self.rnd() * len(foes))] if foes else -1
        for early in (True, False):
            if not early:
                self.monsters(lost)
            for _ in range(g.beats):  # one action each per beat, in scenario order
                acting = [c for c in g.chars if self.early[c] == early and status[c] == STANDING
                          and not self.turn_over[c]]
                if not acting:
                    break  # nobody's turn comes back within a phase
                for c in acting:
                    if status[c] == STANDING and not self.turn_over[c]:
                        self.beat(c)
        if g.rules["recovery"] == "body":  # unspent Momentum heals Body
            for c in g.chars:
                if status[c] == STANDING:
                    self.body[c] += min(max(self.mom[c], 0), fs[c].body - self.body[c])


def skirmish(game: Game, rng: random.Random, max_rounds: int):
    """One fight. Returns (winner side, -1 for a draw, -2 unfinished; rounds; final states)."""
    fight = Fight(game, rng)
    for rnd in range(1, max_rounds + 1):
        fight.round()
        alive = {f.side for f, s in zip(game.fighters, fight.status) if s == STANDING}
        if len(alive) <= 1:
            return (alive.pop() if alive else -1), rnd, fight.status
    return -2, max_rounds, fight.status


def play(path, n: int, seed: int = 0, max_rounds: int | None = None) -> dict:
    """Play `n` skirmishes; counts of winners, mean rounds and final states per combatant."""
    scen = load_scenario(path)
    game = Game(scen)
    max_rounds = max_rounds or scen.run["max_rounds"]
    rng = random.Random(seed)
    tally = Tally([f.name for f in game.fighters], (STANDING, UNCONSCIOUS, DEAD, FLED))
    for _ in range(n):
        tally.add(*skirmish(game, rng, max_rounds))
    return tally.result(scen.side_names)

if __name__ == "__main__":  # pragma: no cover
    import sys
    import time
    t0, c0 = time.perf_counter(), time.process_time()
    res = play(sys.argv[1] if len(sys.argv) > 1 else "scenarios/lens/novice_party_vs_brute.yaml",
               int(sys.argv[2]) if len(sys.argv) > 2 else 10000)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(res, f"{res['n'] / wall:,.0f} skirmishes/s ({res['n'] / cpu:,.0f} per CPU-second)")
