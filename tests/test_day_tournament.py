"""`skirmish tournament DAY`: the party's tactics (or one fight's monsters') over a whole day."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.tournament import tournament_day
from sim.day.variants import day_variant

ROAD = "days/gods_and_monsters/road_to_hightown.yaml"


def _survival(day) -> float:
    return float(sim.day.run(day).days["survived"].mean())


def test_each_entrant_is_the_day_with_that_policy_written_in():
    df = tournament_day(ROAD, {"party": ["scenario", "random"], "goblin ambush.goblins": ["scenario", "random"]},
                        days=1500, seed=4)
    assert len(df) == 4 and df["rank"].tolist() == [1, 2, 3, 4]
    base = sim.day.load_day(ROAD, days=1500, seed=4)
    plain = df[(df["policy.party"] == "scenario") & (df["policy.goblin ambush.goblins"] == "scenario")].iloc[0]
    assert plain["day.survival"] == _survival(base)
    # `random` merged over each fight's own party policy, and over the goblins' own in one fight only
    goblins_policy = base.fights[0].scenario.data["sides"]["goblins"].get("policy") or {}
    both = day_variant(base, {"steps.goblin ambush.sides.goblins.policy": {**goblins_policy, "target": "random"},
                              **{f"steps.{f.name}.sides.{f.scenario.side_names[f.party_index]}.policy":
                                 {**(f.scenario.data["sides"][f.scenario.side_names[f.party_index]].get("policy")
                                     or {}), "target": "random"} for f in base.fights}})
    row = df[(df["policy.party"] == "random") & (df["policy.goblin ambush.goblins"] == "random")].iloc[0]
    assert row["day.survival"] == _survival(both)


def test_the_ranking_and_the_paired_changes_are_against_the_best():
    df = tournament_day(ROAD, {"party": ["scenario", "random", "weakest"]}, days=1500, seed=4)
    assert np.all(np.diff(df["day.survival"].to_numpy()) <= 0)
    assert (df.loc[0, "vs_best"], df.loc[0, "vs_best_lo"]) == (0.0, 0.0)
    for r in df.iloc[1:].to_dict("records"):
        assert r["vs_best"] <= 0 and r["vs_best_lo"] <= r["vs_best"] <= r["vs_best_hi"]
        assert abs(r["vs_best"] - (r["day.survival"] - df.loc[0, "day.survival"])) < 1e-12
    verdict = df.attrs["analysis"]["verdict"]
    clear = df.loc[1, "vs_best_hi"] < 0
    assert ("a clear best" in verdict) == clear and ("no clear best" in verdict) == (not clear)


def test_bad_keys_and_options_are_one_paragraph_and_exit_2():
    runner = CliRunner()
    for args, said in ((["--policies", "goblin ambush.orcs=random"], "has no other side 'orcs'"),
                       (["--policies", "goblin ambush.travellers=random"], "the party's policy is `party=`"),
                       (["--policies", "ambush.goblins=random"], "Did you mean 'goblin ambush'"),
                       (["--policies", "party=randm"], "no preset 'randm'"),
                       (["--policies", "party=random", "--max-rounds", "5"], "--max-rounds is not taken")):
        done = runner.invoke(main, ["tournament", ROAD, "-n", "200", *args])
        assert done.exit_code == 2 and said in done.output, (args, done.output)
    ok = runner.invoke(main, ["tournament", ROAD, "-n", "300", "--policies", "party=random,focus", "-q"])
    assert ok.exit_code == 0 and "survives the day most often" in ok.output
