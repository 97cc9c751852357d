"""What a day costs beside its fights played alone, and days per CPU-second.

    python benchmarks/day_cost.py                  # 100,000 days of a 4-fight G&M day
    python benchmarks/day_cost.py -n 20000 --write # and writes its section of docs/performance.md

For each shipped day file and the 4-fight Gods & Monsters day below, side by side in
one process, after a warm-up that compiles nothing into the timings: CPU-s of
`sim.day.run` (one thread) and of `sim.run` of each fight's scenario (the party in
place, the fight's own seed, the same n) one after the other. The ratio is the day's
overhead: carrying the state, the rests, the tables; the issue's budget is 1.3.
"""
from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.doc_section import replace_section  # noqa: E402

TITLE = "## The day"
REPEATS = 3
SCEN = ROOT / "scenarios" / "gods_and_monsters"


def four_fights(folder: Path) -> Path:
    """The road to Hightown with the orcs always met and the bridge ogre last: 4 fights."""
    data = yaml.safe_load((ROOT / "days/gods_and_monsters/road_to_hightown.yaml").read_text())
    data["name"] = "Four fights to Hightown"
    data["include"] = str(ROOT / "library/gods_and_monsters.yaml")
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str(SCEN / Path(step["scenario"]).name)
        step.pop("chance", None)
    data["steps"] += [{"rest": "second breather", "kind": "short"},
                      {"fight": "the bridge ogre", "scenario": str(SCEN / "ogre_vs_two_warriors.yaml"),
                       "party_side": "warriors"}]
    path = folder / "four_fights.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def measure(path: Path, n: int) -> dict:
    import sim
    import sim.day
    day = sim.day.load_day(path, days=n)
    sim.day.run(sim.day.load_day(path, days=200))  # compiles and loads outside the timings
    day_cpu = tables_cpu = alone_cpu = float("inf")
    for _ in range(REPEATS):  # interleaved, the least of each: a busy moment spoils one pair, not the ratio
        started = time.process_time()
        result = sim.day.run(day)
        day_cpu = min(day_cpu, time.process_time() - started)
        started = time.process_time()
        sim.day.run(day).members  # noqa: B018 - the tables are built when first read
        tables_cpu = min(tables_cpu, time.process_time() - started)
        started = time.process_time()
        for fight in day.fights:
            sim.run(fight.scenario, n=n, seed=fight.seed, max_rounds=fight.max_rounds)
        alone_cpu = min(alone_cpu, time.process_time() - started)
    return {"day": day.name, "fights": len(day.fights), "n": n, "day_cpu": day_cpu, "tables_cpu": tables_cpu,
            "alone_cpu": alone_cpu, "survival": float(result.summary()["survival"]["rate"])}


def section(rows: list[dict]) -> str:
    lines = [TITLE, "", f"`benchmarks/day_cost.py` on {platform.machine()}, Python {platform.python_version()}, "
             "one thread, the least of 3 interleaved repeats: a day against its fights played alone "
             "(`sim.run` of each fight's scenario with "
             "the party in place and the fight's seed, the same n), CPU seconds side by side. The day's "
             "figures (what `skirmish day` prints), and with its tables read as well (built when first read: "
             "`--out`, `--report`, `.members`).", "",
             "| day | fights | days | day CPU-s | with tables | fights alone CPU-s | ratio | with tables | "
             "days per CPU-s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['day']} | {r['fights']} | {r['n']:,} | {r['day_cpu']:.2f} | {r['tables_cpu']:.2f} | "
                     f"{r['alone_cpu']:.2f} | {r['day_cpu'] / r['alone_cpu']:.2f} | "
                     f"{r['tables_cpu'] / r['alone_cpu']:.2f} | {r['n'] / r['day_cpu']:,.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="days (and skirmishes of each fight alone)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/performance.md")
    parser.add_argument("--shipped", action="store_true", help="also every day file of days/")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = [four_fights(Path(tmp))] + (sorted((ROOT / "days").glob("*/*.yaml")) if args.shipped else [])
        rows = []
        for path in paths:
            rows.append(measure(path, args.n))
            print(section(rows[-1:]).splitlines()[-1], flush=True)
    if args.write:
        replace_section(section(rows), ROOT / "docs" / "performance.md")


if __name__ == "__main__":
    main()
