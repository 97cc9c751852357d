"""Throughput of the batch engine, one shipped scenario per ruleset, beside a plain Python loop.

    python benchmarks/bench.py                      # all three, 1,000,000 skirmishes, writes docs/performance.md
    python benchmarks/bench.py --only lens -n 200000 --plain-n 20000 --no-write

For each ruleset: `sim.run` with 1 and 2 workers (wall clock as a user sees it, worker
start-up and both outcome tables included, best of `--repeat`), the plain per-skirmish
loop of the same rules (benchmarks/plain_loop_*.py), a check that the two agree within
sampling error, the cost floor set by the machine's random-number throughput, and
memory per skirmish. Figures go to docs/performance.md with the machine they were
measured on; the hand-written "## History" section of that file is kept.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sim  # noqa: E402
from benchmarks.floor import ns_per_philox, numbers_needed, philox_per_skirmish  # noqa: E402
from benchmarks.report import Measured, write_performance  # noqa: E402
from sim.runner import CHUNK_SIZE  # noqa: E402
from sim.scenario import load_scenario  # noqa: E402

OUT = ROOT / "docs" / "performance.md"


@dataclass(frozen=True)
class Bench:
    ruleset: str
    scenario: str
    plain: str  # module of benchmarks/ with play(path, n, seed)
    about: str


BENCHES = [
    Bench("gods_and_monsters", "scenarios/gods_and_monsters/yeti.yaml", "benchmarks.plain_loop_gm",
          "three adventurers against a Yeti with two claws and a morale rule"),
    Bench("lens", "scenarios/lens/novice_party_vs_brute.yaml", "benchmarks.plain_loop_lens",
          "three Novices against an ogre swinging a CRUSHING club and a HEAVY smash"),
    Bench("lifeforce", "scenarios/lifeforce/duel.yaml", "benchmarks.plain_loop_lifeforce",
          "two equal swordsmen walk up from 6 m and trade Weapon Attacks"),
]


def time_engine(path: Path, n: int, jobs: int, seed: int, repeat: int):
    """Best wall-clock time, the CPU time of this process in that repeat (meaningful for
    one worker: contention from other programs does not inflate it) and the result."""
    best, cpu, result = float("inf"), float("nan"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = sim.run(path, n=n, seed=seed, jobs=jobs)
        wall, used = time.perf_counter() - t0, time.process_time() - c0
        if wall < best:
            best, cpu = wall, used
    return best, cpu, result


def time_summary_only(path: Path, n: int, jobs: int, seed: int, repeat: int) -> float:
    """Best wall-clock time of a summary-only run (`skirmish run --summary-only`): workers
    fold their chunks into counts and histograms, no outcome tables are built."""
    from sim.rundir import run_summary
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run_summary(path, n=n, seed=seed, jobs=jobs)
        best = min(best, time.perf_counter() - t0)
    return best


def engine_counts(result) -> dict:
    """The engine's outcome tables in the shape plain loops return."""
    sk, cb = result.skirmishes, result.combatants
    states = cb.groupby("combatant", observed=True)["final_state"].value_counts().unstack(fill_value=0)
    return {
        "n": len(sk),
        "wins": {str(k): int(v) for k, v in sk["winner"].value_counts().items()},
        "mean_rounds": float(sk["rounds"].mean()),
        "rounds_sd": float(sk["rounds"].std()),
        "states": {str(name): {str(s): int(v) for s, v in row.items()} for name, row in states.iterrows()},
    }


def agreement(e: dict, p: dict) -> list[tuple[str, float, float, float]]:
    """(figure, engine, plain, z): every side's win rate, every combatant's down and fled
    rates, and mean rounds, with z the difference over its standard error."""
    pairs = [(side if side in ("draw", "unfinished") else f"{side} wins",
              e["wins"].get(side, 0), p["wins"].get(side, 0))
             for side in sorted(set(e["wins"]) | set(p["wins"]))]
    for name in e["states"]:
        es, ps = e["states"][name], p["states"].get(name, {})
        pairs.append((f"{name} down", e["n"] - es.get("standing", 0), p["n"] - ps.get("standing", 0)))
        if es.get("fled", 0) or ps.get("fled", 0):
            pairs.append((f"{name} flees", es.get("fled", 0), ps.get("fled", 0)))
    rows = []
    for what, k_e, k_p in pairs:
        pooled = (k_e + k_p) / (e["n"] + p["n"])
        if pooled in (0.0, 1.0):
            continue  # no variation: nothing to compare
        se = np.sqrt(pooled * (1 - pooled) * (1 / e["n"] + 1 / p["n"]))
        a, b = k_e / e["n"], k_p / p["n"]
        rows.append((what + " (rate)", a, b, (a - b) / se))
    se = e["rounds_sd"] * np.sqrt(1 / e["n"] + 1 / p["n"])
    rows.append(("mean rounds", e["mean_rounds"], p["mean_rounds"], (e["mean_rounds"] - p["mean_rounds"]) / se))
    return rows


def memory_per_skirmish(path: Path, n: int, result) -> dict:
    """Three readings, per skirmish: the batch's working memory (tracemalloc peak over one
    chunk: what a summary-only run holds per worker), the outcome tables (pandas bytes)
    and the peak of everything a one-worker run of `n` allocates, tables included."""
    from sim import runner
    scen = load_scenario(path)
    data_json = json.dumps(scen.data, default=str)
    chunk = runner.CHUNK_SIZE
    runner.play_chunk(data_json, scen.source, 0, 256, 1, scen.run["max_rounds"])
    tracemalloc.start()
    runner.play_chunk(data_json, scen.source, 0, chunk, 1, scen.run["max_rounds"])
    _, batch_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    sim.run(path, n=n, seed=1, jobs=1)
    _, run_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tables = (result.skirmishes.memory_usage(deep=True).sum()
              + result.combatants.memory_usage(deep=True).sum()) / len(result.skirmishes)
    return {"batch": batch_peak / chunk, "tables": float(tables), "run": run_peak / n, "run_n": n}


def measure(bench: Bench, args, floor_ns: dict) -> Measured:
    path = ROOT / bench.scenario
    plain_module = importlib.import_module(bench.plain)
    time_engine(path, 1000, 1, args.seed, 1)  # imports and caches out of the way
    t1, c1, res1 = time_engine(path, args.n, 1, args.seed, args.repeat)
    print(f"[{bench.ruleset}] engine, 1 worker: {args.n / t1:,.0f} /s ({t1:.2f} s, {c1:.2f} CPU s)", flush=True)
    # Start the workers (two chunks, or joblib is never asked): later runs reuse them.
    time_engine(path, CHUNK_SIZE + 1, 2, args.seed, 1)
    t2, _, _ = time_engine(path, args.n, 2, args.seed, args.repeat)
    print(f"[{bench.ruleset}] engine, 2 workers: {args.n / t2:,.0f} /s ({t2:.2f} s)", flush=True)
    ts = time_summary_only(path, args.n, 2, args.seed, args.repeat)
    print(f"[{bench.ruleset}] engine, 2 workers, summary only: {args.n / ts:,.0f} /s ({ts:.2f} s)", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    plain = plain_module.play(path, args.plain_n, seed=args.seed)
    tp, cp = time.perf_counter() - t0, time.process_time() - c0
    print(f"[{bench.ruleset}] plain loop: {args.plain_n / tp:,.0f} /s ({tp:.2f} s, {cp:.2f} CPU s)", flush=True)
    engine = engine_counts(res1)
    rows = agreement(engine, plain)
    for what, a, b, z in rows:
        print(f"    {what}: engine {a:.5f}, plain {b:.5f}, z {z:+.2f}")
    philox = philox_per_skirmish(path, args.seed)
    needed = numbers_needed(plain_module, path, min(args.plain_n, 20_000), args.seed)
    memory = memory_per_skirmish(path, min(args.n, args.memory_n), res1)
    print(f"[{bench.ruleset}] Philox evaluations/skirmish {philox:.1f} (the rules need {needed:.1f} numbers), "
          f"floor {1e9 / (philox * floor_ns['independent']):,.0f} /s, memory {memory}", flush=True)
    return Measured(bench=bench, n=args.n, plain_n=args.plain_n, wall_1=t1, cpu_1=c1, wall_2=t2, wall_summary_2=ts,
                    wall_plain=tp, cpu_plain=cp, mean_rounds=engine["mean_rounds"], agreement=rows,
                    philox=philox, needed=needed, memory=memory)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1_000_000, help="engine skirmishes per run")
    ap.add_argument("--plain-n", type=int, default=None,
                    help="plain-loop skirmishes (default: the same as -n)")
    ap.add_argument("--memory-n", type=int, default=250_000,
                    help="skirmishes of the run whose peak allocation is read (tracemalloc)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", action="append", choices=[b.ruleset for b in BENCHES],
                    help="benchmark only this ruleset (repeatable); --only never writes the page")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", type=Path, default=None,
                    help=f"page to write (default {OUT.relative_to(ROOT)}, which only a run of all three writes)")
    args = ap.parse_args(argv)
    args.plain_n = args.plain_n or args.n

    load_at_start = os.getloadavg()
    floor_ns = ns_per_philox()
    print(f"Philox evaluations: {', '.join(f'{k} {v:.2f} ns' for k, v in floor_ns.items())}", flush=True)
    results = [measure(b, args, floor_ns) for b in BENCHES if not args.only or b.ruleset in args.only]
    out = args.out or (None if args.only else OUT)
    if out and not args.no_write:
        write_performance(out, results, floor_ns, load_at_start)
        print(f"wrote {out}")
    return 0 if all(abs(z) < 4 for m in results for *_, z in m.agreement) else 1


if __name__ == "__main__":
    sys.exit(main())
