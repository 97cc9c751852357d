"""From outcome tables to the figures a designer reads: rates with intervals, means."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.io import atomic_write_frame, atomic_write_text
from sim.stats import wilson


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else float("nan"), "ci95": [float(lo), float(hi)]}


def summarize(result) -> dict:
    """The summary figures of a run, from its outcome tables.

    The tables are folded into the same Aggregate a summary-only run builds chunk by
    chunk, so both kinds of run report identical figures from one piece of code.
    """
    from sim.aggregate import SUM_COLUMNS, aggregate_outcome, summarize_aggregate
    from sim.rulesets.base import DRAW, UNFINISHED, Outcome
    sk, cb, scen = result.skirmishes, result.combatants, result.scenario
    n, c, n_sides = len(sk), len(scen.combatants), len(scen.side_names)
    codes = sk["winner"].cat.codes.to_numpy().astype(np.int64)
    winner = np.where(codes == n_sides, DRAW, np.where(codes == n_sides + 1, UNFINISHED, codes))
    per = {k: cb[k].to_numpy().reshape(n, c) for k in SUM_COLUMNS}
    per["final_state"] = cb["final_state"].cat.codes.to_numpy().reshape(n, c)
    for k in getattr(scen.ruleset, "outcome_columns", None) or ():
        if k in cb.columns and k not in per and k != "down_round":
            per[k] = cb[k].to_numpy().reshape(n, c)
    outcome = Outcome(winner, sk["rounds"].to_numpy(), per)
    return summarize_aggregate(aggregate_outcome(outcome, n_sides), scen, result.meta)


def _pct(x: float) -> str:
    # One decimal, or two where one would round a rare outcome to a flat 0% or 100%.
    if 0 < x < 0.001 or 0.999 < x < 1:
        return f"{100 * x:5.2f}%"
    return f"{100 * x:5.1f}%"


def summary_text(result) -> str:
    s = result.summary()  # RunResult or a chunked run's aggregate (sim/rundir.py)
    lines = [f"{s['scenario']}  ({s['ruleset']}, {s['skirmishes']:,} skirmishes, seed {s['seed']})", ""]
    lines.append("Who wins (95% confidence interval)")
    for side, v in s["sides"].items():
        lo, hi = v["ci95"]
        lines.append(f"  {side:<24} {_pct(v['win_rate'])}   [{_pct(lo)} .. {_pct(hi)}]")
    lines.append(f"  {'draw (all fell together)':<24} {_pct(s['draw_rate'])}")
    lines.append(f"  {'unfinished':<24} {_pct(s['unfinished_rate'])}")
    r = s["rounds"]
    lines += ["", f"Fight length: mean {r['mean']:.2f} rounds, median {r['p50']:.0f}, "
                  f"90% within {r['p90']:.0f}, longest {r['max']}", ""]
    width = max(len("combatant"), *(len(c["name"]) for c in s["combatants"])) + 2
    lines.append(f"  {'combatant':<{width}}{'side':<12}{'attacks':>8}{'hits':>7}{'hit%':>7}"
                 f"{'dealt':>8}{'taken':>8}{'down%':>7}{'fled%':>7}")
    for c in s["combatants"]:
        hr = f"{100 * c['hit_rate']:.0f}" if c["hit_rate"] is not None else "-"
        lines.append(f"  {c['name']:<{width}}{c['side']:<12}{c['attacks']:>8.2f}{c['hits']:>7.2f}{hr:>7}"
                     f"{c['damage_dealt']:>8.2f}{c['damage_taken']:>8.2f}"
                     f"{100 * c['down_rate']:>7.1f}{100 * c['fled_rate']:>7.1f}")
    scen = getattr(result, "scenario", None)
    if scen is not None and s.get("ruleset_columns"):
        from sim.inert import means_lines
        lines += [""] + means_lines(scen, s["ruleset_columns"], f"{scen.ruleset.title} figures")
    if s.get("inert"):
        from sim.inert import inert_lines
        lines += [""] + inert_lines(s["inert"], s["skirmishes"])
    if s["provenance"].get("stalled_skirmishes"):
        from sim.engine import stall_message
        lines += ["", "Note: " + stall_message(s["provenance"]["stalled_skirmishes"])]
    notes = getattr(scen.ruleset, "warnings", lambda _: [])(scen) if scen is not None else []
    if notes:
        lines += [""] + [f"Note: {n}" for n in notes]
    lines += ["", "attacks, hits and damage are means per skirmish; damage counts what was rolled, "
                  "not capped at what the target had left; down = unconscious or dead at the end "
                  "(fled counted apart).",
              f"scenario hash {s['provenance']['scenario_hash']}, package {s['provenance']['package_version']}"]
    return "\n".join(lines)


def table_paths(out) -> tuple[Path, Path, Path | None, str]:
    """Where `--out X.parquet` puts the tables: (skirmishes, combatants, meta json or None, format).

    `X.parquet` itself is the skirmish table, so `pd.read_parquet("X.parquet")` reads it;
    the combatant table goes beside it as `X.combatants.parquet`. The same for `.csv`
    (plus `X.meta.json`, since CSV has no metadata); a path without either suffix gets `.parquet`.
    """
    out = Path(out)
    fmt = "csv" if out.suffix.lower() == ".csv" else "parquet"
    stem = out.with_suffix("") if out.suffix.lower() in (".csv", ".parquet") else out
    meta = stem.parent / f"{stem.name}.meta.json" if fmt == "csv" else None
    return stem.parent / f"{stem.name}.{fmt}", stem.parent / f"{stem.name}.combatants.{fmt}", meta, fmt


def write_tables(result, out) -> list[Path]:
    """Write both tables (see `table_paths`) atomically; returns the paths written."""
    sk_path, cb_path, meta_path, fmt = table_paths(out)
    for target, frame in ((sk_path, result.skirmishes), (cb_path, result.combatants)):
        atomic_write_frame(target, frame, fmt, result.meta)
    paths = [sk_path, cb_path]
    if meta_path is not None:
        import json
        paths.append(atomic_write_text(meta_path, json.dumps(result.meta, indent=2, default=str)))
    return paths
