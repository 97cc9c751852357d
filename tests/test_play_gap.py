"""benchmarks/play_gap.py: every policy is stripped and nothing else, and a side's row is
the default as played directly beside the best response found, with the paired gain."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

import sim
from benchmarks.doc_section import replace_section
from benchmarks.play_gap import (MARK, TITLE, default_play, from_json, play_gap, section, shipped, strip_policies,
                                 to_json)
from sim.analysis import PROVENANCE_COLUMNS, win_matrix
from sim.analysis.optimize import Budget

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "scenarios/lens/greatsword_vs_dagger.yaml"
TINY = Budget(far=2, first=50, rungs=2, confirm=300, responses=1)


def _keys(node, name: str) -> int:
    """How many dicts under `node` hold the key `name`."""
    if isinstance(node, dict):
        return (name in node) + sum(_keys(v, name) for v in node.values())
    if isinstance(node, list):
        return sum(_keys(v, name) for v in node)
    return 0


def test_strip_removes_every_policy_and_keeps_the_rest():
    data = {"name": "x", "ruleset": "lifeforce", "rules": {"cover": True}, "run": {"seed": 3},
            "policies": {"raider": {"family": "charger"}},
            "sides": {"a": {"policy": {"family": "skirmisher", "rules": [{"if": "health < 0.5", "do": "step_back"}]},
                            "combatants": [{"name": "A", "hp": 5, "policy": {"target": "weakest"}}, {"name": "B"}]},
                      "b": {"combatants": [{"name": "C", "weapons": ["axe"],
                                            "policy": {"rules": [{"if": "true", "do": "attack"}]}}]}}}
    before = copy.deepcopy(data)
    out = strip_policies(data)
    assert data == before  # the caller's dict is not touched
    assert out == {"name": "x", "ruleset": "lifeforce", "rules": {"cover": True}, "run": {"seed": 3},
                   "sides": {"a": {"combatants": [{"name": "A", "hp": 5}, {"name": "B"}]},
                             "b": {"combatants": [{"name": "C", "weapons": ["axe"]}]}}}


@pytest.mark.parametrize("path", shipped(), ids=lambda p: p.stem)
def test_shipped_default_play_has_no_policy(path):
    written = sim.load_scenario(path)
    scen = default_play(path)
    assert _keys(scen.data, "policy") == 0 and "policies" not in scen.data
    assert scen.source == str(path) and scen.side_names == written.side_names
    assert [c.name for c in scen.combatants] == [c.name for c in written.combatants]
    assert scen.rules == written.rules and scen.run == written.run


def test_a_row_is_the_default_played_directly_and_its_gain(tmp_path):
    df = play_gap([DUEL], n=600, budget=TINY, seed=11)
    assert list(df["side"]) == ["greatsword", "dagger"]
    assert set(PROVENANCE_COLUMNS) <= set(df.columns)
    stripped = strip_policies(sim.load_scenario(DUEL).data)
    direct = win_matrix(sim.run(stripped, n=600, seed=11, crn=True)).mean(axis=0)
    for i, r in enumerate(df.to_dict("records")):
        # "default" is exactly `skirmish run` of the file with its policies deleted.
        assert r["default.win_rate"] == pytest.approx(direct[i], abs=1e-12)
        assert r["default.win_lo"] <= r["default.win_rate"] <= r["default.win_hi"]
        assert r["best.win_lo"] <= r["best.win_rate"] <= r["best.win_hi"]
        # Paired on the same skirmishes: the gain is the difference of the two rates.
        assert r["gain"] == pytest.approx(r["best.win_rate"] - r["default.win_rate"], abs=1e-12)
        assert r["gain_lo"] < r["gain"] < r["gain_hi"] or r["gain_lo"] == r["gain"] == r["gain_hi"] == 0
        assert r["responses"] == 1 and r["cpu_seconds"] > 0 and r["skirmishes"] == 600
    # --write keeps the hand-written text above MARK, replaces the old table, leaves the next section.
    page = tmp_path / "analysis.md"
    page.write_text(f"# A\n\n{TITLE}\n\nWritten by hand.\n\n{MARK}\n\n| old table |\n\n## Next\n\nkept\n")
    replace_section(section(df, page), page)
    text = page.read_text()
    assert text.startswith(f"# A\n\n{TITLE}\n\nWritten by hand.\n\n{MARK}\n\nMeasured by")
    assert "| old table |" not in text and text.endswith("\n\n## Next\n\nkept\n")
    assert text.count("\n| Lens | greatsword_vs_dagger |") == 2
    # A saved run renders the same section.
    saved = tmp_path / "gap.json"
    saved.write_text(to_json(df))
    assert section(from_json(saved), page) == section(df, page)
