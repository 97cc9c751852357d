"""`skirmish optimize DAY`: the party's and each fight's sides' strongest play over a day.
The as-written figures are `skirmish day`, the found play is the day with it written in,
a deliberately timid party or monster is improved on, bad input exits 2 in one paragraph,
and scenario optimize plays as before."""
from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

import sim.day
from sim.analysis.optimize import Budget, optimize
from sim.cli import main
from sim.day.optimize import day_sides, optimize_day
from tests.analysis_helpers import duel

ROAD = "days/gods_and_monsters/road_to_hightown.yaml"
SMALL = Budget(far=2, first=100, rungs=4, confirm=2000, responses=1)
# Flees once it has lost a tenth of its verve and survival: a play any search improves on.
TIMID = {"target": "random", "flee_below": 0.9}


def fighter(name: str, survival: int, defense: int) -> dict:
    return {"name": name, "survival": survival, "fortitude": -20, "defense": defense, "awareness": "aware",
            "weapons": [{"name": "club", "damage": 3}]}


def two_duels(party_policy=None, first_policy=None) -> dict:
    """A hero through two duels with a short rest between: a timid hero flees the first
    duel it is hurt in, and a fled fight is a lost day."""
    def monster(policy):
        return {"monster": {"policy": policy or {"target": "random"}, "combatants": [fighter("Monster", 6, 2)]}}
    return {"name": "two duels", "ruleset": "gods_and_monsters",
            "party": {"side": "hero", "combatants": [fighter("Hero", 15, 0)],
                      "policy": party_policy or {"target": "random"}},
            "steps": [{"fight": "first", "sides": monster(first_policy)}, {"rest": "breather", "kind": "short"},
                      {"fight": "second", "sides": monster(None)}],
            "run": {"days": 2000, "seed": 5}}


def beaten(result, fight: str) -> float:
    """The share of the days reaching `fight` on which the party lost it before its round limit."""
    f = result.fights
    reached = f[(f["fight"] == fight) & f["reached"]]
    limit = next(x.max_rounds for x in result.day.fights if x.name == fight)
    return float((reached["lost"] & (reached["rounds"] < limit)).mean())


def write(tmp_path, data: dict, name: str = "day.yaml") -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return str(p)


@pytest.fixture(scope="module")
def timid_party(tmp_path_factory):
    path = write(tmp_path_factory.mktemp("timid"), two_duels(party_policy=dict(TIMID)))
    return path, optimize_day(path, sides=["party"], days=1500, budget=SMALL)


def test_the_sides_of_a_day():
    assert day_sides(sim.day.load_day(ROAD)) == ["party", "goblin ambush.goblins", "orc patrol.orcs",
                                                 "the yeti.yeti"]


def test_as_written_is_skirmish_day_exactly():
    df = optimize_day(ROAD, sides=["the yeti.yeti"], days=1200, seed=4,
                      budget=Budget(far=0, first=50, rungs=1, confirm=200, responses=1))
    result = sim.day.run(ROAD, days=1200, seed=4)
    summary = result.summary()
    rows = df.set_index("side")
    assert rows.loc["party", "written.rate"] == summary["survival"]["rate"]
    assert (rows.loc["party", "written.lo"], rows.loc["party", "written.hi"]) == tuple(summary["survival"]["ci95"])
    for fight in summary["fights"]:  # a fight's side as written: the day's fights, less those run out of rounds
        key = next(s for s in rows.index if s.startswith(fight["name"] + "."))
        assert rows.loc[key, "written.rate"] == beaten(result, fight["name"])
    assert rows.loc["party", "day_hash"] == sim.day.load_day(ROAD, seed=4).hash
    assert not rows.loc["party", "searched"] and rows.loc["the yeti.yeti", "searched"]


def test_the_search_finds_the_party_a_braver_play(timid_party):
    _, df = timid_party
    party = df.set_index("side").loc["party"]
    found = yaml.safe_load(party["policy_found"])
    assert found["flee_below"] < TIMID["flee_below"]
    assert party["shift_lo"] > 0 and party["own_gain_lo"] > 0 and party["own_survival_lo"] > 0
    step = df.attrs["analysis"]["history"][0]
    assert step["side"] == "party" and step["changed"] and step["gain_lo"] > 0
    # One best response that changed a side: the budget ended while still improving.
    assert not df.attrs["analysis"]["converged"] and "limit of 1 best responses" in df.attrs["analysis"]["message"]


def test_the_same_answer_whatever_the_workers(timid_party):
    path, df = timid_party
    again = optimize_day(path, sides=["party"], days=1500, budget=SMALL, jobs=2)
    assert again.equals(df) and again.attrs["analysis"]["search_days"] == df.attrs["analysis"]["search_days"]


def test_the_strongest_found_is_the_day_with_the_found_policy_written_in(timid_party, tmp_path):
    path, df = timid_party
    party = df.set_index("side").loc["party"]
    data = two_duels(party_policy=yaml.safe_load(party["policy_found"]))
    result = sim.day.run(write(tmp_path, data, "found.yaml"), days=1500)
    played = result.summary()
    assert party["strongest.rate"] == played["survival"]["rate"]
    assert (party["strongest.lo"], party["strongest.hi"]) == tuple(played["survival"]["ci95"])
    # The monsters were not searched: their figures move only through the party's play.
    first = df.set_index("side").loc["first.monster"]
    assert first["changes"] == "{}" and first["strongest.rate"] == beaten(result, "first")


@pytest.mark.parametrize("objective", ["fight", "day"])
def test_a_timid_monster_is_improved_on_under_either_objective(tmp_path, objective):
    path = write(tmp_path, two_duels(first_policy=dict(TIMID)))
    df = optimize_day(path, sides=["first.monster"], objective=objective, days=1500, budget=SMALL)
    row = df.set_index("side").loc["first.monster"]
    assert row["objective"] == objective and row["shift_lo"] > 0 and row["changes"] != "{}"
    # Beating the party in its own fight, or stalling it there, costs the party its day.
    assert row["own_survival_hi"] < 0
    result = sim.day.run(write(tmp_path, two_duels(first_policy=yaml.safe_load(row["policy_found"])), "found.yaml"),
                         days=1500)
    expected = beaten(result, "first") if objective == "fight" else 1 - result.summary()["survival"]["rate"]
    assert abs(row["strongest.rate"] - expected) < 1e-12


def test_a_monster_that_only_withdraws_stalls_the_day_but_beats_nobody(tmp_path):
    # Every fight runs to its round limit, which ends the party's day: the day objective
    # counts that, the fight objective does not. Under the pursuit where nobody backing
    # away is caught (the default, simultaneous, lets the faster hero catch it).
    day = two_duels(first_policy={"target": "random", "move": "withdraw"})
    day["rules"] = {"pursuit": "start_positions"}
    path = write(tmp_path, day)
    none = Budget(far=0, first=50, rungs=1, confirm=200, responses=1)
    rows = {o: optimize_day(path, sides=["party"], objective=o, days=600, budget=none).set_index("side")
            for o in ("fight", "day")}
    assert rows["fight"].loc["party", "written.rate"] == 0.0 == rows["fight"].loc["first.monster", "written.rate"]
    assert rows["day"].loc["first.monster", "written.rate"] == 1.0
    assert sim.day.run(path, days=600).summary()["fights"][0]["lost"] == 1.0


def test_the_cli_prints_the_table_json_and_exits_3_while_still_improving(tmp_path):
    path = write(tmp_path, two_duels(party_policy=dict(TIMID)))
    args = ["optimize", path, "--side", "party", "-n", "800", "--budget",
            "far=2,first=100,rungs=4,confirm=2000,responses=1", "-q"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 3, done.output
    assert "strongest found" in done.output and "NOT converged" in done.output and "survives the day" in done.output
    out = tmp_path / "t.csv"
    done = CliRunner().invoke(main, [*args, "--json", "--out", str(out)])
    assert done.exit_code == 3
    payload = json.loads(done.output)
    assert payload["command"] == "optimize" and payload["what"] == "day" and payload["day"] == "two duels"
    assert [r["side"] for r in payload["rows"]] == ["party", "first.monster", "second.monster"]
    assert out.exists() and "policy_found" in out.read_text().splitlines()[0]


@pytest.mark.parametrize("args, said", [
    (["--side", "nobody"], "--side 'nobody' is not a side of this day"),
    (["--side", "goblin ambush.travellers"], "Did you mean"),
    (["--objective", "win"], "--objective 'win'"),
    (["--max-rounds", "5"], "--max-rounds is not taken by an optimize of a day file"),
    (["--report", "rep"], "--report is not taken"),
    (["--budget", "responses=many"], "--budget"),
])
def test_bad_sides_objectives_and_options_exit_2_in_one_paragraph(args, said, tmp_path):
    args = [a if a != "rep" else str(tmp_path / "rep") for a in args]
    done = CliRunner().invoke(main, ["optimize", ROAD, "-n", "100", *args])
    assert done.exit_code == 2 and said in done.output, done.output
    assert "Traceback" not in done.output
    assert len([p for p in done.output.strip().split("\n\n") if p.strip()]) == 1


def test_objective_of_a_scenario_is_refused_in_one_paragraph(tmp_path):
    scen = tmp_path / "duel.yaml"
    scen.write_text(yaml.safe_dump(duel(), sort_keys=False))
    done = CliRunner().invoke(main, ["optimize", str(scen), "--objective", "day"])
    assert done.exit_code == 2 and "--objective is taken by an optimize of a day file" in done.output
    assert len([p for p in done.output.strip().split("\n\n") if p.strip()]) == 1


def test_scenario_optimize_plays_as_before():
    # Figures of the search before it was shared with the day's (commit 0f96c03), exactly,
    # under that commit's pursuit (the found kiting pays less where pursuers catch up).
    before = dict(duel(hero_policy=dict(TIMID)), rules={"pursuit": "start_positions"})
    df = optimize(before, n=3000, budget=Budget(far=2, first=100, rungs=4, confirm=2000,
                                                                        responses=3))
    hero = df.set_index("side").loc["hero"]
    assert round(hero["written.win_rate"] * 3000) == 202 and round(hero["strongest.win_rate"] * 3000) == 1239
    assert hero["policy_found"] == "{target: random, flee_below: 0.0, move: kite}"
    meta = df.attrs["analysis"]
    assert meta["search_skirmishes"] == 48100
    assert [(h["side"], h["changed"], h["gain"]) for h in meta["history"]] == [
        ("hero", True, 0.3655), ("monster", False, 0.0), ("hero", True, 0.026)]
