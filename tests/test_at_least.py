"""The report's "at least X" views: exact shares of the run's own fights, Wilson bands."""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.report.at_least import at_least_curve, at_least_table, level, side_totals
from sim.report.tables import RunTables
from sim.runner import run
from sim.stats import wilson


def test_the_curve_counts_fights_with_at_least_x():
    curve = at_least_curve(np.array([0, 2, 2, 5]))
    assert curve["x"].tolist() == [0, 1, 2, 3, 4, 5]
    assert curve["share"].tolist() == [1.0, 0.75, 0.75, 0.25, 0.25, 0.25]
    lo, hi = wilson(np.array([4, 3, 3, 1, 1, 1]), 4)
    assert np.allclose(curve["lo"], lo) and np.allclose(curve["hi"], hi)
    assert level(curve, 0.75)[0] == 2 and level(curve, 0.25)[0] == 5 and level(curve, 1.0)[0] == 0


def test_levels_and_totals_are_those_of_the_outcome_tables():
    result = run("scenarios/gods_and_monsters/goblin_ambush.yaml", n=3000, seed=2)
    t = RunTables.from_result(result)
    totals = side_totals(t)
    dealt = result.combatants.groupby(["skirmish", "side"])["damage_dealt"].sum()
    assert totals.set_index(["skirmish", "side"])["damage_dealt"].sort_index().equals(dealt.sort_index())
    table = at_least_table(t).set_index("measure")
    rounds = result.skirmishes["rounds"].to_numpy()
    for share, column in ((0.9, "at least, in 9 of 10 fights"), (0.5, "at least, in half of fights")):
        x = int(str(table.loc["fight length (rounds)", column]).split(" ")[0])
        # the most rounds at least `share` of fights last
        assert (rounds >= x).mean() >= share > (rounds >= x + 1).mean()
    trav = table.loc["travellers deals (damage)", "at least, in half of fights"]
    x, lo, hi = (int(v) for v in trav.replace("[", "").replace("]", "").replace("–", " ").split())
    assert lo <= x <= hi and hi - lo <= 4  # 3,000 fights pin the median to a few points
    assert table.loc["fight length (rounds)", "mean"] == round(float(np.mean(rounds)), 2)


def test_a_side_with_no_damage_is_all_zero():
    skirm = pd.DataFrame({"skirmish": [0, 1], "winner": ["a", "a"], "rounds": [1, 2]})
    comb = pd.DataFrame({"skirmish": [0, 0, 1, 1], "combatant": ["x", "y"] * 2, "side": ["a", "b"] * 2,
                         "attacks": 1, "hits": [1, 0, 1, 0], "damage_dealt": [3, 0, 4, 0],
                         "damage_taken": [0, 3, 0, 4], "final_state": ["standing", "dead"] * 2,
                         "down_round": [pd.NA, 1, pd.NA, 2]})
    table = at_least_table(RunTables(skirm, comb, {"scenario": "toy"})).set_index("measure")
    assert table.loc["b deals (damage)", "at least, in 1 of 10 fights"] == "0"
    assert table.loc["a deals (damage)", "mean"] == 3.5
