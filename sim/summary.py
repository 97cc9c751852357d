"""From outcome tables to the figures a designer reads: rates with intervals, means."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.io import atomic_write_frame, atomic_write_text
from sim.stats import wilson


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else float("nan"), "ci95": [float(lo), float(hi)]}


def summarize(result) -> dict:
    sk, cb, scen = result.skirmishes, result.combatants, result.scenario
    n = len(sk)
    counts = sk["winner"].value_counts()
    sides = {}
    for side in scen.side_names:
        r = _rate(int(counts.get(side, 0)), n)
        sides[side] = {"win_rate": r["rate"], "ci95": r["ci95"]}
    draws = _rate(int(counts.get("draw", 0)), n)
    unfinished = _rate(int(counts.get("unfinished", 0)), n)
    rounds = sk["rounds"].to_numpy()
    # Category codes and bincount: a crosstab over millions of rows costs seconds.
    who = cb["combatant"].cat.codes.to_numpy().astype(np.int64)
    n_comb = len(cb["combatant"].cat.categories)
    sums = {k: np.bincount(who, weights=cb[k].to_numpy(dtype=float), minlength=n_comb)
            for k in ("attacks", "hits", "damage_dealt", "damage_taken")}
    state_names = list(cb["final_state"].cat.categories)
    by_state = np.bincount(who * len(state_names) + cb["final_state"].cat.codes.to_numpy(),
                           minlength=n_comb * len(state_names)).reshape(n_comb, len(state_names))
    combatants = []
    for i, c in enumerate(scen.combatants):
        row = {k: v[i] / n if n else float("nan") for k, v in sums.items()}
        states = dict(zip(state_names, by_state[i].tolist()))
        down = int(n - states.get("standing", 0))
        combatants.append({
            "name": c.name,
            "side": scen.side_names[c.side],
            "attacks": float(row["attacks"]),
            "hits": float(row["hits"]),
            "hit_rate": float(row["hits"] / row["attacks"]) if row["attacks"] > 0 else None,
            "damage_dealt": float(row["damage_dealt"]),
            "damage_taken": float(row["damage_taken"]),
            "down_rate": down / n if n else float("nan"),
            "down_ci95": _rate(down, n)["ci95"],
            "fallen_rate": (int(states.get("unconscious", 0)) + int(states.get("dead", 0))) / n if n else float("nan"),
            "dead_rate": int(states.get("dead", 0)) / n if n else float("nan"),
            "fled_rate": int(states.get("fled", 0)) / n if n else float("nan"),
        })
    return {
        "scenario": scen.name,
        "ruleset": scen.ruleset_name,
        "skirmishes": n,
        "seed": result.meta.get("seed"),
        "sides": sides,
        "draw_rate": draws["rate"],
        "draw_ci95": draws["ci95"],
        "unfinished_rate": unfinished["rate"],
        "unfinished_ci95": unfinished["ci95"],
        "rounds": {
            "mean": float(rounds.mean()) if n else float("nan"),
            "p50": float(np.percentile(rounds, 50)) if n else float("nan"),
            "p90": float(np.percentile(rounds, 90)) if n else float("nan"),
            "max": int(rounds.max()) if n else 0,
        },
        "combatants": combatants,
        "provenance": result.meta,
    }


def _pct(x: float) -> str:
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
                 f"{'dealt':>8}{'taken':>8}{'fallen%':>9}{'fled%':>7}")
    for c in s["combatants"]:
        hr = f"{100 * c['hit_rate']:.0f}" if c["hit_rate"] is not None else "-"
        lines.append(f"  {c['name']:<{width}}{c['side']:<12}{c['attacks']:>8.2f}{c['hits']:>7.2f}{hr:>7}"
                     f"{c['damage_dealt']:>8.2f}{c['damage_taken']:>8.2f}"
                     f"{100 * c['fallen_rate']:>9.1f}{100 * c['fled_rate']:>7.1f}")
    if s["provenance"].get("stalled_skirmishes"):
        from sim.engine import stall_message
        lines += ["", "Note: " + stall_message(s["provenance"]["stalled_skirmishes"])]
    lines += ["", "attacks, hits and damage are means per skirmish; damage counts what was rolled, "
                  "not capped at what the target had left; fallen = unconscious or dead at the end.",
              f"scenario hash {s['provenance']['scenario_hash']}, package {s['provenance']['package_version']}"]
    return "\n".join(lines)


def write_tables(result, out) -> list[Path]:
    """Write both tables: `X.parquet` -> X.skirmishes.parquet and X.combatants.parquet."""
    out = Path(out)
    fmt = "csv" if out.suffix.lower() == ".csv" else "parquet"
    stem = out.with_suffix("") if out.suffix.lower() in (".csv", ".parquet") else out
    paths = []
    for name, frame in (("skirmishes", result.skirmishes), ("combatants", result.combatants)):
        target = stem.parent / f"{stem.name}.{name}.{fmt}"
        atomic_write_frame(target, frame, fmt, result.meta)
        paths.append(target)
    if fmt == "csv":
        import json
        paths.append(atomic_write_text(stem.parent / f"{stem.name}.meta.json",
                                       json.dumps(result.meta, indent=2, default=str)))
    return paths
