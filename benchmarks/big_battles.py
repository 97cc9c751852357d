"""Big battles: how a battle's set-up and rounds grow with the combatants per side.

    python benchmarks/big_battles.py                        # every ruleset, 10 50 100 300 a side
    python benchmarks/big_battles.py lifeforce --sizes 10 25 50 --timeout 600
    python benchmarks/big_battles.py --write                # and writes its section of docs/performance.md

A k-a-side battle is a shipped scenario with each side's first combatant copied k times
(`battle`): Lifeforce's sword duel (`battlefield: {start_distance: 6}`, issue 32), the
Gods & Monsters Yeti (Sam Stevens against the Yeti) and the Lens greatsword against the
dagger. Each size runs in a fresh child process: `ruleset.build` (CPU-s), then `play` of
-n skirmishes of at most --max-rounds rounds (wall and CPU s; CPU-ms per round played and
micro-seconds per combatant-round, the figure that stays flat where a round is linear in
its combatants), and the child's peak RSS (resource.getrusage). A first child per
ruleset plays a 2-a-side battle so that no row includes a compile, and each child plays
one round of one before it measures, so that no row includes the kernels' load. A child that passes
--timeout or fails is reported as such, with the end of its stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.doc_section import replace_section  # noqa: E402

TITLE = "## Big battles"
BASES = {"lifeforce": "scenarios/lifeforce/duel.yaml",
         "gods_and_monsters": "scenarios/gods_and_monsters/yeti.yaml",
         "lens": "scenarios/lens/greatsword_vs_dagger.yaml"}
SIZES = (10, 50, 100, 300)


def battle(path: str | Path, k: int, **policy) -> dict:
    """The scenario at `path` with each side's first combatant copied k times (names
    numbered), `policy` merged into each side's policy."""
    import yaml
    d = yaml.safe_load(Path(ROOT, path).read_text(encoding="utf-8"))
    for side in d["sides"].values():
        first = side["combatants"][0]
        side["combatants"] = [dict(first, name=f"{first['name']} {i}") for i in range(k)]
        if policy:
            side["policy"] = dict(side.get("policy") or {}, **policy)
    return d


CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from benchmarks.big_battles import battle
import sim
path, k, n, max_rounds = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
# The kernels' load from the compile cache and first calls, out of the figures.
small = sim.load_scenario(battle(path, 2))
small.ruleset.play(small.ruleset.build(small), 7, 0, 1, 1)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
scen = sim.load_scenario(battle(path, k))
c0 = time.process_time()
setup = scen.ruleset.build(scen)
c1, w1 = time.process_time(), time.perf_counter()
out = scen.ruleset.play(setup, 7, 0, n, max_rounds)
c2, w2 = time.process_time(), time.perf_counter()
print(json.dumps({"build_s": c1 - c0, "play_wall_s": w2 - w1, "play_cpu_s": c2 - c1,
                  "rounds": int(out.rounds.sum()), "combatants": len(scen.combatants), "rss0_mb": rss0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(ruleset: str, k: int, n: int, max_rounds: int, timeout: float) -> dict:
    args = [sys.executable, "-c", CHILD, str(ROOT), BASES[ruleset], str(k), str(n), str(max_rounds)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"still running after {timeout:.0f} s"}
    if p.returncode:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"failed after {time.perf_counter() - t0:.0f} s: {last[:160]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def row(ruleset: str, k: int, m: dict) -> str:
    if "error" in m:
        return f"| {ruleset} | {k} | {m['error']} | | | | | | | |"
    per_round = m["play_cpu_s"] / max(m["rounds"], 1)
    per_combatant = per_round / m["combatants"]
    return (f"| {ruleset} | {k} | {m['build_s']:.2f} | {m['play_wall_s']:.2f} | {m['play_cpu_s']:.2f} | "
            f"{m['rounds']} | {per_round * 1e3:.2f} | {per_combatant * 1e6:.1f} | {m['rss0_mb']:.0f} | "
            f"{m['rss_mb']:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # No `choices`: argparse checks a nargs="*" default list against them as one value.
    ap.add_argument("rulesets", nargs="*", default=list(BASES), help=", ".join(BASES))
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="combatants per side")
    ap.add_argument("-n", type=int, default=2, help="skirmishes per battle")
    ap.add_argument("--max-rounds", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=300, help="seconds a child may take")
    ap.add_argument("--write", action="store_true", help="replace this section of docs/performance.md")
    a = ap.parse_args()
    unknown = set(a.rulesets) - set(BASES)
    if unknown:
        ap.error(f"unknown ruleset {', '.join(sorted(unknown))}; choose from {', '.join(BASES)}")
    lines = [TITLE, "",
             f"Measured by `benchmarks/big_battles.py` on {platform.platform()}, {os.cpu_count()} cores, "
             f"warm compile cache: each side's first combatant copied k times, one fresh process a row, "
             f"-n {a.n} --max-rounds {a.max_rounds}. Build is `ruleset.build` (CPU-s); play is the "
             "kernel's wall and CPU; per round and per combatant-round are play CPU over the rounds "
             "played (summed over the skirmishes); RSS before is the process's peak with the kernels "
             "loaded, before the battle's build, peak RSS its peak at the end.", "",
             "| ruleset | a side | build CPU-s | play wall s | play CPU-s | rounds | CPU-ms a round "
             "| us a combatant-round | RSS before MB | peak RSS MB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for ruleset in a.rulesets:
        warm = measure(ruleset, 2, 1, 2, timeout=900)
        if "error" in warm:
            raise SystemExit(f"{ruleset}: the warm-up battle {warm['error']}")
        for k in a.sizes:
            lines.append(row(ruleset, k, measure(ruleset, k, a.n, a.max_rounds, a.timeout)))
            print(lines[-1], flush=True)
    section = "\n".join(lines) + "\n"
    print(section)
    if a.write:
        replace_section(section, ROOT / "docs" / "performance.md")


if __name__ == "__main__":
    main()
