"""Lifeforce skirmish combat: four action phases a round, prepared actions, stunts, grappling."""
from __future__ import annotations

from sim.errors import ScenarioError
from sim.policy import TARGET_MODES
from sim.rulesets.lifeforce import engine, kplay, schema
from sim.rulesets.lifeforce import tables as T
# The finder of rules with no effect reads outcome tables, never compiled code.
from . import inert as inert_rules


class Lifeforce:
    name = "lifeforce"
    title = "Lifeforce"
    cell_size = 1.0  # "each square representing 1 Meter"
    unit = "m"
    rule_options = schema.RULE_OPTIONS
    combatant_fields = schema.COMBATANT_FIELDS
    policy_fields = schema.POLICY_FIELDS
    actions = schema.ACTIONS
    observations = schema.OBSERVATIONS
    observation_aliases = schema.OBSERVATION_ALIASES
    action_aliases = schema.ACTION_ALIASES
    target_modes = TARGET_MODES  # all five, from sim.policy.choose_targets and keep_focus
    # The text gives no weapon statistics, so there is no built-in weapon table; a
    # scenario's `armory:` names its own weapons.
    weapon_lists = ("weapons",)

    # The compiled kernel (kernel.py and the k*.py modules it inlines) plays every rule.
    compiled = True
    build = staticmethod(kplay.build)
    play = staticmethod(kplay.play)
    trace = staticmethod(kplay.trace)
    warm = staticmethod(kplay.warm)
    outcome_columns = kplay.OUTCOME_COLUMNS
    inert = staticmethod(inert_rules.inert)  # sim/inert.py: rules without effect in a run

    @staticmethod
    def check(scenario) -> None:
        """Checks across fields that the schema cannot express."""
        for name, change in scenario.rules["conditions"].items():
            path = f"rules.conditions.{name}"
            if name not in T.CONDITIONS:
                raise ScenarioError(f"unknown condition '{name}'. Known: {', '.join(T.CONDITION_NAMES)}.", path=path)
            if not isinstance(change, dict):
                raise ScenarioError("expected a mapping of column: value, e.g. {offence: -20}.", path=path)
            for col, value in change.items():
                if col not in T.CONDITION_FIELDS:
                    raise ScenarioError(f"unknown column '{col}'. Columns: {', '.join(T.CONDITION_FIELDS)}.",
                                        path=f"{path}.{col}")
                boolean = col in ("moves", "begins")
                if boolean != isinstance(value, bool) or not isinstance(value, (int, bool)):
                    raise ScenarioError(f"expected {'true or false' if boolean else 'a whole number'}.",
                                        path=f"{path}.{col}")
        for c in scenario.combatants:
            if c.policy.params["family"] == "skirmisher" and not any(w["range"] for w in c.stats["weapons"]):
                side = scenario.side_names[c.side]
                raise ScenarioError(f"{c.name} is a skirmisher without a ranged weapon (a weapon with `range`); "
                                    "give it one or choose family steady.", path=f"sides.{side}.policy.family")


RULESET = Lifeforce()


class LifeforceNumpy(Lifeforce):
    """The NumPy batch engine the kernel replaced, without the kernel's fixes; kept only
    for benchmarks/agree_lifeforce.py (before / after tables) until it goes away."""
    compiled = False
    build = staticmethod(engine.build)
    init = staticmethod(engine.init)
    step = staticmethod(engine.step)
    is_over = staticmethod(engine.is_over)
    outcome = staticmethod(engine.outcome)


LEGACY = LifeforceNumpy()
