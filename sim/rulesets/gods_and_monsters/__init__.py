"""Gods & Monsters: d20 roll-under, simultaneous rounds, verve, survival and injuries."""
from __future__ import annotations

from sim.errors import ScenarioError
from sim.overrides import side_path
from sim.rulesets import deferred
from sim.rulesets.gods_and_monsters import schema
from sim.rulesets.gods_and_monsters.weapons import WEAPONS


class GodsAndMonsters:
    name = "gods_and_monsters"
    title = "Gods & Monsters"
    rule_options = schema.RULE_OPTIONS
    combatant_fields = schema.COMBATANT_FIELDS
    policy_fields = schema.POLICY_FIELDS
    actions = schema.ACTIONS
    observations = schema.OBSERVATIONS
    weapon_table = WEAPONS
    weapon_lists = ("weapons", "attacks")

    # "nearest_enemy" is the name scenarios used before one vocabulary across rulesets.
    observation_aliases = {"nearest_enemy": "distance"}
    outcome_columns = ("surprised", "verve_left", "survival_left", "injuries")
    inert = deferred("sim.rulesets.gods_and_monsters.inert", "inert")  # sim/inert.py: rules without effect in a run
    odds = deferred("sim.rulesets.gods_and_monsters.odds", "odds")  # sim/odds.py: exact odds of one exchange

    # Compiled: the whole fight of each skirmish in one kernel (docs/architecture.md).
    compiled = True
    build = deferred("sim.rulesets.gods_and_monsters.tables", "build")
    play = deferred("sim.rulesets.gods_and_monsters.play", "play")
    # A one-process run fills its joined table chunk by chunk (runner.run).
    new_outcome = deferred("sim.rulesets.gods_and_monsters.play", "new_outcome")
    play_into = deferred("sim.rulesets.gods_and_monsters.play", "play_into")
    trace = deferred("sim.rulesets.gods_and_monsters.play", "trace")
    warm = deferred("sim.rulesets.gods_and_monsters.play", "warm")

    @staticmethod
    def check(scenario) -> None:
        """Checks across fields that the schema cannot express."""
        for level in scenario.rules["strength_damage_bonus"]:
            if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 1000:
                raise ScenarioError(f"{str(level)[:20]!r} is not a Strength score; write the table as Strength: "
                                    "bonus with whole numbers, e.g. {16: 2, 18: 4}.",
                                    path="rules.strength_damage_bonus")
        seen = set()
        for c in scenario.combatants:
            if id(c.stats) in seen:
                continue
            seen.add(id(c.stats))
            idx = [x.stats for x in scenario.combatants if x.side == c.side]
            pos = next(i for i, st in enumerate(_unique(idx)) if st is c.stats)
            path = side_path(scenario.side_names[c.side], f"combatants[{pos}]")
            if not c.stats["attacks"] and not c.stats["weapons"]:
                raise ScenarioError(
                    f"{c.stats['name']} has neither `weapons` nor `attacks`; give at least one, e.g. "
                    "weapons: [{name: dagger, damage: d4}] (a spellcaster too: it fights with it when it "
                    "cannot cast).", path=path)
            key = "attacks" if c.stats["attacks"] else "weapons"
            for j, w in enumerate(c.stats[key]):
                if w["loaded"] is not None and w["loaded"] >= w["actions"]:
                    raise ScenarioError(
                        f"`loaded` is {w['loaded']} but the {w['name']} takes {w['actions']} action(s) a use; "
                        f"`loaded` counts actions done before the fight, at most {w['actions'] - 1} (ready to "
                        "fire).", path=f"{path}.{key}[{j}].loaded")


def _unique(items):
    out, seen = [], set()
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


RULESET = GodsAndMonsters()
