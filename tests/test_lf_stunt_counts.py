"""Per-combatant stunt counters in the Lifeforce outcome table (read by the inert-rules list)."""
import numpy as np

import sim
from sim.rulesets.lifeforce import tables as T


def _row(r, name):
    return r.combatants[r.combatants["combatant"] == name]


def test_each_stunt_has_a_count_column_and_the_greedy_buyer_fills_its_own():
    r = sim.run("scenarios/lifeforce/stunt_choices.yaml", n=400, seed=3)
    for name in T.STUNT_NAMES:
        assert f"stunt_{name}" in r.combatants.columns
    greedy, control = _row(r, "Greedy knight"), _row(r, "Control knight")
    # Greedy buys criticals and Defensive Stance; its order holds no control stunt.
    for name in ("major_critical", "minor_critical", "defensive_stance"):
        assert greedy[f"stunt_{name}"].sum() > 0, name
    for name in ("knock_prone", "disarm", "threaten", "dual_strike", "rapid_reload", "skirmish"):
        assert greedy[f"stunt_{name}"].sum() == 0, name
    for name in ("knock_prone", "disarm"):  # Threaten comes third in its order: 6 points, rare
        assert control[f"stunt_{name}"].sum() > 0, name
    # What was bought never costs more than the points the combatant earned.
    costs = T.stunt_costs("weapon", "literal")
    for who in (greedy, control):
        spent = sum(int(costs[s]) * who[f"stunt_{n}"].to_numpy() for s, n in enumerate(T.STUNT_NAMES))
        assert np.all(spent <= who["stunt_points"].to_numpy())
        assert spent.sum() > 0.8 * who["stunt_points"].sum()
