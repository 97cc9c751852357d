"""The Lens engine against benchmarks/plain_loop_lens.py, an independent plain-Python loop.

Both play the same scenario file with the default rules; their win, down and flee rates
and mean rounds must agree within 4 standard errors of the difference (a false alarm is
about 1 in 15,000 per figure). The loop plays about 4,000 skirmishes per CPU-second.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmarks import plain_loop_lens
from tests.plain_loop_helpers import assert_agree, agreement

SCENARIO = Path("scenarios/lens/novice_party_vs_brute.yaml")


def test_engine_agrees_with_the_plain_lens_loop():
    """The shipped party against the ogre: focus targeting, hold_for_defence, Block/Dodge/Parry/Mitigate."""
    rows = agreement(plain_loop_lens, SCENARIO, 60_000, 12_000, seed=3)
    assert {what for what, *_ in rows} >= {"party wins", "Fighter down", "Scout down", "Warden down", "mean rounds"}
    assert_agree(rows)


def test_engine_agrees_with_the_plain_lens_loop_on_a_variant(tmp_path):
    """A harder variant: Novice Dodges now succeed (Attack Rating 4), so defenders step to open
    squares and the ogre walks after them; an ogre with three attacks a round carrying STUNNING,
    DISARMING and HAMSTRINGING (conditions, re-arming, lost Momentum); Tags attached by policy,
    `timing: auto`, Mitigate removing tags, a bonus Momentum, an all_out Scout."""
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    party = data["sides"]["party"]
    party["policy"] = {"family": "hold_for_defence", "target": "focus", "tags": 1, "timing": "auto",
                       "mitigate": "tag"}
    fighter, scout, warden = party["combatants"]
    fighter["weapons"][0]["tags"] = ["SLASHING", "TRIPPING"]
    scout["bonus_momentum"] = 1
    scout["policy"] = {"family": "all_out", "target": "random"}
    ogre = data["sides"]["brute"]["combatants"][0]
    ogre.update(body=30, attack_rating=4, attacks_per_round=3, attacks=[
        {"name": "club", "damage": "2d6", "tags": ["CRUSHING", "STUNNING", "DISARMING"]},
        {"name": "kick", "damage": "1d4", "tags": ["HAMSTRINGING"]}])
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert_agree(agreement(plain_loop_lens, path, 40_000, 8_000, seed=4))


@pytest.mark.parametrize("change, message", [
    ({"rules": {"surprise": "party_surprised"}}, "default rules only; surprise"),
    ({"policy": {"family": "support", "target": "focus"}}, "no spells, Assist or Interfere"),
    ({"policy": {"family": "hold_for_defence", "target": "weakest"}}, "random or focus targeting"),
])
def test_the_plain_lens_loop_refuses_what_it_does_not_play(tmp_path, change, message):
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    if "rules" in change:
        data["rules"] = change["rules"]
    else:
        data["sides"]["party"]["policy"] = change["policy"]
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        plain_loop_lens.play(path, 1)
