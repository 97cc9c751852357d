"""Stat weights and policy tournaments."""
import pytest

from sim.analysis import PROVENANCE_COLUMNS, best_responses, matrix, sensitivity, tournament, verdicts
from sim.analysis.sensitivity import dice_step
from sim.analysis.tournament import parse_policy_list
from sim.dice import parse_dice
from sim.errors import ScenarioError
from tests.analysis_helpers import duel, exact_hero_win


def test_dice_steps_follow_the_ladder():
    assert str(dice_step(parse_dice("d6"), 1)) == "d8"
    assert str(dice_step(parse_dice("2d4+1"), -1)) == "2d2+1"
    assert dice_step(parse_dice("d20"), 1) is None
    assert str(dice_step(parse_dice(3), 1)) == "4"
    assert str(dice_step(parse_dice("d7"), 1)) == "d8"


def test_sensitivity_steps_every_numeric_stat_and_matches_exact_effects():
    df = sensitivity(duel(), ["Hero"], n=6000, seed=3)
    stats = set(df["stat"])
    assert {"defense", "survival", "fortitude", "combat", "attack", "level", "weapons[0] (club).damage",
            "weapons[0] (club).attack"} <= stats
    # Fortitude -20 is the field's minimum: no step down is offered.
    assert set(df.loc[df["stat"] == "fortitude", "step"]) == {"+1"}
    # Ranked by the absolute change in the hero's own win rate.
    assert list(df["rank"]) == list(range(1, len(df) + 1))
    assert (df["own_delta"].abs().diff().dropna() <= 1e-12).all()
    for col in PROVENANCE_COLUMNS:
        assert df[col].notna().all()

    def row(stat, step):
        return df[(df["stat"] == stat) & (df["step"] == step)].iloc[0]

    base = exact_hero_win()
    for stat, step, exact in [("defense", "+1", exact_hero_win(hero_defense=1)),
                              ("defense", "-1", exact_hero_win(hero_defense=-1)),
                              # damage 3 -> 2 needs 5 hits on 9 survival instead of 3
                              ("weapons[0] (club).damage", "-1", exact_hero_win(hero_damage=2))]:
        r = row(stat, step)
        half = (r["hero.delta_hi"] - r["hero.delta_lo"]) / 2
        assert abs(r["hero.delta"] - (exact - base)) < 2.1 * half  # ~4 sigma
        assert r["significant"]
    # Damage 3 -> 4 still needs three hits against 9 survival: exactly no change on paired fights.
    up = row("weapons[0] (club).damage", "+1")
    assert (up["old"], up["new"]) == ("3", "4")
    assert up["hero.delta"] == 0 and up["hero.delta_lo"] == 0 and not up["significant"]
    # Stats this duel never reads (level; perception of an aware fighter) change nothing at all.
    assert row("level", "+1")["hero.delta"] == 0
    assert row("perception", "-1")["hero.delta"] == 0


def test_sensitivity_unknown_combatant():
    with pytest.raises(ScenarioError, match="Did you mean 'Hero'"):
        sensitivity(duel(), ["Hera"], n=100)


def test_parse_policy_lists():
    assert parse_policy_list("random, weakest") == ["random", "weakest"]
    assert parse_policy_list("[random, {target: focus}]") == ["random", {"target": "focus"}]
    assert parse_policy_list("{target: focus, flee_below: 0.5}") == [{"target": "focus", "flee_below": 0.5}]
    assert parse_policy_list("{brave: {flee_below: 0}, timid: {flee_below: 0.9}}") == [
        ("brave", {"flee_below": 0}), ("timid", {"flee_below": 0.9})]


def test_tournament_matrix_shape_and_response_to_policies():
    pol = {"hero": ["random", "weakest"],
           "monster": ["scenario", ("timid", {"flee_below": 0.9}), {"target": "strongest"}]}
    df = tournament(duel(), pol, n=3000, seed=4)
    assert len(df) == 6
    assert list(df.columns[:2]) == ["policy.hero", "policy.monster"]
    for col in PROVENANCE_COLUMNS:
        assert df[col].notna().all()
    assert matrix(df, "hero").shape == (2, 3)
    assert matrix(df, "monster").shape == (3, 2)
    m = matrix(df, "hero")
    # With one enemy, every targeting mode picks it: identical fights on common random numbers.
    assert (m.loc["random"] == m.loc["weakest"]).all()
    # The scenario pairing is the plain duel, whose win probability is exact.
    plain = m.loc["random", "scenario"]
    assert abs(plain - exact_hero_win()) < 4 * (0.25 / 3000) ** 0.5
    # A monster that flees at the first scratch loses far more often.
    assert m.loc["random", "timid"] > plain + 0.2
    br = best_responses(df)
    assert len(br) == 2 + 3  # one row per opposing policy, for each side
    mon = br[br["side"] == "monster"]
    assert set(mon["best_policy"]) <= {"scenario", '{"target":"strongest"}'}
    says = verdicts(df)
    assert len(says) == 2 and says[1].startswith("The monster's win rate is ")


def test_tournament_rejects_unknown_presets_and_sides():
    with pytest.raises(ScenarioError, match="Did you mean 'weakest'"):
        tournament(duel(), {"hero": ["weakst"]}, n=100)
    with pytest.raises(ScenarioError, match="no side"):
        tournament(duel(), {"heroes": ["random"]}, n=100)


def test_verdict_says_when_the_others_tactics_change_nothing():
    import pandas as pd
    from sim.analysis.tournament import verdicts
    same = pd.DataFrame({"policy.party": ["random", "weakest"], "policy.yeti": ["scenario", "scenario"],
                         "party.win_rate": [1.0, 1.0], "yeti.win_rate": [0.0, 0.0],
                         "party.win_lo": [0.99, 0.99], "party.win_hi": [1.0, 1.0],
                         "yeti.win_lo": [0.0, 0.0], "yeti.win_hi": [0.01, 0.01]})
    yeti = [v for v in verdicts(same) if v.startswith("The yeti's")][0]
    assert yeti.startswith("The yeti's win rate is 0.0% against every one of the party tactics")
    assert "ranges" not in yeti
    apart = same.assign(**{"yeti.win_rate": [0.1, 0.3]})
    yeti = [v for v in verdicts(apart) if v.startswith("The yeti's")][0]
    assert "ranges from 10.0% (against party random) to 30.0% (against party weakest)" in yeti
