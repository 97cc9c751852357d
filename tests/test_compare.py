"""Comparing two designs: common random numbers, paired differences, the comparison page."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from sim.analysis.compare import _difference, _per_skirmish, compare_results, play_pair
from sim.cli import main

YETI = "scenarios/gods_and_monsters/yeti.yaml"
DEF8 = {"sides.yeti.combatants[Yeti].defense": 8}


@pytest.fixture(scope="module")
def pair():
    return play_pair(YETI, YETI, n=3000, seed=3, overrides_b=DEF8)


def test_a_design_against_itself_differs_by_exactly_nothing():
    df = sim.compare(YETI, YETI, n=1500, seed=2)
    assert (df["diff"] == 0).all() and (df["diff_lo"] == 0).all() and (df["diff_hi"] == 0).all()
    assert (df["a"] == df["b"]).all() and df["paired"].all()


def test_figures_are_those_of_the_same_run_played_alone(pair):
    ra, rb = pair
    df = compare_results(ra, rb).set_index("key")
    alone = sim.run(YETI, n=3000, seed=3, overrides=DEF8, crn=True).summary()
    assert df.loc["party.win_rate", "b"] == alone["sides"]["party"]["win_rate"]
    yeti = next(c for c in alone["combatants"] if c["name"] == "Yeti")
    # down = dead or unconscious, the same figure the run summary prints; fled apart
    assert df.loc["Yeti.down_rate", "b"] == pytest.approx(yeti["down_rate"])
    assert df.loc["Yeti.fled_rate", "b"] == pytest.approx(yeti["fled_rate"])
    assert df.loc["rounds_mean", "b"] == pytest.approx(rb.skirmishes["rounds"].mean())
    assert df.loc["party.win_rate", "diff"] == pytest.approx(
        df.loc["party.win_rate", "b"] - df.loc["party.win_rate", "a"])


def test_common_random_numbers_narrow_the_interval(pair):
    ra, rb = pair
    df = compare_results(ra, rb).set_index("key")
    # The same change played on independent dice (another seed for B): same size, so paired by
    # index, but the pairs share no luck; its interval is what the dice alone allow.
    rb_indep = sim.run(YETI, n=3000, seed=99, overrides=DEF8, crn=True)
    indep = compare_results(ra, rb_indep).set_index("key")
    key = "Yeti.damage_dealt"
    crn_width = df.loc[key, "diff_hi"] - df.loc[key, "diff_lo"]
    assert crn_width < 0.8 * (indep.loc[key, "diff_hi"] - indep.loc[key, "diff_lo"])
    # Both intervals cover the effect: they estimate the same difference.
    se_indep = (indep.loc[key, "diff_hi"] - indep.loc[key, "diff_lo"]) / (2 * 1.96)
    assert abs(df.loc[key, "diff"] - indep.loc[key, "diff"]) < 4 * se_indep


def test_runs_of_different_sizes_get_an_unpaired_interval(pair):
    ra, _ = pair
    small = sim.run(YETI, n=1000, seed=5, overrides=DEF8)
    df = compare_results(ra, small).set_index("key")
    assert not df["paired"].any()
    xa, xb = _per_skirmish(ra), _per_skirmish(small)
    va, vb = xa["values"]["rounds_mean"], xb["values"]["rounds_mean"]
    se = np.sqrt(va.var(ddof=1) / len(va) + vb.var(ddof=1) / len(vb))
    assert df.loc["rounds_mean", "diff_hi"] - df.loc["rounds_mean", "diff"] == pytest.approx(1.959963984540054 * se)
    assert _difference(va, vb, False)[0] == pytest.approx(vb.mean() - va.mean())


def test_designs_with_different_combatants_compare_what_they_share():
    ra = sim.run("scenarios/gods_and_monsters/ogre_vs_two_warriors.yaml", n=800, seed=1)
    rb = sim.run("scenarios/gods_and_monsters/archers_vs_ogre.yaml", n=800, seed=1)
    df = compare_results(ra, rb)
    only_a = set(ra.combatants["combatant"].astype(str)) - set(rb.combatants["combatant"].astype(str))
    assert only_a, "the two scenarios should not field the same combatants"
    rows = df[df["key"] == f"{sorted(only_a)[0]}.down_rate"].iloc[0]
    assert np.isnan(rows["b"]) and np.isnan(rows["diff"]) and not np.isnan(rows["a"])


def test_cli_compare_json_and_report(tmp_path):
    res = CliRunner().invoke(main, ["compare", YETI, YETI, "-n", "1200", "--seed", "4", "--set-b",
                                    "sides.yeti.combatants[Yeti].defense=8", "--json",
                                    "--report", str(tmp_path / "cmp"), "--out", str(tmp_path / "cmp.parquet")])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["command"] == "compare" and payload["paired"] is True
    rows = {r["key"]: r for r in payload["rows"]}
    assert rows["yeti.win_rate"]["diff"] > 0  # a harder Yeti wins more
    html = (tmp_path / "cmp" / "index.html").read_text()
    for text in ("A is Yeti in the snowy mountains as written", "B is Yeti in the snowy mountains, changed",
                 "--set sides.yeti.combatants[Yeti].defense=8", "What changes from A to B", "What was played: A"):
        assert text in html, text
    for stem in ("compare-win-rates", "compare-rate-differences", "compare-fight-length", "compare-survival"):
        assert (tmp_path / "cmp" / f"{stem}.png").exists()
    assert len(pd.read_parquet(tmp_path / "cmp.parquet")) == len(payload["rows"])


def test_cli_compare_text_names_a_and_b():
    res = CliRunner().invoke(main, ["compare", YETI, "scenarios/gods_and_monsters/ogre_vs_two_warriors.yaml",
                                    "-n", "600", "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("A = Yeti in the snowy mountains\nB = ")
    assert "B - A" in res.output and "down = dead or unconscious" in res.output


def test_cli_compare_bad_file_is_one_paragraph_exit_2(tmp_path):
    res = CliRunner().invoke(main, ["compare", YETI, str(tmp_path / "missing.yaml"), "-n", "100"])
    assert res.exit_code == 2 and "Traceback" not in res.output and res.output.startswith("error:")


def test_cli_report_of_two_runs_is_a_comparison_page(tmp_path):
    runner = CliRunner()
    for name, extra in (("a", []), ("b", ["--set", "sides.yeti.combatants[Yeti].defense=8"])):
        res = runner.invoke(main, ["run", YETI, "-n", "900", "--seed", "1", "--out", str(tmp_path / f"{name}.parquet"),
                                   "--quiet", *extra])
        assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["report", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"), "-o",
                               str(tmp_path / "page")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "page" / "index.html").read_text()
    assert "<h1>Comparison:" in html and "(A) against" in html and "What changes from A to B" in html
    assert "paired fight by fight" in html  # same seed and size: paired by skirmish index
