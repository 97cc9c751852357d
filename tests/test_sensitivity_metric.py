"""`sensitivity --metric`: each step priced in another figure, paired, of a fight or a day."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

import sim
import sim.day
from sim.analysis.common import paired_diff
from sim.analysis.sensitivity import sensitivity
from sim.cli import main
from sim.day.sensitivity import sensitivity_day
from sim.day.variants import day_variant

GOBLINS = "scenarios/gods_and_monsters/goblin_ambush.yaml"
ROAD = "days/gods_and_monsters/road_to_hightown.yaml"


def _any_death(result, side):
    cb = result.combatants
    dead = (cb["final_state"] == "dead") & (cb["side"] == side)
    return dead.groupby(cb["skirmish"]).any().sort_index().to_numpy(float)


def test_a_fight_metric_is_the_paired_change_of_the_played_fights():
    df = sensitivity(GOBLINS, ["Brannoc"], n=1500, seed=6, metric="travellers.any_death")
    assert df["metric.delta"].abs().is_monotonic_decreasing  # ranked by it
    top = df.iloc[0]
    base = sim.run(GOBLINS, n=1500, seed=6)
    changed = sim.run(sim.load_scenario(GOBLINS, {top["path"]: top["new"]}), n=1500, seed=6)
    a, b = _any_death(base, "travellers"), _any_death(changed, "travellers")
    assert (top["metric.base"], top["metric.value"]) == (a.mean(), b.mean())
    assert np.allclose([top["metric.delta"], top["metric.delta_lo"], top["metric.delta_hi"]], paired_diff(a, b))
    rounds = sensitivity(GOBLINS, ["Brannoc"], n=1500, seed=6, metric="rounds.mean")
    assert rounds.iloc[0]["metric.base"] == base.skirmishes["rounds"].mean()


def test_a_day_metric_is_the_paired_change_of_the_played_days():
    df = sensitivity_day(ROAD, ["Toromeen"], days=800, seed=3, metric="day.deaths")
    assert df["metric.delta"].abs().is_monotonic_decreasing
    top = df.iloc[0]
    day = sim.day.load_day(ROAD, days=800, seed=3)
    deaths = [sim.day.run(d).days.sort_values("day")["deaths"].to_numpy(float)
              for d in (day, day_variant(day, {top["path"]: top["new"]}))]
    assert np.allclose([top["metric.delta"], top["metric.delta_lo"], top["metric.delta_hi"]], paired_diff(*deaths))
    plain = sensitivity_day(ROAD, ["Toromeen"], days=800, seed=3)
    assert plain["metric"].eq("day.survival").all() and np.allclose(plain["metric.delta"], plain["delta"])


def test_unknown_metrics_are_one_paragraph_and_exit_2_before_any_play():
    runner = CliRunner()
    for target, args, said in ((GOBLINS, ["--metric", "travelers.any_death"], "Did you mean 'travellers.any_death'"),
                               (GOBLINS, ["--metric", "rounds.median"], "rounds.mean"),
                               (ROAD, ["--metric", "fight.goblin ambsh.lost"],
                                "Did you mean 'fight.goblin ambush.lost'")):
        done = runner.invoke(main, ["sensitivity", target, "-n", "100", "-q", *args])
        assert done.exit_code == 2 and said in done.output, done.output
