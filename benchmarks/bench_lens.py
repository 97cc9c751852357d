"""Speed of the compiled Lens kernel against the old NumPy engine and the plain Python loop.

    python -m benchmarks.bench_lens [-n 20000] [--plain-n 3000] [--repeat 3] [--write]

Per shipped scenario, in one process and one worker: skirmishes per CPU-second
(time.process_time) of the NumPy engine (sim.engine.run_chunk, the engine before the
port) and of the kernel (sim.rulesets.lens.play.play, one chunk), each after a warm-up
run that compiles and fills caches; the kernel's figure is the best of --repeat runs (the
machine is shared, and a neighbour's job only ever slows a run down). For
novice_party_vs_brute also the plain loop (benchmarks/plain_loop_lens.py), and the
Philox evaluations a skirmish draws. Prints a markdown section; --write puts it into
docs/performance.md as the section "The Lens: compiled kernel".
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from benchmarks import bench_gm, plain_loop_lens  # noqa: E402
from benchmarks.doc_section import replace_section  # noqa: E402
from benchmarks.floor import philox_per_skirmish  # noqa: E402
from benchmarks.gm_figures import ROOT, commit  # noqa: E402
from sim.engine import run_chunk  # noqa: E402
from sim.rulesets.lens import play as KP  # noqa: E402
from sim.runner import chunk_rng  # noqa: E402
from sim.scenario import load_scenario  # noqa: E402

SCENARIOS = sorted((ROOT / "scenarios" / "lens").glob("*.yaml"))
HEADLINE = "novice_party_vs_brute"
TITLE = "## The Lens: compiled kernel"
AIM_PLAIN, AIM_NUMPY = 50, 5
WARMUP_N = 500


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def scenario_speeds(path: Path, n: int, repeat: int) -> tuple[float, float]:
    """(NumPy engine, kernel) skirmishes per CPU-second on one scenario."""
    scen = load_scenario(path)
    rs, mr, seed = scen.ruleset, scen.run["max_rounds"], int(scen.run["seed"])
    old_setup, new_setup = rs.build(scen), rs.build(scen)
    run_chunk(rs, old_setup, chunk_rng(seed, 1), WARMUP_N, mr)
    old = n / _cpu(lambda: run_chunk(rs, old_setup, chunk_rng(seed, 0), n, mr))
    KP.play(new_setup, seed, 0, WARMUP_N, mr)
    new = max(n / _cpu(lambda: KP.play(new_setup, seed, 0, n, mr)) for _ in range(repeat))
    return old, new


def plain_speed(n: int) -> float:
    path = ROOT / "scenarios" / "lens" / f"{HEADLINE}.yaml"
    plain_loop_lens.play(path, 200, seed=1)
    return n / _cpu(lambda: plain_loop_lens.play(path, n, seed=2026))


def write_section(section: str, out: Path = bench_gm.OUT) -> None:
    replace_section(section, out)


def render(rows, plain: float, philox: float, compile_s: float | None) -> str:
    lines = [TITLE, "",
             f"Measured by `benchmarks/bench_lens.py` at commit {commit()[:10]} (package {sim.__version__}, "
             f"{platform.platform()}): one worker, skirmishes per CPU-second after a warm-up run, the NumPy "
             "engine (the engine before the port, `sim/rulesets/lens/engine.py`) and the kernel side by side in "
             "one process, on a machine shared with other jobs (the kernel's figure is its best of a few runs).",
             "", "| scenario | NumPy engine /cpu-s | kernel /cpu-s | kernel / NumPy |", "|---|---:|---:|---:|"]
    for name, old, new in rows:
        lines.append(f"| {name} | {old:,.0f} | {new:,.0f} | {new / old:.1f}x |")
    head = next(new for name, _, new in rows if name == HEADLINE)
    worst = min(new / old for _, old, new in rows)
    lines += ["", f"The plain loop (`benchmarks/plain_loop_lens.py`, the fixed rules) plays {plain:,.0f} "
                  f"{HEADLINE} skirmishes per CPU-second in the same process: the kernel is "
                  f"{head / plain:.0f}x it (aim {AIM_PLAIN}x); the smallest kernel / NumPy ratio is {worst:.1f}x "
                  f"(aim {AIM_NUMPY}x). A {HEADLINE} skirmish draws {philox:.0f} Philox evaluations."]
    if compile_s is not None:
        lines += ["", f"A cold compile of the kernel took {compile_s:.0f} CPU-seconds."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20_000, help="skirmishes per timed run")
    ap.add_argument("--plain-n", type=int, default=3_000)
    ap.add_argument("--repeat", type=int, default=3, help="timed kernel runs per scenario (the best counts)")
    ap.add_argument("--compile-seconds", type=float, default=None, help="a measured cold compile to record")
    ap.add_argument("--only", default=None, help="one scenario's name (a quick look; not for --write)")
    ap.add_argument("--write", action="store_true", help="write the section into docs/performance.md")
    args = ap.parse_args(argv)
    rows = []
    for path in SCENARIOS:
        if args.only and path.stem != args.only:
            continue
        old, new = scenario_speeds(path, args.n, args.repeat)
        rows.append((path.stem, old, new))
        print(f"  {path.stem}: NumPy {old:,.0f}/cpu-s, kernel {new:,.0f}/cpu-s, x{new / old:.1f}",
              file=sys.stderr, flush=True)
    if args.only and args.only != HEADLINE:
        return
    headline = ROOT / "scenarios" / "lens" / f"{HEADLINE}.yaml"
    section = render(rows, plain_speed(args.plain_n), philox_per_skirmish(headline, seed=1),
                     args.compile_seconds)
    print(section)
    if args.write:
        write_section(section)


if __name__ == "__main__":
    main()
