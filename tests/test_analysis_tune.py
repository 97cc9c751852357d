"""Solving for a stat, against win probabilities computed exactly."""
import pytest

from sim.analysis import tune
from sim.analysis.tune import parse_target
from sim.errors import ScenarioError
from tests.analysis_helpers import duel, exact_hero_win

HERO_DEF = "sides.hero.combatants[Hero].defense"
MONSTER_DEF = "sides.monster.combatants[Monster].defense"


def test_tune_finds_the_exact_answer_on_an_increasing_response():
    exact = {v: exact_hero_win(hero_defense=v) for v in range(-10, 11)}
    target = exact[3]  # 0.639: neighbours 0.564 and 0.713 are far off
    df = tune(duel(), HERO_DEF, "hero", target, -10, 10, n=4000, seed=1)
    meta = df.attrs["analysis"]
    assert meta["status"] == "found" and meta["value"] == 3
    ans = df[df["role"] == "answer"].iloc[0]
    assert ans["value"] == 3 and ans["hero.win_lo"] <= exact[3] <= ans["hero.win_hi"]
    # Neighbours either side are reported, on the same skirmishes.
    assert set(df.loc[df["role"].isin(["below", "above"]), "value"]) == {2, 4}
    below = df[df["role"] == "below"].iloc[0]
    assert below["diff_vs_answer_hi"] < 0
    assert below["diff_vs_answer"] == pytest.approx(exact[2] - exact[3], abs=0.02)
    assert "= 3 gives hero" in meta["message"]
    # Bisection, not a scan: far fewer values than the range holds.
    assert len(df) <= 9


def test_tune_finds_the_answer_on_a_decreasing_response():
    exact = {v: exact_hero_win(monster_defense=v) for v in range(-5, 11)}
    df = tune(duel(), MONSTER_DEF, "hero", exact[6], -5, 10, n=4000, seed=2)
    assert df.attrs["analysis"]["value"] == 6
    assert df.attrs["analysis"]["status"] == "found"


def test_tune_between_two_values_picks_the_closer():
    # The target lies between defense 3 (0.639) and 4 (0.713), much nearer 3.
    df = tune(duel(), HERO_DEF, "hero", 0.655, -10, 10, n=4000, seed=3)
    assert df.attrs["analysis"]["value"] == 3


def test_tune_reports_an_unreachable_target():
    df = tune(duel(), HERO_DEF, "hero", 0.99, -5, 5, n=2000, seed=1)
    meta = df.attrs["analysis"]
    assert meta["status"] == "unreachable"
    assert (df["status"] == "unreachable").all()
    assert "unreachable" in meta["message"] and "-5..5" in meta["message"]
    # The best the range can do is its top end, about 0.785 exactly.
    assert meta["value"] == 5
    assert meta["ci95"][0] <= exact_hero_win(hero_defense=5) <= meta["ci95"][1]


def test_tune_target_at_the_edge_of_the_range_is_reachable():
    # At defense -10 and -9 the monster always hits and the hero can never win: exactly 0.
    df = tune(duel(), HERO_DEF, "hero", 0.0, -10, -8, n=2000, seed=1)
    assert df.attrs["analysis"]["status"] == "found"
    assert df.attrs["analysis"]["value"] in (-10, -9)
    assert df.attrs["analysis"]["win_rate"] == 0.0


def test_tune_scans_when_both_ends_miss_the_target():
    # Both ends above the target: the range is scanned (every value, as it is short)
    # before the target is declared unreachable.
    df = tune(duel(), HERO_DEF, "hero", 0.05, 0, 6, n=2000, seed=1)
    assert df.attrs["analysis"]["status"] == "unreachable"
    assert sorted(df["value"]) == list(range(0, 7))
    assert df.attrs["analysis"]["value"] == 0


def test_tune_input_errors():
    with pytest.raises(ScenarioError, match="win_rate"):
        parse_target("hero.wins=0.5")
    with pytest.raises(ScenarioError, match="between 0 and 1"):
        parse_target("hero.win_rate=60")
    with pytest.raises(ScenarioError, match="whole-number"):
        tune(duel(), "sides.hero.combatants[Hero].awareness", "hero", 0.5, 0, 3, n=100)
    with pytest.raises(ScenarioError, match="no side 'heros'"):
        tune(duel(), HERO_DEF, "heros", 0.5, 0, 3, n=100)
