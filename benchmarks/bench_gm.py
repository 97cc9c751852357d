"""Speed of the current G&M engine against the recorded baseline of the engine before the
compiled kernel (benchmarks/baselines/gods_and_monsters.json).

    python benchmarks/bench_gm.py [-n 100000] [--plain-n 30000] [--write] [--no-memory]

Per shipped scenario: skirmishes per CPU-second of one worker (time.process_time, a
warm-up run excluded, as the baseline was measured) and the ratio to the baseline; for
the Yeti also the plain Python loop (benchmarks/plain_loop_gm.py) in the same process,
against the kernel alone (`ruleset.play`) and against `sim.run`;
the analysis commands' times before and after; and the peak memory (ru_maxrss) of a
subprocess playing 10,000,000 Yetis summary-only (sim.run_summary). Prints a markdown
section; --write puts it into docs/performance.md as the section "Gods & Monsters:
compiled kernel" (kept below "## History", which benchmarks/bench.py leaves alone).
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from benchmarks import plain_loop_gm  # noqa: E402
from benchmarks.doc_section import replace_section  # noqa: E402
from benchmarks.gm_figures import (  # noqa: E402
    BASELINE, ROOT, SCENARIOS, WARMUP_N, YETI, analysis_times, commit, speed)
from sim.scenario import load_scenario  # noqa: E402

OUT = ROOT / "docs" / "performance.md"
TITLE = "## Gods & Monsters: compiled kernel"
MEMORY_N = 10_000_000
MEMORY_LIMIT_MB = 1024
MEMORY_SCRIPT = f"""
import resource, sys
sys.path.insert(0, {str(ROOT)!r})
import sim
s = sim.run_summary({YETI!r}, n={MEMORY_N}, jobs=1).summary()
assert s["skirmishes"] == {MEMORY_N}
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def engine_speeds(base: dict, n: int) -> list[tuple[str, float, float]]:
    """(scenario, skirmishes per CPU-second now, before)."""
    rows = []
    for path in SCENARIOS:
        seed = int(load_scenario(path).run["seed"])
        # Best of three, as for the kernel: a single run on the shared machine once read an
        # ogre_vs_two_warriors at 771k against 1.15M in the runs around it.
        now = max(speed(path, n, seed)[0] for _ in range(3))
        before = base["scenarios"].get(path.stem, {}).get("skirmishes_per_cpu_s", float("nan"))
        rows.append((path.stem, now, before))
        print(f"  {path.stem}: {now:,.0f}/cpu-s", file=sys.stderr, flush=True)
    return rows


def kernel_speed(path, n: int, repeat: int = 3) -> float:
    """The Yeti's kernel alone (`ruleset.play`, what a worker runs per chunk, no outcome
    tables), best of `repeat` since the machine is shared: the like of the plain loop,
    which keeps tallies and builds no tables either."""
    scen = load_scenario(path)
    seed, max_rounds = int(scen.run["seed"]), int(scen.run["max_rounds"])
    setup = scen.ruleset.build(scen)
    scen.ruleset.play(setup, seed, 0, WARMUP_N, max_rounds)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        scen.ruleset.play(setup, seed, 0, n, max_rounds)
        best = min(best, time.process_time() - t0)
    return n / best


def plain_speed(n: int) -> float:
    plain_loop_gm.play(YETI, 500, seed=1)  # warm-up, as for the engine
    t0 = time.process_time()
    plain_loop_gm.play(YETI, n, seed=2026)
    return n / (time.process_time() - t0)


def peak_memory_mb() -> float:
    """ru_maxrss (KiB on Linux) of a fresh interpreter playing MEMORY_N Yetis summary-only."""
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def render(speeds, yeti_plain: float, yeti_kernel: float, before_a: dict, after_a: dict,
           memory_mb: float | None) -> str:
    lines = [TITLE, "",
             f"Measured by `benchmarks/bench_gm.py` at commit {commit()[:10]} (package {sim.__version__}, "
             f"{platform.platform()}), against `benchmarks/baselines/gods_and_monsters.json` (the engine "
             "before the kernel). One worker, skirmishes per CPU-second after a warm-up run (the best "
             "of three `sim.run`s of each scenario; the baseline was one run of the old engine).", "",
             "| scenario | before /cpu-s | now /cpu-s | now / before |", "|---|---:|---:|---:|"]
    for name, now, before in speeds:
        lines.append(f"| {name} | {before:,.0f} | {now:,.0f} | {now / before:.2f}x |")
    yeti_now = next(now for name, now, _ in speeds if name == "yeti")
    lines += ["", f"Yeti, same process, against the plain Python loop ({yeti_plain:,.0f}/cpu-s): the kernel "
                  f"(`ruleset.play`, what a worker runs per chunk, best of 3) {yeti_kernel:,.0f}/cpu-s = "
                  f"**{yeti_kernel / yeti_plain:.1f}x**; `sim.run` with both outcome tables built "
                  f"{yeti_now:,.0f}/cpu-s = {yeti_now / yeti_plain:.1f}x.", "",
              "| analysis (one worker) | before CPU s | now CPU s | now / before |", "|---|---:|---:|---:|"]
    for name, now in after_a.items():
        old = before_a.get(name, {}).get("cpu_s", float("nan"))
        lines.append(f"| {name} | {old:.2f} | {now['cpu_s']:.2f} | {now['cpu_s'] / old:.2f}x |")
    if memory_mb is not None:
        verdict = "within" if memory_mb < MEMORY_LIMIT_MB else "OVER"
        lines += ["", f"Peak memory of {MEMORY_N:,} Yetis summary-only (`sim.run_summary`, one worker, "
                      f"ru_maxrss of the process): {memory_mb:,.0f} MB, {verdict} the {MEMORY_LIMIT_MB:,} MB aim."]
    return "\n".join(lines) + "\n"


def write_section(section: str, out: Path = OUT) -> None:
    replace_section(section, out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100_000, help="skirmishes per scenario (the baseline's n)")
    ap.add_argument("--plain-n", type=int, default=30_000)
    ap.add_argument("--write", action="store_true", help=f"write the section into {OUT.relative_to(ROOT)}")
    ap.add_argument("--no-memory", action="store_true", help="skip the 10,000,000-Yeti memory run")
    args = ap.parse_args(argv)
    base = json.loads(BASELINE.read_text())
    speeds = engine_speeds(base, args.n)
    section = render(speeds, plain_speed(args.plain_n), kernel_speed(YETI, args.n), base.get("analysis", {}),
                     analysis_times(),
                     None if args.no_memory else peak_memory_mb())
    print(section)
    if args.write:
        write_section(section)


if __name__ == "__main__":
    main()
