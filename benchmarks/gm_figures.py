"""The figures the G&M baselines record and the agreement check compares, each with its
standard error, read from a run's outcome tables through the public API only, so the
same code measures today's engine and the compiled one.
"""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import numpy as np

import sim

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios" / "gods_and_monsters").glob("*.yaml"))
BASELINE = ROOT / "benchmarks" / "baselines" / "gods_and_monsters.json"
STATES = ("standing", "unconscious", "dead", "fled")
MEANS = ("attacks", "hits", "damage_dealt", "damage_taken", "surprised", "verve_left", "survival_left", "injuries")
WARMUP_N = 2000


def mean_se(x: np.ndarray) -> list[float]:
    x = np.asarray(x, dtype=np.float64)
    se = x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return [float(x.mean()), float(se)]


def figures(result) -> dict[str, list[float]]:
    """{figure: [value, standard error]}: win per side, draws, unfinished, mean rounds, and
    per combatant the share of each final state and the means of MEANS."""
    sk, cb = result.skirmishes, result.combatants
    winner = sk["winner"].astype(str).to_numpy()
    out = {}
    for side in result.scenario.side_names:
        out[f"win.{side}"] = mean_se(winner == side)
    out["draw"] = mean_se(winner == "draw")
    out["unfinished"] = mean_se(winner == "unfinished")
    out["rounds"] = mean_se(sk["rounds"].to_numpy())
    names = [c.name for c in result.scenario.combatants]
    n = len(sk)
    state = cb["final_state"].astype(str).to_numpy().reshape(n, len(names))
    columns = {k: cb[k].to_numpy().reshape(n, len(names)) for k in MEANS if k in cb}
    for i, name in enumerate(names):
        for s in STATES:
            out[f"{name}.{s}"] = mean_se(state[:, i] == s)
        for k, values in columns.items():
            out[f"{name}.{k}"] = mean_se(values[:, i])
    return out


def speed(path, n: int, seed: int) -> tuple[float, object]:
    """Skirmishes per CPU-second of one worker, warm-up (compilation, caches) excluded,
    and the timed run's result."""
    sim.run(path, n=WARMUP_N, seed=seed + 1, jobs=1)
    t0 = time.process_time()
    result = sim.run(path, n=n, seed=seed, jobs=1)
    return n / (time.process_time() - t0), result


def timed(fn, *args, **kwargs) -> dict:
    t0, w0 = time.process_time(), time.perf_counter()
    fn(*args, **kwargs)
    return {"cpu_s": time.process_time() - t0, "wall_s": time.perf_counter() - w0}


YETI = str(ROOT / "scenarios" / "gods_and_monsters" / "yeti.yaml")
GOBLINS = str(ROOT / "scenarios" / "gods_and_monsters" / "goblin_ambush.yaml")
ANALYSIS_N = 20000


def analysis_jobs() -> dict:
    """The README's analysis commands on the Yeti and their like on goblin_ambush, at a
    modest n, one worker: name -> callable."""
    from sim.analysis import sensitivity, sweep, tune
    n = ANALYSIS_N
    return {
        "yeti.sweep": lambda: sweep(YETI, vary={"sides.yeti.combatants[Yeti].defense": "0..6"}, n=n),
        "yeti.tune": lambda: tune(YETI, "sides.yeti.combatants[Yeti].survival", "yeti", 0.1, 20, 120, n=n),
        "yeti.sensitivity": lambda: sensitivity(YETI, ["Yeti"], n=n),
        "goblin_ambush.sweep": lambda: sweep(GOBLINS, vary={"sides.goblins.combatants[Goblin].defense": "0..4"}, n=n),
        "goblin_ambush.tune": lambda: tune(GOBLINS, "sides.goblins.combatants[Goblin].survival", "goblins", 0.5,
                                           1, 20, n=n),
        "goblin_ambush.sensitivity": lambda: sensitivity(GOBLINS, ["Goblin"], n=n),
    }


def analysis_times() -> dict:
    jobs = analysis_jobs()
    jobs["yeti.sweep"]()  # warm-up
    return {name: timed(fn) for name, fn in jobs.items()}


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
