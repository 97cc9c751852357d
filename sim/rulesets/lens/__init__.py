"""The Lens: player-facing challenge rolls, Momentum, initiative brackets, defences."""
from __future__ import annotations

from sim.errors import ScenarioError, closest
from sim.overrides import side_path
from sim.policy import TARGET_MODES
from sim.rulesets import deferred
from sim.rulesets.lens import advice, schema
from sim.rulesets.lens import tables as T
from sim.rulesets.lens.written import refuse_unread


class Lens:
    name = "lens"
    title = "The Lens (skirmish)"
    cell_size = 5.0
    unit = "ft"
    # The text's damage examples as named weapons; monsters' attacks are not weapons.
    weapon_table = {"dagger": {"size": "tiny"}, "short sword": {"size": "small"}, "long sword": {"size": "medium"},
                    "two-handed sword": {"size": "large"}}
    weapon_lists = ("weapons",)
    rule_options = schema.RULE_OPTIONS
    combatant_fields = schema.COMBATANT_FIELDS
    policy_fields = schema.POLICY_FIELDS
    actions = schema.ACTIONS
    observations = schema.OBSERVATIONS
    observation_aliases = schema.OBSERVATION_ALIASES
    action_aliases: dict = {}
    target_modes = TARGET_MODES  # all five, from sim.policy.choose_targets and keep_focus
    # One compiled kernel plays every Lens scenario (sim/rulesets/lens/kernel.py); the
    # NumPy engine below stays for the agreement checks until it is retired.
    compiled = True
    outcome_columns = ("momentum_spent", "defences_used", "recovered", "void", "body_left", "bracket",
                       "defended_abjure", "defended_mitigate", "defended_block", "defended_dodge", "defended_parry",
                       "tags_applied", "items_left")
    play = deferred("sim.rulesets.lens.play", "play")
    trace = deferred("sim.rulesets.lens.play", "trace")
    warm = deferred("sim.rulesets.lens.play", "warm")

    build = deferred("sim.rulesets.lens.engine", "build")
    warnings = staticmethod(advice.warnings)
    inert = deferred("sim.rulesets.lens.inert", "inert")  # sim/inert.py: rules without effect in a run
    odds = deferred("sim.rulesets.lens.odds", "odds")  # sim/odds.py: exact odds of one exchange
    init = deferred("sim.rulesets.lens.engine", "init")
    step = deferred("sim.rulesets.lens.engine", "step")
    is_over = deferred("sim.rulesets.lens.engine", "is_over")
    outcome = deferred("sim.rulesets.lens.engine", "outcome")

    @staticmethod
    def check(scenario) -> None:
        """Checks across fields: what each kind may carry, tag and ability names, hands."""
        known_tags = {**T.DEFAULT_TAGS, **{k.upper(): v for k, v in scenario.rules["tags"].items()}}
        seen = set()
        for c in scenario.combatants:
            if id(c.stats) in seen:
                continue
            seen.add(id(c.stats))
            s = c.stats
            side = scenario.side_names[c.side]
            raw = scenario.data["sides"][side]["combatants"]
            pos = next((i for i, r in enumerate(raw) if isinstance(r, dict) and r.get("name") == s["name"]), 0)
            path = side_path(side, f"combatants[{pos}]")
            _check_one(s, path, known_tags)
            for tag in c.policy_spec.get("tag_order") or []:
                if tag not in known_tags:
                    raise ScenarioError(f"unknown tag '{tag}' in tag_order.{closest(tag, known_tags)}",
                                        path=f"{path}.policy.tag_order")
        refuse_unread(scenario)


def _check_one(s: dict, path: str, known_tags: dict) -> None:
    def fail(msg, field=None):
        raise ScenarioError(msg, path=f"{path}.{field}" if field else path)

    if s["kind"] == "monster":
        for f in schema.CHARACTER_ONLY:
            if s[f] not in (None, [], {}, 0):
                fail(f"`{f}` is a character field; monsters never roll (player-facing rules). Remove it or "
                     "set `kind: character`.", f)
        if not s["attacks"]:
            fail("a monster needs at least one attack, e.g. attacks: [{name: claw, damage: 2d4}].", "attacks")
    else:
        for f in schema.MONSTER_ONLY:
            if s[f] not in (None, []):
                fail(f"`{f}` is a monster field; characters attack with `weapons` and `spells`. Remove it or "
                     "set `kind: monster`.", f)
        if not s["weapons"] and not s["spells"]:
            fail("a character needs a weapon or a spell, e.g. weapons: [{name: long sword, size: medium, "
                 "workmanship: common}].", "weapons")
        if s["weapons"] and s["weapons"][0]["size"] in T.TWO_HANDED and s["shield"]:
            fail(f"{s['weapons'][0]['name']} is a large, two-handed weapon and cannot be wielded with a shield; "
                 "remove `shield` or pick a smaller weapon.", "shield")
        schools = {sp["school"] for sp in s["spells"]}
        allowed = set(T.ABILITIES) | schools
        for name in s["abilities"]:
            if name not in allowed:
                fail(f"unknown ability '{name}'.{closest(name, allowed)} Abilities: {', '.join(sorted(allowed))} "
                     "(a school counts once a spell uses it).", f"abilities.{name}")
        if s["initiative_ability"] and s["initiative_ability"] not in allowed:
            fail(f"unknown ability '{s['initiative_ability']}'.{closest(s['initiative_ability'], allowed)}",
                 "initiative_ability")
    for group in ("weapons", "attacks", "spells"):
        for i, w in enumerate(s[group]):
            for tag in w["tags"]:
                if tag not in known_tags:
                    fail(f"unknown tag '{tag}'.{closest(tag, known_tags)} Known tags: {', '.join(known_tags)}; "
                         "define new ones under rules.tags.", f"{group}[{i}].tags")


RULESET = Lens()
