"""What a designer gets from the command line: each command in a fresh process, warm cache.

    python benchmarks/cli_fresh.py                 # prints the table
    python benchmarks/cli_fresh.py --write         # and writes its section of docs/performance.md
    python benchmarks/cli_fresh.py --repeat 5 --only run

Every command is a new `skirmish` process (imports, the kernel loaded from the compile
cache, the run, the summary printed), timed by wall clock and by the user + sys CPU of
the process and its children (worker processes included). The variants of one row are
run alternately, repeat after repeat, so a busy moment of the machine hits them alike;
each figure is the best of the repeats. The compile cache must be warm (run anything
first): a cold compile is `benchmarks/compile_cost.py`'s figure.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.doc_section import replace_section  # noqa: E402

YETI = "scenarios/gods_and_monsters/yeti.yaml"
TITLE = "## The command line in fresh processes"

START_UP = [("skirmish --help", ["--help"]),
            ("skirmish validate yeti.yaml", ["validate", YETI]),
            ("skirmish rules lifeforce", ["rules", "lifeforce"]),
            ("skirmish run yeti.yaml -n 1", ["run", YETI, "-n", "1"])]

WORKERS = [("-j 1", ["-j", "1"]), ("-j 2 (threads)", ["-j", "2"]),
           ("-j 2 --backend loky", ["-j", "2", "--backend", "loky"])]
RUNS = [(n, WORKERS) for n in (100_000, 1_000_000)]


def skirmish() -> list[str]:
    exe = Path(sys.executable).with_name("skirmish")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "sim.cli"]


def once(args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(skirmish() + args, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        raise SystemExit(f"`skirmish {' '.join(args)}` failed:\n{p.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_of(variants: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    seen = [[] for _ in variants]
    for _ in range(repeat):
        for got, args in zip(seen, variants):
            got.append(once(args))
    return [(min(w for w, _ in got), min(c for _, c in got)) for got in seen]


def measure(repeat: int, only: str | None) -> str:
    once(["run", YETI, "-n", "1"])  # the cache warm, the page cache too
    lines = [TITLE, "",
             f"Measured by `benchmarks/cli_fresh.py` (best of {repeat}, variants alternated) on "
             f"{platform.platform()}, {os.cpu_count()} cores, warm compile cache. Each command is a "
             "new process, as a designer runs it: imports, kernel load, play, summary; CPU is user + "
             "sys of the process and its workers.", ""]
    if only in (None, "start"):
        lines += ["| command | wall s | CPU s |", "|---|---:|---:|"]
        for (label, _), (wall, cpu) in zip(START_UP, best_of([a for _, a in START_UP], repeat)):
            lines.append(f"| `{label}` | {wall:.2f} | {cpu:.2f} |")
        lines.append("")
    if only in (None, "run"):
        lines += ["| `skirmish run yeti.yaml` | workers | wall s | CPU s | wall over -j 1 |",
                  "|---|---|---:|---:|---:|"]
        for n, variants in RUNS:
            got = best_of([["run", YETI, "-n", str(n), *a] for _, a in variants], repeat)
            for (label, _), (wall, cpu) in zip(variants, got):
                lines.append(f"| -n {n:,} | {label} | {wall:.2f} | {cpu:.2f} | {wall / got[0][0]:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=["start", "run"])
    ap.add_argument("--write", action="store_true", help="replace this section of docs/performance.md")
    a = ap.parse_args()
    section = measure(a.repeat, a.only)
    print(section)
    if a.write:
        replace_section(section, ROOT / "docs" / "performance.md")


if __name__ == "__main__":
    main()
