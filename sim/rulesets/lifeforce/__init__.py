"""Lifeforce skirmish combat: four action phases a round, prepared actions, stunts, grappling."""
from __future__ import annotations

from sim.errors import ScenarioError
from sim.overrides import side_path
from sim.policy import TARGET_MODES
from sim.rulesets import deferred
from sim.rulesets.base import STANDARD_COMBATANT_COLUMNS
from sim.rulesets.lifeforce import schema
from sim.rulesets.lifeforce import layout as L
from sim.rulesets.lifeforce import tables as T


# Beyond a d100 roll's span ten times over nothing changes; the table is int16.
MAX_CONDITION_CHANGE = 1000


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
    build = deferred("sim.rulesets.lifeforce.kplay", "build")
    play = deferred("sim.rulesets.lifeforce.kplay", "play")
    trace = deferred("sim.rulesets.lifeforce.kplay", "trace")
    warm = deferred("sim.rulesets.lifeforce.kplay", "warm")
    # The ruleset's own columns: those of the kernel's outcome table past the standard ones.
    outcome_columns = tuple(c for c in L.OUTCOME_COLUMNS if c not in STANDARD_COMBATANT_COLUMNS)
    inert = deferred("sim.rulesets.lifeforce.inert", "inert")  # sim/inert.py: rules without effect in a run
    odds = deferred("sim.rulesets.lifeforce.odds", "odds")  # sim/odds.py: exact odds of one exchange

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
                if not boolean and abs(value) > MAX_CONDITION_CHANGE:
                    raise ScenarioError(f"{value if len(str(value)) <= 12 else 'the number'} is out of range; a "
                                        f"condition changes a d100 roll by at most {MAX_CONDITION_CHANGE} either way.",
                                        path=f"{path}.{col}")
        for c in scenario.combatants:
            if c.policy.params["family"] == "skirmisher" and not any(w["range"] for w in c.stats["weapons"]):
                side = scenario.side_names[c.side]
                raise ScenarioError(f"{c.name} is a skirmisher without a ranged weapon (a weapon with `range`); "
                                    "give it one or choose family steady.", path=side_path(side, "policy", "family"))


RULESET = Lifeforce()


class LifeforceNumpy(Lifeforce):
    """The NumPy batch engine the kernel replaced, without the kernel's fixes; kept only
    for benchmarks/agree_lifeforce.py (before / after tables) until it goes away."""
    compiled = False
    build = deferred("sim.rulesets.lifeforce.engine", "build")
    init = deferred("sim.rulesets.lifeforce.engine", "init")
    step = deferred("sim.rulesets.lifeforce.engine", "step")
    is_over = deferred("sim.rulesets.lifeforce.engine", "is_over")
    outcome = deferred("sim.rulesets.lifeforce.engine", "outcome")


LEGACY = LifeforceNumpy()
