"""Starter scenarios for `skirmish new RULESET FILE`, one per ruleset.

Each is a small, commented fight that validates and runs as written, so a designer
starts from something that works and changes one thing at a time. docs/scenarios.md
shows the same texts as each ruleset's example, and tests load and play every one.
"""
from __future__ import annotations

from pathlib import Path

from sim.errors import ScenarioError, closest

GODS_AND_MONSTERS = """\
# A starter Gods & Monsters scenario, written by `skirmish new`. Check it with
#   skirmish validate FILE
# and play it with
#   skirmish run FILE
# Every field is described in docs/scenarios.md; `skirmish rules gods_and_monsters`
# lists the rule options.
name: Two adventurers against goblins
ruleset: gods_and_monsters
description: >
  A warrior and a thief meet four goblins on the road. Change one number, run again,
  and compare the win rates.
rules: {}                      # rule options that differ from their defaults; none here
sides:
  party:                       # a side's name is yours to choose; results use it
    policy: {target: weakest}  # every combatant of the side strikes the weakest enemy
    combatants:
      - name: Hild             # names must be distinct (copies get " 1", " 2"...)
        archetypes: [warrior]
        level: 2
        survival: 8            # Gods & Monsters calls hit points "survival"
        verve: 14
        perception: 8
        willpower: 8
        fortitude: 10
        combat: 2
        attack: 1
        defense: 4
        weapons: [long sword]  # a weapon of the ruleset's table, by name
      - name: Wren
        archetypes: [thief]
        level: 2
        survival: 6
        verve: 12
        perception: 10
        willpower: 7
        fortitude: 6
        combat: 1
        defense: 3
        weapons: [{name: dagger, damage: d4}]   # or a weapon written out in full
  goblins:
    policy: {target: random, flee_below: 0.3}  # a goblin runs below 30% of its survival
    combatants:
      - &goblin                # an anchor: the next goblin repeats these fields
        name: Goblin chief
        level: 1
        survival: 9
        perception: 6
        willpower: 4
        fortitude: 5
        combat: 1
        defense: 2
        weapons: [{name: spear, damage: d6}]
      - <<: *goblin            # the chief's fields, with the ones written here winning
        name: Goblin
        count: 3               # three copies: "Goblin 1", "Goblin 2", "Goblin 3"
        survival: 6
run: {skirmishes: 10000, seed: 1, max_rounds: 100}
# Try a grid of variants with `skirmish sweep FILE`:
sweep:
  vary:
    sides.party.combatants[Hild].defense: 2..6
"""

LENS = """\
# A starter scenario for The Lens, written by `skirmish new`. Check it with
#   skirmish validate FILE
# and play it with
#   skirmish run FILE
# Every field is described in docs/scenarios.md; `skirmish rules lens` lists the
# rule options.
name: Swordsman against three wolves
ruleset: lens
description: >
  A Journeyman swordsman with a shield holds off three wolves. Change one number, run
  again, and compare the win rates.
rules: {}                      # rule options that differ from their defaults; none here
sides:
  swordsman:                   # a side's name is yours to choose; results use it
    policy: {family: hold_for_defence}
    combatants:
      - name: Swordsman
        body: 16               # The Lens calls hit points "body"
        armor_rating: 2
        defense: 5             # the TN of attacks against this combatant
        attack_rating: 5       # the TN of its defences
        shield: common
        abilities:
          weapon_use: {training: journeyman}
          maneuvering: {training: apprentice}
          armor_use: {training: apprentice}
          shield_use: {training: apprentice}
        weapons: [{name: long sword, size: medium, workmanship: common}]
  wolves:
    policy: {target: random}
    combatants:
      - name: Wolf
        count: 3               # three copies: "Wolf 1", "Wolf 2", "Wolf 3"
        kind: monster          # a fixed stat block that never rolls
        body: 10
        defense: 4
        attack_rating: 4
        initiative: 3
        attacks: [{name: bite, damage: d6}]
run: {skirmishes: 10000, seed: 1, max_rounds: 60}
# Try a grid of variants with `skirmish sweep FILE`:
sweep:
  vary:
    sides.swordsman.combatants[Swordsman].body: 12..20:4
"""

LIFEFORCE = """\
# A starter Lifeforce scenario, written by `skirmish new`. Check it with
#   skirmish validate FILE
# and play it with
#   skirmish run FILE
# Every field is described in docs/scenarios.md; `skirmish rules lifeforce` lists
# the rule options.
name: Spearman against two raiders
ruleset: lifeforce
description: >
  A spearman with a long reach meets two raiders with axes, 8 m apart. Change one
  number, run again, and compare the win rates.
battlefield: {start_distance: 8}   # metres between the sides at the start
sides:
  spearman:                    # a side's name is yours to choose; results use it
    policy: {family: steady, target: nearest}
    combatants:
      - name: Spearman
        hp: 34
        reaction: 30
        movement: 12
        dodge: 20
        reflex: 15
        armor: 3
        strength: 40
        weapons: [{name: spear, skill: 25, damage: d8, damage_type: piercing, reach: 2, two_handed: true}]
  raiders:
    policy: {family: steady, target: weakest}
    combatants:
      - name: Raider
        count: 2               # two copies: "Raider 1" and "Raider 2"
        hp: 22
        reaction: 25
        movement: 12
        dodge: 15
        reflex: 15
        armor: 1
        strength: 40
        weapons: [{name: hand axe, skill: 20, damage: d6, damage_type: slashing}]
run: {skirmishes: 10000, seed: 1, max_rounds: 60}
# Try a grid of variants with `skirmish sweep FILE`:
sweep:
  vary:
    sides.spearman.combatants[Spearman].armor: 1..5
"""

STARTERS = {"gods_and_monsters": GODS_AND_MONSTERS, "lens": LENS, "lifeforce": LIFEFORCE}


def starter(ruleset: str) -> str:
    if ruleset not in STARTERS:
        raise ScenarioError(f"no starter for the ruleset '{ruleset}'.{closest(ruleset, STARTERS)} "
                            f"Rulesets: {', '.join(STARTERS)}.")
    return STARTERS[ruleset]


def write_starter(ruleset: str, file, force: bool = False, day: bool = False) -> Path:
    """Write the starter for `ruleset` (a day file with `day`) to `file` (atomically);
    refuse to replace a file unless `force`."""
    from sim.io import atomic_write_text
    from sim.day.starter import day_starter
    text = day_starter(ruleset) if day else starter(ruleset)
    path = Path(file)
    if path.is_dir():
        raise ScenarioError("is a folder; give the new scenario's file name, e.g. my_fight.yaml.", file=str(path))
    if path.exists() and not force:
        raise ScenarioError("already exists; choose another name, or add --force to overwrite it.", file=str(path))
    if path.suffix.lower() not in (".yaml", ".yml"):
        raise ScenarioError("should end in .yaml, so `skirmish validate FOLDER` and editors recognise it.",
                            file=str(path))
    atomic_write_text(path, text)
    return path
