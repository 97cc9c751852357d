"""The gauntlet's page: `skirmish gauntlet SCENARIO --party SIDE --report DIR` or
`report_gauntlet(sim.day.gauntlet.gauntlet(...), dir)`.

The survival curve S(k) with its intervals and N50, what the party carries along it,
the fight's stat blocks and the provenance.
"""
from __future__ import annotations

from pathlib import Path

from sim.day.gauntlet import Gauntlet, n50_sentence
from sim.report import day_figures as fig
from sim.report.day import fan_table
from sim.report.designs import design_section
from sim.report.figures import pct
from sim.report.html import Section, write_report

CURVE_SHOWN = {"rate": "wins at least k %", "ci95_low": "low %", "ci95_high": "high %"}


def gauntlet_verdict(g: Gauntlet) -> list[str]:
    c = g.curve
    first = c.iloc[1]
    out = [f"The party wins the first fight on {pct(first.rate)} of {int(first.days):,} days "
           f"({pct(first.ci95_low)} to {pct(first.ci95_high)})."]
    if len(c) > 3:
        three = c.iloc[3]
        fresh = first.rate ** 3
        out.append(f"It wins three in a row on {pct(three.rate)} ({pct(three.ci95_low)} to {pct(three.ci95_high)}); "
                   f"fought fresh each time it would be {pct(fresh)}, so what it carries from fight to fight "
                   f"{'costs' if three.rate < fresh else 'gives'} it {abs(100 * (fresh - three.rate)):.1f} points.")
    out.append(n50_sentence(g))
    return out


def report_gauntlet(g: Gauntlet, out_dir, title: str | None = None) -> Path:
    """Write the gauntlet's page into `out_dir`; return the index path."""
    result = g.day_result
    shown = g.curve[g.curve["k"] >= 1][["k", "won", "days", "rate", "ci95_low", "ci95_high"]].copy()
    for col in CURVE_SHOWN:
        shown[col] = 100 * shown[col]
    sections = [
        Section("The survival curve", [
            f"Day k plays skirmish k of each of the {len(g.curve) - 1} copies of the fight (each keyed by its "
            f"name), the party carrying its state from one into the next (rest: {g.rest}); the first fight "
            "lost ends the day."],
            [("gauntlet-curve", fig.gauntlet_figure(g.curve, g.n50))],
            [("S(k): days the party wins at least k in a row (95% Wilson interval)",
              shown.rename(columns=CURVE_SHOWN))]),
        Section("What the party carries", [
            "The party's total of each carried resource before and after each fight, over the days that "
            "reached it."], [("gauntlet-resources", fig.resource_fan_figure(fan_table(result)))], [], level=3),
        design_section(result.day.fights[0].scenario, title="The fight: what was played", level=3),
    ]
    meta = {k: v for k, v in g.meta.items() if k != "steps"}
    sub = f"{result.day.ruleset_name}, {int(result.aggregate.n):,} days, seed {result.day.run['seed']}"
    return write_report(out_dir, title or result.day.name, [("", gauntlet_verdict(g))], sections, [("", meta)],
                        subtitle=sub)
