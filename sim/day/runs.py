"""Playing a day file's days chunk by chunk: on any backend, into a run folder, summary-only.

Chunk i of a day holds days i*CHUNK_SIZE onwards and plays skirmish k of every fight
for day k, so a chunk's result depends on (day file, seed, chunk) only: which worker or
backend plays it, and whether it was played before an interruption, changes nothing.
Every chunk is folded into a DayAggregate (sim/day/aggregate.py), which is all a
summary-only run keeps; a run folder holds each finished chunk's aggregate (written
last, so its presence marks the chunk finished) and, unless summary-only, its tables.
"""
from __future__ import annotations

import shlex

from sim.day.aggregate import DayAggregate, empty
from sim.day.play import _setup, play_days
from sim.day.result import DayResult, build_tables
from sim.day.spec import Day, load_day
from sim.errors import ScenarioError
from sim.stats import wilson

TABLES = ("days", "fights", "members", "fates", "rests")
FORMAT = 1
MATCH_KEYS = ("format", "kind", "day_hash", "seed", "days", "chunk_size", "mode")
_WORKER_DAYS: dict = {}


def play_day_chunk(chunk: int, seed: int, size: int, recipe, summary_only: bool):
    """One chunk of days in a worker: its DayChunk, or only its DayAggregate when
    summary-only (small to send back). `recipe` is the Day itself on threads of this
    process, else (day file, days, seed, day hash), loaded once per worker process."""
    from sim.runner import CHUNK_SIZE
    day = recipe if isinstance(recipe, Day) else _worker_day(recipe)
    played = play_days(day, chunk * CHUNK_SIZE, size)
    return DayAggregate.from_chunk(day, played) if summary_only else played


def _worker_day(recipe: tuple) -> Day:
    if recipe not in _WORKER_DAYS:
        source, days, seed, wanted = recipe
        day = load_day(source, days=days, seed=seed)
        if day.hash != wanted:
            raise ScenarioError(f"a worker read {source} (or a scenario file it names) as something else than "
                                "the run did (another day hash): a cluster's workers must see the same files; "
                                "copy them there unchanged, or run on this machine.")
        _WORKER_DAYS.clear()
        _WORKER_DAYS[recipe] = day
    return _WORKER_DAYS[recipe]


def manifest(day: Day, summary_only: bool) -> dict:
    import sim
    from sim.runner import CHUNK_SIZE, chunk_sizes
    n = int(day.run["days"])
    return {"format": FORMAT, "kind": "day", "day_hash": day.hash, "seed": int(day.run["seed"]), "days": n,
            "chunk_size": CHUNK_SIZE, "chunks": len(chunk_sizes(n)), "mode": "summary" if summary_only else "full",
            "day": day.name, "day_file": day.source, "package_version": sim.__version__, "day_data": day.data}


def resume_command(day: Day, run_dir, summary_only: bool, jobs: int, backend: str, scheduler) -> str:
    where = (["--scheduler", scheduler] if scheduler else ["--backend", backend] if backend != "threads" else [])
    words = ["skirmish", "day", day.source, "-n", int(day.run["days"]), "--seed", int(day.run["seed"]),
             *(["--summary-only"] if summary_only else []), *(["-j", jobs] if jobs != 1 else []), *where,
             "--run-dir", run_dir, "--resume"]
    return " ".join(shlex.quote(str(w)) for w in words)


def play(day: Day, *, jobs: int = 1, backend: str = "threads", scheduler: str | None = None,
         summary_only: bool = False, run_dir=None, resume: bool = False, precision: float | None = None,
         max_days: int = 1_000_000, progress=None, meta_of=None) -> DayResult:
    """Play `day`'s days (sim.day.run documents the options); `meta_of(day)` gives the
    provenance of what was played."""
    from sim.backends import ChunkCrash, RunFailed, WorkerDied, check_backend, play_all
    from sim.runner import CHUNK_SIZE, check_seed, chunk_sizes, warm
    if resume and run_dir is None:
        raise ScenarioError("--resume needs --run-dir, the folder of the day's run to finish.")
    if precision and run_dir is not None:
        raise ScenarioError("--precision plays as many days as the interval needs, and a run folder holds a fixed "
                            "number of days; give -n DAYS with --run-dir, or drop --run-dir.")
    backend = check_backend(backend, scheduler)
    n = int(max_days if precision else day.run["days"])
    for fight in day.fights:
        check_seed(fight.seed, 0, n)
    sizes = chunk_sizes(n)
    folder, done, agg = None, set(), empty()
    if run_dir is not None:
        from sim.rundir import RunFolder, merge_sound
        folder = RunFolder(run_dir)
        done = folder.prepare(manifest(day, summary_only), resume, MATCH_KEYS) & set(range(len(sizes)))
        merge_sound(done, lambda i: _sound_chunk(folder, i, sizes[i], summary_only), agg)
        if progress is not None and done:
            progress(agg.n)
    meta = meta_of(day)
    local = backend == "threads"
    recipe = day if local else (day.source, int(day.run["days"]), int(day.run["seed"]), day.hash)
    tasks = [(i, int(day.run["seed"]), size, recipe, summary_only)
             for i, size in enumerate(sizes) if i not in done]
    if tasks and scheduler is None:
        warm(day.fights[0].scenario)  # compiled once, here, not by every worker at once
    if local:
        for fight in day.fights:
            _setup(fight.scenario)  # built here once, not by racing threads
    chunks, arrived, next_chunk, reached = {}, {}, 0, False
    hint = (resume_command(day, run_dir, summary_only, jobs, backend, scheduler) if folder is not None else None)
    try:
        for i, res in play_all(play_day_chunk, tasks, jobs, backend, scheduler):
            if folder is not None:
                res = _saved(folder, day, i, res, summary_only, meta)
            part = res if isinstance(res, DayAggregate) else DayAggregate.from_chunk(day, res)
            if progress is not None:
                progress(part.n)
            if not precision:
                agg.merge(part)
                if not isinstance(res, DayAggregate):
                    chunks[i] = res
                continue
            arrived[i] = (part, res)
            while next_chunk in arrived:  # the interval is read over chunks in order: the seed alone decides
                part, res = arrived.pop(next_chunk)
                agg.merge(part)
                if not isinstance(res, DayAggregate):
                    chunks[next_chunk] = res
                next_chunk += 1
                lo, hi = wilson(int(agg.counts["days"][0]), agg.n)
                reached = (hi - lo) / 2 <= precision
                if reached:
                    break
            if reached:
                break
    except ChunkCrash as e:
        first = e.chunk * CHUNK_SIZE
        raise RunFailed(f"chunk {e.chunk} of the day (days {first}..{first + e.size - 1}, seed {e.seed}) crashed: "
                        f"{e.error}. Replay its first day with: skirmish day {shlex.quote(day.source)} --seed "
                        f"{e.seed} -n {n} --trace-day {first}"
                        + (f". Finished chunks are kept in {run_dir}; once fixed, finish with: {hint}" if hint
                           else "")) from e
    except WorkerDied as e:
        raise RunFailed(f"a worker process died ({e.error}) while playing the day"
                        + (f"; finished chunks are kept in {run_dir}, finish the run with: {hint}" if hint
                           else "; play it again (the same seed gives the same days).")) from None
    played = agg.n
    day.run = {**day.run, "days": played}  # what was played, for the provenance
    meta = meta_of(day)
    if precision:
        meta.update(precision=precision, max_days=max_days, reached=bool(reached))
    kept = [chunks[i] for i in sorted(chunks)] if not summary_only and folder is None else None
    result = DayResult(day, agg, meta, None, folder, summary_only, chunks=kept or None)
    if folder is not None:
        import json

        from sim.io import atomic_write_text
        result.replayed = list(folder.replayed)
        atomic_write_text(folder.path / "summary.json", json.dumps(result.summary(), indent=2, default=str))
    return result


def _saved(folder, day: Day, chunk: int, res, summary_only: bool, meta: dict) -> DayAggregate:
    """Save a finished chunk in the run folder: its tables (unless summary-only), then its
    aggregate, which marks it finished."""
    from sim.io import atomic_write_bytes, atomic_write_frame
    if isinstance(res, DayAggregate):
        part = res
    else:
        part = DayAggregate.from_chunk(day, res)
    if not summary_only:
        for name, frame in build_tables(day, [res], meta).items():
            atomic_write_frame(folder.chunk_file(chunk, f"{name}.parquet"), frame, "parquet", meta)
    atomic_write_bytes(folder.chunk_file(chunk, "agg.npz"), part.to_bytes())
    return part


def _sound_chunk(folder, chunk: int, size: int, summary_only: bool) -> DayAggregate | None:
    """The finished chunk's aggregate if its files are whole, else None (its files removed,
    so the chunk is played again: the same days give the same result)."""
    problem = "its days do not match the run"
    try:
        part = DayAggregate.from_bytes(folder.chunk_file(chunk, "agg.npz").read_bytes())
        if not summary_only:
            import pyarrow.parquet as pq
            rows = pq.read_metadata(folder.chunk_file(chunk, "days.parquet")).num_rows
            for name in TABLES[1:]:
                pq.read_metadata(folder.chunk_file(chunk, f"{name}.parquet"))
        else:
            rows = part.n
        if part.n == size and rows == size:
            return part
    except Exception as e:  # noqa: BLE001 - any unreadable or mismatched file means: play the chunk again
        problem = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else 'unreadable'}"
    for p in folder.chunks.glob(f"chunk-{chunk:06d}.*"):
        p.unlink(missing_ok=True)
    folder.replayed.append((chunk, problem))
    return None


def table_from_folder(folder, name: str, days: int, meta: dict):
    """One table of a run folder, its chunks in day order."""
    import pandas as pd

    from sim.runner import chunk_sizes
    frames = list(folder.frames(name, len(chunk_sizes(days))))
    table = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    table.attrs["provenance"] = meta
    return table


__all__ = ["play", "play_day_chunk", "resume_command", "table_from_folder"]
