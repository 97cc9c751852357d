"""The run report's matchup table: the exact odds of every exchange (sim/analysis/odds.py)."""
from __future__ import annotations

import pandas as pd

from sim.report.html import Section

# Past this many exchanges (a battle of many stat blocks) the table is cut to the first
# ones and says so: `skirmish odds FILE` prints them all.
MOST_ROWS = 60


def matchup_frame(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs table as a person reads it: percentages to one decimal, outcomes last."""
    out = pd.DataFrame({
        "attacker": pairs["attacker"], "attack": pairs["attack"], "defender": pairs["defender"],
        "hit %": (100 * pairs["hit"]).round(1),
        "damage mean": pairs["damage_mean"].round(2),
        "any damage %": (100 * pairs["damage_any"]).round(1),
        "most damage": pairs["damage_max"],
    })
    for col in (c for c in pairs.columns if c.startswith("outcome.")):
        out[f"{col[len('outcome.'):]} %"] = (100 * pairs[col]).round(1)
    return out


def odds_section(scen, level: int = 2) -> Section:
    from sim.analysis.odds import odds
    pairs = odds(scen).pairs
    shown = matchup_frame(pairs.head(MOST_ROWS))
    paragraphs = ["For every attacker, attack and defender the fight can bring together, one attack from a standing "
                  "start, computed exactly by enumerating the dice (no sampling): the chance it lands, the mean "
                  "damage reaching the defender after armour, the chance of any damage and the most it can do, "
                  "and the ruleset's outcome distribution. `skirmish odds FILE --damage` prints each whole "
                  "damage distribution, with the chance of at least each amount."]
    readings = list(dict.fromkeys(r for r in pairs["reading"] if r))
    if readings:
        paragraphs.append("What the rows assume: " + " · ".join(readings) + ".")
    if len(pairs) > MOST_ROWS:
        paragraphs.append(f"The first {MOST_ROWS} of {len(pairs)} exchanges; `skirmish odds` lists them all.")
    return Section("Exact odds of one exchange", paragraphs, [], [("Matchups", shown)], level=level)
