"""Reports say what was played (stat blocks, weapons, policies, --set overrides) and write
numbers one way: percentages to one decimal, axes that tell 2.5% from 2%."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from sim.report import load_tables, report_run
from sim.report.designs import design_section, scenario_of
from sim.report.figures import fight_length_figure
from sim.report.html import cell_text
from sim.report.tables import RunTables

YETI = "scenarios/gods_and_monsters/yeti.yaml"


@pytest.fixture(scope="module")
def yeti():
    return sim.run(YETI, n=600, seed=5)


def test_run_report_shows_stat_blocks_weapons_and_policies(yeti, tmp_path):
    html = report_run(yeti, tmp_path).read_text()
    part = html[html.index('id="what-was-played"'):html.index('id="provenance"')]
    for text in ("Side yeti — policy: target random, flee_below 0.25, flee_after_bad_round yes",
                 "claw (damage d6)", "long sword (damage d8)", "survival 20", "Charlotte Kordé",
                 "Every rule option at the ruleset&#x27;s default."):
        assert text in part, text


def test_tables_read_back_show_overrides_and_the_recorded_scenario(yeti, tmp_path):
    yeti.write(tmp_path / "y.parquet")
    [played] = load_tables(tmp_path / "y.parquet")
    assert scenario_of(played) is not None  # the tables carry the scenario as played
    # Tables written before the provenance recorded the scenario text: no design section.
    older = {k: v for k, v in played.meta.items() if k not in ("scenario_text", "overrides")}
    plain = RunTables(played.skirmishes, played.combatants, older, played.label)
    assert scenario_of(plain) is None
    html = report_run(plain, tmp_path / "plain").read_text()
    assert 'id="what-was-played"' not in html and 'id="verdict"' in html
    meta = {**plain.meta, "overrides": {"sides.yeti.combatants[Yeti].defense": 8},
            "scenario_text": Path(YETI).read_text().replace("defense: 3", "defense: 8")}
    recorded = RunTables(plain.skirmishes, plain.combatants, meta, plain.label)
    html = report_run(recorded, tmp_path / "rec").read_text()
    assert "Played with --set sides.yeti.combatants[Yeti].defense=8" in html
    part = html[html.index('id="what-was-played"'):html.index('id="provenance"')]
    assert "defense 8" in part and "after the --set overrides" in part
    prov = html[html.index('id="provenance"'):]
    assert "<th>overrides</th>" in prov and "<summary>show the YAML</summary>" in prov


@pytest.mark.parametrize("path", ["scenarios/lens/novice_party_vs_brute.yaml", "scenarios/lifeforce/duel.yaml"])
def test_design_section_for_other_rulesets(path):
    scen = sim.load_scenario(path)
    sec = design_section(scen)
    tables = dict(sec.tables)
    assert len(tables) >= len(scen.side_names)
    everything = " ".join(str(v) for _, t in sec.tables for v in t.to_numpy().ravel())
    first_weapon = scen.data["sides"][scen.side_names[0]]["combatants"][0]["weapons"][0]["name"]
    assert first_weapon in everything


def test_fight_length_ticks_at_halves_keep_their_decimal():
    # Bars at 2.5% and 7.5% with a long flat tail: the axis tops out near 9%.
    short_tail = pd.DataFrame({"a": [0.025, 0.075, 0.9]}, index=[1, 2, 3])
    long_tail = pd.DataFrame({"a": [0.025, 0.075] + [0.9 / 39] * 39}, index=range(1, 42))
    # Every bar near 2.5%: ticks every half point, which whole-number labels wrote 0%, 2%, 2%, 4%.
    flat = pd.DataFrame({"a": [0.02] + [0.98 / 39] * 39}, index=range(1, 41))
    for frame in (short_tail, long_tail, flat):
        fig = fight_length_figure(frame, ["a"])
        fig.canvas.draw()
        ticks = fig.axes[0].get_yticks()
        labels = [t.get_text().replace("−", "-") for t in fig.axes[0].get_yticklabels()]
        for value, label in zip(ticks, labels):
            assert float(label.rstrip("%")) == pytest.approx(value), (value, label)


def test_table_cells_write_percentages_to_one_decimal():
    assert cell_text(12.345, "down %") == "12.3" and cell_text(0.5, "hit %") == "0.5"
    assert cell_text(2.0, "attacks / fight") == "2" and cell_text(3.14159, "damage") == "3.14"
    assert cell_text(20000, "skirmishes") == "20,000" and cell_text(np.nan, "x %") == "-"
