"""Small pieces of English for generated sentences."""
from __future__ import annotations


def sides_possessive(side: str) -> str:
    """The possessive of a side's name: sides are mostly plural nouns ("goblins",
    "monsters"), whose possessive is an apostrophe alone: the goblins' win rate, the
    party's."""
    return f"{side}'" if side.endswith("s") else f"{side}'s"
