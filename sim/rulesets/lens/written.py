"""The policy fields a Lens scenario writes, and the combinations of them refused at load.

Under the default play (family `expected_value`) every choice is made by value, and a
written field replaces that choice with the value written (docs/rules/lens.md, Policies):
what is written, not what the policy spec holds (every default filled in), decides.
"""
from __future__ import annotations

from sim.errors import ScenarioError
from sim.overrides import side_path


def written_fields(scenario) -> list[frozenset]:
    """Per combatant, the policy fields the scenario writes: its side's and its own, after
    `use:` and --set (a field written as null is the family's default, so not written)."""
    raws = []
    for side in scenario.data["sides"].values():
        side_keys = _keys(side.get("policy"))
        raws += [side_keys | _keys(r.get("policy")) for r in side["combatants"]]
    out, group, last = [], -1, None
    for c in scenario.combatants:  # the copies of one entry (`count`) share its stats
        if c.stats is not last:
            group, last = group + 1, c.stats
        out.append(raws[group])
    return out


def _keys(policy) -> frozenset:
    if not isinstance(policy, dict):
        return frozenset()
    return frozenset(k for k, v in policy.items() if v is not None)


def refuse_unread(scenario) -> None:
    """Refuse a written field the default play would never read: `big_hit` beside a written
    `defend` other than big_hits (the threshold is read only by defend: big_hits)."""
    for c, written in zip(scenario.combatants, written_fields(scenario)):
        spec = c.policy_spec
        if spec.get("family") != "expected_value" or "big_hit" not in written or "defend" not in written:
            continue
        if spec["defend"] == "big_hits":
            continue
        side = scenario.side_names[c.side]
        raise ScenarioError(
            f"{c.name}'s policy writes big_hit: {spec['big_hit']:g} with defend: {spec['defend']}; under the "
            "default family (expected_value) big_hit is the mean damage from which it defends actively, which "
            f"defend: {spec['defend']} does not read. Write defend: big_hits to defend only against blows of "
            f"that mean or more (big_hit alone means the same), or remove big_hit.", path=side_path(side, "policy"))
