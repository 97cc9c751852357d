"""Long runs: a run folder of finished chunks, `--resume`, summary-only mode, streamed tables.

A run folder holds `manifest.json` (what is being run: scenario hash, seed, count,
chunk size...) and one set of files per finished chunk under `chunks/`. Every file is
written atomically and a chunk's aggregate (`chunk-NNNNNN.agg.npz`) is written last,
so its presence is what marks the chunk finished. After an interruption, `--resume`
plays only the chunks without one; since chunk i always draws from the same stream
and aggregates merge exactly, the result is identical to an uninterrupted run.

Full outcome tables are never built in memory here: each chunk's tables go to their
own Parquet files, and `--out` streams them, chunk by chunk, into one file per table
with a pyarrow ParquetWriter.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pandas as pd

import sim
from sim.aggregate import Aggregate, aggregate_outcome, summarize_aggregate
from sim.backends import ChunkCrash, RunFailed, WorkerDied, play_all
from sim.errors import ScenarioError
from sim.io import (atomic_write_bytes, atomic_write_frame, atomic_write_text, owner_tag,
                    remove_stale_temporaries, temporary_folder)
from sim import runner
from sim.interrupts import stop_if_interrupted
from sim.scenario import Scenario, load_scenario

FORMAT = 1
MANIFEST = "manifest.json"
SUMMARY = "summary.json"
TABLES = ("skirmishes", "combatants")
# Settings that must match for `--resume` to continue a run folder.
MATCH_KEYS = ("format", "scenario_hash", "seed", "skirmishes", "chunk_size", "max_rounds", "crn", "mode")


def merge_sound(done: set[int], sound, agg) -> None:
    """Merge into `agg` each finished chunk whose files are whole (`sound(i)`: its
    aggregate, or None); the others leave `done`, to be played again."""
    for i in sorted(done):
        part = sound(i)
        if part is None:
            done.discard(i)
        else:
            agg.merge(part)


def subfolder_name(scenario_file) -> str:
    """The name a scenario gets inside `--run-dir` or `--out` when several are run: its
    file's stem, with leading dots made underscores. A file `...yaml` has the stem '..',
    and `--run-dir runs/x` would otherwise write into runs/ itself (`..yaml`: into runs/x,
    over the other scenarios' folders); a leading dot would hide the folder, or make it
    look like a stale temporary that a later run removes."""
    stem = Path(scenario_file).stem
    bare = stem.lstrip(".")
    return "_" * (len(stem) - len(bare)) + bare


def play_task(chunk: int, seed: int, size: int, data_json: str, source: str, max_rounds: int,
              crn: bool, summary_only: bool, n_sides: int, chunk_size: int | None = None):
    """One chunk in a worker: its Outcome, or only its Aggregate in summary mode (small to send back)."""
    out = runner.play_chunk(data_json, source, chunk, size, seed, max_rounds, crn, chunk_size)
    return aggregate_outcome(out, n_sides) if summary_only else out


class RunFolder:
    """The files of one run: manifest, finished chunks, final summary."""

    def __init__(self, path):
        self.path = Path(path)
        self.chunks = self.path / "chunks"
        self.replayed: list[tuple[int, str]] = []  # (chunk, what was wrong) of damaged chunks played again

    def chunk_file(self, chunk: int, kind: str) -> Path:
        return self.chunks / f"chunk-{chunk:06d}.{kind}"

    def read_manifest(self) -> dict | None:
        p = self.path / MANIFEST
        if not p.exists():
            return None
        try:
            manifest = json.loads(p.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise ScenarioError("is damaged (not JSON); this run folder cannot be resumed, pick a new --run-dir.",
                                file=str(p)) from None
        if not isinstance(manifest, dict):
            raise ScenarioError(f"is not a run's manifest (a JSON {type(manifest).__name__}, where a run writes an "
                                "object); this run folder cannot be resumed, pick a new --run-dir.", file=str(p))
        return manifest

    def check_usable(self, resume: bool) -> dict | None:
        """Refuse a folder this run cannot use (before anything is played); its manifest."""
        if self.path.exists() and not self.path.is_dir():
            raise ScenarioError("is a file; --run-dir needs a folder.", file=str(self.path))
        old = self.read_manifest()
        if old is None and self.path.exists() and any(self.path.iterdir()):
            raise ScenarioError("is not empty and holds no run (no manifest.json); pick an empty or new "
                                "folder for --run-dir.", file=str(self.path))
        if old is not None and not resume:
            raise ScenarioError("already holds a run; add --resume to finish it (finished chunks are kept), "
                                "or pick a new --run-dir.", file=str(self.path))
        if old is not None and old.get("package_version") != sim.__version__:
            # Another version may play the same seed differently, and its chunks merged with
            # this one's would give a result neither version would: never mix them.
            then = old.get("package_version") or "an unknown version"
            raise ScenarioError(f"holds a run started by skirmish-sim {then}, but this is skirmish-sim "
                                f"{sim.__version__}, and chunks of two versions must not be mixed; start afresh "
                                f"with a new --run-dir, or finish this run with skirmish-sim {then}.",
                                file=str(self.path))
        return old

    def prepare(self, manifest: dict, resume: bool, match_keys=MATCH_KEYS) -> set[int]:
        """Start a new run folder or check an old one against `manifest`; the finished chunks."""
        old = self.check_usable(resume)
        if old is None:
            self.chunks.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path / MANIFEST, json.dumps(manifest, indent=2, default=str))
            return set()
        kinds = [m.get("kind", "scenario") for m in (old, manifest)]
        if kinds[0] != kinds[1]:
            what = {"scenario": "a scenario (skirmish run)", "day": "a day (skirmish day)"}
            raise ScenarioError(f"holds the run of {what.get(kinds[0], kinds[0])}, not of {what[kinds[1]]}; "
                                "pick a new --run-dir.", file=str(self.path))
        for key in match_keys:
            if old.get(key) != manifest.get(key):
                raise ScenarioError(f"holds a run with {key} {old.get(key)!r}, but this run has "
                                    f"{manifest.get(key)!r}; resume with the same scenario and settings, "
                                    "or pick a new --run-dir.", file=str(self.path))
        self.chunks.mkdir(parents=True, exist_ok=True)
        for stale in self.chunks.glob(".*.part"):  # left by a process killed mid-write
            stale.unlink(missing_ok=True)
        remove_stale_temporaries(self.path)
        return self.finished()

    def finished(self) -> set[int]:
        # Only names this code writes: a foreign chunk-x.agg.npz is not a chunk (it raised ValueError).
        found = (re.fullmatch(r"chunk-(\d+)\.agg\.npz", p.name) for p in self.chunks.glob("chunk-*.agg.npz"))
        return {int(m.group(1)) for m in found if m}

    def save_chunk(self, chunk: int, agg: Aggregate, frames: dict | None, meta: dict) -> None:
        for kind, frame in (frames or {}).items():
            atomic_write_frame(self.chunk_file(chunk, f"{kind}.parquet"), frame, "parquet", meta)
        atomic_write_bytes(self.chunk_file(chunk, "agg.npz"), agg.to_bytes())  # last: marks it finished

    def load_agg(self, chunk: int) -> Aggregate:
        return Aggregate.from_bytes(self.chunk_file(chunk, "agg.npz").read_bytes())

    def sound_agg(self, chunk: int, size: int, n_sides: int, n_combatants: int, full: bool) -> Aggregate | None:
        """The chunk's aggregate if its files are whole and of this run, else None (and
        they are removed, so the chunk is played again: the same stream gives the same
        result, so a damaged file costs time, never a result). What was wrong is kept in
        `self.replayed` for the run to say."""
        problem = "its rows do not match the run"
        try:
            part = self.load_agg(chunk)
            Aggregate.empty(n_sides, n_combatants).merge(part)  # the shapes of this run
            rows = {"skirmishes": size, "combatants": size * n_combatants} if full else {}
            import pyarrow.parquet as pq
            if part.n == size and all(pq.read_metadata(self.chunk_file(chunk, f"{kind}.parquet")).num_rows == k
                                      for kind, k in rows.items()):
                return part
        except Exception as e:  # noqa: BLE001 - any unreadable or mismatched file means: replay the chunk
            problem = f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else 'unreadable'}"
        for p in self.chunks.glob(f"chunk-{chunk:06d}.*"):
            p.unlink(missing_ok=True)
        self.replayed.append((chunk, problem))
        return None

    def frames(self, kind: str, chunks: int) -> Iterator[pd.DataFrame]:
        for i in range(chunks):
            p = self.chunk_file(i, f"{kind}.parquet")
            if not p.exists():
                raise ScenarioError(f"misses {p.name}; the run kept no tables (summary-only) or is unfinished "
                                    "(finish it with --resume).", file=str(self.path))
            yield pd.read_parquet(p)


@dataclass
class ChunkedResult:
    """A run played chunk by chunk: its aggregate always, its tables in the run folder if kept."""
    scenario: Scenario
    aggregate: Aggregate
    meta: dict = field(default_factory=dict)
    folder: RunFolder | None = None
    summary_only: bool = False
    written: list = field(default_factory=list)  # files streamed by `out=`

    @property
    def chunks(self) -> int:
        return len(runner.chunk_sizes(self.meta["skirmishes"]))

    def summary(self) -> dict:
        return summarize_aggregate(self.aggregate, self.scenario, self.meta)

    def summary_text(self) -> str:
        from sim.summary import summary_text
        return summary_text(self)

    def _holds(self) -> str:
        if self.summary_only or self.folder is None:
            return "counts, sums and histograms only (.aggregate)"
        return f"tables in {self.folder.path} (.iter_tables('skirmishes' or 'combatants'))"

    def __repr__(self) -> str:
        from sim.summary import short_text
        return short_text(self, self._holds())

    def _repr_html_(self) -> str:
        from sim.summary import short_html
        return short_html(self, self._holds())

    def iter_tables(self, kind: str) -> Iterator[pd.DataFrame]:
        """One table ('skirmishes' or 'combatants'), chunk by chunk, in skirmish order."""
        if self.summary_only or self.folder is None:
            raise ScenarioError("a summary-only run keeps no outcome tables; run without --summary-only "
                                "and with --run-dir to keep them.")
        return self.folder.frames(kind, self.chunks)

    @property
    def skirmishes(self) -> pd.DataFrame:
        """The whole table in memory (for runs that fit; large runs use iter_tables or write)."""
        return pd.concat(list(self.iter_tables("skirmishes")), ignore_index=True)

    @property
    def combatants(self) -> pd.DataFrame:
        return pd.concat(list(self.iter_tables("combatants")), ignore_index=True)

    def write(self, out) -> list[Path]:
        """Stream both tables to `X.parquet` (or `X.csv`) one chunk at a time."""
        return stream_tables(self, out)


def stream_tables(result: ChunkedResult, out) -> list[Path]:
    """Stream both tables into temporaries and move them into place together: an
    interrupted or failed write leaves the previous pair as it was, never this run's
    skirmish table beside the previous run's combatant table."""
    from sim.summary import new_pair_id, replacing_together, table_paths  # one rule for streamed and in-memory tables
    sk_path, cb_path, meta_path, fmt = table_paths(out)
    paths = [sk_path, cb_path] + ([meta_path] if meta_path is not None else [])
    pair = new_pair_id()
    with replacing_together(paths) as tmps:
        for kind, tmp in zip(TABLES, tmps):
            _stream_one(result.iter_tables(kind), tmp, fmt, result.meta, pair)
        if meta_path is not None:
            Path(tmps[2]).write_text(json.dumps(result.meta, indent=2, default=str), encoding="utf-8")
    return paths


def _stream_one(frames: Iterator[pd.DataFrame], tmp, fmt: str, meta: dict, pair: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from sim.summary import with_pair_id
    writer = None
    try:
        for i, frame in enumerate(frames):
            stop_if_interrupted()
            if fmt == "csv":
                frame.to_csv(tmp, mode="w" if i == 0 else "a", header=i == 0, index=False)
                continue
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if writer is None:
                md = with_pair_id(table.schema.metadata, pair)
                md[b"skirmish_sim"] = json.dumps(meta, default=str).encode()
                schema = table.schema.with_metadata(md)
                writer = pq.ParquetWriter(tmp, schema)
            writer.write_table(table.replace_schema_metadata(schema.metadata))
    finally:
        if writer is not None:
            writer.close()


def _command(words: list) -> str:
    return " ".join(shlex.quote(str(w)) for w in words)


def _set_args(overrides: dict | None) -> list:
    out = []
    for k, v in (overrides or {}).items():
        out += ["--set", f"{k}={v}"]
    return out


def _chunk_repro(scen: Scenario, chunk: int, seed: int, n: int, max_rounds: int, overrides) -> tuple[str, str]:
    """('chunk i (skirmishes a..b, seed s, ...)', the trace command that replays it)."""
    first = chunk * runner.CHUNK_SIZE
    size = runner.chunk_sizes(n)[chunk]
    trace = _command(["skirmish", "trace", scen.source, "--seed", seed, "-n", n, "--skirmish", first,
                      "--max-rounds", max_rounds, *_set_args(overrides)])
    return (f"chunk {chunk} (skirmishes {first}..{first + size - 1}, seed {seed}, random stream "
            f"SeedSequence({seed}, spawn_key=({chunk},)))", trace)


def crash_message(scen: Scenario, chunk: int, seed: int, n: int, max_rounds: int, overrides, run_dir,
                  error: str, resume_cmd: str | None) -> str:
    where, trace = _chunk_repro(scen, chunk, seed, n, max_rounds, overrides)
    msg = (f"{where} crashed in a worker: {error}. "
           f"Reproduce it (the trace replays that chunk's random stream) with: {trace}")
    return msg + (f". Finished chunks are kept in {run_dir}; once fixed, finish the run with: {resume_cmd}"
                  if resume_cmd else "")


def worker_died_message(scen: Scenario, unfinished: list, seed: int, n: int, max_rounds: int, overrides,
                        run_dir, error: str, resume_cmd: str | None) -> str:
    # Which chunk a dead process was playing is not reported back, but chunks are handed
    # out in order, so it is among the first unfinished ones.
    parts = [f"a worker process died ({error}); it was playing one of the first unfinished chunks:"]
    for chunk, _seed, _size in unfinished[:4]:
        where, trace = _chunk_repro(scen, chunk, seed, n, max_rounds, overrides)
        parts.append(f"{where}, replay with: {trace};")
    if len(unfinished) > 4:
        parts.append(f"{len(unfinished) - 4} more chunks were not finished.")
    if resume_cmd:
        parts.append(f"Finished chunks are kept in {run_dir}; finish the run with: {resume_cmd}")
    return " ".join(parts)


def resume_command(scen: Scenario, seed: int, n: int, max_rounds: int, overrides, run_dir,
                   summary_only: bool, *, out=None, jobs: int = 1, backend: str = "threads",
                   scheduler: str | None = None) -> str:
    """The command that finishes the run: the same settings and outputs as the one interrupted."""
    where = (["--scheduler", scheduler] if scheduler else ["--backend", backend] if backend != "threads" else [])
    return _command(["skirmish", "run", scen.source, "--seed", seed, "-n", n, "--max-rounds", max_rounds,
                     *_set_args(overrides), *(["--summary-only"] if summary_only else []),
                     *(["--out", out] if out is not None else []), *(["-j", jobs] if jobs != 1 else []),
                     *where, "--run-dir", run_dir, "--resume"])


def run_chunked(scenario, n: int | None = None, seed: int | None = None, jobs: int = 1,
                max_rounds: int | None = None, overrides: dict | None = None, crn: bool = False, *,
                run_dir=None, resume: bool = False, summary_only: bool = False, backend: str = "threads",
                scheduler: str | None = None, out=None, scratch=None,
                progress: Callable[[int], None] | None = None, _temporary: bool = False) -> ChunkedResult:
    """Play a scenario chunk by chunk in bounded memory; see `run_to_folder` and `run_summary`.

    `progress`, as for `sim.run`, is called with the number of skirmishes of each finished
    chunk (at the start, once with those a resumed run already has)."""
    scen = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, overrides)
    if isinstance(scenario, Scenario) and overrides:
        scen = load_scenario(scen.data, overrides)
    n = int(scen.run["skirmishes"] if n is None else n)
    seed = int(scen.run["seed"] if seed is None else seed)
    max_rounds = int(scen.run["max_rounds"] if max_rounds is None else max_rounds)
    if resume and run_dir is None:
        raise ScenarioError("--resume needs --run-dir, the folder of the run to finish.")
    if run_dir is None and not summary_only:
        if out is None:
            raise ScenarioError("a run that keeps its outcome tables chunk by chunk needs a run folder "
                                "(--run-dir) or --out; add --summary-only to keep only the summary.")
        # Tables for --out only: chunks go to a hidden folder beside the output, are streamed
        # into it, and the folder goes away (nothing to resume, so no resume hint either).
        parent = Path(out).parent
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(parent)  # chunk folders of runs killed before they could clean up
        with temporary_folder(f".skirmish-chunks-{owner_tag()}-", parent) as tmp:
            result = run_chunked(scenario, n, seed, jobs, max_rounds, overrides, crn, run_dir=tmp, backend=backend,
                                 scheduler=scheduler, out=out, scratch=scratch, progress=progress,
                                 _temporary=True)
        result.folder = None
        return result
    if summary_only and out is not None:
        raise ScenarioError("--summary-only keeps no outcome tables, so there is nothing for --out to write; "
                            "drop one of the two (the summary prints, or use --json).")
    if out is not None:
        remove_stale_temporaries(Path(out).parent)  # tables half-streamed by a killed run
    sizes = runner.chunk_sizes(n)
    n_sides = len(scen.side_names)
    meta = runner.provenance(scen, seed, n, max_rounds)
    folder = RunFolder(run_dir) if run_dir is not None else None
    done: set[int] = set()
    if folder is not None:
        manifest = {"format": FORMAT, "scenario_hash": scen.hash, "seed": seed, "skirmishes": n,
                    "chunk_size": runner.CHUNK_SIZE, "chunks": len(sizes), "max_rounds": max_rounds,
                    "crn": bool(crn), "mode": "summary" if summary_only else "full",
                    "scenario": scen.name, "scenario_file": scen.source, "overrides": overrides or {},
                    "package_version": sim.__version__, "scenario_data": scen.data}
        done = folder.prepare(manifest, resume) & set(range(len(sizes)))
    agg = Aggregate.empty(n_sides, len(scen.combatants))
    merge_sound(done, lambda i: folder.sound_agg(i, sizes[i], n_sides, len(scen.combatants), not summary_only), agg)
    if progress is not None and done:
        progress(agg.n)
    data_json = json.dumps(scen.data, default=str)
    tasks = [(i, seed, size, data_json, scen.source, max_rounds, crn, summary_only, n_sides, runner.CHUNK_SIZE)
             for i, size in enumerate(sizes) if i not in done]
    resume_cmd = (resume_command(scen, seed, n, max_rounds, overrides, run_dir, summary_only, out=out, jobs=jobs,
                                 backend=backend, scheduler=scheduler)
                  if run_dir is not None and not _temporary else None)
    if scheduler is None and tasks:
        # Workers on this machine share its compile cache: compile once, here, where the
        # progress shows, rather than in every worker at once and silently.
        runner.warm(scen)
    try:
        for chunk, res in play_all(play_task, tasks, jobs, backend, scheduler, scratch):
            if summary_only:
                part, frames = res, None
            else:
                part = aggregate_outcome(res, n_sides)
                r = runner.build_result(scen, [res], seed, max_rounds, first_skirmish=chunk * runner.CHUNK_SIZE)
                frames = {"skirmishes": r.skirmishes, "combatants": r.combatants}
            if folder is not None:
                folder.save_chunk(chunk, part, frames, meta)
            agg.merge(part)
            done.add(chunk)
            if progress is not None:
                progress(part.n)
    except ChunkCrash as e:
        raise RunFailed(crash_message(scen, e.chunk, seed, n, max_rounds, overrides, run_dir, e.error,
                                      resume_cmd)) from e
    except WorkerDied as e:
        raise RunFailed(worker_died_message(scen, e.unfinished, seed, n, max_rounds, overrides, run_dir,
                                            e.error, resume_cmd)) from None
    if agg.stalled:
        meta = {**meta, "stalled_skirmishes": int(agg.stalled)}
    result = ChunkedResult(scen, agg, meta, folder, summary_only)
    # Not in the provenance: a resumed run's result is the uninterrupted run's, to the last field.
    result.replayed = list(folder.replayed) if folder is not None else []
    if folder is not None:
        atomic_write_text(folder.path / SUMMARY, json.dumps(result.summary(), indent=2, default=str))
    if out is not None:
        result.written = result.write(out)
    return result


def run_to_folder(scenario, run_dir, n: int | None = None, seed: int | None = None, jobs: int = 1,
                  max_rounds: int | None = None, overrides: dict | None = None, crn: bool = False, *,
                  resume: bool = False, summary_only: bool = False, backend: str = "threads",
                  scheduler: str | None = None, out=None, scratch=None, progress=None) -> ChunkedResult:
    """Play a scenario into the run folder `run_dir`, saving every chunk as it finishes.

    With `resume=True` an interrupted run in `run_dir` is finished without replaying its
    finished chunks; the result equals that of an uninterrupted run. The outcome tables
    stay on disk (`result.iter_tables(...)`, `result.write(out)`) unless loaded on purpose.
    """
    return run_chunked(scenario, n, seed, jobs, max_rounds, overrides, crn, run_dir=run_dir, resume=resume,
                       summary_only=summary_only, backend=backend, scheduler=scheduler, out=out,
                       scratch=scratch, progress=progress)


def run_summary(scenario, n: int | None = None, seed: int | None = None, jobs: int = 1,
                max_rounds: int | None = None, overrides: dict | None = None, crn: bool = False, *,
                backend: str = "threads", scheduler: str | None = None, scratch=None,
                progress=None) -> ChunkedResult:
    """Play a scenario in constant memory and keep only its summary (counts, sums, histograms)."""
    return run_chunked(scenario, n, seed, jobs, max_rounds, overrides, crn, summary_only=True,
                       backend=backend, scheduler=scheduler, scratch=scratch, progress=progress)
