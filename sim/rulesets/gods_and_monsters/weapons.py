"""Weapons named in the Conflicts chapter, usable by name in scenarios.

Only damage the chapter states is listed; add the rest of your game's weapons in a
scenario's `armory:` block (or here, as a row).
"""
WEAPONS = {
    "long sword": {"damage": "d8"},   # "a long sword, which does d8 points of damage"
    "dagger": {"damage": "d4"},       # "Daggers do d4 points of damage"
    "battle axe": {"damage": "d8"},   # "His battle axe does d8 points damage"
    "claw": {"damage": "d6"},         # "The Yeti's claws do d6 points damage"
}
