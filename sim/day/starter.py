"""The starter day file of `skirmish new --day RULESET FILE`: the ruleset's starter
scenario's first side as the party, its second side met twice, with rests between. It
needs no other file, so it validates and plays wherever it is written."""
from __future__ import annotations

import re

import yaml

from sim.day.spec import day_rule_fields

HEADER = """\
# A starter day for {title}, written by `skirmish new --day`. Play it with
#   skirmish day FILE
# The party lives through every step: wounds carry from fight to fight, rests give back
# what the ruleset's day rules say (docs/day.md). Day options and their defaults:
{options}
"""


def day_starter(ruleset: str) -> str:
    from sim import rulesets
    from sim.starters import starter
    scen = yaml.safe_load(starter(ruleset))
    (party_name, party), (foe_name, foe) = list(scen["sides"].items())[:2]
    data = {
        "name": f"{scen['name']}, twice in a day",
        "ruleset": ruleset,
        "party": {"side": party_name, "combatants": party["combatants"],
                  **({"policy": party["policy"]} if party.get("policy") else {})},
        "steps": [{"fight": "first meeting", "sides": {foe_name: foe}},
                  {"rest": "breather", "kind": "short"},
                  {"fight": "second meeting", "sides": {foe_name: foe}, "chance": 0.5},
                  {"rest": "camp", "kind": "night"},
                  {"fight": "at dawn", "sides": {foe_name: foe}}],
        "rules": scen.get("rules") or {},
        "day_rules": {},
        "stop_when": "party_out",
        "run": {"days": 10000, "seed": 1},
    }
    options = "\n".join(f"#   {name}: {field.default}  ({re.split(r'[:(]', field.doc)[0].strip()})"
                        for name, field in day_rule_fields(ruleset).items())
    title = rulesets.get(ruleset).title
    return HEADER.format(title=title, options=options) + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
