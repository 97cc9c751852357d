"""Speed of the Lifeforce kernel against the NumPy engine it replaced and the plain loop.

    python -m benchmarks.bench_lifeforce [-n 400000] [--numpy-n 20000] [--plain-n 20000]
                                         [--repeat 3] [--write] [scenario ...]

Per shipped scenario, in one process, per CPU-second of one worker (time.process_time),
compile and warm-up runs excluded: the kernel (`ruleset.play`, what a worker runs per
chunk), the same through `sim.run` (outcome tables built, as a user sees it), and the
NumPy engine (`LEGACY`, as benchmarks/agree_lifeforce.py plays it); on duel also the
plain Python loop (benchmarks/plain_loop_lifeforce.py). Kernel figures are the best of
`--repeat` runs, since the machine is shared. Prints a markdown section; --write puts it
into docs/performance.md as "## Lifeforce: compiled kernel", naming the commit.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sim  # noqa: E402
from benchmarks import plain_loop_lifeforce  # noqa: E402
from benchmarks.agree_lifeforce import play_numpy  # noqa: E402
from benchmarks.doc_section import replace_section  # noqa: E402
from benchmarks.gm_figures import ROOT, commit  # noqa: E402
from sim.scenario import load_scenario  # noqa: E402

OUT = ROOT / "docs" / "performance.md"
TITLE = "## Lifeforce: compiled kernel"
SCENARIOS = sorted((ROOT / "scenarios" / "lifeforce").glob("*.yaml"))
DUEL = ROOT / "scenarios" / "lifeforce" / "duel.yaml"
AIM_PLAIN, AIM_NUMPY = 50, 5  # issue 14: duel 50x the plain loop, every scenario 5x the NumPy engine


def per_cpu_s(fn, n: int, repeat: int = 1) -> float:
    """n / CPU seconds of fn(n), the best of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn(n)
        best = min(best, time.process_time() - t0)
    return n / best


def scenario_speeds(path: Path, n: int, numpy_n: int, repeat: int) -> dict:
    scen = load_scenario(path)
    seed, max_rounds = int(scen.run["seed"]), int(scen.run["max_rounds"])
    ruleset = scen.ruleset
    setup = ruleset.build(scen)
    ruleset.warm(setup)
    ruleset.play(setup, seed, 0, 2000, max_rounds)  # caches and pages, outside the timing
    kernel = per_cpu_s(lambda k: ruleset.play(setup, seed, 0, k, max_rounds), n, repeat)
    sim.run(path, n=2000, seed=seed + 1, jobs=1)
    run = per_cpu_s(lambda k: sim.run(path, n=k, seed=seed, jobs=1), n, 1)
    play_numpy(scen, 500, seed, max_rounds)
    numpy = per_cpu_s(lambda k: play_numpy(scen, k, seed, max_rounds), numpy_n, 1)
    return {"kernel": kernel, "run": run, "numpy": numpy}


def plain_speed(n: int) -> float:
    plain_loop_lifeforce.play(DUEL, 500, seed=1)  # warm-up, as for the kernel
    return per_cpu_s(lambda k: plain_loop_lifeforce.play(DUEL, k, seed=2026), n)


def render(rows: dict, plain: float, n: int, numpy_n: int, repeat: int) -> str:
    duel = rows["duel"]["kernel"] if "duel" in rows else float("nan")
    lines = [TITLE, "",
             f"Measured by `benchmarks/bench_lifeforce.py` at commit {commit()[:10]} (package {sim.__version__}, "
             f"{platform.platform()}): one worker, skirmishes per CPU-second, compile and warm-up excluded, "
             f"all in one process on a machine shared with other jobs. Kernel: `ruleset.play` on {n:,} "
             f"skirmishes, best of {repeat}; `sim.run`: the same with both outcome tables built; NumPy "
             f"engine: `LEGACY` on {numpy_n:,}.", "",
             "| scenario | NumPy engine /cpu-s | kernel /cpu-s | kernel / NumPy | `sim.run` /cpu-s | sim.run / NumPy |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['numpy']:,.0f} | {r['kernel']:,.0f} | {r['kernel'] / r['numpy']:.1f}x "
                     f"| {r['run']:,.0f} | {r['run'] / r['numpy']:.1f}x |")
    short = [name for name, r in rows.items() if r["kernel"] / r["numpy"] < AIM_NUMPY]
    verdict = (f"below the {AIM_NUMPY}x aim against the NumPy engine: {', '.join(short)}" if short
               else f"every scenario's kernel / NumPy meets the {AIM_NUMPY}x aim")
    lines += ["", f"duel, same process: kernel {duel:,.0f}/cpu-s, plain Python loop "
                  f"(`benchmarks/plain_loop_lifeforce.py`) {plain:,.0f}/cpu-s: kernel / plain loop = "
                  f"{duel / plain:.1f}x (aim {AIM_PLAIN}x); {verdict}."]
    return "\n".join(lines) + "\n"


def write_section(section: str, out: Path = OUT) -> None:
    replace_section(section, out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=400_000, help="skirmishes per kernel run")
    ap.add_argument("--numpy-n", type=int, default=20_000)
    ap.add_argument("--plain-n", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help=f"write the section into {OUT.relative_to(ROOT)}")
    ap.add_argument("scenarios", nargs="*", help="scenario names (default: every shipped one)")
    args = ap.parse_args(argv)
    paths = [p for p in SCENARIOS if not args.scenarios or p.stem in args.scenarios]
    rows = {}
    for p in sorted(paths, key=lambda p: p.stem != "duel"):
        rows[p.stem] = scenario_speeds(p, args.n, args.numpy_n, args.repeat)
        print(f"  {p.stem}: {rows[p.stem]}", file=sys.stderr, flush=True)
    section = render(rows, plain_speed(args.plain_n), args.n, args.numpy_n, args.repeat)
    print(section)
    if args.write:
        write_section(section)


if __name__ == "__main__":  # pragma: no cover
    main()
