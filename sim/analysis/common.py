"""What every analysis shares: playing many variants of one scenario on common random
numbers, per-skirmish win indicators, paired differences, provenance columns.

Variants are scenario dicts that differ from a base by overrides. They are all played
with the same seed and chunk numbering and `crn=True`, so skirmish k of every variant
draws the same random numbers wherever the ruleset draws them in a fixed order; the
per-skirmish difference of two variants then carries only the effect of the change,
not the luck of the dice.
"""
from __future__ import annotations

import json
import math
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

import sim
from sim.errors import ScenarioError
from sim.progress import expect
from sim.runner import CHUNK_SIZE, RunResult, _compiled, build_result, play_chunk, warm
from sim.scenario import DATA_SOURCE, Scenario, load_scenario
from sim.stats import Z95, wilson

PROVENANCE_COLUMNS = ("scenario", "scenario_file", "scenario_hash", "seed", "rule_options", "package_version")


def as_scenario(scenario, overrides: dict | None = None) -> Scenario:
    if isinstance(scenario, Scenario):
        return load_scenario(scenario.data, overrides) if overrides else scenario
    return load_scenario(scenario, overrides)


def variant(base: Scenario, overrides: dict) -> Scenario:
    """The base scenario with `overrides` applied; errors name the base's file."""
    if not overrides:
        return base
    try:
        return load_scenario(base.data, overrides)
    except ScenarioError as e:
        for problem in e.problems:  # loaded from the base's data, they name no file yet but the placeholder
            if problem.file == DATA_SOURCE:
                problem.file = None
        raise e.located(base.source) from None


def _run_settings(base: Scenario, n, seed, max_rounds):
    n = int(base.run["skirmishes"] if n is None else n)
    seed = int(base.run["seed"] if seed is None else seed)
    max_rounds = int(base.run["max_rounds"] if max_rounds is None else max_rounds)
    return n, seed, max_rounds


def _tasks(scen: Scenario, sizes: list[int], first_chunk: int, seed: int, max_rounds: int, crn: bool):
    data_json = json.dumps(scen.data, default=str)
    return [(data_json, scen.source, first_chunk + i, size, seed, max_rounds, crn) for i, size in enumerate(sizes)]


# Where the analyses play their chunks (sim.backends): threads of this process unless a
# caller says otherwise (`skirmish sweep --backend dask`, or `with playing_on("loky"):`).
_WHERE = {"backend": "threads", "scheduler": None}


@contextmanager
def playing_on(backend: str = "threads", scheduler: str | None = None):
    """Within the block, every analysis plays its chunks on `backend` (threads, loky or
    dask; `scheduler`: an existing dask cluster). The results are the same on any."""
    from sim.backends import check_backend
    old = dict(_WHERE)
    _WHERE.update(backend=check_backend(backend, scheduler), scheduler=scheduler)
    try:
        yield
    finally:
        _WHERE.update(old)


def play_on(backend: str, scheduler: str | None) -> None:
    """Set where the analyses play for the rest of the process (the command line's
    --backend / --scheduler)."""
    from sim.backends import check_backend
    _WHERE.update(backend=check_backend(backend, scheduler), scheduler=scheduler)


def _indexed_chunk(i: int, seed: int, size: int, data_json: str, source: str, chunk: int, max_rounds: int,
                   crn: bool):
    """A chunk task of play_all, numbered by its place in the list: the variants of an
    analysis share chunk numbers, which key their dice."""
    return play_chunk(data_json, source, chunk, size, seed, max_rounds, crn)


def _execute_elsewhere(tasks: list, jobs: int, progress=None) -> list:
    from sim.backends import play_all
    got = {}
    calls = [(i, seed, size, data_json, source, chunk, max_rounds, crn)
             for i, (data_json, source, chunk, size, seed, max_rounds, crn) in enumerate(tasks)]
    for i, out in play_all(_indexed_chunk, calls, jobs, _WHERE["backend"], _WHERE["scheduler"]):
        got[i] = out
        if progress is not None:
            progress(tasks[i][3])
    return [got[i] for i in range(len(tasks))]


def _execute(tasks: list, jobs: int, progress=None):
    """Play the chunk tasks; `progress(k)` hears of each chunk's k skirmishes as it ends."""
    from sim.backends import local_workers
    from sim.threads import threaded
    if tasks:  # a cold cache compiles here, once, with its notice, not silently in the first chunk
        warm(_compiled(*tasks[0][:2])[0])
    if _WHERE["backend"] != "threads":
        return _execute_elsewhere(tasks, jobs, progress)
    finished = (out for _, out in threaded(play_chunk, tasks, local_workers(jobs, len(tasks)), ordered=True))
    outs = []
    for task, out in zip(tasks, finished):
        outs.append(out)
        if progress is not None:
            progress(task[3])
    return outs


def half_width(k: int, n: int) -> float:
    lo, hi = wilson(k, n)
    return float(hi - lo) / 2


def widest_half_width(result: RunResult) -> float:
    """The widest Wilson half-width among the sides' win rates (what --precision bounds)."""
    sk = result.skirmishes
    n = len(sk)
    counts = sk["winner"].value_counts()
    return max(half_width(int(counts.get(s, 0)), n) for s in result.scenario.side_names)


def _needed(result: RunResult, precision: float) -> int:
    """Skirmishes the normal approximation says the widest interval needs."""
    n = len(result.skirmishes)
    counts = result.skirmishes["winner"].value_counts()
    var = max((int(counts.get(s, 0)) / n) * (1 - int(counts.get(s, 0)) / n) for s in result.scenario.side_names)
    return int(math.ceil(Z95 ** 2 * max(var, 1.0 / n) / precision ** 2))


@dataclass
class Played:
    """Results of a set of variants played on the same skirmishes."""
    results: list[RunResult]
    seed: int
    max_rounds: int
    steps: int  # how many rounds of chunks adaptive mode took (1 for a fixed n)

    skirmishes: int = 0  # per variant


def play_variants(variants: list[Scenario], n: int | None = None, seed: int | None = None, jobs: int = 1,
                  max_rounds: int | None = None, crn: bool = True, precision: float | None = None,
                  max_skirmishes: int | None = None, step: int | None = None, reduce=None,
                  progress=None) -> Played:
    """Play every variant on the same skirmishes (same seed and chunks, common random numbers).

    With `precision`, play `step` skirmishes (default one chunk) per variant, then keep
    adding chunks (later chunk numbers, so fresh independent fights) until every
    variant's widest side win-rate interval has at most that half-width, or
    `max_skirmishes` is reached. All variants always share the same skirmishes, so
    paired comparisons stay paired. Without `precision`, play `n` skirmishes.

    `reduce`, if given, maps each variant's RunResult to what `results` keeps (e.g. its
    win indicators): without precision, variants are then played a few at a time and
    their outcome tables dropped, so a sensitivity scan of a hundred variants does not
    hold a hundred outcome tables in memory.

    `progress` (see sim.progress) hears of every finished chunk; with `precision` the
    total is announced step by step, as each step's size is decided.
    """
    keep = reduce or (lambda r: r)
    if not variants:
        return Played([], 0, 0, 0, 0)
    base = variants[0]
    n, seed, max_rounds = _run_settings(base, n, seed, max_rounds)
    if precision is None:
        from sim.runner import chunk_sizes
        sizes = chunk_sizes(n)
        k = len(sizes)
        expect(progress, n * len(variants))
        group = len(variants) if reduce is None else max(1, -(-2 * jobs // k))
        results = []
        for g in range(0, len(variants), group):
            batch = variants[g:g + group]
            tasks = [t for v in batch for t in _tasks(v, sizes, 0, seed, max_rounds, crn)]
            outs = _execute(tasks, jobs, progress)
            results += [keep(build_result(v, outs[i * k:(i + 1) * k], seed, max_rounds)) for i, v in enumerate(batch)]
        return Played(results, seed, max_rounds, 1, n)

    if not 0 < precision < 0.5:
        raise ScenarioError(f"--precision {precision} must be a half-width between 0 and 0.5, e.g. 0.005.")
    step = int(step or CHUNK_SIZE)
    if not 1 <= step <= CHUNK_SIZE:
        raise ScenarioError(f"the adaptive step must be from 1 to {CHUNK_SIZE} skirmishes.")
    limit = int(max_skirmishes if max_skirmishes is not None else 10 ** 7)
    if limit < 1:
        raise ScenarioError("--max must be at least 1 skirmish.")
    outcomes: list[list] = [[] for _ in variants]
    played, chunk, steps = 0, 0, 0
    results: list[RunResult] = []
    want = min(step, limit)
    while True:
        # Each chunk holds `step` skirmishes at most, so chunk numbers stay the stream offsets.
        sizes = []
        while sum(sizes) < want:
            sizes.append(min(step, want - sum(sizes)))
        tasks = [t for v in variants for t in _tasks(v, sizes, chunk, seed, max_rounds, crn)]
        expect(progress, (played + sum(sizes)) * len(variants))
        outs = _execute(tasks, jobs, progress)
        k = len(sizes)
        for i in range(len(variants)):
            outcomes[i].extend(outs[i * k:(i + 1) * k])
        chunk += k
        played += sum(sizes)
        steps += 1
        results = [build_result(v, outcomes[i], seed, max_rounds) for i, v in enumerate(variants)]
        _renumber(results, step)
        if played >= limit or all(widest_half_width(r) <= precision for r in results):
            break
        need = max(_needed(r, precision) for r in results)
        # Aim at the predicted need, but never more than doubling, since the estimate is noisy.
        want = int(min(max(need - played, step), played, limit - played))
        want = max(step, int(math.ceil(want / step)) * step)
        want = min(want, limit - played)
    reached = all(widest_half_width(x) <= precision for x in results)
    for r in results:
        r.meta["adaptive"] = {"precision": precision, "max_skirmishes": limit, "step": step, "steps": steps,
                              "reached": reached}
    return Played([keep(r) for r in results], seed, max_rounds, steps, played)


def _renumber(results: list[RunResult], step: int) -> None:
    # Skirmish ids name the chunk they came from: chunk c holds ids c*CHUNK_SIZE onwards,
    # the same numbering `sim.run(..., first_chunk=c)` uses.
    for r in results:
        sk = r.skirmishes
        n = len(sk)
        pos = np.arange(n)
        ids = (pos // step) * CHUNK_SIZE + pos % step
        # build_result numbered them 0..n-1 in order, so the old id is the position.
        sk["skirmish"] = ids
        r.combatants["skirmish"] = ids[r.combatants["skirmish"].to_numpy()]


def win_matrix(result: RunResult) -> np.ndarray:
    """(skirmishes, sides) float indicators: 1 where that side won."""
    codes = result.skirmishes["winner"].cat.codes.to_numpy()
    k = len(result.scenario.side_names)
    return (codes[:, None] == np.arange(k)[None, :]).astype(float)


def paired_diff(a: np.ndarray, b: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean of b - a over paired skirmishes with a normal interval (the CLT holds: thousands
    of bounded terms). When every pair agrees the interval collapses to the point."""
    d = np.asarray(b, float) - np.asarray(a, float)
    n = d.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("inf")
    return m, m - z * se, m + z * se


def rate_columns(result: RunResult, prefix: str = "") -> dict:
    """Every summary figure with its interval, flattened into columns."""
    s = result.summary()
    n = s["skirmishes"]
    row: dict = {f"{prefix}skirmishes": n}
    for side, v in s["sides"].items():
        row[f"{prefix}{side}.win_rate"] = v["win_rate"]
        row[f"{prefix}{side}.win_lo"], row[f"{prefix}{side}.win_hi"] = v["ci95"]
    row[f"{prefix}draw_rate"] = s["draw_rate"]
    row[f"{prefix}draw_lo"], row[f"{prefix}draw_hi"] = s["draw_ci95"]
    row[f"{prefix}unfinished_rate"] = s["unfinished_rate"]
    row[f"{prefix}unfinished_lo"], row[f"{prefix}unfinished_hi"] = s["unfinished_ci95"]
    rounds = result.skirmishes["rounds"].to_numpy(float)
    from sim.stats import mean_ci
    m, lo, hi = mean_ci(rounds)
    row[f"{prefix}rounds_mean"], row[f"{prefix}rounds_lo"], row[f"{prefix}rounds_hi"] = m, lo, hi
    row[f"{prefix}rounds_p90"] = s["rounds"]["p90"]
    for c in s["combatants"]:
        name = c["name"]
        row[f"{prefix}{name}.down_rate"] = c["down_rate"]
        row[f"{prefix}{name}.down_lo"], row[f"{prefix}{name}.down_hi"] = c["down_ci95"]
        row[f"{prefix}{name}.damage_dealt"] = c["damage_dealt"]
        row[f"{prefix}{name}.hit_rate"] = c["hit_rate"]
    return row


def provenance_columns(base: Scenario, scen: Scenario, seed: int) -> dict:
    """The provenance columns every analysis table carries (plus the variant's own hash):
    a table, and the page made from it, names the scenario it came from."""
    rules = {k: (v if isinstance(v, (int, float, str, bool, type(None), list, dict)) else str(v))
             for k, v in scen.rules.items()}
    return {
        "scenario": base.name,
        "scenario_file": str(base.source),
        "scenario_hash": base.hash,
        "variant_hash": scen.hash,
        "seed": int(seed),
        "rule_options": json.dumps(rules, sort_keys=True, default=str),
        "package_version": sim.__version__,
    }


def frame(rows: list[dict], meta: dict) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df.attrs["analysis"] = meta
    return df


def check_side(scen: Scenario, side: str, what: str) -> str:
    if side not in scen.side_names:
        from sim.errors import closest
        raise ScenarioError(f"{what}: no side '{side}'.{closest(side, scen.side_names)} "
                            f"Sides: {', '.join(scen.side_names)}.", file=scen.source)
    return side
