"""Gods & Monsters: the stat block, the rule options and the policy parameters.

Every rule option resolves a gap or contradiction of the Conflicts chapter
(docs/rules/gods_and_monsters.md, 'Gaps and contradictions'); that page gives the passage
each one reads.
"""
from __future__ import annotations

from sim.schema import Field

AWARENESS = ("aware", "unaware", "asleep")
# Surprise roll modifiers from the text: "a bonus of four" if aware, "a penalty of six" if sleeping.
AWARENESS_SURPRISE_MODIFIER = {"aware": 4, "unaware": 0, "asleep": -6}
SURPRISED_DEFENSE_PENALTY = 2  # "a penalty of two to defense"
SURPRISED_ROLL_PENALTY = 3  # "and three to any success rolls"
BASE_TARGET = 11  # "The attack roll is made against an 11"

# --- Special situations: tables, not branches (docs/rules/gods_and_monsters.md) ---
SIZES = ("fine", "tiny", "small", "medium", "large", "huge", "gigantic", "titanic")
COVER_LEVELS = ("none", "weak", "strong", "full")
# Defense bonus by cover level: (warriors, non-warriors), the chapter's cover table.
COVER_BONUS = {"none": (0, 0), "weak": (1, 0), "strong": (2, 1), "full": (3, 2)}
# Non-defending targets, from weakest to strongest for the attacker; "these bonuses do
# not combine", so an attack takes the row of the highest level that applies.
NOT_DEFENDING = ("defending", "unaware", "covered", "immobile")
NOT_DEFENDING_BONUS = {"defending": (0, 0), "unaware": (4, 0), "covered": (4, 1), "immobile": (10, 0)}
CALLED_SHOT_PENALTY = 3  # "with an attack penalty of 3"
IMMOBILIZER_DEFENSE_PENALTY = 2  # "has a penalty of two to their defense"
GRAB_EVASION_PER_SIZE = 2  # "a bonus of two for every general size level larger"
HOLD_FORTITUDE_PER_SIZE = 4  # "a bonus of 4 to this roll for every general size difference"
IMMOBILIZED_BREAK_PENALTY = 3  # "their Fortitude rolls are at a penalty of three"
HIGH_GROUND_BONUS = 1  # "a bonus of 1 to attack or a bonus of 1 to defense"
# "An attack penalty of 3 in close combat, and an attack penalty of 6 for ranged combat."
UNSEEN_PENALTY = {"close": 3, "ranged": 6}
SAVES = ("evasion", "willpower", "fortitude", "perception", "agility", "none")
CONDITIONS = ("none", "sleep")
PURSUIT = ("simultaneous", "start_positions")

ATTACK_FIELDS = {
    "name": Field("str", doc="what the attack is called in traces"),
    "damage": Field("dice", doc="damage dice, e.g. d8 or 2d4+1"),
    "attack": Field("int", 0, "attack bonus of this weapon alone (magic, quality)", min=-20, max=20),
    "reach": Field("float", 5, "melee reach in feet (5: the next square; 10: a polearm)", min=1, max=1000),
    "range": Field("float", None, "range in feet of a missile or thrown weapon; a weapon with a range "
                   "attacks anyone that far away (ranged combat)", min=1, max=100000),
    "actions": Field("int", 1, "actions one use takes (an arquebus: load, prime, fire = 3); outside close "
                     "combat one of them is free", min=1, max=20, stat=False),
    "loaded": Field("int", None, "actions already done before the fight (default: all but the last, so the "
                    "first use takes one action; 0: unloaded)", min=0, max=19, stat=False),
    "carried": Field("record", None, "a carried attack such as poison: takes effect on a successful called shot, "
                     "the target rolls `save` or takes `damage`", fields={
                         "damage": Field("dice", doc="damage dice of the carried effect"),
                         "save": Field("choice", "fortitude", "the target's reaction roll", choices=SAVES),
                     }),
}

SPELL_FIELDS = {
    "name": Field("str", doc="what the spell (or spirit, or any complex action) is called in traces"),
    "damage": Field("dice", None, "damage dice dealt to a target that fails its save (none: no damage)"),
    "save": Field("choice", "evasion", "the target's reaction roll that avoids the effect (d20 <= score)",
                  choices=SAVES),
    "condition": Field("choice", "none", "condition on a failed save: sleep leaves the target immobile and unable "
                       "to act until it takes damage", choices=CONDITIONS),
    "range": Field("float", 60, "range in feet", min=1, max=100000),
    "uses": Field("int", None, "casts in a fight, or in a day until a night or a full rest (day rule spell_uses; "
                  "none: unlimited)", min=1, max=1000),
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
    "evasion": Field("int", 10, "Evasion reaction score (d20 <= score): dodging stray missiles, disruption, "
                     "knockout blows, being grabbed", min=-20, max=60),
    "agility": Field("int", 10, "Agility score for Agility contests (a called shot dropping its target first)",
                     min=-20, max=60),
    "size": Field("choice", "medium", "general size level, for immobilizing", choices=SIZES),
    "head_protection": Field("int", 0, "bonus to the Evasion roll against knockout blows: 1 for any head "
                             "protection plus any defense bonus it gives (tough-skinned creatures too)",
                             min=0, max=20),
    "cover": Field("choice", "none", "cover against missiles: weak, strong or full (the cover table)",
                   choices=COVER_LEVELS),
    "unseen": Field("bool", False, "its attackers know where it is but cannot see it (darkness, invisibility): "
                    "-3 to attack it in close combat, -6 with missiles"),
    "high_ground": Field("bool", False, "fights from higher ground, mounted or from above: +1 to attack or "
                         "defense against those without it, as the policy's `high_ground` chooses"),
    "weapon_drawn": Field("bool", True, "false: the weapon must be drawn first (one action, or draw and attack "
                          "in one round on an Evasion roll)"),
    "spells": Field("list", [], "complex actions (spells, spirits) the combatant can cast; each takes the "
                    "round and can be disrupted", item=Field("record", fields=SPELL_FIELDS)),
}

RULE_OPTIONS = {
    "resolution": Field(
        "choice", "simultaneous",
        "simultaneous: every attack of a round is rolled against the state at its start and applied "
        "together, so both sides can fall in one round (\"Everything happens at once\"); sequential: sides "
        "act in the order the scenario lists them, each seeing the damage of those before (the worked "
        "example's narration). docs/rules/gods_and_monsters.md, Gaps and contradictions, "
        "'Everything at once'.", choices=("simultaneous", "sequential")),
    "surprised_first_round": Field(
        "choice", "lose_round",
        "lose_round: surprised combatants cannot act in the first round (the text); attack_at_penalty: they may "
        "attack at `surprised_first_round_penalty` (the worked example offers Charlotte -6). "
        "docs/rules/gods_and_monsters.md, Gaps and contradictions, 'Surprised in the first round'.",
        choices=("lose_round", "attack_at_penalty")),
    "surprised_first_round_penalty": Field(
        "int", 6, "attack penalty in the first round when `surprised_first_round` is attack_at_penalty",
        min=0, max=40),
    "surprise_roll_for_aware": Field(
        "bool", False,
        "false: only unaware and sleeping combatants roll for surprise; true: aware ones roll too, at +4. "
        "docs/rules/gods_and_monsters.md, Gaps and contradictions, 'Surprise bonus if aware'."),
    "snap_out_roll": Field(
        "choice", "best",
        "which score a surprised combatant rolls against to snap out (\"either a Willpower or Fortitude "
        "roll\"): best (the higher of the two, as a player would choose), willpower or fortitude.",
        choices=("best", "willpower", "fortitude")),
    "health_check": Field(
        "choice", "immediate",
        "immediate: the roll to stay conscious is made as soon as damage lands (the worked example); "
        "end_of_round: after both sides act (the text). Only differs under sequential resolution. "
        "docs/rules/gods_and_monsters.md, Gaps and contradictions, 'When unconsciousness is checked'.",
        choices=("immediate", "end_of_round")),
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
    # --- Special situations (docs/rules/gods_and_monsters.md, "Special situations") ---
    "warrior_archetypes": Field(
        "list", ["warrior"], "archetypes that count as warriors for the cover table, leading, the extra attack "
        "against unaware targets and the knockout injury points", item=Field("str")),
    "firing_into_close_combat": Field(
        "bool", True, "true: missiles fired at a target in close combat treat it as in strong cover (2-4 "
        "combatants in the melee) or full cover (5+), stray hits and misses fall on the others in the melee; "
        "false: ignore (the core slice)"),
    "cover_vs_melee": Field(
        "bool", False, "false: a combatant's `cover` only protects against missiles (\"In ranged combat, "
        "combatants will often try to hide behind obstacles\"); true: against every attack"),
    "pursuit": Field(
        "choice", "simultaneous",
        "simultaneous (the text: \"A character can attack any target who comes within their movement ... at any "
        "time during the round\"): those backing away (kiters, withdrawers) step first and the closers chase them "
        "from where they ended, so a faster pursuer catches a slower withdrawer and equal speeds keep the gap; "
        "start_positions: closers walk to where their targets stood at the round's start, then those backing away "
        "step off (nobody backing away is ever caught). docs/rules/gods_and_monsters.md, Gaps and "
        "contradictions, 'Pursuit'.", choices=PURSUIT),
    "sleepers_immobile": Field(
        "bool", True, "true (the text): a sleeper who fails its surprise roll sleeps through round 1 as an immobile "
        "target (+10 to hit, killing blows) and wakes surprised; false: it is merely surprised"),
    "surprised_are_unaware": Field(
        "bool", True, "true (the text): a combatant surprised in round 1 counts as unaware of its attackers (+4 to "
        "hit, or a warrior's extra attack, and open to knockout blows); false: surprise only costs the round"),
    "contest": Field(
        "choice", "success_vs_failure", "how a contest (Agility, Reaction) is won: success_vs_failure (one side "
        "succeeds and the other fails, as the chapter spells out for holding); higher_success (when both "
        "succeed, the higher roll wins)", choices=("success_vs_failure", "higher_success")),
    "knockout_injuries": Field(
        "int", 1, "damage points of a knockout blow that go to injuries (\"one point of the damage rolled\")",
        min=0, max=100),
    "warrior_knockout_injuries": Field(
        "int", 2, "the same for warriors, who \"may allot two combat bonus points\"", min=0, max=100),
    "knockout_costs_combat_bonus": Field(
        "bool", False, "true: a warrior's knockout blow that puts two points to injuries spends two combat bonus "
        "points, -2 to that attack roll (\"allot\" read as a cost); false: the two points are free (the text "
        "names no cost)"),
    "sleep_wakes_on_damage": Field(
        "bool", True, "a combatant put to sleep by a spell wakes at the end of a round in which it took damage"),
    "disruption_movement_bonus": Field(
        "bool", False, "true: the reaction against a called shot's disruption gains the target's movement / 10 "
        "(\"a bonus of their movement\" when moving at combat speed; the unit is not given); false: no bonus"),
}

CALLED_SHOT_WHEN = ("never", "vs_casters", "vs_missile_users", "always")
IMMOBILIZE_WHEN = ("never", "always", "vs_casters", "vs_smaller")

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
    "withdraw_below": Field("float", 0.0, "withdraw (stop fighting this round and leave at its end, open to this "
                            "round's attacks) when health falls below this share", min=0.0, max=1.0),
    "rout_below": Field("float", 0.0, "flee when the share of its side still able to fight falls below this "
                        "(side morale)", min=0.0, max=1.0),
    "called_shot": Field("choice", "never", "when to make called shots (-3): never, vs_casters (targets casting "
                         "or reloading this round, to disrupt them), vs_missile_users (targets shooting this "
                         "round, to distract them), always", choices=CALLED_SHOT_WHEN),
    "knockout": Field("bool", False, "go for a knockout blow against unaware, surprised, covered or immobile "
                      "targets"),
    "killing_blow": Field("bool", True, "make a called shot to kill against immobile (sleeping, bound, held) "
                          "targets"),
    "immobilize": Field("choice", "never", "when to try to immobilize the target (a called shot to grab it): "
                        "never, always, vs_casters, vs_smaller (targets of a smaller size)", choices=IMMOBILIZE_WHEN),
    "hold_then": Field("choice", "attack", "once its target is immobilized, the holder attacks it (which "
                       "removes the target's -3 on breaking free) or just holds", choices=("attack", "hold")),
    "tie_up": Field("bool", True, "tie up an enemy an ally holds immobilized, when next to it"),
    "high_ground": Field("choice", "attack", "on higher ground or mounted: take +1 to attack or +1 to defense, or "
                         "none (forgo the advantage)", choices=("attack", "defense", "none")),
    "lead": Field("bool", False, "a warrior leads instead of fighting: on a Perception roll up to `level` "
                  "companions get the warriors' cover bonus"),
    "cover": Field("bool", False, "take aim to cover the target (no attack this round) when neither moves, then "
                   "one free attack at it with the aiming weapon at +4 attack, +1 damage, and the round's own "
                   "attack, plain, unless the target wins a Reaction contest"),
    "cast": Field("bool", True, "cast the first spell with uses left whenever a target is in its range"),
    "reload": Field("choice", "out_of_close_combat", "when to spend actions loading a multi-action weapon: "
                    "out_of_close_combat (else fight with the next weapon), always, never",
                    choices=("out_of_close_combat", "always", "never")),
    "quick_draw": Field("bool", True, "draw and attack in one round on an Evasion roll (failure: acts as if "
                        "surprised); false: spend the first action drawing"),
    "unaware_extra_attack": Field("bool", False, "a warrior takes an extra attack against an unaware target "
                                  "instead of the +4"),
}

ACTIONS = ("attack", "hold", "flee", "called_shot", "knockout", "killing_blow", "immobilize", "tie_up", "cast",
           "lead", "cover", "reload", "withdraw")

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
    "distance": "distance in feet to the nearest enemy able to fight (alias: nearest_enemy)",
    "in_close_combat": "1 when an enemy able to fight stands next to it",
    "spells_left": "casts left of its spells (1000 for unlimited)",
    "weapon_ready": "1 when its first multi-action weapon is loaded (1 without such a weapon)",
    "held": "0 free, 1 grabbed (held in a contest), 2 immobilized, 3 tied up",
    "holding": "1 while it holds an enemy",
    "enemies_immobile": "enemies asleep, immobilized or tied up",
    "enemies_casting": "enemies who cast or tried to cast last round",
}
