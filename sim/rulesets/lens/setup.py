"""Compiling a Lens scenario into static arrays (one entry per combatant or attack slot)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.dice import Dice, DiceTable
from sim.policy import TARGET_MODES
from sim.rulesets.lens import challenge as CH
from sim.rulesets.lens import schema as S
from sim.rulesets.lens import tables as T
from sim.rulesets.lens.written import written_fields

MAX_TN = 31
FOCUS = TARGET_MODES.index("focus")


@dataclass
class Setup:
    names: list[str]
    side: np.ndarray
    n_sides: int
    is_char: np.ndarray
    enemy: np.ndarray  # (C, C)
    body: np.ndarray
    armor: np.ndarray
    defense: np.ndarray
    attack_rating: np.ndarray
    abj_tn: np.ndarray
    bonus: np.ndarray
    abilities: list[str]
    talent: np.ndarray  # (C, A) sides
    training: np.ndarray  # (C, A) sides, 0 untrained
    tool: np.ndarray  # (C, A) tool die sides (tool_die variant)
    qmod: np.ndarray  # (C, A) quality modifier (quality_modifier variant)
    tag_cap: np.ndarray
    has_weapon: np.ndarray
    weapon_name: list[str]
    weapon_dice: DiceTable
    weapon_mean: np.ndarray
    weapon_prefix: np.ndarray  # (C, 7) tag mask of the first k tags the policy attaches
    weapon_missile: np.ndarray
    weapon_reach: np.ndarray  # cells
    shield: np.ndarray
    has_spell: np.ndarray
    spell_name: list[str]
    spell_tn: np.ndarray
    spell_school: np.ndarray  # ability index
    spell_dice: DiceTable
    spell_mask: np.ndarray
    spell_range: np.ndarray
    auto_cast: np.ndarray
    item_cost: np.ndarray
    item_uses: np.ndarray
    item_dice: DiceTable
    item_name: list[str]
    speed_cells: np.ndarray
    init_tn: np.ndarray
    init_ability: np.ndarray
    slot_owner: np.ndarray  # monster attack slots
    slot_rank: np.ndarray  # index of the slot among its owner's
    slot_name: list[str]
    slot_dice: DiceTable
    slot_mean: np.ndarray
    slot_mask: np.ndarray
    slot_missile: np.ndarray
    slot_magical: np.ndarray
    slot_reach: np.ndarray
    dprob: np.ndarray  # (C, 5 defences, MAX_TN, 4) exact outcome probabilities
    defence_rows: dict
    tags: T.TagTable
    cond_loss: np.ndarray  # (4,) Momentum lost next round
    cond_attacks: np.ndarray
    cond_no_parry: np.ndarray
    cond_no_weapon: np.ndarray
    cond_no_dodge: np.ndarray
    cond_lasting: np.ndarray
    pol: dict  # parameter -> (C,) array
    policies: list
    scripted: list[int]
    uses_focus: bool
    rules: dict
    grid: object = None
    extra: dict = field(default_factory=dict)


def _cells(feet: float, grid) -> int:
    if grid is None:
        return max(1, int(np.ceil(feet / 5.0))) if feet > 0 else 0
    return grid.cells(feet) if feet > 0 else 0


def family_params(spec: dict, written=()) -> dict:
    """A policy's parameters with its family's presets filled in where the scenario left them unset.

    Under the default play a written `big_hit` is a threshold it respects: active defences
    only against blows of that mean or more (defend: big_hits), unless `defend` is written too."""
    out = {k: v for k, v in spec.items() if k not in ("target", "rules")}
    if spec["family"] == "expected_value" and "big_hit" in written and "defend" not in written:
        out["defend"] = "big_hits"
    for k, v in S.FAMILY_DEFAULTS[spec["family"]].items():
        if out.get(k) is None:
            out[k] = v
    return out


def build(scenario) -> Setup:
    rules = scenario.rules
    cs = scenario.combatants
    C = len(cs)
    grid = scenario.battlefield
    st = [c.stats for c in cs]
    side = np.array([c.side for c in cs], dtype=np.int16)
    is_char = np.array([s["kind"] == "character" for s in st])
    tags = T.TagTable({**T.DEFAULT_TAGS, **rules["tags"]})
    conds = {**T.DEFAULT_CONDITIONS, **rules["conditions"]}
    variant = rules["challenge"]

    schools = sorted({sp["school"] for s in st for sp in s["spells"]} - set(T.ABILITIES))
    abilities = list(T.ABILITIES) + schools
    A = len(abilities)
    talent = np.zeros((C, A), np.int16)
    training = np.zeros((C, A), np.int16)
    tool = np.zeros((C, A), np.int16)
    qmod = np.zeros((C, A), np.int16)
    tag_cap = np.zeros(C, np.int16)
    for i, s in enumerate(st):
        if s["kind"] != "character":
            continue
        w = s["weapons"][0] if s["weapons"] else None
        tools = {"weapon_use": w["workmanship"] if w else "common", "shield_use": s["shield"] or "common",
                 "armor_use": s["armor_workmanship"]}
        for a, name in enumerate(abilities):
            ab = s["abilities"].get(name, {"talent": None, "training": "untrained"})
            talent[i, a] = ab["talent"] or s["talent"]
            training[i, a] = T.TRAINING_DICE[ab["training"]]
            wm = tools.get(name, "common")
            tool[i, a] = T.WORKMANSHIP_DIE[wm]
            qmod[i, a] = T.WORKMANSHIP_MOD[wm]
        tag_cap[i] = T.TAG_CAP[s["abilities"].get("weapon_use", {"training": "untrained"})["training"]]

    def weapon_dice(w) -> Dice:
        if w is None:
            return Dice()
        if w["damage"] is not None:
            return w["damage"]
        return Dice(T.WEAPON_SIZE_DICE[w["size"]], T.WORKMANSHIP_DIE[w["workmanship"]], 0)

    weapons = [s["weapons"][0] if s["kind"] == "character" and s["weapons"] else None for s in st]
    wdice = [weapon_dice(w) for w in weapons]
    prefix = np.zeros((C, 7), np.int64)
    for i, w in enumerate(weapons):
        order = _tag_order(w["tags"] if w else [], tags, cs[i].policy_spec.get("tag_order") or [])
        for k in range(7):
            prefix[i, k] = tags.mask(order[:k])
    spells = [s["spells"][0] if s["kind"] == "character" and s["spells"] else None for s in st]
    items = [next((it for it in s["items"] if it["heal"].count or it["heal"].bonus), None) for s in st]
    src = abilities.index("source")
    auto = np.zeros(C, bool)
    for i, sp in enumerate(spells):
        if sp is None:
            continue
        basis = {"half_talent": talent[i, src], "half_largest_die": max(talent[i, src], training[i, src]),
                 "never": 0}[rules["auto_cast"]]
        auto[i] = sp["complexity"] <= basis / 2

    # Initiative: the TN is the highest Initiative among the character's enemy monsters.
    init_tn = np.zeros(C, np.int16)
    init_ability = np.zeros(C, np.int16)
    for i, s in enumerate(st):
        foes = [st[j]["initiative"] for j in range(C) if side[j] != side[i] and not is_char[j]]
        init_tn[i] = max(foes) if foes else rules["pvp_initiative_tn"]
        if s["kind"] != "character":
            continue
        if s["initiative_ability"]:
            init_ability[i] = abilities.index(s["initiative_ability"])
        else:  # the ability with the best expected bracket
            score = [np.dot(_probs(variant, talent[i, a], training[i, a], init_tn[i], tool[i, a], qmod[i, a]),
                            [0, 1, 2, 3]) for a in range(A)]
            init_ability[i] = int(np.argmax(score))

    owners, ranks, snames, sdice, smask, smis, smag, sreach = [], [], [], [], [], [], [], []
    for i, s in enumerate(st):
        if s["kind"] != "monster" or not s["attacks"]:
            continue
        n = s["attacks_per_round"] if s["attacks_per_round"] is not None else len(s["attacks"])
        for k in range(n):
            a = s["attacks"][k % len(s["attacks"])]
            owners.append(i)
            ranks.append(k)
            snames.append(a["name"])
            sdice.append(a["damage"])
            smask.append(tags.mask(a["tags"]))
            smis.append(a["missile"])
            smag.append(a["magical"])
            sreach.append(_cells(a["range"] if a["missile"] else a["reach"], grid))

    dcols = np.array([abilities.index(a) for a in T.DEFENCE_ABILITY])
    dprob = np.zeros((C, len(T.DEFENCES), MAX_TN, 4), np.float32)
    for i in np.flatnonzero(is_char):
        for d, a in enumerate(dcols):
            for tn in range(MAX_TN):
                dprob[i, d, tn] = _probs(variant, talent[i, a], training[i, a], max(tn, 1), tool[i, a], qmod[i, a])

    policies = [c.policy for c in cs]
    written = written_fields(scenario)
    params = [family_params({**c.policy_spec}, w) for c, w in zip(cs, written)]
    pol = {k: np.array([p[k] for p in params]) for k in params[0] if k not in ("tag_order", "defences")}
    pol["defences"] = np.array([[d in p["defences"] for d in T.DEFENCES] for p in params])
    pol["defend"] = np.array([S.DEFENDS.index(p["defend"]) for p in params], np.int8)
    pol["timing"] = np.array([S.TIMINGS.index(p["timing"]) for p in params], np.int8)
    pol["mitigate_tag"] = np.array([p["mitigate"] == "tag" for p in params])
    stat = lambda k, dt=np.int32: np.array([s[k] for s in st], dtype=dt)
    cl = lambda k: np.array([conds[n][k] for n in T.CONDITIONS])
    return Setup(
        names=[c.name for c in cs], side=side, n_sides=len(scenario.side_names), is_char=is_char,
        enemy=side[:, None] != side[None, :], body=stat("body"), armor=stat("armor_rating"),
        defense=stat("defense"), attack_rating=stat("attack_rating"), abj_tn=stat("abjuration_tn"),
        bonus=stat("bonus_momentum"), abilities=abilities, talent=talent, training=training, tool=tool, qmod=qmod,
        tag_cap=tag_cap, has_weapon=np.array([w is not None for w in weapons]),
        weapon_name=[w["name"] if w else "-" for w in weapons], weapon_dice=DiceTable(wdice),
        weapon_mean=np.array([d.mean for d in wdice], np.float32), weapon_prefix=prefix,
        weapon_missile=np.array([bool(w and w["missile"]) for w in weapons]),
        weapon_reach=np.array([_cells((w["range"] if w["missile"] else w["reach"]), grid) if w else 0
                               for w in weapons], np.int32),
        shield=np.array([s["kind"] == "character" and s["shield"] is not None for s in st]),
        has_spell=np.array([sp is not None for sp in spells]),
        spell_name=[sp["name"] if sp else "-" for sp in spells],
        spell_tn=np.array([sp["complexity"] if sp else 0 for sp in spells], np.int16),
        spell_school=np.array([abilities.index(sp["school"]) if sp else 0 for sp in spells], np.int16),
        spell_dice=DiceTable([sp["damage"] if sp else Dice() for sp in spells]),
        spell_mask=np.array([tags.mask(sp["tags"]) if sp else 0 for sp in spells], np.int64),
        spell_range=np.array([_cells(sp["range"], grid) if sp else 0 for sp in spells], np.int32),
        auto_cast=auto,
        item_cost=np.array([rules["item_costs"][it["size"]] if it else 0 for it in items], np.int16),
        item_uses=np.array([it["uses"] if it else 0 for it in items], np.int16),
        item_dice=DiceTable([it["heal"] if it else Dice() for it in items]),
        item_name=[it["name"] if it else "-" for it in items],
        speed_cells=np.array([_cells(s["speed"], grid) for s in st], np.int32),
        init_tn=init_tn, init_ability=init_ability,
        slot_owner=np.array(owners, np.int16), slot_rank=np.array(ranks, np.int16), slot_name=snames,
        slot_dice=DiceTable(sdice), slot_mean=np.array([d.mean for d in sdice], np.float32),
        slot_mask=np.array(smask, np.int64), slot_missile=np.array(smis, bool), slot_magical=np.array(smag, bool),
        slot_reach=np.array(sreach, np.int32), dprob=dprob,
        defence_rows=T.defence_table({"abjure": rules["abjure_rows"], "mitigate": rules["mitigate_sacrifice"],
                                      "block": "text", "dodge": "text", "parry": rules["parry_rows"]}),
        tags=tags, cond_loss=cl("momentum_loss"), cond_attacks=cl("attacks_lost"), cond_no_parry=cl("no_parry"),
        cond_no_weapon=cl("no_weapon_attack"), cond_no_dodge=cl("no_dodge"), cond_lasting=cl("until_rearmed"),
        pol=pol, policies=policies, scripted=[i for i, p in enumerate(policies) if p.rules],
        uses_focus=any(p.target == FOCUS or any(r.target == FOCUS for r in p.rules) for p in policies),
        rules=rules, grid=grid,
        extra={"scenario": scenario, "written": written,
               "pvp": bool((is_char[:, None] & is_char[None, :] & (side[:, None] != side[None, :])).any())},
    )


def _probs(variant, talent, training, tn, tool, mod):
    return CH.outcome_probs(int(talent), int(training), int(tn), variant, int(tool), int(mod))


def _tag_order(names: list[str], tags: T.TagTable, preferred: list[str]) -> list[str]:
    """The order Tag actions attach the weapon's tags: the policy's `tag_order` first, then
    tags that inflict a condition or pierce armour, then the rest as the weapon lists them."""
    first = [n for n in preferred if n in names]
    useful = [n for n in names if n not in first and (tags.inflicts[tags.names.index(n)].any()
                                                      or tags.bit[n] & tags.armor_piercing_mask)]
    return first + useful + [n for n in names if n not in first and n not in useful]
