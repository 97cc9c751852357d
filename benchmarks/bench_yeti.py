"""Throughput of the batch engine on the worked example, beside the plain Python loop.

    python benchmarks/bench_yeti.py                 # 1,000,000 skirmishes each, writes docs/performance.md
    python benchmarks/bench_yeti.py -n 200000 --plain-n 50000 --no-write

Times `sim.run` on scenarios/gods_and_monsters/yeti.yaml with 1 and 2 workers (best of
`--repeat`, worker start-up included, as a user sees it) and benchmarks/plain_loop.py on
the same scenario, checks that both agree within sampling error, and records the figures
with the machine they were measured on.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sim  # noqa: E402
from benchmarks import plain_loop  # noqa: E402
from sim.io import atomic_write_text  # noqa: E402

YETI = ROOT / "scenarios" / "gods_and_monsters" / "yeti.yaml"
OUT = ROOT / "docs" / "performance.md"
HISTORY_MARKER = "## History"


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    import pandas
    return {"cpu": cpu or "unknown", "cores usable": usable, "os": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "pandas": pandas.__version__,
            "package": sim.__version__}


def time_engine(n: int, jobs: int, seed: int, repeat: int):
    """Best wall-clock time and, for one worker, the CPU time of this process in that repeat
    (CPU time is what contention from other processes on the machine does not inflate)."""
    best, cpu, result = float("inf"), float("nan"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = sim.run(YETI, n=n, seed=seed, jobs=jobs)
        wall, used = time.perf_counter() - t0, time.process_time() - c0
        if wall < best:
            best, cpu = wall, used
    return best, cpu, result


def engine_stats(result) -> dict:
    sk, cb = result.skirmishes, result.combatants
    n = len(sk)
    states = cb.groupby("combatant", observed=True)["final_state"].value_counts().unstack(fill_value=0)
    return {
        "n": n,
        "party wins": int((sk["winner"] == "party").sum()),
        "Yeti flees": int(states.loc["Yeti", "fled"]),
        "Charlotte down": int(n - states.loc["Charlotte Kordé", "standing"]),
        "Sam down": int(n - states.loc["Sam Stevens", "standing"]),
        "mean_rounds": float(sk["rounds"].mean()),
        "rounds_sd": float(sk["rounds"].std()),
    }


def plain_stats(res: dict) -> dict:
    st = res["states"]
    return {
        "n": res["n"],
        "party wins": res["wins"].get("party", 0),
        "Yeti flees": st["Yeti"]["fled"],
        "Charlotte down": res["n"] - st["Charlotte Kordé"]["standing"],
        "Sam down": res["n"] - st["Sam Stevens"]["standing"],
        "mean_rounds": res["mean_rounds"],
    }


def agreement(e: dict, p: dict) -> list[tuple[str, float, float, float]]:
    """(what, engine, plain, z) with z the difference in standard errors of the difference."""
    rows = []
    for key in ("party wins", "Yeti flees", "Charlotte down", "Sam down"):
        a, b = e[key] / e["n"], p[key] / p["n"]
        pooled = (e[key] + p[key]) / (e["n"] + p["n"])
        se = np.sqrt(pooled * (1 - pooled) * (1 / e["n"] + 1 / p["n"]))
        rows.append((key + " (rate)", a, b, (a - b) / se if se > 0 else 0.0))
    se = e["rounds_sd"] * np.sqrt(1 / e["n"] + 1 / p["n"])
    rows.append(("mean rounds", e["mean_rounds"], p["mean_rounds"], (e["mean_rounds"] - p["mean_rounds"]) / se))
    return rows


def report(info: dict, n: int, plain_n: int, t1: float, t2: float, tp: float, c1: float, cp: float, rows) -> str:
    r1, r2, rp = n / t1, n / t2, plain_n / tp
    lines = [
        "# Performance",
        "",
        "<!-- Written by `python benchmarks/bench_yeti.py`; rerun it to refresh. -->",
        "",
        "Scenario: `scenarios/gods_and_monsters/yeti.yaml` (the Gods & Monsters worked example: three",
        "adventurers against a Yeti with two claws and a morale rule), default rule options.",
        "Wall-clock time of `sim.run` as a user sees it (scenario loading, worker start-up and",
        "building both outcome tables included), best of the repeats.",
        "",
        "| implementation | skirmishes | seconds | skirmishes/second | vs plain loop |",
        "|---|---:|---:|---:|---:|",
        f"| batch engine, 1 worker | {n:,} | {t1:.2f} | {r1:,.0f} | {r1 / rp:.1f}x |",
        f"| batch engine, 2 workers (`--jobs 2`) | {n:,} | {t2:.2f} | {r2:,.0f} | {r2 / rp:.1f}x |",
        f"| plain Python loop (`benchmarks/plain_loop.py`) | {plain_n:,} | {tp:.2f} | {rp:,.0f} | 1.0x |",
        "",
        f"Two workers over one: {r2 / r1:.2f}x.",
        "",
        "CPU time of the single process (not inflated by other programs running at the same time):",
        f"batch engine {n / c1:,.0f} skirmishes per CPU-second, plain loop {plain_n / cp:,.0f}; "
        f"ratio {(n / c1) / (plain_n / cp):.1f}x.",
        "",
        "The plain loop is the program one would write without the engine: Python's `random`,",
        "one skirmish at a time, the same rules (simultaneous resolution, surprise, verve /",
        "survival / injuries, rolls to stay conscious, death when injuries exceed Fortitude,",
        "flee_below and flee_after_bad_round morale, random targeting), reading the same file.",
        "",
        "## Agreement of the two implementations",
        "",
        "Different random streams, so figures differ by sampling error only; z is the",
        "difference in standard errors of the difference (|z| < 4 expected).",
        "",
        "| figure | engine | plain loop | z |",
        "|---|---:|---:|---:|",
    ]
    for what, a, b, z in rows:
        fmt = (lambda x: f"{x:.5f}") if "rate" in what else (lambda x: f"{x:.4f}")
        lines.append(f"| {what} | {fmt(a)} | {fmt(b)} | {z:+.2f} |")
    lines += ["", "## Machine", ""] + [f"- {k}: {v}" for k, v in info.items()]
    lines += [f"- load average (1/5/15 min) when the run ended: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}",
              "  (other processes share this machine; a load above 0 means the timings include contention)"]
    lines += ["", f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1_000_000, help="engine skirmishes")
    ap.add_argument("--plain-n", type=int, default=1_000_000, help="plain-loop skirmishes")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    info = machine()
    info["load average when the run started"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    time_engine(1000, 1, args.seed, 1)  # imports and caches out of the way
    t1, c1, res1 = time_engine(args.n, 1, args.seed, args.repeat)
    print(f"engine, 1 worker: {args.n / t1:,.0f} skirmishes/s ({t1:.2f} s, {c1:.2f} CPU s)", flush=True)
    t2, _, _ = time_engine(args.n, 2, args.seed, args.repeat)
    print(f"engine, 2 workers: {args.n / t2:,.0f} skirmishes/s ({t2:.2f} s)", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    plain = plain_loop.play(YETI, args.plain_n, seed=args.seed)
    tp, cp = time.perf_counter() - t0, time.process_time() - c0
    print(f"plain loop: {args.plain_n / tp:,.0f} skirmishes/s ({tp:.2f} s, {cp:.2f} CPU s)", flush=True)
    rows = agreement(engine_stats(res1), plain_stats(plain))
    for what, a, b, z in rows:
        print(f"  {what}: engine {a:.5f}, plain {b:.5f}, z {z:+.2f}")
    text = report(info, args.n, args.plain_n, t1, t2, tp, c1, cp, rows)
    if not args.no_write:
        # Hand-written history below the marker survives a rerun.
        old = OUT.read_text() if OUT.exists() else ""
        history = old[old.index(HISTORY_MARKER):] if HISTORY_MARKER in old else ""
        atomic_write_text(OUT, text.rstrip("\n") + "\n\n" + history if history else text)
        print(f"wrote {OUT}")
    return 0 if all(abs(z) < 4 for *_, z in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
