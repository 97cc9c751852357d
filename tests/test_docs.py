"""The committed scenario reference is what the generator renders from the schemas."""
from __future__ import annotations

from sim import docgen, rulesets
from sim.scenario import RUN_FIELDS, TOP_FIELDS


def test_committed_scenarios_md_is_up_to_date():
    committed = docgen.DOC_PATH.read_text(encoding="utf-8")
    assert committed == docgen.render(), "docs/scenarios.md is stale: run `python -m sim.docgen`"
    assert docgen.main(["--check"]) == 0


def test_every_declared_field_is_documented():
    text = docgen.render()
    names = list(TOP_FIELDS) + list(RUN_FIELDS)
    for name in rulesets.names():
        rs = rulesets.get(name)
        names += list(rs.combatant_fields) + list(rs.rule_options) + list(rs.policy_fields) + list(rs.observations)
    for field in names:
        assert f"| `{field}` |" in text, field
