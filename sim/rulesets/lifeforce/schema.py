"""Lifeforce: the stat block, the rule options and the policy parameters.

Every rule option resolves a gap or contradiction of the Lifeforce skirmish text
(docs/rules/lifeforce.md, 'Gaps and contradictions'); that page gives the passage each reads.
"""
from __future__ import annotations

from sim.rulesets.lifeforce import tables as T
from sim.schema import Field

WEAPON_FIELDS = {
    "name": Field("str", doc="what the weapon is called in traces"),
    "skill": Field("int", 0, "the wielder's skill with this weapon; Offence = skill + the combatant's `offence`",
                   min=-100, max=300),
    "damage": Field("dice", doc="damage dice, e.g. d8 or 2d6+1"),
    "damage_type": Field("choice", "slashing", "Armor only reduces bludgeoning, piercing and slashing",
                         choices=T.DAMAGE_TYPES),
    "armor_penetration": Field("int", 0, "Armor ignored by this weapon", min=0, max=100),
    "two_handed": Field("bool", False, "wielded in two hands: Strength Benefit x1.5, truncated"),
    "reach": Field("float", 1, "melee reach in metres (1 = adjacent squares)", min=0, max=100),
    "range": Field("float", 0, "a ranged weapon's range in metres (0 = melee weapon)", min=0, max=10000),
    "loading": Field("bool", False, "Loading quality: after a shot the weapon needs `loading_ap` more action "
                     "points of preparation before the next (Rapid Reload skips it)"),
    "stunts": Field("choice", "weapon", "which stunt table its attacks use", choices=("weapon", "spell")),
}

COMBATANT_FIELDS = {
    "hp": Field("int", doc="hit points; at 0 the combatant is down", min=1, max=100000),
    "reaction": Field("int", 0, "Reaction attribute: turn order, highest first", min=-100, max=1000),
    "initiative": Field("int", None, "Initiative, used for turn order only under "
                        "`turn_order_by: initiative` (defaults to Reaction)", min=-100, max=1000),
    "movement": Field("int", 12, "Movement in metres a round, split over the 4 action phases", min=0, max=400),
    "offence": Field("int", 0, "generalised Offence bonus added to every attack and grappling check",
                     min=-100, max=300),
    "dodge": Field("int", 0, "Dodge skill: Touch Defence = 50 + Dodge", min=-50, max=300),
    "reflex": Field("int", 0, "Reflex skill: Reflex Defence = 50 + Reflex", min=-50, max=300),
    "fortitude": Field("int", 0, "Fortitude skill: Fortitude Defence = 50 + Fortitude", min=-50, max=300),
    "will": Field("int", 0, "Will skill: Will Defence = 50 + Will", min=-50, max=300),
    "athletics": Field("int", 0, "Athletics skill, rolled in grappling checks", min=-50, max=300),
    "intimidate": Field("int", 0, "Intimidate skill, rolled for the Threaten stunt", min=-50, max=300),
    "strength": Field("int", None, "Strength; gives Strength Benefit floor(Strength / "
                      "`strength_benefit_divisor`) unless `strength_benefit` is given", min=0, max=1000),
    "strength_benefit": Field("int", None, "Strength Benefit added to melee damage (overrides `strength`)",
                              min=-50, max=500),
    "armor": Field("int", 0, "Armor: subtracted from bludgeoning, piercing and slashing damage", min=0, max=500),
    "shield": Field("dice", None, "the shield's damage dice, rolled by Shield Block; none = no shield"),
    "reactions": Field("list", ["shield_block"],
                       "what its training or equipment lets it use its Reaction for (\"Most creatures cannot use "
                       "their Reaction without special training or equipment\"): a carried shield is the equipment "
                       "for shield_block; attack_of_opportunity needs training, so list it",
                       item=Field("choice", choices=("shield_block", "attack_of_opportunity"))),
    "hastened": Field("int", 0, "sources of Hastened at the start", min=0, max=20),
    "slowed": Field("int", 0, "sources of Slowed at the start", min=0, max=20),
    "surprised": Field("bool", False, "surprised: Flat-Footed throughout the surprise round (round 1)"),
    "weapons": Field("list", doc="weapons; the first melee one is used in melee, the first ranged one at range",
                     item=Field("record", fields=WEAPON_FIELDS)),
}

RULE_OPTIONS = {
    "attack_die": Field(
        "int", 100, "sides of the attack die: an attack hits when d<sides> + Offence exceeds the Defence, ties "
        "to the defender (the text names no die: docs/rules/lifeforce.md, Gaps and contradictions, "
        "'Attack roll')", min=2, max=1000),
    "stunt_step": Field(
        "int", 15, "one stunt point per this many points by which the roll exceeds the Defence, counted from the "
        "Defence (\"for every additional 15 by which they succeed\")", min=1, max=1000),
    "strength_benefit_divisor": Field(
        "int", 10, "Strength Benefit = floor(Strength / this) where a creature gives Strength but no "
        "`strength_benefit` (docs/rules/lifeforce.md, Gaps and contradictions, 'Strength Benefit')",
        min=1, max=1000),
    "two_handed_multiplier": Field("float", 1.5, "Strength Benefit multiplier for two-handed weapons (text: 1.5, "
                                   "truncated)", min=0, max=10),
    "turn_order_by": Field(
        "choice", "reaction", "which attribute orders turns: the text says Initiative but sorts by Reaction "
        "(docs/rules/lifeforce.md, Gaps and contradictions, 'Initiative or Reaction')",
        choices=("reaction", "initiative")),
    "turn_order_reroll": Field(
        "choice", "never", "never: the d10 roll-offs for ties are made once when combat begins (\"the first "
        "thing that must be done\"), Hastened/Slowed re-sort every round; each_round: roll-offs every round",
        choices=("never", "each_round")),
    "preparation_carries_over": Field(
        "bool", True, "preparation accumulated in phase 4 counts in phase 1 of the next round (the text never "
        "resets it); false: all preparation is lost at the end of a round"),
    "prepared_target": Field(
        "choice", "declared", "declared: a prepared attack is declared against one target and can only be made "
        "against it, so changing target loses the preparation; any: it may be made against any enemy in reach",
        choices=("declared", "any")),
    "readied_lasts": Field(
        "choice", "until_used", "a Shield Block or Attack of Opportunity prepared as a 2 AP action stays ready "
        "until it is used or the creature begins another action (until_used) or only until its next turn "
        "(next_turn)", choices=("until_used", "next_turn")),
    "reaction_actions": Field(
        "choice", "both", "Shield Block and Attack of Opportunity are \"2 AP or Reaction\" "
        "(docs/rules/lifeforce.md, Gaps and contradictions, '2 AP or Reaction'): both forms, reaction only, "
        "or ap only",
        choices=("both", "reaction", "ap")),
    "charge_moves_on_attack_phase": Field(
        "bool", True, "a Charge also moves in the phase its attack is made (each AP spent moves); false: only the "
        "preparing phase moves"),
    "surprise_round": Field(
        "choice", "flat_footed", "what surprise does: flat_footed (the text: Flat-Footed in the surprise round "
        "only) or no_actions (surprised creatures also take no actions in round 1)",
        choices=("flat_footed", "no_actions")),
    "defensive_stance_defences": Field(
        "choice", "all", "which Defences Defensive Stance's \"+10 to your Defence\" raises "
        "(docs/rules/lifeforce.md, Gaps and contradictions, 'Defensive Stance Defence')",
        choices=("all", "touch", "touch_reflex")),
    "skirmish_stunt_cells": Field(
        "int", 1, "squares moved per Skirmish stunt: the text says 5 feet on a 1 m grid "
        "(docs/rules/lifeforce.md, Gaps and contradictions, 'Five feet on a 1 m grid')", min=0, max=10),
    "spell_stunt_costs": Field(
        "choice", "literal", "the spell stunt table is misaligned (docs/rules/lifeforce.md, Gaps and contradictions, "
        "'Spell stunt table'): literal reads Minor Critical at 2, weapon uses the weapon table's costs",
        choices=("literal", "weapon")),
    "seize_the_initiative": Field(
        "choice", "hastened", "\"You gain Hasted for the next round\" (docs/rules/lifeforce.md, Gaps and "
        "contradictions, 'Hasted or Hastened'): hastened adds one source of Hastened for the next round; none "
        "disables the stunt", choices=("hastened", "none")),
    "initiator_check": Field(
        "choice", "d100_skill", "\"Initiator Level\" checks are undefined (docs/rules/lifeforce.md, Gaps and "
        "contradictions, 'Initiator Level checks'): d100_skill rolls the attack die + the skill (Intimidate for "
        "Threaten, weapon skill + Offence for Knock Prone) against the Defence; attack_total reuses the attack's "
        "total", choices=("d100_skill", "attack_total")),
    "critical_applies": Field(
        "choice", "before_armor", "Minor/Major Critical multiply the damage roll before Armor (before_armor) or "
        "the damage left after Armor (after_armor); truncated either way", choices=("before_armor", "after_armor")),
    "stand_up_ap": Field("int", 1, "action points to stand up from Prone (the text gives none); a prone creature "
                         "cannot move", min=0, max=4),
    "disarmed_recover_ap": Field("int", 1, "action points to pick a dropped weapon up (it lies at the creature's "
                                 "feet); 0 = never recovered, fights unarmed", min=0, max=4),
    "unarmed_damage": Field("dice", "d3", "bludgeoning damage of an unarmed or disarmed attack"),
    "loading_ap": Field("int", 1, "extra action points a Loading weapon needs before its next shot", min=0, max=4),
    "threaten_phases": Field("int", 2, "action phases a Threatened creature must attack the threatener",
                             min=0, max=8),
    "grapple_offence_bonus": Field(
        "choice", "both", "who adds the generalised Offence bonus to grappling checks: the text says the "
        "initiator (\"you add\"); both treats every Grappling check alike", choices=("both", "initiator", "none")),
    "grapple_ties": Field(
        "choice", "status_quo", "a tied grappling check: status_quo (the engager fails; the dominant grappler "
        "stays dominant without progressing) or reroll", choices=("status_quo", "reroll")),
    "grapple_first_contest": Field(
        "choice", "next_phase", "the text's second 'Engaging a Grapple' heading is about keeping one "
        "(docs/rules/lifeforce.md, Gaps and contradictions, 'Two Engaging a Grapple headings'): the per-phase "
        "decision to contest and the dominant grappler's check start in the phase after the engagement "
        "(next_phase), or a first check follows the engagement at once (immediate)",
        choices=("next_phase", "immediate")),
    "grappled_can_move": Field("bool", False, "whether creatures in a grapple may move (the text is silent)"),
    "held_keeps_preparation": Field("bool", False, "whether a creature that becomes Held keeps the preparation "
                                    "it had (\"unable to begin physical actions\")"),
    "at_zero_hp": Field("choice", "unconscious", "what 0 hit points means: unconscious or dead (the text does not "
                        "say)", choices=("unconscious", "dead")),
    "conditions": Field("mapping", {}, "overrides of the condition table, e.g. {prone: {offence: -20}}; "
                        "columns offence, melee_defence, ranged_defence, moves, begins", item=Field("any")),
}

POLICY_FIELDS = {
    "family": Field("choice", "steady", "steady: walk up, prepare and make Weapon Attacks; charger: Charge from "
                    "afar, then fight steadily; skirmisher: shoot or strike while keeping `keep_distance`; "
                    "guardian: hold ground, keep the Reaction and a readied action; grappler: engage and work the "
                    "grapple track", choices=("steady", "charger", "skirmisher", "guardian", "grappler")),
    "keep_distance": Field("int", 4, "skirmisher: metres it tries to keep from the nearest enemy", min=0, max=200),
    "stunts": Field("choice", "expected", "which stunts to buy: expected (the affordable combination worth the "
                    "most expected damage against this target), or a fixed order: greedy (damage), control (Knock "
                    "Prone, Disarm, Threaten), defensive; none does not generate stunt points",
                    choices=tuple(T.STUNT_PRIORITIES)),
    "stunt_order": Field("list", [], "an explicit stunt buying order, overriding `stunts`",
                         item=Field("choice", choices=T.STUNT_NAMES)),
    "use_reaction": Field("choice", "any", "what the Reaction is kept for: any (first chance), shield_block, "
                          "attack_of_opportunity or none", choices=("any", "shield_block", "attack_of_opportunity",
                                                                    "none")),
    "ready": Field("choice", "none", "guardian: which 2 AP action it keeps readied while no enemy is in reach: "
                   "opportunity (Attack of Opportunity), block (Shield Block) or none",
                   choices=("none", "opportunity", "block")),
    "contest_grapple": Field("choice", "always", "when it contests a grapple it is in: always, until_pinned "
                             "(a dominant grappler stops at Pinned and attacks instead) or never",
                             choices=("always", "until_pinned", "never")),
    "escape_grapple": Field("bool", True, "end a grapple as soon as it becomes dominant in it (the text allows "
                            "the dominant grappler to end it) unless its family is grappler"),
    "abandon_when_out_of_reach": Field("bool", True, "drop a prepared attack whose target has left reach when "
                                       "another enemy is in reach (losing the preparation)"),
    "answer_threats": Field("bool", False, "switch to readying a Shield Block (2 AP) when an enemy has declared "
                            "an attack on it and its Reaction is spent, if the block is ready before that attack "
                            "lands (counting the attacker's walk into reach and a Loading reload) and nothing "
                            "prepared is lost for it; against a 2 AP attack already in reach it never is, so it "
                            "acts only on an attacker still coming or reloading, or a block already half "
                            "prepared"),
    "run": Field("bool", None, "true: Run whenever the target is too far to reach this phase and the next; "
                 "false: never Run; unwritten: as true where the policy writes a `family`, else (the default "
                 "play) Run only when that lands the attack sooner than walking while preparing it, counting "
                 "an enemy that is coming anyway"),
}

# attack, hold, flee and the shared observations mean what sim/vocabulary.py says.
ACTIONS = ("attack", "charge", "run", "grapple", "block", "opportunity", "hold", "step_back", "flee")

OBSERVATIONS = {
    "round": "the round number, from 1",
    "phase": "the action phase, 1..4",
    "hp": "hit points left",
    "health": "hit points left as a share of the starting hit points (0..1)",
    "distance": "metres to the nearest enemy able to fight",
    "target_distance": "metres to its current target",
    "in_reach": "1 when its current target is within reach of its melee weapon",
    "prepared": "action points of preparation accumulated",
    "reaction_left": "1 while its Reaction of this round is unused",
    "grappled": "1 while in a grapple",
    "dominant": "1 while the dominant grappler",
    "grapple_track": "0 none, 1 grappling, 2 held, 3 pinned",
    "prone": "1 while prone",
    "disarmed": "1 while its weapon lies on the ground",
    "threatened": "1 while Threatened",
    "threat_declared": "number of enemies preparing an attack against it",
    "allies_standing": "combatants of its side able to fight, itself included",
    "enemies_standing": "enemies able to fight",
}
# Old names, read as what they became (sim/vocabulary.py). `withdraw` only ever stepped
# back here; in Gods & Monsters it leaves the fight, so Lifeforce files say step_back.
OBSERVATION_ALIASES = {"hp_frac": "health"}
ACTION_ALIASES = {"withdraw": "step_back"}
