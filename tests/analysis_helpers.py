"""A duel whose win probability is exact: fixed damage, no surprise, down at 0 survival."""
from __future__ import annotations

from functools import lru_cache


def duel(hero_defense=0, monster_defense=0, hero_survival=9, monster_survival=9, damage=3,
         hero_policy=None, monster_policy=None) -> dict:
    # Fortitude -20: the first time survival reaches 0 the injury check (0 > -20) kills,
    # so a combatant is down after exactly ceil(survival / damage) hits.
    def fighter(name, defense, survival):
        return {"name": name, "survival": survival, "fortitude": -20, "defense": defense,
                "awareness": "aware", "weapons": [{"name": "club", "damage": damage}]}
    return {
        "name": "exact duel", "ruleset": "gods_and_monsters",
        "sides": {
            "hero": {"policy": hero_policy or {"target": "random"},
                     "combatants": [fighter("Hero", hero_defense, hero_survival)]},
            "monster": {"policy": monster_policy or {"target": "random"},
                        "combatants": [fighter("Monster", monster_defense, monster_survival)]},
        },
        "run": {"skirmishes": 4000, "seed": 7, "max_rounds": 1000},
    }


def hit_chance(defense: int) -> float:
    # d20 <= 11 + combat 0 + attack 0 - defense
    return min(max(11 - defense, 0), 20) / 20


def exact_hero_win(hero_defense=0, monster_defense=0, hero_survival=9, monster_survival=9, damage=3,
                   hero_damage=None) -> float:
    """P(hero wins): each round both roll at once; i, j = hits still needed by hero, monster."""
    ph, pm = hit_chance(monster_defense), hit_chance(hero_defense)
    hd = damage if hero_damage is None else hero_damage

    @lru_cache(maxsize=None)
    def p(i, j):
        if i == 0:
            return 1.0 if j > 0 else 0.0
        if j == 0:
            return 0.0
        stay = (1 - ph) * (1 - pm)
        if stay == 1:
            return 0.0
        return (ph * pm * p(i - 1, j - 1) + ph * (1 - pm) * p(i - 1, j) + (1 - ph) * pm * p(i, j - 1)) / (1 - stay)
    return p(-(-monster_survival // hd), -(-hero_survival // damage))
