"""Running a scenario: chunks, seeds, workers, and the two outcome tables.

Skirmishes are cut into chunks of CHUNK_SIZE. A compiled ruleset (`ruleset.compiled`)
plays chunk i as skirmishes i * CHUNK_SIZE ... with keyed randomness (sim/keyed.py), so
a result depends on (scenario, seed, skirmish index) only: not on the chunk size, the
worker count or the backend, and every run is paired with every variant of its
scenario. A ruleset still on the NumPy batch engine draws chunk i from
`SeedSequence(seed, spawn_key=(i,))`: its result depends on (scenario, seed, count).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path

import numpy as np
import pandas as pd

import sim
from sim.engine import run_chunk
from sim.rulesets.base import DRAW, FINAL_STATES, UNFINISHED, Outcome
from sim.scenario import Scenario, build_scenario, load_scenario

CHUNK_SIZE = 32768


def chunk_rng(seed: int, chunk: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(chunk,))))


def chunk_sizes(n: int) -> list[int]:
    full, rest = divmod(n, CHUNK_SIZE)
    return [CHUNK_SIZE] * full + ([rest] if rest else [])


@lru_cache(maxsize=8)
def _compiled(data_json: str, source: str):
    # Workers rebuild the scenario from its data (plain JSON pickles everywhere) and keep
    # it for the next chunk of the same run.
    scen = build_scenario(json.loads(data_json), source)
    return scen, scen.ruleset.build(scen)


def play_chunk(data_json: str, source: str, chunk: int, size: int, seed: int, max_rounds: int,
               crn: bool = False, chunk_size: int | None = None) -> Outcome:
    """`chunk_size`: the parent's CHUNK_SIZE, when a worker process may not share it."""
    scen, setup = _compiled(data_json, source)
    if getattr(scen.ruleset, "compiled", False):
        # Keyed randomness: a skirmish's numbers depend on its global index only (crn by construction).
        first = chunk * (CHUNK_SIZE if chunk_size is None else chunk_size)
        return scen.ruleset.play(setup, seed, first, size, max_rounds)
    return run_chunk(scen.ruleset, setup, chunk_rng(seed, chunk), size, max_rounds, crn=crn)


def warm(scen: Scenario) -> None:
    """Compile (or load from the cache) a compiled ruleset's kernel in this process before
    workers start, so the one-time notice is printed once and workers find the cache."""
    ruleset = scen.ruleset
    if getattr(ruleset, "compiled", False):
        _, setup = _compiled(json.dumps(scen.data, default=str), scen.source)
        ruleset.warm(setup)


def warm_rulesets(names=None) -> list[tuple[str, bool, float]]:
    """Compile the named rulesets' rules ahead of the first run (all of them by default),
    on each ruleset's starter scenario: one skirmish, then a short batch, which between
    them reach every compiled entry point a run uses. [(ruleset, was compiled now, s)]."""
    import time

    import yaml

    from sim import compiled, rulesets
    from sim.starters import starter
    done = []
    for name in names or rulesets.names():
        fresh = not compiled.is_compiled(name)
        started = time.perf_counter()
        scen = load_scenario(yaml.safe_load(starter(name)))
        warm(scen)
        run(scen, n=50)
        done.append((name, fresh, time.perf_counter() - started))
    return done


def built(scen: Scenario):
    """The ruleset's set-up of `scen`, as the run will use it (kept for the run)."""
    return _compiled(json.dumps(scen.data, default=str), scen.source)[1]


def check_seed(seed: int, first_skirmish: int, n: int) -> None:
    from sim.keyed import check_key
    try:
        check_key(seed, first_skirmish + n)
    except ValueError as e:
        from sim.errors import ScenarioError
        raise ScenarioError(f"{e}; choose a smaller seed or fewer skirmishes.") from None


@dataclass
class RunResult:
    """Both outcome tables of a run and everything needed to say where they came from."""
    scenario: Scenario
    skirmishes: pd.DataFrame
    combatants: pd.DataFrame
    meta: dict = field(default_factory=dict)

    def summary(self) -> dict:
        from sim.summary import summarize
        return summarize(self)

    def summary_text(self) -> str:
        from sim.summary import summary_text
        return summary_text(self)

    def _holds(self) -> str:
        return f".skirmishes ({len(self.skirmishes):,} rows), .combatants ({len(self.combatants):,} rows), .meta"

    def __repr__(self) -> str:
        from sim.summary import short_text
        return short_text(self, self._holds())

    def _repr_html_(self) -> str:
        from sim.summary import short_html
        return short_html(self, self._holds())

    def write(self, out) -> list[Path]:
        from sim.summary import write_tables
        return write_tables(self, out)


def provenance(scen: Scenario, seed: int, n: int, max_rounds: int) -> dict:
    return {
        "scenario": scen.name,
        "scenario_file": scen.source,
        "scenario_hash": scen.hash,
        "ruleset": scen.ruleset_name,
        "seed": int(seed),
        "skirmishes": int(n),
        "max_rounds": int(max_rounds),
        "rule_options": {k: (str(v) if not isinstance(v, (int, float, str, bool, type(None), list, dict)) else v)
                         for k, v in scen.rules.items()},
        "package_version": sim.__version__,
        "chunk_size": CHUNK_SIZE,
        # What was played, not only where it came from: the --set values and the scenario
        # after includes and overrides, so a result can be replayed without the files.
        "overrides": dict(scen.overrides),
        "scenario_text": scen.text,
    }


def run(scenario, n: int | None = None, seed: int | None = None, jobs: int = 1,
        max_rounds: int | None = None, overrides: dict | None = None, crn: bool = False,
        first_chunk: int = 0, progress=None, backend: str = "threads", scheduler: str | None = None) -> RunResult:
    """Play a scenario `n` times and return the outcome tables.

    `scenario` is a path, a parsed dict or a Scenario. `n`, `seed` and `max_rounds`
    default to the scenario's `run:` block. `first_chunk` offsets the random streams,
    which lets adaptive runs add chunks that are independent of the earlier ones.
    `progress`, if given, is called with the number of skirmishes in each finished chunk
    (see sim.progress.progress_bar); the API is silent without it.
    `backend` ("threads" of this process, "loky" worker processes or "dask") and
    `scheduler` ("tcp://HOST:PORT") choose where chunks are played on `jobs` workers
    (sim/backends.py); the result does not depend on it.
    """
    from sim.backends import check_backend, local_workers
    backend = check_backend(backend, scheduler)
    scen = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, overrides)
    if isinstance(scenario, Scenario) and overrides:
        scen = load_scenario(scen.data, overrides)
    n = int(scen.run["skirmishes"] if n is None else n)
    if n < 1:
        raise ValueError(f"n is {n}: a run plays at least 1 skirmish")
    seed = int(scen.run["seed"] if seed is None else seed)
    max_rounds = int(scen.run["max_rounds"] if max_rounds is None else max_rounds)
    check_seed(seed, first_chunk * CHUNK_SIZE, n)
    warm(scen)
    data_json = json.dumps(scen.data, default=str)
    sizes = chunk_sizes(n)
    tasks = [(data_json, scen.source, first_chunk + i, size, seed, max_rounds, crn) for i, size in enumerate(sizes)]
    jobs = local_workers(jobs, len(tasks), scheduler)
    if backend == "dask" or scheduler:
        from sim.backends import play_in_memory
        finished = play_in_memory(tasks, jobs, backend, scheduler, progress)
        progress = None  # told chunk by chunk as they finished
    elif backend == "loky" and jobs > 1 and len(tasks) > 1:
        from joblib import Parallel, delayed
        # A generator (in task order) lets the progress bar move as chunks come back.
        from sim.backends import in_worker, sigint_held
        with sigint_held():  # the workers start with Ctrl-C blocked (see sigint_held)
            finished = Parallel(n_jobs=jobs, backend="loky", return_as="generator", max_nbytes=None)(
                delayed(in_worker)(partial(_play_chunk_narrowed, chunk_size=CHUNK_SIZE), *t) for t in tasks)
    elif hasattr(scen.ruleset, "play_into"):
        joined = _played_in_place(tasks, sum(sizes), jobs, progress)
        return build_result(scen, [joined], seed, max_rounds, first_skirmish=first_chunk * CHUNK_SIZE)
    else:
        from sim.threads import threaded
        finished = (out for _, out in threaded(play_chunk, tasks, jobs, ordered=True))
    joined = _worker_deaths_reported(lambda: gather(zip(sizes, finished), sum(sizes), progress), tasks)
    return build_result(scen, [joined], seed, max_rounds, first_skirmish=first_chunk * CHUNK_SIZE)


def _played_in_place(tasks: list[tuple], total: int, jobs: int = 1, progress=None) -> Outcome:
    """The chunks of a run in this process (on `jobs` threads), each written by the ruleset
    straight into its rows of the joined table (ruleset.new_outcome / play_into): what
    gather does without copying every chunk a second time (it was most of a Yeti run's
    time outside the kernel)."""
    from sim.threads import threaded
    data_json, source = tasks[0][:2]
    scen, setup = _compiled(data_json, source)
    joined = scen.ruleset.new_outcome(setup, total)
    calls, row = [], 0
    for _json, _source, chunk, size, seed, max_rounds, _crn in tasks:
        calls.append((setup, seed, chunk * CHUNK_SIZE, size, max_rounds, joined, row))
        row += size
    stalled = 0
    for i, stalled_in_chunk in threaded(scen.ruleset.play_into, calls, jobs):
        stalled += stalled_in_chunk
        if progress is not None:
            progress(tasks[i][3])
    joined.stalled, joined.gathered = stalled, True
    return joined


def _worker_deaths_reported(play, tasks: list[tuple]):
    """`play()`, with a worker process that died (the OOM killer, a kill) turned into the
    RunFailed the CLI reports in one paragraph, as the chunked runs do."""
    from joblib.externals.loky.process_executor import BrokenProcessPool
    try:
        return play()
    except BrokenProcessPool as e:  # loky's TerminatedWorkerError is one
        from sim.backends import RunFailed
        first = tasks[0]
        raise RunFailed(
            f"a worker process died ({type(e).__name__}), most likely killed by the system for lack of "
            f"memory. Run again with fewer workers (-j), fewer skirmishes at once, or --summary-only "
            f"(constant memory); the run was seed {first[4]}, {sum(t[3] for t in tasks)} skirmishes "
            f"in {len(tasks)} chunks.") from None


def _play_chunk_narrowed(*task, chunk_size: int | None = None) -> Outcome:
    """play_chunk for a worker process: integer columns travel back in the smallest type
    that holds their values (gather widens them again). The parent unpickles and copies
    every byte a worker sends, and with two workers that serial work was what kept the
    speed-up of full-table runs well short of 2."""
    return narrow(play_chunk(*task, chunk_size=chunk_size))


def narrow(out: Outcome) -> Outcome:
    """Integer per-combatant columns in int8/int16 where their values fit; `out.wide`
    names the types gather restores."""
    wide = {}
    for key, values in out.per_combatant.items():
        if values.dtype.kind != "i" or values.itemsize <= 2 or values.size == 0:
            continue
        low, high = values.min(), values.max()
        for small in (np.int8, np.int16):
            if np.iinfo(small).min <= low and high <= np.iinfo(small).max:
                wide[key] = values.dtype
                out.per_combatant[key] = values.astype(small)
                break
    out.wide = wide
    return out


def gather(sized_outcomes, total: int, progress=None) -> Outcome:
    """One Outcome of `total` rows, filled chunk by chunk as the chunks come back.

    With several workers the copying overlaps the chunks still being played, instead of
    one concatenation after the last (serial work that showed in the 2-worker speed-up).
    """
    joined, start, stalled = None, 0, 0
    for size, o in sized_outcomes:
        if joined is None:
            joined = Outcome(winner=np.empty(total, o.winner.dtype), rounds=np.empty(total, o.rounds.dtype),
                             per_combatant={k: np.empty((total, *v.shape[1:]), getattr(o, "wide", {}).get(k, v.dtype))
                                            for k, v in o.per_combatant.items()})
        end = start + len(o.winner)
        joined.winner[start:end] = o.winner
        joined.rounds[start:end] = o.rounds
        for k, v in o.per_combatant.items():
            joined.per_combatant[k][start:end] = v
        stalled += getattr(o, "stalled", 0)
        start = end
        if progress is not None:
            progress(size)
    joined.stalled, joined.gathered = stalled, True
    return joined


def _spread(values: np.ndarray, n: int, c: int, dtype) -> np.ndarray:
    """`values` broadcast to (n, c), flat: np.repeat / np.tile in one strided fill."""
    out = np.empty((n, c), dtype=dtype)
    out[...] = values
    return out.reshape(-1)


def _categorical(codes: np.ndarray, categories) -> pd.Categorical:
    """pd.Categorical.from_codes without its pass over the codes (built in range here)."""
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(categories)), validate=False)


def build_result(scen: Scenario, outcomes: list[Outcome], seed: int, max_rounds: int,
                 first_skirmish: int = 0) -> RunResult:
    if len(outcomes) == 1 and getattr(outcomes[0], "gathered", False):
        # gather's arrays belong to nobody else, so the tables may use them without a copy.
        winner, rounds, per = outcomes[0].winner, outcomes[0].rounds, outcomes[0].per_combatant
    else:
        winner = np.concatenate([o.winner for o in outcomes]) if outcomes else np.zeros(0, np.int8)
        rounds = np.concatenate([o.rounds for o in outcomes]) if outcomes else np.zeros(0, np.int16)
        per = {k: np.concatenate([o.per_combatant[k] for o in outcomes]) for k in outcomes[0].per_combatant}
    n = len(winner)
    sides = scen.side_names
    win_labels = list(sides) + ["draw", "unfinished"]
    # Codes are built in range, so the categoricals skip pandas' check of them.
    codes = winner.astype(np.int16)
    codes[winner == DRAW] = len(sides)
    codes[winner == UNFINISHED] = len(sides) + 1
    skirmish = np.arange(first_skirmish, first_skirmish + n, dtype=np.int64)
    skirmishes = pd.DataFrame({
        "skirmish": skirmish,
        "winner": _categorical(codes, win_labels),
        "rounds": rounds.astype(np.int32, copy=False),
    }, copy=False)
    names = scen.names()
    c = len(names)
    cols = {
        "skirmish": _spread(skirmish[:, None], n, c, np.int64),
        "combatant": _categorical(_spread(np.arange(c, dtype=np.int16), n, c, np.int16), names),
        "side": _categorical(_spread(np.array(scen.side_of(), dtype=np.int16), n, c, np.int16), list(sides)),
    }
    for key, arr in per.items():
        flat = arr.reshape(-1)
        if key == "final_state":
            cols[key] = _categorical(flat.astype(np.int8, copy=False), list(FINAL_STATES))
        elif key == "down_round":
            cols[key] = pd.arrays.IntegerArray(flat.astype(np.int32, copy=False), flat <= 0)
        else:
            cols[key] = flat
    # The columns are fresh arrays: copy=False keeps pandas from stacking same-dtype
    # columns into 2-D blocks, a copy that took as long as concatenating the chunks.
    combatants = pd.DataFrame(cols, copy=False)
    meta = provenance(scen, seed, n, max_rounds)
    stalled = sum(getattr(o, "stalled", 0) for o in outcomes)  # see engine.STALL_ROUNDS
    if stalled:
        meta["stalled_skirmishes"] = int(stalled)
    skirmishes.attrs["provenance"] = meta
    combatants.attrs["provenance"] = meta
    return RunResult(scen, skirmishes, combatants, meta)
