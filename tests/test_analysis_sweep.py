"""Sweeps, common random numbers and adaptive length."""
import json
import math

import numpy as np
import pytest

import sim
from sim.analysis import PROVENANCE_COLUMNS, run_adaptive, sweep, widest_half_width, win_matrix
from sim.analysis.common import paired_diff
from sim.errors import ScenarioError
from sim.overrides import parse_values
from tests.analysis_helpers import duel, exact_hero_win

HERO_DEF = "sides.hero.combatants[Hero].defense"
DAMAGE = "sides.hero.combatants[Hero].weapons[0].damage"


def test_parse_values_ranges_lists_and_steps():
    assert parse_values("0..6") == [0, 1, 2, 3, 4, 5, 6]
    assert parse_values("-2..2") == [-2, -1, 0, 1, 2]
    assert parse_values("0..20:5") == [0, 5, 10, 15, 20]
    assert parse_values("d6,d8,d10") == ["d6", "d8", "d10"]
    assert parse_values("[1, d4]") == [1, "d4"]
    assert parse_values("{target: focus}") == [{"target": "focus"}]
    with pytest.raises(ScenarioError, match="backwards"):
        parse_values("6..0")


def test_sweep_rows_match_separate_runs_with_the_same_overrides():
    df = sweep(duel(), {HERO_DEF: "0..2", DAMAGE: "3,d4"}, n=3000, seed=5)
    assert len(df) == 6
    assert list(df[HERO_DEF]) == [0, 0, 1, 1, 2, 2]
    assert list(df[DAMAGE]) == [3, "d4"] * 3
    for _, row in df.iterrows():
        r = sim.run(duel(), n=3000, seed=5, crn=True, overrides={HERO_DEF: row[HERO_DEF], DAMAGE: row[DAMAGE]})
        s = r.summary()
        for side in ("hero", "monster"):
            assert row[f"{side}.win_rate"] == s["sides"][side]["win_rate"]
            assert [row[f"{side}.win_lo"], row[f"{side}.win_hi"]] == pytest.approx(s["sides"][side]["ci95"])
        assert row["draw_rate"] == s["draw_rate"]
        assert row["rounds_mean"] == pytest.approx(r.skirmishes["rounds"].mean())
        assert row["variant_hash"] == r.scenario.hash
    for col in PROVENANCE_COLUMNS:
        assert df[col].notna().all()
    assert json.loads(df["rule_options"].iloc[0])["resolution"] == "simultaneous"
    assert (df["seed"] == 5).all()


def test_sweep_differences_are_paired_and_agree_with_the_exact_effect():
    df = sweep(duel(), {HERO_DEF: "0..3"}, n=4000, seed=3)
    for i in range(1, 4):
        # Same skirmishes, so the mean of the paired differences is the difference of the rates.
        assert df.loc[i, "hero.diff_prev"] == pytest.approx(df.loc[i, "hero.win_rate"] - df.loc[i - 1, "hero.win_rate"])
        exact = exact_hero_win(hero_defense=i) - exact_hero_win(hero_defense=i - 1)
        half = (df.loc[i, "hero.diff_prev_hi"] - df.loc[i, "hero.diff_prev_lo"]) / 2
        assert abs(df.loc[i, "hero.diff_prev"] - exact) < 2.1 * half  # ~4 sigma
        assert df.loc[i, "hero.diff_prev_lo"] > 0  # paired intervals resolve a one-point change
    assert math.isnan(df.loc[0, "hero.diff_prev"])
    assert df.loc[3, "hero.diff_base"] == pytest.approx(df.loc[3, "hero.win_rate"] - df.loc[0, "hero.win_rate"])


def test_common_random_numbers_reduce_the_variance_of_differences():
    n = 4000
    a = win_matrix(sim.run(duel(hero_defense=2), n=n, seed=11, crn=True))[:, 0]
    b = win_matrix(sim.run(duel(hero_defense=3), n=n, seed=11, crn=True))[:, 0]
    b_indep = win_matrix(sim.run(duel(hero_defense=3), n=n, seed=12, crn=True))[:, 0]
    paired, independent = np.var(b - a, ddof=1), np.var(b_indep - a, ddof=1)
    # Independent: about p1(1-p1) + p2(1-p2) ~ 0.48. Paired: the coupling only disagrees
    # where the change mattered, about |p2 - p1| ~ 0.075. Each sample variance has a
    # standard error under 0.01 at n = 4000, so a factor of 3 leaves > 8 sigma of room.
    assert independent == pytest.approx(0.48, abs=0.04)
    assert paired < independent / 3
    # Both estimate the same difference, the paired one with a far tighter interval.
    m, lo, hi = paired_diff(a, b)
    exact = exact_hero_win(hero_defense=3) - exact_hero_win(hero_defense=2)
    assert lo < exact < hi
    assert (hi - lo) < 0.5 * 2 * 1.96 * math.sqrt(independent / n)


def test_sweep_block_in_the_scenario():
    data = duel()
    data["sweep"] = {"vary": {HERO_DEF: [0, 4]}}
    df = sweep(data, n=2000, seed=1)
    assert list(df[HERO_DEF]) == [0, 4]
    assert df.loc[1, "hero.win_rate"] > df.loc[0, "hero.win_rate"]
    data["sweep"] = {"vray": {HERO_DEF: [0, 4]}}
    with pytest.raises(ScenarioError, match="vary"):
        sweep(data, n=100)


def test_sweep_reports_a_bad_path_before_playing():
    with pytest.raises(ScenarioError, match="Hero"):
        sweep(duel(), {"sides.hero.combatants[Hera].defense": "0..1"}, n=100)


def test_adaptive_run_stops_at_the_first_step_that_is_precise_enough():
    r = run_adaptive(duel(), precision=0.02, step=500, seed=2)
    n = len(r.skirmishes)
    assert r.meta["adaptive"]["reached"] and n % 500 == 0 and n == r.meta["skirmishes"]
    assert widest_half_width(r) <= 0.02
    # p ~ 0.42: a half-width of 0.02 needs ~ 1.96^2 * 0.24 / 0.02^2 ~ 2350 skirmishes.
    assert 1500 <= n <= 5000
    # One step fewer would not have been enough.
    shorter = r.skirmishes.iloc[: n - 500]
    from sim.analysis.common import half_width
    counts = shorter["winner"].value_counts()
    assert max(half_width(int(counts.get(s, 0)), len(shorter)) for s in ("hero", "monster")) > 0.02
    # The first step is exactly a plain run of that size; later steps are fresh chunks.
    first = sim.run(duel(), n=500, seed=2)
    assert (r.skirmishes["winner"].iloc[:500].to_numpy() == first.skirmishes["winner"].to_numpy()).all()
    assert r.skirmishes["skirmish"].iloc[500] == sim.runner.CHUNK_SIZE
    assert len(r.combatants) == 2 * n


def test_adaptive_run_reports_when_the_maximum_stops_it():
    r = run_adaptive(duel(), precision=0.001, max_skirmishes=1200, step=500, seed=2)
    assert len(r.skirmishes) == 1200
    assert r.meta["adaptive"]["reached"] is False


def test_sweep_with_precision_keeps_variants_paired():
    df = sweep(duel(), {HERO_DEF: [0, 1]}, precision=0.03, seed=4)
    assert df["skirmishes"].nunique() == 1
    assert all((df[f"{s}.win_hi"] - df[f"{s}.win_lo"]).max() / 2 <= 0.03 for s in ("hero", "monster"))
