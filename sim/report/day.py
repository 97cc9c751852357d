"""The day's report: `skirmish day FILE --report DIR` or `report_day(sim.day.run(path), dir)`.

A section "The day": the survival staircase with its rests, which fight decides the
day, what the party carries along it, each member's fate, what entry health is worth,
what each rest gives back, and the rests that changed nothing; then the stat blocks of
every fight and the provenance.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.day.result import state_value
from sim.day.spec import Fight, Rest
from sim.report import day_figures as fig
from sim.report.designs import design_section
from sim.report.figures import pct
from sim.report.html import Section, write_report
from sim.stats import wilson


def staircase_table(result) -> pd.DataFrame:
    """After each step (and at the start), the share of days with no fight lost yet."""
    steps = result.day.steps
    ended = result.days["ended_at"].cat.codes.to_numpy()
    n = len(ended)
    rows = [{"step": "start", "kind": "start", "going": 1.0, "ci95_low": 1.0, "ci95_high": 1.0}]
    for i, s in enumerate(steps):
        k = int((ended > i).sum())
        lo, hi = wilson(k, n)
        rows.append({"step": s.name, "kind": "fight" if isinstance(s, Fight) else s.kind, "going": k / n,
                     "ci95_low": float(lo), "ci95_high": float(hi)})
    return pd.DataFrame(rows)


def hazard_table(summary: dict) -> pd.DataFrame:
    return pd.DataFrame([{"fight": f["name"], "met": f["met"], "reached": f["reached"], "lost": f["lost"],
                          "lost_ci95_low": f["lost_ci95"][0], "lost_ci95_high": f["lost_ci95"][1],
                          "ends_day": f["days_ended_here"], "rounds": f["rounds"]} for f in summary["fights"]])


def party_totals(result) -> pd.DataFrame:
    """The party's total of each carried resource at each fight's entry and exit, one row
    per (day, fight reached)."""
    cols = [f"{w}_{r}" for w in ("entry", "exit") for r in result.day.resources]
    return result.members.groupby(["day", "fight"], observed=True)[cols].sum().reset_index()


def fan_table(result) -> pd.DataFrame:
    day, totals = result.day, party_totals(result)
    full = {r: sum(day.rules_module.full(day.stats[m])[r] for m in day.members) for r in day.resources}
    rows = []
    for f in day.fights:
        g = totals[totals["fight"] == f.name]
        for when, label in (("entry", "before "), ("exit", "after ")):
            for r in day.resources:
                v = g[f"{when}_{r}"].to_numpy(float)
                q = np.quantile(v, (0.05, 0.25, 0.5, 0.75, 0.95)) if len(v) else [np.nan] * 5
                rows.append({"point": label + f.name, "resource": r, "mean": v.mean() if len(v) else np.nan,
                             **dict(zip(("q05", "q25", "q50", "q75", "q95"), q)), "full": full[r]})
    return pd.DataFrame(rows)


def rest_table(result) -> pd.DataFrame:
    """What each rest between two fights gives back: over the days that reached the next
    fight, the party's mean change of each resource across the rest (the exit of the
    fight before to the entry of the fight after) and the share of days it changed any."""
    day, totals = result.day, party_totals(result)
    resources = day.resources
    rows = []
    for i, step in enumerate(day.steps):
        before = next((s for s in reversed(day.steps[:i]) if isinstance(s, Fight)), None)
        after = next((s for s in day.steps[i + 1:] if isinstance(s, Fight)), None)
        if not isinstance(step, Rest) or before is None or after is None:
            continue
        a = totals[totals["fight"] == before.name].set_index("day")
        b = totals[totals["fight"] == after.name].set_index("day")
        both = a.index.intersection(b.index)
        change = {r: b.loc[both, f"entry_{r}"].to_numpy() - a.loc[both, f"exit_{r}"].to_numpy() for r in resources}
        any_change = np.zeros(len(both), dtype=bool)
        for v in change.values():
            any_change |= v != 0
        rows.append({"rest": step.name, "kind": step.kind, "between": f"{before.name} → {after.name}",
                     "days": len(both), **{f"{r} change": float(v.mean()) if len(v) else np.nan
                                           for r, v in change.items()},
                     "changed something %": 100 * float(any_change.mean()) if len(both) else np.nan})
    return pd.DataFrame(rows)


def _percent(frame: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """A table as the page shows it: shares as percentages under '%' column names."""
    shown = frame.copy()
    for col in columns:
        shown[col] = 100 * shown[col]
    return shown.rename(columns=columns)


HAZARD_SHOWN = {"met": "met %", "reached": "reached %", "lost": "lost if reached %", "lost_ci95_low": "low %",
                "lost_ci95_high": "high %", "ends_day": "ends the day %"}
VALUE_SHOWN = {"won": "won %", "ci95_low": "low %", "ci95_high": "high %"}


def fates_table(summary: dict) -> pd.DataFrame:
    # No fled column: who fled a won fight rejoins the party, who fled a lost one ends the day with it.
    return pd.DataFrame([{"combatant": m["name"], **{s: m.get(s, 0.0) for s in ("standing", "unconscious", "dead")}}
                         for m in summary["members"]])


def day_verdict(result, summary: dict) -> list[str]:
    s, n = summary, summary["days"]
    lo, hi = s["survival"]["ci95"]
    out = [f"The party lives through the day on {pct(s['survival']['rate'])} of {n:,} days "
           f"(95% interval {pct(lo)} to {pct(hi)}); nobody dies on {pct(s['nobody_dies']['rate'])}, "
           f"{s['deaths']['mean']:.2f} deaths a day on average."]
    fights = [f for f in s["fights"] if f["reached"] > 0]
    if fights:
        worst = max(fights, key=lambda f: f["days_ended_here"])
        out.append(f"The fight that decides the day is {worst['name']!r}: it ends {pct(worst['days_ended_here'])} "
                   f"of all days, lost on {pct(worst['lost'])} of the days that reach it "
                   f"({pct(worst['lost_ci95'][0])} to {pct(worst['lost_ci95'][1])}).")
    dying = sorted(s["members"], key=lambda m: -m["dead"])
    if dying and dying[0]["dead"] > 0:
        m = dying[0]
        where = max(m["died_in"].items(), key=lambda kv: kv[1])[0] if m["died_in"] else "?"
        out.append(f"{m['name']} dies most often: on {pct(m['dead'])} of days, most often in {where!r}.")
    return out


def _inert_sentences(rests: pd.DataFrame, result=None) -> list[str]:
    said = [f"The {row['kind']} rest {row['rest']!r} ({row['between']}) changed nobody's resources "
            f"on any of the {row['days']:,} days that went on past it."
            for _, row in rests.iterrows() if row["days"] and row["changed something %"] == 0]
    if result is not None and getattr(result.day.rules_module, "NIGHT_ROLL", False) and len(result.rests):
        for name, g in result.rests.groupby("rest", sort=False, observed=True):
            rested = g[g["rested"]]
            if len(rested) and not rested["night_roll_mattered"].any():
                said.append(f"The night's health roll at {name!r} never changed what anyone woke with "
                            f"({len(rested):,} nights rested): whoever rested there was whole or beyond its help.")
    return said


def day_sections(result, level: int = 2) -> list[Section]:
    s = result.summary()
    stairs, rests, value = staircase_table(result), rest_table(result), state_value(result)
    sections = [Section("The day", [
        "Day k plays skirmish k of every fight with the seed in the provenance, the party carrying its "
        "state from each fight into the next; a fight lost ends the day"
        + (" (stop_when: party_out)." if result.day.stop_when == "party_out" else " only on the staircase "
           "(stop_when: never: the day goes on with whoever is left).")],
        [("day-staircase", fig.staircase_figure(stairs)), ("day-hazard", fig.hazard_figure(hazard_table(s)))],
        [("Per fight: met, reached, lost when reached (95% interval), days ending there, mean rounds",
          _percent(hazard_table(s), HAZARD_SHOWN))], level=level)]
    sections.append(Section("What the party carries", [
        "The party's total of each carried resource before and after each fight, over the days that "
        "reached it (docs/day.md lists what each ruleset carries)."],
        [("day-resources", fig.resource_fan_figure(fan_table(result)))], [], level=level + 1))
    sections.append(Section("Who lives", [], [("day-fates", fig.fates_figure(fates_table(s)))], [], level=level + 1))
    if len(value):
        sections.append(Section("What entry health is worth", [
            "Health at entry is the party's share of its full carried resources (verve and survival "
            "together in Gods & Monsters)."], [("day-state-value", fig.state_value_figure(value))],
            [("Win chance by entry health (95% interval)", _percent(value, VALUE_SHOWN))], level=level + 1))
    if len(rests):
        sections.append(Section("What the rests give back", [], [], [("Mean change of the party's totals across "
                                                                     "each rest, days that went on", rests)],
                                level=level + 1))
    inert = _inert_sentences(rests, result)
    if inert:
        sections.append(Section("Without effect", inert, [], [], level=level + 1))
    return sections


def report_day(result, out_dir, title: str | None = None) -> Path:
    """Write the day's report page into `out_dir`; return the index path."""
    day = result.day
    summary = result.summary()
    sections = day_sections(result)
    for f in day.fights:
        sections.append(design_section(f.scenario, title=f"Fight {f.name!r}: what was played", level=3,
                                       anchor="fight-" + f.name.replace(" ", "-")))
    meta = dict(result.meta)
    meta.pop("steps", None)
    steps = {s["fight"] if "fight" in s else s["rest"]: s for s in result.meta.get("steps", [])}
    from sim.report.regenerate import shown_path
    meta["day_file"] = shown_path(meta["day_file"]) if meta.get("day_file") else day.source
    meta["steps"] = {k: {kk: shown_path(vv) if kk == "scenario_file" and vv else vv for kk, vv in v.items()
                         if kk not in ("fight", "rest", "rule_options")} for k, v in steps.items()}
    try:
        meta["day_text"] = Path(day.source).read_text(encoding="utf-8")
    except OSError:
        pass
    sub = f"{day.ruleset_name}, {summary['days']:,} days, seed {day.run['seed']}"
    return write_report(out_dir, title or day.name, [("", day_verdict(result, summary))], sections,
                        [("", meta)], subtitle=sub)
