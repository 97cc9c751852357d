"""The Lens: stat blocks (characters and monsters), rule options, policy parameters.

Every rule option resolves a gap or contradiction of the Lens skirmish page
(docs/rules/lens.md, 'Gaps and contradictions'); that page cites the passage each one reads.
"""
from __future__ import annotations

from sim.errors import ScenarioError
from sim.rulesets.lens import tables as T
from sim.dice import Dice
from sim.schema import Field

KINDS = ("character", "monster")
TALENT = Field("choice", 8, "Talent die: 6 (weakness), 8 (usual), 10 (strength), 12 (freebie)",
               choices=T.TALENT_DICE)
TRAININGS = tuple(T.TRAINING_DICE)
WORKMANSHIP = tuple(T.WORKMANSHIP_DIE)


def _upper_tags(value, path):
    return [str(v).upper() for v in value]


TAG_LIST = Field("list", [], "tags the weapon or attack carries (e.g. CRUSHING, PIERCING); see the rule option "
                 "`tags`", item=Field("str"), check=_upper_tags)

ABILITY_FIELDS = {
    "talent": Field("choice", None, "Talent die for this ability (default: the combatant's `talent`)",
                    choices=T.TALENT_DICE + (None,)),
    "training": Field("choice", "untrained", "training level: untrained rolls the Talent die alone",
                      choices=TRAININGS),
}

WEAPON_FIELDS = {
    "name": Field("str", doc="what the weapon is called in traces"),
    "size": Field("choice", "medium", "tiny 1 die, small 2, medium 3, large 4 (two-handed)",
                  choices=tuple(T.WEAPON_SIZE_DICE)),
    "workmanship": Field("choice", "common", "crude d2, common d4, fine d6, superior d8, exquisite d10, "
                         "legendary d12", choices=WORKMANSHIP),
    "damage": Field("dice", None, "explicit damage dice, replacing size x workmanship (exceptions in the text)"),
    "tags": TAG_LIST,
    "missile": Field("bool", False, "a missile weapon (cannot be parried; uses `range`)"),
    "reach": Field("float", 5.0, "melee reach in feet", min=0, max=1000),
    "range": Field("float", 0.0, "missile range in feet", min=0, max=10000),
}

MONSTER_ATTACK_FIELDS = {
    "name": Field("str", doc="what the attack is called in traces"),
    "damage": Field("dice", doc="damage dice, e.g. 2d6"),
    "tags": TAG_LIST,
    "missile": Field("bool", False, "a missile attack: cannot be parried"),
    "magical": Field("bool", False, "a magical attack: Abjure applies to it"),
    "reach": Field("float", 5.0, "melee reach in feet", min=0, max=1000),
    "range": Field("float", 0.0, "missile range in feet", min=0, max=10000),
}

SPELL_FIELDS = {
    "name": Field("str", doc="what the spell is called in traces"),
    "complexity": Field("int", doc="sum of the spell's parameters: the TN of the Source roll", min=1, max=30),
    "school": Field("str", "evocation", "the school ability rolled against the target's Abjuration"),
    "damage": Field("dice", Dice(), "damage the spell deals to its target"),
    "tags": TAG_LIST,
    "range": Field("float", 60.0, "range in feet", min=0, max=10000),
}

ITEM_FIELDS = {
    "name": Field("str", doc="what the item is called in traces"),
    "size": Field("choice", "tiny", "item size: Momentum to Use it, tiny 0 .. immense 7 (rule option "
                  "`item_costs`)", choices=tuple(T.ITEM_SIZE_COST)),
    "heal": Field("dice", Dice(), "Body restored when used (a healing draught)"),
    "uses": Field("int", 1, "how many times it can be used", min=1, max=100),
}

COMBATANT_FIELDS = {
    "kind": Field("choice", "character", "character (rolls every challenge) or monster (never rolls: a "
                  "fixed stat block)", choices=KINDS),
    "body": Field("int", doc="Body pool: hit points; at zero the combatant is out", min=1, max=100000),
    "armor_rating": Field("int", 0, "Armor Rating: a character's worn (or natural) armour, used to Mitigate; "
                          "a monster's armour, taken off every hit that is not PIERCING", min=0, max=100),
    # Characters
    "talent": TALENT,
    "abilities": Field("mapping", {}, "per ability (weapon_use, maneuvering, shield_use, armor_use, abjuration, "
                       "source, or a spell school): {talent, training}", item=Field("record", fields=ABILITY_FIELDS)),
    "initiative_ability": Field("str", None, "ability rolled for initiative (default: the one with the best "
                                "chance of a good bracket)"),
    "bonus_momentum": Field("int", 0, "extra Momentum per round (Quickness, Reflexes, Swiftness, Gift of Speed)",
                            min=0, max=10),
    "weapons": Field("list", [], "weapons; the first is in hand", item=Field("record", fields=WEAPON_FIELDS)),
    "shield": Field("choice", None, "workmanship of the equipped shield (none: cannot Block)",
                    choices=WORKMANSHIP + (None,)),
    "armor_workmanship": Field("choice", "common", "armour workmanship (tool die / quality modifier variants)",
                               choices=WORKMANSHIP),
    "spells": Field("list", [], "prepared spells", item=Field("record", fields=SPELL_FIELDS)),
    "items": Field("list", [], "items that can be Used", item=Field("record", fields=ITEM_FIELDS)),
    "speed": Field("float", 30.0, "feet moved per Momentum (characters) or per round (monsters)", min=0, max=1000),
    # Monsters (and characters when a character attacks a character)
    "defense": Field("int", 4, "TN of attacks against it", min=1, max=30),
    "attack_rating": Field("int", 4, "TN of the defender's defence roll against its attacks", min=1, max=30),
    "abjuration_tn": Field("int", 4, "TN of spells cast at it (a monster's Abjuration)", min=1, max=30),
    "initiative": Field("int", 0, "a monster's Initiative: the highest is the characters' initiative TN",
                        min=0, max=30),
    "attacks": Field("list", [], "a monster's attacks", item=Field("record", fields=MONSTER_ATTACK_FIELDS)),
    "attacks_per_round": Field("int", None, "a monster's attacks per round, cycling through `attacks` "
                               "(default: one of each)", min=0, max=50),
}

CHARACTER_ONLY = ("abilities", "initiative_ability", "bonus_momentum", "weapons", "shield", "spells", "items")
MONSTER_ONLY = ("attacks", "attacks_per_round")


def _conditions_check(value, path):
    out = {}
    for name, row in value.items():
        if name not in T.CONDITIONS:
            raise ScenarioError(f"unknown condition '{name}'; the conditions are {', '.join(T.CONDITIONS)}.",
                                path=f"{path}.{name}")
        out[name] = row
    return {**T.DEFAULT_CONDITIONS, **out}


def _tags_check(value, path):
    out = dict(T.DEFAULT_TAGS)
    for name, row in value.items():
        if row["inflicts"] is not None and row["inflicts"] not in T.CONDITIONS:
            raise ScenarioError(f"'{row['inflicts']}' is not a condition; use one of {', '.join(T.CONDITIONS)} "
                                "or null.", path=f"{path}.{name}.inflicts")
        for d in row["defeats"]:
            if d not in T.DEFENCES:
                raise ScenarioError(f"'{d}' is not a defence; use {', '.join(T.DEFENCES)}.",
                                    path=f"{path}.{name}.defeats")
        out[str(name).upper()] = row
    return out


CONDITION_ROW = Field("record", fields={
    "momentum_loss": Field("int", 1, "Momentum the bearer loses next round", min=0, max=10),
    "attacks_lost": Field("int", 1, "attacks a monster bearer loses next round", min=0, max=10),
    "no_parry": Field("bool", False, "forbids Parry while it lasts"),
    "no_weapon_attack": Field("bool", False, "forbids weapon attacks while it lasts"),
    "no_dodge": Field("bool", False, "forbids Dodge while it lasts"),
    "until_rearmed": Field("bool", False, "lasts until a 1-Momentum Use clears it (else: one round)"),
})
TAG_ROW = Field("record", fields={
    "defeats": Field("list", [], "defences it makes ineffective", item=Field("str")),
    "inflicts": Field("str", None, "condition a connecting attack with it inflicts"),
    "ignores_armor": Field("bool", False, "a monster's Armor Rating does not reduce the hit"),
})

RULE_OPTIONS = {
    "challenge": Field("choice", "two_training", "the core roll: two_training (Talent + 2 Training dice, the "
                       "reference's resolution-basic draft), quality_modifier (the tool's quality modifier added "
                       "to one die after rolling, 01-the-roll draft), tool_die (Talent + 1 Training + tool die)",
                       choices=("two_training", "quality_modifier", "tool_die")),
    "surprise": Field("choice", "none", "none, or which side is surprised: party_surprised / monsters_surprised "
                      "(the surprised side loses its first round of actions; reactions still allowed). The text "
                      "names surprise without mechanics.", choices=("none", "party_surprised", "monsters_surprised")),
    "pvp_initiative_tn": Field("int", 4, "initiative TN when the enemies have no monster (character vs "
                               "character)", min=1, max=30),
    "momentum_per_round": Field("int", 3, "\"Each Character begins each Skirmish Round with 3 Momentum\"",
                                min=0, max=20),
    "recovery": Field("choice", "body", "unspent Momentum becomes Recovery: body (1:1 into Body below maximum) or "
                      "none (the other aspect pools are not modelled)", choices=("body", "none")),
    "attack_sacrifice_at_zero": Field("choice", "miss", "a Sacrifice's costly hit with no Momentum left "
                                      "(docs/rules/lens.md, Gaps and contradictions, 'Sacrifice at zero "
                                      "Momentum'): miss (cannot pay, the attack misses) or owe (hit and lose 1 "
                                      "Momentum next round)", choices=("miss", "owe")),
    "botch_ends_turn": Field("bool", True, "an attack Botch ends the character's actions this round"),
    "tag_cost": Field("int", 1, "Momentum per Tag action attaching one weapon tag (\"Each ACTION or REACTION "
                      "... spends 1 Momentum\": docs/rules/lens.md, Gaps and contradictions, 'One Momentum "
                      "per action'); 0 makes tags free within the training cap", min=0, max=5),
    "triumph_tag_over_cap": Field("bool", True, "the Triumph's extra tag may exceed the training cap "
                                  "(docs/rules/lens.md, Gaps and contradictions, 'Triumph tag over the cap')"),
    "parry_rows": Field("choice", "riposte", "riposte: Parry Success negates, Triumph negates and grants a free "
                        "riposte; literal: the rows as printed (Dodge's wording: move, attacker PRONE). "
                        "docs/rules/lens.md, Gaps and contradictions, 'Parry rows'.", choices=("riposte", "literal")),
    "mitigate_sacrifice": Field("choice", "reduced_with_tags", "the truncated Mitigate Sacrifice row "
                                "(docs/rules/lens.md, Gaps and contradictions, 'Mitigate Sacrifice row'): "
                                "full damage and tags, or (defender's choice) "
                                "reduced_with_tags (damage - AR, tags kept) / reduced_lose_momentum (damage - AR, "
                                "lose 1 Momentum) / full (no alternative)",
                                choices=("reduced_with_tags", "reduced_lose_momentum", "full")),
    "abjure_rows": Field("choice", "success_resists", "Abjure's unpublished rows: success_resists (Success and "
                         "Triumph nullify a magical attack) or half_on_sacrifice (also halves it on a Sacrifice)",
                         choices=("success_resists", "half_on_sacrifice")),
    "defences_per_attack": Field("choice", "one", "one (\"Only one defense can be selected per Attack\": "
                                 "docs/rules/lens.md, Gaps and contradictions, 'One defence per attack') or "
                                 "mitigate_stacks (Mitigate after an active defence fails)",
                                 choices=("one", "mitigate_stacks")),
    "monster_armor": Field("choice", "reduce", "a monster's Armor Rating on a connecting player attack: reduce "
                           "(damage - AR unless a tag ignores armour, e.g. PIERCING) or ignore",
                           choices=("reduce", "ignore")),
    "auto_cast": Field("choice", "half_talent", "\"Complexity of half of your Source Ability can be "
                       "automatically cast\": half_talent (complexity <= Source Talent die / 2), half_largest_die "
                       "(largest Source die / 2) or never", choices=("half_talent", "half_largest_die", "never")),
    "spell_stays_formed": Field("choice", "skirmish", "a formed spell stays formed for the skirmish (repeat "
                                "casts skip the complexity) or only for the round", choices=("skirmish", "round")),
    "zero_body": Field("choice", "out", "Body at zero (\"going zero\"): out (unconscious; further harm goes "
                       "to Void and is recorded) or void_limit (keeps fighting until Void reaches `void_limit`)",
                       choices=("out", "void_limit")),
    "void_limit": Field("int", 5, "Void at which a character is out under zero_body: void_limit", min=1, max=1000),
    "void_death": Field("int", 0, "Void at which a character is dead rather than unconscious (0: never)",
                        min=0, max=1000),
    "monster_at_zero": Field("choice", "dead", "a monster at Body zero is dead or unconscious",
                             choices=("dead", "unconscious")),
    "engagement": Field("choice", "battlefield", "battlefield: reach, range, Move and Dodge's open square use "
                        "the shared battlefield; all_engaged: everyone may attack everyone, Dodge always finds "
                        "a square, Move is never needed", choices=("battlefield", "all_engaged")),
    "item_costs": Field("mapping", dict(T.ITEM_SIZE_COST), "Momentum to Use an item of each size (the text "
                        "gives TINY 0 and IMMENSE 7)", item=Field("int", min=0, max=20)),
    "conditions": Field("mapping", {}, "override rows of the condition table (STUN, PRONE, HAMSTRUNG, DISARMED)",
                        item=CONDITION_ROW, check=_conditions_check),
    "tags": Field("mapping", {}, "add or override tags: {NAME: {defeats: [...], inflicts: COND, ignores_armor}}",
                  item=TAG_ROW, check=_tags_check),
}

FAMILIES = ("expected_value", "all_out", "hold_for_defence", "big_hits_only", "recover_when_hurt", "support",
            "caster")
DEFENDS = ("never", "always", "big_hits")
TIMINGS = ("before", "after", "auto")

# Family presets; any parameter written in the scenario overrides its family's value.
FAMILY_DEFAULTS = {
    # The default play: every choice by expected value, per character and per beat (the kernel's
    # kvalue.py); hold, defend, assist and interfere below are only what the old engine reads.
    "expected_value": dict(hold=0, defend="always", recover_below=0.0, act=True, assist=False, interfere=False,
                           cast=False, timing="after"),
    "all_out": dict(hold=0, defend="never", recover_below=0.0, act=True, assist=False, interfere=False,
                    cast=False, timing="before"),
    "hold_for_defence": dict(hold=1, defend="always", recover_below=0.0, act=True, assist=False,
                             interfere=False, cast=False, timing="after"),
    "big_hits_only": dict(hold=1, defend="big_hits", recover_below=0.0, act=True, assist=False,
                          interfere=False, cast=False, timing="after"),
    "recover_when_hurt": dict(hold=1, defend="big_hits", recover_below=0.5, act=True, assist=False,
                              interfere=False, cast=False, timing="after"),
    "support": dict(hold=1, defend="big_hits", recover_below=0.0, act=False, assist=True, interfere=True,
                    cast=False, timing="after"),
    "caster": dict(hold=1, defend="always", recover_below=0.0, act=True, assist=False, interfere=False,
                   cast=True, timing="after"),
}

POLICY_FIELDS = {
    "family": Field("choice", "expected_value", "how Momentum is spent: expected_value (the default: defends, "
                    "tags, assists, interferes and takes a Sacrifice's branch where the expected Body is worth "
                    "the Momentum, never attacks at a 0% chance, acts after the opponents when it may choose) or a "
                    "fixed family: " + ", ".join(FAMILIES[1:]), choices=FAMILIES),
    "hold": Field("int", None, "Momentum kept back from actions for reactions (family default)", min=0, max=20),
    "defend": Field("choice", None, "active defences against: never, always, big_hits (mean damage >= big_hit)",
                    choices=DEFENDS + (None,)),
    "big_hit": Field("float", 4.0, "mean damage from which an attack counts as big", min=0, max=1000),
    "recover_below": Field("float", None, "below this share of Body, take no actions (save Momentum for "
                           "Recovery)", min=0, max=1),
    "act": Field("bool", None, "takes actions of its own (support: only when no ally is left)"),
    "assist": Field("bool", None, "Assists allies' attack and cast rolls"),
    "interfere": Field("bool", None, "Interferes with enemy characters' attack and cast rolls"),
    "support_keep": Field("int", 1, "Momentum kept back from Assist/Interfere for defence", min=0, max=20),
    "cast": Field("bool", None, "casts its first spell instead of attacking"),
    "timing": Field("choice", None, "Fluid and Off-Balance choice each round: act before or after the "
                    "opponents, or auto (before while Body >= half, else after)", choices=TIMINGS + (None,)),
    "tags": Field("int", 0, "Tag actions per attack (up to the training cap)", min=0, max=5),
    "defences": Field("list", list(T.DEFENCES), "the defences it will use (default all five, the best expected "
                      "saving chosen against each attack given its tags)", item=Field("choice", choices=T.DEFENCES)),
    "tag_order": Field("list", [], "weapon tags to attach first, in order (default: tags that inflict a "
                       "condition or pierce armour, then the rest)", item=Field("str"), check=_upper_tags),
    "take_sacrifice": Field("bool", True, "take a Sacrifice's costly success (hit for 1 more Momentum; blocked "
                            "but locked; dodged but HAMSTRUNG ...)"),
    "mitigate": Field("choice", "damage", "on a Mitigate Success: reduce damage, or remove a tag (when the "
                      "attack carries one that inflicts a condition)", choices=("damage", "tag")),
    "heal_below": Field("float", 0.5, "Use a healing item below this share of Body", min=0, max=1),
    "momentum_value": Field("float", 1.0, "damage one Momentum is worth when weighing an active defence "
                            "against the passive one", min=0, max=100),
}

# attack, hold, flee and the shared observations mean what sim/vocabulary.py says.
ACTIONS = ("attack", "tag_attack", "cast", "use", "move", "hold", "flee")
OBSERVATIONS = {
    "round": "the round number, from 1",
    "momentum": "Momentum left now",
    "body": "Body left",
    "health": "Body left as a share of its maximum (0..1); old name body_frac",
    "void": "harm taken beyond zero Body",
    "bracket": "initiative bracket: 0 Confused, 1 Off-Balance, 2 Prepared, 3 Fluid",
    "stun": "1 while STUN, else 0", "prone": "1 while PRONE", "hamstrung": "1 while HAMSTRUNG",
    "disarmed": "1 while DISARMED",
    "distance": "feet to the nearest enemy able to fight (cells x the cell size, 5 ft; 5 when everyone is "
                "engaged)",
    "in_reach": "1 when an enemy is within reach of the weapon in hand",
    "spell_formed": "1 when its spell is formed",
    "items_left": "uses of healing items left",
    "allies_standing": "combatants of its side able to fight, itself included",
    "enemies_standing": "enemies able to fight",
}
# Old names, read as the observation they became (sim/vocabulary.py).
OBSERVATION_ALIASES = {"body_frac": "health"}
