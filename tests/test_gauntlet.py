"""The gauntlet (sim.day.gauntlet, `skirmish gauntlet`): S(k) of one fight again and again."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.day.gauntlet import gauntlet, gauntlet_day, n50_of, parse_rest, survival_curve
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
OGRE = ROOT / "scenarios/gods_and_monsters/ogre_vs_two_warriors.yaml"
DUEL = ROOT / "scenarios/lens/greatsword_vs_dagger.yaml"
LF_DUEL = ROOT / "scenarios/lifeforce/duel.yaml"


def _wins(fight, days: int) -> np.ndarray:
    out = sim.run(fight.scenario, n=days, seed=fight.seed, max_rounds=fight.max_rounds)
    return (out.skirmishes["winner"] == fight.scenario.side_names[fight.party_index]).to_numpy()


# One-combatant sides: a side that wins lives, so a full rest leaves it fresh (a party
# that lost a member in a won fight enters the next one short of it).
@pytest.mark.parametrize("scenario,party", [(OGRE, "ogre"), (DUEL, "greatsword"), (LF_DUEL, "red")])
def test_with_a_full_rest_between_every_fight_is_fought_fresh_and_s_k_is_the_product(scenario, party):
    days = 1500
    g = gauntlet(scenario, party, rest="full", until=4, days=days, seed=3)
    streak = np.ones(days, dtype=bool)
    for k, fight in enumerate(g.day_result.day.fights, start=1):
        streak &= _wins(fight, days)  # each fight alone, as `skirmish run` plays it with the fight's seed
        assert g.curve.loc[k, "won"] == streak.sum()


def test_with_a_full_rest_s_k_is_p_to_the_k_and_without_rests_it_falls_faster():
    days = 6000
    full = gauntlet(DUEL, "greatsword", rest="full", until=3, days=days, seed=5).curve
    p = _wins(gauntlet_day(DUEL, "greatsword", until=1, days=40_000, seed=99).fights[0], 40_000).mean()
    for k in (1, 2, 3):
        # 4 sigma of S(k) over the days, plus 4 of p^k as estimated from 40,000 others.
        se = np.sqrt(p ** k * (1 - p ** k) / days) + k * p ** (k - 1) * np.sqrt(p * (1 - p) / 40_000)
        assert abs(full.loc[k, "rate"] - p ** k) < 4 * se
    rested = gauntlet(OGRE, "warriors", rest="full", until=2, days=days, seed=5).curve
    tired = gauntlet(OGRE, "warriors", until=2, days=days, seed=5).curve
    assert tired.loc[1, "won"] == rested.loc[1, "won"]  # the first fight is the same fight
    assert tired.loc[2, "ci95_high"] < rested.loc[2, "ci95_low"]


def test_n50_is_the_largest_k_at_or_above_half_and_undecided_where_the_interval_holds_half():
    curve = survival_curve(np.array([900, 600, 500, 380, 100]), 1000)
    n50, at_least, undecided = n50_of(curve)
    assert (n50, at_least) == (3, False)
    assert undecided == [3]  # 500 of 1000: [46.9%, 53.1%]
    assert n50_of(survival_curve(np.array([990, 980]), 1000))[:2] == (2, True)
    assert n50_of(survival_curve(np.array([100]), 1000))[:2] == (0, False)


def test_rests_are_placed_after_every_nth_fight_and_never_after_the_last():
    day = gauntlet_day(OGRE, "warriors", rest="night every 2", until=5)
    names = [s.name for s in day.steps]
    assert names == ["fight 1", "fight 2", "rest after fight 2", "fight 3", "fight 4", "rest after fight 4",
                     "fight 5"]
    assert parse_rest("short") == ("short", 1) and parse_rest("none") is None


@pytest.mark.parametrize("text", ["nap", "short every 0", "short every", "full every two"])
def test_a_rest_that_is_not_one_says_what_to_give(text):
    with pytest.raises(ScenarioError, match="KIND every N"):
        parse_rest(text)


def test_the_command_prints_the_curve_and_json_and_refuses_bad_input(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(main, ["gauntlet", str(DUEL), "--party", "greatsword", "--until", "3", "-n", "500", "-q",
                              "--json", "--report", str(tmp_path / "page")])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert [r["k"] for r in data["survival_curve"]] == [0, 1, 2, 3]
    assert data["survival_curve"][0]["rate"] == 1.0 and data["n50"] == 0
    assert data["provenance"]["scenario_file"] == str(DUEL) and data["provenance"]["seed"] == 11
    page = (tmp_path / "page/index.html").read_text()
    assert "gauntlet-curve" in page and "N50" in page
    bad_side = runner.invoke(main, ["gauntlet", str(DUEL), "--party", "knights", "-n", "10"])
    assert bad_side.exit_code == 2 and "is not a side" in bad_side.output
    bad_rest = runner.invoke(main, ["gauntlet", str(DUEL), "--party", "greatsword", "--rest", "nap", "-n", "10"])
    assert bad_rest.exit_code == 2 and "KIND every N" in bad_rest.output
    assert not (tmp_path / "other").exists()


def test_the_text_says_n50_and_marks_the_undecided():
    g = gauntlet(DUEL, "greatsword", until=2, days=300, seed=1)  # 139 of 300 win the first: [40.8%, 52.0%]
    assert g.undecided == [1] and (g.n50, g.n50_at_least) == (0, False)
    text = g.summary_text()
    assert "N50 = 0" in text and "undecided at this many days: k = 1" in text
    assert [line.split()[0] for line in text.splitlines()[2:4]] == ["1", "2"]
    assert text.splitlines()[2].endswith("undecided")


def test_fights_no_day_reaches_are_not_played_and_change_nothing():
    # The ogre loses nine in ten: well before fight 12 no day of the 3,000 is still going,
    # so the 188 fights after are skipped, each kept as "not reached".
    long = gauntlet(OGRE, "ogre", until=200, days=3000, seed=2)
    short = gauntlet(OGRE, "ogre", until=12, days=3000, seed=2)
    assert long.curve["won"].iloc[:13].tolist() == short.curve["won"].tolist()
    assert (long.curve["won"].iloc[13:] == 0).all()
    for name in ("days", "fights", "members", "fates"):
        a, b = long.day_result.table(name), short.day_result.table(name)
        if "fight" in a:
            a = a[a["fight"].astype(str).isin([f"fight {k}" for k in range(1, 13)])].reset_index(drop=True)
            a["fight"] = a["fight"].astype(str)
            b = b.assign(fight=b["fight"].astype(str))
        if name == "days":
            a, b = a.assign(ended_at=a["ended_at"].astype(str)), b.assign(ended_at=b["ended_at"].astype(str))
        if name == "fates":
            a, b = a.assign(died_in=a["died_in"].astype(str)), b.assign(died_in=b["died_in"].astype(str))
        pd.testing.assert_frame_equal(a, b, check_dtype=True)
