"""Cold compile cost of each compiled ruleset: CPU-seconds, wall seconds and peak memory
of one fresh process that compiles it with an empty cache.

    python benchmarks/compile_cost.py [gods_and_monsters lens lifeforce] [--all] [--keep]

Per ruleset, a child process does what tests/conftest.py does to warm a ruleset (load
its warm-up scenarios, `sim.runner.warm`, a 50-skirmish `sim.run`) with
SKIRMISH_CACHE_DIR set to a fresh empty folder. --all also compiles every shipped
scenario of the ruleset in a second fresh child: the tests reach kernel paths the
warm-up scenarios do not. Run one at a time on an otherwise idle core: a second job on
the same core inflates wall time, and two compiles at once both read high.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM = {
    "gods_and_monsters": ["scenarios/gods_and_monsters/yeti.yaml",
                          "scenarios/gods_and_monsters/goblin_ambush.yaml"],
    "lens": ["scenarios/lens/novice_party_vs_brute.yaml"],
    "lifeforce": ["scenarios/lifeforce/duel.yaml"],
}
CHILD = """
import sys, sim, sim.runner
for path in sys.argv[1:]:
    scen = sim.load_scenario(path)
    sim.runner.warm(scen)
    sim.run(scen, n=50)
"""


def measure(paths: list[str], keep: bool = False) -> dict:
    """CPU-s (user + sys), wall s and peak RSS (MB) of one cold child compiling `paths`."""
    cache = tempfile.mkdtemp(prefix="cc-")
    env = dict(os.environ, SKIRMISH_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *paths], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # wait4, not RUSAGE_CHILDREN: the latter sums every child so far, and its maxrss is
    # the largest of them, not this one's.
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if not keep:
        shutil.rmtree(cache, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"compile failed for {paths}:\n{err[-4000:]}")
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall,
            "rss_mb": usage.ru_maxrss / 1024, "cache": cache if keep else None}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", metavar="RULESET",
                    help=f"any of {', '.join(WARM)} (default: all three)")
    ap.add_argument("--all", action="store_true",
                    help="also compile every shipped scenario of the ruleset (a second child)")
    ap.add_argument("--only-all", action="store_true",
                    help="compile every shipped scenario only (skip the warm-up figure)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the cache folders (printed) to run tests against them warm")
    args = ap.parse_args(argv)
    unknown = set(args.rulesets) - set(WARM)
    if unknown:
        ap.error(f"unknown ruleset(s): {', '.join(sorted(unknown))}")
    print("| ruleset | what | CPU-s | wall s | peak RSS MB |")
    print("|---|---|---:|---:|---:|")
    for name in args.rulesets or list(WARM):
        runs = [] if args.only_all else [("warm-up", WARM[name])]
        if args.all or args.only_all:
            runs.append(("all scenarios",
                         sorted(str(p.relative_to(ROOT)) for p in (ROOT / "scenarios" / name).glob("*.yaml"))))
        for what, paths in runs:
            r = measure(paths, keep=args.keep)
            extra = f" (cache {r['cache']})" if r["cache"] else ""
            print(f"| {name} | {what} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} | {r['rss_mb']:.0f} |{extra}",
                  flush=True)


if __name__ == "__main__":
    main()
