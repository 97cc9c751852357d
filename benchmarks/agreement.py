"""The current G&M engine against the recorded baseline, figure by figure.

    python benchmarks/agreement.py [--scenario yeti] [--all]

Plays each shipped scenario with the baseline's n and the file's seed and compares every
figure of benchmarks/baselines/gods_and_monsters.json in standard-error units,
z = (after - before) / sqrt(se_before^2 + se_after^2). Figures with |z| > 4.5 are flagged
(with some 500 figures, a false flag is about 1 in 300 runs). A figure without spread
in either run must be equal. Exits 1 when anything is flagged, so the changes the
issue's fixes explain can be listed. Also prints the speed ratio new / old.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gm_figures import BASELINE, SCENARIOS, figures, speed  # noqa: E402

LIMIT = 4.5


def z_score(before: list[float], after: list[float]) -> float:
    (a, se_a), (b, se_b) = before, after
    spread = math.hypot(se_a, se_b)
    if spread == 0 or math.isnan(spread):
        return 0.0 if a == b else math.inf
    return (b - a) / spread


def compare(old: dict, new: dict) -> list[tuple[str, list, list, float]]:
    """(figure, before, after, z) for every figure in either run; one missing from a run
    is flagged with z = inf."""
    missing = [float("nan"), 0.0]
    return [(k, old.get(k, missing), new.get(k, missing),
             z_score(old[k], new[k]) if k in old and k in new else math.inf)
            for k in sorted(set(old) | set(new))]


def check(name: str, base: dict) -> tuple[list, float]:
    path = next(p for p in SCENARIOS if p.stem == name)
    per_s, result = speed(path, base["n"], base["seed"])
    return compare(base["figures"], figures(result)), per_s / base["skirmishes_per_cpu_s"]


def table(name: str, rows: list, show_all: bool) -> list[str]:
    lines = []
    for fig, before, after, z in rows:
        flag = abs(z) > LIMIT
        if flag or show_all:
            lines.append(f"{name:<22} {fig:<36} {before[0]:>11.5f} {after[0]:>11.5f} {z:>8.2f}"
                         + ("  FLAG" if flag else ""))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", action="append", help="a scenario's file stem (repeatable; default: all)")
    ap.add_argument("--all", action="store_true", help="list every figure, not only the flagged ones")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    args = ap.parse_args(argv)
    recorded = json.loads(args.baseline.read_text())["scenarios"]
    names = args.scenario or sorted(recorded)
    unknown = set(names) - set(recorded)
    if unknown:
        ap.error(f"no baseline for {', '.join(sorted(unknown))}; known: {', '.join(sorted(recorded))}")
    print(f"{'scenario':<22} {'figure':<36} {'before':>11} {'after':>11} {'z':>8}")
    flags, speeds = 0, []
    for name in names:
        rows, ratio = check(name, recorded[name])
        for line in table(name, rows, args.all):
            print(line, flush=True)
        flags += sum(abs(z) > LIMIT for *_, z in rows)
        speeds.append(f"{name:<22} speed new/old {ratio:6.2f}x ({len(rows)} figures)")
    print("\n" + "\n".join(speeds))
    print(f"\n{flags} figure(s) with |z| > {LIMIT}")
    return 1 if flags else 0


if __name__ == "__main__":
    sys.exit(main())
