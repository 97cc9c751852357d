"""The Lens outcome counters per combatant: each defence chosen, and conditions applied by tags.

They feed the list of rules that had no effect: a shield that never blocked, a tag that
never took hold."""
from __future__ import annotations

import sim
from tests.test_lens_kernel import BEAST, HERO, scenario

DEFENDED = ("defended_abjure", "defended_mitigate", "defended_block", "defended_dodge", "defended_parry")
SHIELDED = {**HERO, "shield": "fine", "abilities": {**HERO["abilities"], "shield_use": {"training": "journeyman"}}}


def _hero(result):
    return result.combatants[result.combatants["combatant"] == "Hero"]


def test_a_shield_bearer_blocks_under_the_default_play_and_not_all_out():
    default = _hero(sim.run(scenario(hero=SHIELDED), n=400, seed=2))
    all_out = _hero(sim.run(scenario(hero=SHIELDED, policy={"family": "all_out"}), n=400, seed=2))
    assert default["defended_block"].sum() > 0
    assert all_out["defended_block"].sum() == 0
    for hero in (default, all_out):  # defences_used stays their sum, skirmish by skirmish
        assert (hero[list(DEFENDED)].sum(axis=1) == hero["defences_used"]).all()
    assert all_out["defended_mitigate"].sum() > 0  # armour works without Momentum, even all-out


def test_tags_applied_counts_the_conditions_a_combatants_blows_applied():
    stunning = {**HERO, "weapons": [{"name": "club", "damage": "1d6", "tags": ["STUNNING"]}]}
    tagged = sim.run(scenario(hero=stunning, policy={"family": "all_out", "tags": 1}), n=300, seed=4)
    plain = sim.run(scenario(policy={"family": "all_out", "tags": 1}), n=300, seed=4)
    assert _hero(tagged)["tags_applied"].sum() > 0
    assert _hero(plain)["tags_applied"].sum() == 0
    trace = sim.trace(scenario(hero=stunning, policy={"family": "all_out", "tags": 1}), seed=4, skirmish=0, n=300)
    applied = trace.count("Beast gains STUN from the tags")
    assert int(_hero(tagged)["tags_applied"].iloc[0]) == applied
    clawed = {**BEAST, "attacks": [{"name": "claw", "damage": "2d6", "tags": ["STUNNING"]}]}
    beast = sim.run(scenario(beast=clawed), n=300, seed=4).combatants
    assert beast[beast["combatant"] == "Beast"]["tags_applied"].sum() > 0
