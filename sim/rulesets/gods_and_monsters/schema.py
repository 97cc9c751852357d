"""Gods & Monsters: the stat block, the rule options and the policy parameters.

Every rule option resolves a gap or contradiction listed in ../shared/rules/NOTES.md
section 2; docs/rules/gods_and_monsters.md gives the passage each one reads.
"""
from __future__ import annotations

from sim.schema import Field

AWARENESS = ("aware", "unaware", "asleep")
# Surprise roll modifiers from the text: "a bonus of four" if aware, "a penalty of six" if sleeping.
AWARENESS_SURPRISE_MODIFIER = {"aware": 4, "unaware": 0, "asleep": -6}
SURPRISED_DEFENSE_PENALTY = 2  # "a penalty of two to defense"
SURPRISED_ROLL_PENALTY = 3  # "and three to any success rolls"
BASE_TARGET = 11  # "The attack roll is made against an 11"

ATTACK_FIELDS = {
    "name": Field("str", doc="what the attack is called in traces"),
    "damage": Field("dice", doc="damage dice, e.g. d8 or 2d4+1"),
    "attack": Field("int", 0, "attack bonus of this weapon alone (magic, quality)", min=-20, max=20),
    "reach": Field("float", 5, "melee reach in feet (5: the next square; 10: a polearm)", min=1, max=1000),
    "range": Field("float", None, "range in feet of a missile or thrown weapon; a weapon with a range "
                   "attacks anyone that far away (ranged combat)", min=1, max=100000),
}

COMBATANT_FIELDS = {
    "archetypes": Field("list", [], "archetypes such as warrior, thief, monk; fighting damage comes off verve "
                        "first for those listed in the rule option `verve_archetypes`", item=Field("str")),
    "level": Field("int", 1, "character level", min=0, max=100),
    "survival": Field("int", doc="survival points", min=1, max=100000),
    "verve": Field("int", 0, "verve points (monsters usually have none)", min=0, max=100000),
    "perception": Field("int", 10, "Perception score, rolled d20 <= score to avoid surprise", min=-20, max=60),
    "willpower": Field("int", 10, "Willpower score, one of the two ways to snap out of surprise", min=-20, max=60),
    "fortitude": Field("int", 10, "Fortitude score: snapping out of surprise, staying conscious, and "
                       "(by default) the injuries that kill", min=-20, max=60),
    "combat": Field("int", 0, "combat bonus", min=-20, max=40),
    "attack": Field("int", 0, "attack bonus", min=-20, max=40),
    "defense": Field("int", 0, "defense (armour, shield, agility)", min=-20, max=40),
    "strength": Field("int", None, "Strength; adds the damage bonus the rule option `strength_damage_bonus` "
                      "gives it (18 gives +4)", min=1, max=100),
    "damage_bonus": Field("int", 0, "damage added to every hit, beside any from strength", min=-50, max=100),
    "movement": Field("float", 30, "feet moved in a round; \"a character can attack any target who comes "
                      "within their movement\"", min=0, max=10000),
    "awareness": Field("choice", "aware", "aware combatants are not surprised; unaware and asleep ones roll "
                       "Perception (asleep at -6)", choices=AWARENESS),
    "weapons": Field("list", [], "weapons carried; a combatant without `attacks` makes one attack a round "
                     "with the first", item=Field("record", fields=ATTACK_FIELDS)),
    "attacks": Field("list", [], "attacks made every round, each rolled separately (a Yeti's two claws)",
                     item=Field("record", fields=ATTACK_FIELDS)),
}

RULE_OPTIONS = {
    "resolution": Field(
        "choice", "simultaneous",
        "simultaneous: every attack of a round is rolled against the state at its start and applied "
        "together, so both sides can fall in one round (\"Everything happens at once\"); sequential: sides "
        "act in the order the scenario lists them, each seeing the damage of those before (the worked "
        "example's narration). NOTES 2, contradiction 5.", choices=("simultaneous", "sequential")),
    "surprised_first_round": Field(
        "choice", "lose_round",
        "lose_round: surprised combatants cannot act in the first round (the text); attack_at_penalty: they may "
        "attack at `surprised_first_round_penalty` (the worked example offers Charlotte -6). NOTES 2, "
        "contradiction 1.", choices=("lose_round", "attack_at_penalty")),
    "surprised_first_round_penalty": Field(
        "int", 6, "attack penalty in the first round when `surprised_first_round` is attack_at_penalty",
        min=0, max=40),
    "surprise_roll_for_aware": Field(
        "bool", False,
        "false: only unaware and sleeping combatants roll for surprise; true: aware ones roll too, at +4. "
        "NOTES 2, contradiction 2."),
    "snap_out_roll": Field(
        "choice", "best",
        "which score a surprised combatant rolls against to snap out (\"either a Willpower or Fortitude "
        "roll\"): best (the higher of the two, as a player would choose), willpower or fortitude.",
        choices=("best", "willpower", "fortitude")),
    "health_check": Field(
        "choice", "immediate",
        "immediate: the roll to stay conscious is made as soon as damage lands (the worked example); "
        "end_of_round: after both sides act (the text). Only differs under sequential resolution. NOTES 2, "
        "contradiction 4.", choices=("immediate", "end_of_round")),
    "verve_archetypes": Field(
        "list", ["warrior"], "archetypes for which fighting is archetypal, so fighting damage comes off verve "
        "first", item=Field("str")),
    "injury_penalty": Field(
        "choice", "all_rolls",
        "all_rolls: every roll (attacks, surprise, staying conscious) is penalised by total injuries, per the "
        "site notes; health_rolls: only the rolls to stay conscious.", choices=("all_rolls", "health_rolls")),
    "death_rule": Field(
        "choice", "injuries_exceed_fortitude",
        "injuries_exceed_fortitude: a combatant dies when its injury points exceed its Fortitude; guide_roll "
        "(2009 notes): on each gain of injuries the Guide rolls d20 <= injuries and, if that succeeds, the "
        "victim must roll d20 <= Fortitude or die.", choices=("injuries_exceed_fortitude", "guide_roll")),
    "strength_damage_bonus": Field(
        "mapping", {18: 4},
        "damage bonus by Strength: a combatant gets the bonus of the highest listed Strength at or below its "
        "own (only 18 -> +4 is known from the text; set the rest of your table here)",
        item=Field("int", min=-50, max=100)),
}

MOVES = ("auto", "advance", "hold", "kite", "withdraw")

POLICY_FIELDS = {
    "move": Field("choice", "auto", "movement each round: advance (close on the target), hold (stay put), kite "
                  "(keep `kite_distance` from the nearest enemy, shooting from range), withdraw (back away from "
                  "the nearest enemy); auto advances with melee weapons and kites with ranged ones",
                  choices=MOVES),
    "kite_distance": Field("float", 15, "feet a kiting combatant keeps between itself and the nearest enemy",
                           min=0, max=10000),
    "flee_below": Field("float", 0.0, "flee at the start of a round when verve + survival left is below this "
                        "share of the starting total (0 never flees on that account; the Yeti uses 0.25)",
                        min=0.0, max=1.0),
    "flee_after_bad_round": Field("bool", False, "flee after a round in which it took damage and dealt none "
                                  "(the Guide's reading of the Yeti)"),
}

ACTIONS = ("attack", "hold", "flee")

OBSERVATIONS = {
    "round": "the round number, from 1",
    "health": "verve + survival left as a share of the starting total (0..1)",
    "survival": "survival points left",
    "verve": "verve points left",
    "injuries": "injury points",
    "surprised": "1 while surprised, else 0",
    "allies_standing": "combatants of its side able to fight, itself included",
    "enemies_standing": "enemies able to fight",
    "took_damage": "damage taken last round",
    "dealt_damage": "damage dealt last round",
    "nearest_enemy": "distance in feet to the nearest enemy able to fight",
}
