"""Putting reports together: one function per kind of result.

These are what `skirmish report`, `skirmish run --report DIR` and the analysis
commands' `--report DIR` call. Each writes DIR/index.html plus every figure as PNG and
SVG, and returns the path of index.html.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.report import adapt as ad
from sim.report import analysis_figures as af
from sim.report import figures as rf
from sim.report import verdict as vd
from sim.english import sides_possessive
from sim.report.at_least import at_least_figure, at_least_table
from sim.report.designs import (analysis_designs, design_section, frame_scenario, overrides_text,
                                policy_label_table, scenario_of)
from sim.report.html import Section, slug, write_report
from sim.report.odds import odds_section
from sim.report.tables import (RunTables, combatant_table, length_table, load_tables, survival_table,
                               win_table)


def as_tables(item) -> list[RunTables]:
    """A RunResult, RunTables, or a path to outcome tables -> RunTables."""
    if isinstance(item, RunTables):
        return [item]
    if isinstance(item, (str, Path)):
        return load_tables(item)
    return [RunTables.from_result(item)]


def combatant_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The per-combatant table printed under the figures (rounded for reading)."""
    def p(col):
        return (100 * table[col]).round(1)
    return pd.DataFrame({
        "combatant": table["combatant"], "side": table["side"],
        "attacks / fight": table["attacks"].round(2),
        "hit %": p("hit_rate"),
        "damage dealt / fight": table["damage_dealt"].round(2),
        "damage taken / fight": table["damage_taken"].round(2),
        "share of side's damage %": p("share_of_side_damage"),
        "down %": p("down_rate"), "dead %": p("dead_rate"), "unconscious %": p("unconscious_rate"),
        "fled %": p("fled_rate"),  # apart from down, as in the run summary
    })


def rate_table(plain: pd.DataFrame, params, sides, extra=()) -> pd.DataFrame:
    """A table of variants as a person reads it: short names of the varied values, and
    per side the win rate in % with its 95% interval (one decimal everywhere)."""
    out = pd.DataFrame({af.path_label(p): plain[p].to_numpy() for p in params})
    for s in sides:
        rate, lo, hi = (100 * plain[f"{s}_{c}"].to_numpy(float) for c in ("win_rate", "ci_lo", "ci_hi"))
        out[f"{s} wins %"] = rate
        out[f"{s} 95% interval"] = [f"{a:.1f} – {b:.1f}%" for a, b in zip(lo, hi)]
    for col in extra:
        if col in plain.columns:
            out[col] = plain[col].to_numpy()
    return out


def paired_table(frame: pd.DataFrame, plain: pd.DataFrame, params, sides) -> pd.DataFrame | None:
    """Each variant's paired difference to the first in each side's win rate, with its 95%
    interval: on common random numbers this is what tells a real change from noise, and
    the sweep's table held it where the page did not show it. None without the columns."""
    if not all(f"{s}.diff_base" in frame.columns for s in sides):
        return None
    out = pd.DataFrame({af.path_label(p): plain[p].to_numpy() for p in params})
    for s in sides:
        d, lo, hi = (100 * frame[f"{s}.diff_base{tail}"].to_numpy(float) for tail in ("", "_lo", "_hi"))
        out[f"{s} wins, change"] = [f"{a:+.1f} [{b:+.1f} .. {c:+.1f}]" for a, b, c in zip(d, lo, hi)]
    return out


def run_sections(t: RunTables, prefix: str = "", level: int = 2) -> tuple[list[str], list[Section]]:
    """Verdict sentences and report sections for one run."""
    wins, table = win_table(t), combatant_table(t)
    sizes = table.groupby("side", sort=False).size().to_dict()
    sections = [
        Section("Who wins", [f"Share of {t.n:,} fights each side won, with 95% confidence intervals."],
                [(prefix + "win-rates", rf.win_rates_figure(wins))], level=level),
        Section("How fights unfold", [],
                [(prefix + "fight-length", rf.fight_length_figure(length_table(t), t.sides)),
                 (prefix + "survival", rf.survival_figure(survival_table(t), sizes))], level=level),
        Section("At least X",
                ["How often a side deals or takes at least so much damage in a fight (its combatants' rolled "
                 "damage, summed), and how often a fight lasts at least so many rounds; the table reads the "
                 "levels reached in 9, 5 and 1 fights of 10, with the range their 95% intervals allow."],
                [(prefix + "at-least", at_least_figure(t))], [("Levels reached", at_least_table(t))], level=level),
        Section("What each combatant does",
                ["Means are per fight. Damage counts what was rolled, not capped at what the target "
                 "had left."],
                [(prefix + "damage", rf.damage_figure(t.combatants, t.names, t.side_of)),
                 (prefix + "hit-rates", rf.hit_rate_figure(table)),
                 (prefix + "down-rates", rf.down_rate_figure(table))],
                [("Per combatant, per fight", combatant_summary(table))], level=level),
    ]
    scen = scenario_of(t)
    if scen is not None:
        sections.append(odds_section(scen, level))
        sections += inert_sections(scen, t, level)
        sections.append(design_section(scen, t.meta.get("overrides"), level=level))
    for sec in sections:
        sec.anchor = prefix + slug(sec.title)
    verdict = vd.run_verdict(t, wins, table)
    inert = next((sec for sec in sections if sec.title == "What had no effect"), None)
    if inert is not None:
        k = len(inert.tables[0][1])
        verdict.append(f"{k} rule{'s' if k > 1 else ''}, stat{'s' if k > 1 else ''} or piece{'s' if k > 1 else ''} "
                       "of gear had no effect in any fight: see What had no effect.")
    if t.meta.get("overrides"):
        verdict.append("Played with " + overrides_text(t.meta["overrides"]) + ", not the file as saved.")
    return verdict, sections


def inert_sections(scen, t: RunTables, level: int) -> list[Section]:
    """The ruleset's own columns as means per fight, and what had no effect in any fight."""
    from sim.inert import column_groups, gather, means_frame, ruleset_means
    means = ruleset_means(scen, t.combatants)
    out = []
    columns = [c for c in dict.fromkeys(k for m in means.values() for k in m)]
    if columns:
        full = means_frame(scen, means)
        tables = [(f"{group or scen.ruleset.title} columns, means per fight",
                   full[["combatant", "side"] + [c for c in cols]].rename(
                       columns={c: c[len(group) + 1:] for c in cols} if group else {}))
                  for group, cols in column_groups(columns)]
        out.append(Section(f"What the {scen.ruleset.title} rules count",
                           ["The ruleset's own outcome columns (defences, Momentum, blocks, stunts ...), as "
                            "means per fight."], [], tables, level=level))
    items = gather(scen, t.combatants)
    if items:
        out.append(Section("What had no effect",
                           [f"Nothing below changed any of the {t.n:,} fights, so the balance shown does not "
                            "depend on it; the reason says why."],
                           [], [("Without effect", pd.DataFrame(items))], level=level))
    return out


def report_results(results, out_dir, title: str | None = None) -> Path:
    """Report on one or more runs (RunResult, RunTables or outcome-table paths)."""
    if not isinstance(results, (list, tuple)):
        results = [results]
    tables = [t for r in results for t in as_tables(r)]
    if not tables:
        raise ValueError("no results to report on")
    verdict, sections, provenance = [], [], []
    many = len(tables) > 1
    used: set[str] = set()
    for t in tables:
        prefix = ""
        if many:
            prefix = slug(t.label)
            while prefix in used:
                prefix += "-x"
            used.add(prefix)
            sections.append(Section(t.label, level=2, anchor=prefix))
            prefix += "-"
        sentences, secs = run_sections(t, prefix, level=3 if many else 2)
        verdict.append((t.label if many else "", sentences))
        sections.extend(secs)
        provenance.append((t.label if many else "", t.meta))
    if title is None:
        title = tables[0].label if not many else "Skirmish results: " + ", ".join(t.label for t in tables)
    sub = ", ".join(f"{t.meta.get('ruleset', '?')}, {t.n:,} skirmishes, seed {t.meta.get('seed', '?')}"
                    for t in tables[:1]) if not many else f"{len(tables)} runs"
    return write_report(out_dir, title, verdict, sections, provenance, subtitle=sub)


def report_run(result, out_dir, title: str | None = None) -> Path:
    """Report on one run: `sim.report.report_run(sim.run("yeti.yaml"), "reports/yeti")`."""
    return report_results([result], out_dir, title)


def report_sweep(frame: pd.DataFrame, out_dir, params=None, sides=None, target: float = 0.5,
                 meta: dict | None = None, title: str | None = None, scenario=None) -> Path:
    """Report on a sweep: win rate against the varied value with 95% bands, or a heat map
    per side for two varied values. Takes the plain layout or sim.analysis.sweep's."""
    plain, params, sides = ad.sweep_layout(frame, params, sides)
    if len(params) == 2:
        figs = [(f"sweep-{slug(s)}", af.sweep_heatmap(plain, params, s)) for s in sides]
    else:
        figs = [("sweep", af.sweep_figure(plain, params, sides, target=target))]
    tables = [("Variants", rate_table(plain, params, sides))]
    paired = paired_table(frame, plain, params, sides)
    if paired is not None:
        tables.append(("Paired against the first variant (the same skirmishes), percentage points", paired))
    sec = Section("Win rate against the varied value" + ("s" if len(params) > 1 else ""),
                  ["Each point is one variant of the scenario; bands and ± give the 95% interval."],
                  figs, tables)
    title = title or ad.titled(frame, "Sweep: " + " × ".join(af.path_label(p) for p in params))
    designs = analysis_designs(frame, meta, scenario, "Each variant is this scenario with only the varied "
                               "value" + ("s" if len(params) > 1 else "") + " changed.")
    return write_report(out_dir, title, [("", vd.sweep_verdict(plain, params, sides, target))], [sec] + designs,
                        [("", ad.provenance_of(frame, meta))])


def report_tune(frame: pd.DataFrame, out_dir, meta: dict | None = None, title: str | None = None,
                scenario=None) -> Path:
    """Report on sim.analysis.tune's table: the values played, the target and the answer."""
    plain, param, side, target, answer, message = ad.tune_layout(frame)
    fig = af.tune_figure(plain, param, side, target, answer)
    sec = Section("Values tried", [f"Every value of {af.path_label(param)} the search played, with "
                                    f"{sides_possessive(side)} win rate and its 95% interval."],
                  [("tune", fig)], [("Values played", rate_table(plain, [param], [side], extra=["role"]))])
    verdict = [message] if message else []
    verdict += vd.sweep_verdict(plain, [param], [side], target)[1:]
    designs = analysis_designs(frame, meta, scenario, f"Each value tried is this scenario with only "
                               f"{af.path_label(param)} changed.")
    return write_report(out_dir, title or ad.titled(frame, f"Tune: {af.path_label(param)}"), [("", verdict)],
                        [sec] + designs,
                        [("", ad.provenance_of(frame, meta))])


def report_tune_grid(frame: pd.DataFrame, out_dir, meta: dict | None = None, title: str | None = None,
                     scenario=None) -> Path:
    """Report on a two-stat tune (sim.analysis.tune_grid): a heat map of the grid and the
    pairs nearest the target, with the verdict in words."""
    info = ad.analysis_info(frame)
    params, side, target = list(info["params"]), str(info["side"]), float(info["target"])
    plain, params, _ = ad.sweep_layout(frame, params, [side])
    sec = Section("The grid played", [f"Every pair of {af.path_label(params[0])} and {af.path_label(params[1])} "
                                      f"played, with {sides_possessive(side)} win rate; the table lists the pairs "
                                      f"nearest {100 * target:.0f}%, nearest first."],
                  [(f"tune-grid-{slug(side)}", af.sweep_heatmap(plain, params, side))],
                  [("Pairs nearest the target", rate_table(plain.head(10), params, [side], extra=["on_target"]))])
    title = title or ad.titled(frame, "Tune: " + " × ".join(af.path_label(p) for p in params))
    designs = analysis_designs(frame, meta, scenario, "Each pair is this scenario with only the two values changed.")
    return write_report(out_dir, title, [("", [str(info.get("message", ""))])], [sec] + designs,
                        [("", ad.provenance_of(frame, meta))])


def report_sensitivity(frame: pd.DataFrame, out_dir, side: str | None = None, meta: dict | None = None,
                       title: str | None = None, scenario=None) -> Path:
    """Report on a sensitivity table (plain: stat, step, side, delta, ci_lo, ci_hi; or
    sim.analysis.sensitivity's): the stat-weight tornado chart, one per side."""
    long = ad.sensitivity_layout(frame)
    sides = [side] if side else list(dict.fromkeys(long["side"].astype(str)))
    figs = [(f"tornado-{slug(s)}", af.tornado_figure(long, s)) for s in sides]
    sec = Section("Which stats matter most",
                  ["How far one step up or down in each stat moves the win rate, biggest first."],
                  figs, [("Changes in win rate, percentage points", change_table(long))])
    verdict = [(f"For {s}" if len(sides) > 1 else "", vd.sensitivity_verdict(long, s)) for s in sides]
    title = title or ad.titled(frame, "Sensitivity: which stats move the win rate")
    designs = analysis_designs(frame, meta, scenario, "Each step is this scenario with one stat of one stat "
                               "block moved; the changes are against it as given.")
    return write_report(out_dir, title, verdict, [sec] + designs, [("", ad.provenance_of(frame, meta))])


def change_table(long: pd.DataFrame) -> pd.DataFrame:
    """Sensitivity rows as a person reads them: the stat's short name, the step, and the
    change in win rate in percentage points with its 95% interval."""
    lo, hi = 100 * long["ci_lo"].to_numpy(float), 100 * long["ci_hi"].to_numpy(float)
    step = long["label"] if "label" in long.columns else long["step"]
    return pd.DataFrame({"stat": [af.path_label(s) for s in long["stat"]], "step": step.to_numpy(),
                         "whose win rate": long["side"].astype(str).to_numpy(),
                         "change (pts, %)": 100 * long["delta"].to_numpy(float),
                         "95% interval (pts)": [f"{a:+.1f} to {b:+.1f}" for a, b in zip(lo, hi)]})


def percent_matrix(m: pd.DataFrame) -> pd.DataFrame:
    """Win-rate matrix in % (columns marked so, and so printed to one decimal)."""
    out = (m * 100).rename(columns=lambda c: f"{c} %")
    out.index.name = m.index.name or "policy"
    return out.reset_index()


def report_tournament(frame: pd.DataFrame, out_dir, row_side: str | None = None, meta: dict | None = None,
                      title: str | None = None, scenario=None) -> Path:
    """Report on a tournament (plain long form row, col, win_rate[, ci_lo, ci_hi], a
    matrix, or sim.analysis.tournament's table) as a heat map."""
    long = ad.tournament_layout(frame, row_side)
    m, _, _ = af.tournament_matrix(long)
    who = row_side or long.attrs.get("row_side") or str(m.index.name or "the row side")
    fig = af.tournament_figure(long, row_side=who)
    sec = Section("Policy against policy", [f"Cells give how often {who} wins when its policy (row) meets "
                                             "the opposing policy (column)."],
                  [("tournament", fig)], [("Win rates of the row side, %", percent_matrix(m))])
    scen = frame_scenario(frame, meta, scenario)
    specs = {**ad.analysis_info(frame), **(meta or {})}.get("specs")
    if specs:
        sec.paragraphs.append("What each policy label means: the fields it sets, laid over its side's policy "
                              "in the scenario (a field it does not set keeps the side's value); a "
                              "combatant's own policy fields stay its own.")
        sec.tables.append(("Policy labels", policy_label_table(specs, scen)))
    designs = analysis_designs(frame, meta, scen, "Each pairing is this scenario with the sides' policies "
                               "replaced as the labels above say; stat blocks and gear as given.")
    title = title or ad.titled(frame, "Tournament of policies")
    return write_report(out_dir, title, [("", vd.tournament_verdict(m, who, long))],
                        [sec] + designs, [("", ad.provenance_of(frame, meta))])


def report_frame(frame: pd.DataFrame, out_dir, meta: dict | None = None, title: str | None = None,
                 scenario=None) -> Path:
    """Report on an analysis table of any kind (sweep, tune, sensitivity, tournament),
    recognised by `attrs["analysis"]["command"]` (or `meta["command"]`) or its columns.
    `scenario`: the base Scenario it was played on, for the page's stat blocks (else
    found from the table, see sim.report.designs.frame_scenario)."""
    if meta and meta.get("command") and not ad.analysis_info(frame):
        frame = frame.copy()
        frame.attrs["analysis"] = dict(meta)
    if ad.analysis_info(frame).get("command") == "optimize":
        from sim.report.optimize import report_optimize
        return report_optimize(frame, out_dir, meta=meta, title=title, scenario=scenario)
    kind = ad.frame_kind(frame)
    if kind == "sensitivity":
        return report_sensitivity(frame, out_dir, meta=meta, title=title, scenario=scenario)
    if kind == "tournament":
        return report_tournament(frame, out_dir, meta=meta, title=title, scenario=scenario)
    if kind == "tune" and ad.analysis_info(frame).get("grid"):
        return report_tune_grid(frame, out_dir, meta=meta, title=title, scenario=scenario)
    if kind == "tune":
        return report_tune(frame, out_dir, meta=meta, title=title, scenario=scenario)
    if kind == "sweep":
        return report_sweep(frame, out_dir, meta=meta, title=title, scenario=scenario)
    raise ValueError("not a sweep, tune, sensitivity or tournament table: columns "
                     + ", ".join(map(str, frame.columns)))


def analysis_figure(frame: pd.DataFrame, side: str | None = None):
    """The report's main figure of any analysis table (sweep, tune, sensitivity,
    tournament, compare), for a notebook: `analysis_figure(sweep(...))`."""
    info = ad.analysis_info(frame)
    if info.get("command") == "compare":
        from sim.report.compare import difference_figure
        return difference_figure(frame, "rate")
    kind = ad.frame_kind(frame)
    if kind == "sensitivity":
        long = ad.sensitivity_layout(frame)
        return af.tornado_figure(long, side or str(long["side"].iloc[0]))
    if kind == "tournament":
        return af.tournament_figure(ad.tournament_layout(frame, side), row_side=side)
    if kind == "tune":
        plain, param, who, target, answer, _ = ad.tune_layout(frame)
        return af.tune_figure(plain, param, who, target, answer)
    if kind == "sweep":
        plain, params, sides = ad.sweep_layout(frame)
        if len(params) == 2:
            return af.sweep_heatmap(plain, params, side or sides[0])
        return af.sweep_figure(plain, params, [side] if side else sides)
    raise ValueError("not an analysis table: columns " + ", ".join(map(str, frame.columns)))


frame_kind = ad.frame_kind
