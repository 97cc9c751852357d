"""Gods & Monsters spell uses over a day: the casts left leave one fight and enter the
next (day rule `spell_uses: per_day`), a night gives them back, `per_fight` does not
carry them, and the kernel's uses left are what its trace shows cast."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

import sim
import sim.day
from sim.day.play import _setup

ROOT = Path(__file__).resolve().parents[1]
SORCERER = {"name": "Sorcerer", "archetypes": ["sorcerer"], "level": 3, "survival": 9, "verve": 12,
            "willpower": 13, "fortitude": 10, "evasion": 11, "combat": 0, "defense": 1,
            "weapons": [{"name": "dagger", "damage": "d4"}],
            "spells": [{"name": "sleepfall", "save": "willpower", "condition": "sleep", "range": 60, "uses": 1},
                       {"name": "fire bolt", "damage": "2d6", "save": "evasion", "range": 60, "uses": 2}]}
GUARD = {"name": "Guard", "archetypes": ["warrior"], "survival": 10, "verve": 12, "fortitude": 11, "combat": 2,
         "defense": 5, "weapons": [{"name": "mace", "damage": "d6"}]}
ORCS = {"orcs": {"combatants": [{"use": "Orc", "count": 2}]}}
FIELD = {"width": 12, "height": 6, "start_distance": 30}


def _day(tmp_path, rules=None, days=3000) -> Path:
    data = {"name": "Sorcery on the road", "ruleset": "gods_and_monsters",
            "include": str(ROOT / "library/gods_and_monsters.yaml"),
            "party": {"side": "party", "combatants": [SORCERER, GUARD]},
            "steps": [{"fight": "first orcs", "sides": ORCS, "battlefield": FIELD},
                      {"fight": "second orcs", "sides": ORCS, "battlefield": FIELD},
                      {"rest": "camp", "kind": "night"},
                      {"fight": "third orcs", "sides": ORCS, "battlefield": FIELD}],
            "day_rules": rules or {}, "stop_when": "never", "run": {"days": days, "seed": 7}}
    path = tmp_path / "sorcery.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _by_fight(result, who: str) -> dict:
    m = result.members[result.members["combatant"] == who]
    return {str(f): g.set_index("day") for f, g in m.groupby("fight", observed=True)}


def test_casts_left_carry_from_fight_to_fight_and_a_night_gives_them_back(tmp_path):
    result = sim.day.run(_day(tmp_path))
    f = _by_fight(result, "Sorcerer")
    first, second, third = f["first orcs"], f["second orcs"], f["third orcs"]
    assert (first["entry_spell_uses"] == 3).all()
    both = first.index.intersection(second.index)
    assert (second.loc[both, "entry_spell_uses"] == first.loc[both, "exit_spell_uses"]).all()
    spent = first["exit_spell_uses"] < 3
    assert spent.mean() > 0.5 and (first["exit_spell_uses"] >= 0).all()
    alive = third.index[(third["entry_state"] != "dead").to_numpy()]
    assert len(alive) > 100 and (third.loc[alive, "entry_spell_uses"] == 3).all()
    # The guard has no spells: no spell_uses line of its own in the summary.
    res = result.summary()["resources"]
    assert {r["combatant"] for r in res if r["resource"] == "spell_uses"} == {"Sorcerer"}


def test_per_fight_starts_every_fight_with_the_stat_blocks_uses(tmp_path):
    result = sim.day.run(_day(tmp_path, {"spell_uses": "per_fight"}))
    f = _by_fight(result, "Sorcerer")
    for name in ("first orcs", "second orcs", "third orcs"):
        assert (f[name]["entry_spell_uses"] == 3).all()
    # The first fight is the same either way; the second differs once uses are carried.
    carried = _by_fight(sim.day.run(_day(tmp_path)), "Sorcerer")
    assert (carried["first orcs"]["exit_spell_uses"] == f["first orcs"]["exit_spell_uses"]).all()
    assert (carried["second orcs"]["damage_dealt"] != f["second orcs"]["damage_dealt"]).any()


def test_the_kernels_uses_left_are_the_stat_block_less_the_casts_its_trace_shows(tmp_path):
    day = sim.day.load_day(_day(tmp_path, days=40))
    fight = day.fights[0]
    setup = _setup(fight.scenario)
    assert setup.spell_names[:2] == ["sleepfall", "fire bolt"]
    out = fight.scenario.ruleset.play(setup, fight.seed, 0, 40, fight.max_rounds)
    left = out.per_spell["spell_uses_left"]
    assert left.shape == (40, 2) and (left[:, 0] <= 1).all() and (left[:, 1] <= 2).all()
    for k in range(0, 40, 4):
        _, lines = fight.scenario.ruleset.trace(setup, fight.seed, k, fight.max_rounds)
        text = "\n".join(lines)
        for s, name, uses in ((0, "sleepfall", 1), (1, "fire bolt", 2)):
            # A disrupted spell says so and is not cast: "nothing is used up".
            assert left[k, s] == uses - len(re.findall(rf"Sorcerer casts {name} at", text)), (k, name, text)


@pytest.mark.parametrize("given", [0, 1])
def test_a_caster_started_with_no_casts_left_casts_nothing(tmp_path, given):
    day = sim.day.load_day(_day(tmp_path, days=30))
    fight = day.fights[0]
    setup = _setup(fight.scenario)
    from sim.rulesets.gods_and_monsters.play import initial_state
    start = initial_state(setup, 30)
    start["surprised"][:] = -1
    start["spell_uses"][:, :2] = [given, 0]
    out = fight.scenario.ruleset.play(setup, fight.seed, 0, 30, fight.max_rounds, start)
    left = out.per_spell["spell_uses_left"]
    assert (left[:, 1] == 0).all() and (left[:, 0] <= given).all()
    _, lines = fight.scenario.ruleset.trace(setup, fight.seed, 3, fight.max_rounds,
                                            start={k: v[:1] for k, v in start.items()})
    assert "casts fire bolt" not in "\n".join(lines)
    assert np.isin(left[:, 0], [0, given]).all()
