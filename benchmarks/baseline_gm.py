"""Record today's G&M engine: every shipped scenario's figures with standard errors at the
file's seed, its speed, and the analysis commands' times, into
benchmarks/baselines/gods_and_monsters.json. The compiled engine is checked against
this file (benchmarks/agreement.py, benchmarks/bench_gm.py), so it is written once,
before the engine changes, and not again.

    python benchmarks/baseline_gm.py [-n 100000] [--out PATH]
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from benchmarks.gm_figures import ANALYSIS_N, BASELINE, SCENARIOS, WARMUP_N, analysis_times, commit, figures, speed  # noqa: E402
from sim.scenario import load_scenario  # noqa: E402


def measure(path: Path, n: int) -> dict:
    seed = int(load_scenario(path).run["seed"])
    per_s, result = speed(path, n, seed)
    return {"seed": seed, "n": n, "skirmishes_per_cpu_s": per_s, "figures": figures(result)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100_000)
    ap.add_argument("--out", type=Path, default=BASELINE)
    args = ap.parse_args(argv)
    doc = {"commit": commit(), "package_version": sim.__version__, "machine": platform.platform(),
           "python": platform.python_version(), "n": args.n, "warmup_n": WARMUP_N, "analysis_n": ANALYSIS_N,
           "timing": "time.process_time() of sim.run(jobs=1) after a warm-up run", "scenarios": {}}
    for path in SCENARIOS:
        doc["scenarios"][path.stem] = measure(path, args.n)
        print(f"{path.stem}: {doc['scenarios'][path.stem]['skirmishes_per_cpu_s']:,.0f}/cpu-s", flush=True)
    doc["analysis"] = analysis_times()
    print(json.dumps(doc["analysis"], indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
