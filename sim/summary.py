"""From outcome tables to the figures a designer reads: rates with intervals, means."""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from sim.io import _usual_mode, finished_with, new_temporary, owner_tag
from sim.stats import wilson


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else float("nan"), "ci95": [float(lo), float(hi)]}


def summarize(result) -> dict:
    """The summary figures of a run, from its outcome tables.

    The tables are folded into the same Aggregate a summary-only run builds chunk by
    chunk, so both kinds of run report identical figures from one piece of code.
    """
    from sim.aggregate import SUM_COLUMNS, aggregate_in_blocks, summarize_aggregate
    from sim.rulesets.base import DRAW, UNFINISHED, Outcome
    sk, cb, scen = result.skirmishes, result.combatants, result.scenario
    n, c, n_sides = len(sk), len(scen.combatants), len(scen.side_names)
    codes = sk["winner"].cat.codes.to_numpy().astype(np.int64)
    winner = np.where(codes == n_sides, DRAW, np.where(codes == n_sides + 1, UNFINISHED, codes))
    per = {k: cb[k].to_numpy().reshape(n, c) for k in SUM_COLUMNS}
    per["final_state"] = cb["final_state"].cat.codes.to_numpy().reshape(n, c)
    for k in getattr(scen.ruleset, "outcome_columns", None) or ():
        if k in cb.columns and k not in per and k != "down_round":
            per[k] = cb[k].to_numpy().reshape(n, c)
    outcome = Outcome(winner, sk["rounds"].to_numpy(), per)
    return summarize_aggregate(aggregate_in_blocks(outcome, n_sides, c), scen, result.meta)


def _pct(x: float) -> str:
    # One decimal, or two where one would round a rare outcome to a flat 0% or 100%.
    if 0 < x < 0.001 or 0.999 < x < 1:
        return f"{100 * x:5.2f}%"
    return f"{100 * x:5.1f}%"


def summary_text(result) -> str:
    s = result.summary()  # RunResult or a chunked run's aggregate (sim/rundir.py)
    lines = [f"{s['scenario']}  ({s['ruleset']}, {s['skirmishes']:,} skirmishes, seed {s['seed']})", ""]
    lines.append("Who wins (95% confidence interval)")
    for side, v in s["sides"].items():
        lo, hi = v["ci95"]
        lines.append(f"  {side:<24} {_pct(v['win_rate'])}   [{_pct(lo)} .. {_pct(hi)}]")
    lines.append(f"  {'draw (all fell together)':<24} {_pct(s['draw_rate'])}")
    lines.append(f"  {'unfinished':<24} {_pct(s['unfinished_rate'])}")
    r = s["rounds"]
    lines += ["", f"Fight length: mean {r['mean']:.2f} rounds, median {r['p50']:.0f}, "
                  f"90% within {r['p90']:.0f}, longest {r['max']}", ""]
    width = max(len("combatant"), *(len(c["name"]) for c in s["combatants"])) + 2
    lines.append(f"  {'combatant':<{width}}{'side':<12}{'attacks':>8}{'hits':>7}{'hit%':>7}"
                 f"{'dealt':>8}{'taken':>8}{'down%':>7}{'fled%':>7}")
    for c in s["combatants"]:
        hr = f"{100 * c['hit_rate']:.0f}" if c["hit_rate"] is not None else "-"
        lines.append(f"  {c['name']:<{width}}{c['side']:<12}{c['attacks']:>8.2f}{c['hits']:>7.2f}{hr:>7}"
                     f"{c['damage_dealt']:>8.2f}{c['damage_taken']:>8.2f}"
                     f"{100 * c['down_rate']:>7.1f}{100 * c['fled_rate']:>7.1f}")
    scen = getattr(result, "scenario", None)
    if scen is not None and s.get("ruleset_columns"):
        from sim.inert import means_lines
        lines += [""] + means_lines(scen, s["ruleset_columns"], f"{scen.ruleset.title} figures")
    if s.get("inert"):
        from sim.inert import inert_lines
        lines += [""] + inert_lines(s["inert"], s["skirmishes"])
    if s["provenance"].get("stalled_skirmishes"):
        from sim.engine import stall_message
        lines += ["", "Note: " + stall_message(s["provenance"]["stalled_skirmishes"])]
    notes = getattr(scen.ruleset, "warnings", lambda _: [])(scen) if scen is not None else []
    if notes:
        lines += [""] + [f"Note: {n}" for n in notes]
    lines += ["", "attacks, hits and damage are means per skirmish; damage counts what was rolled, "
                  "not capped at what the target had left; down = unconscious or dead at the end "
                  "(fled counted apart).",
              f"scenario hash {s['provenance']['scenario_hash']}, package {s['provenance']['package_version']}"]
    return "\n".join(lines)


def table_paths(out) -> tuple[Path, Path, Path | None, str]:
    """Where `--out X.parquet` puts the tables: (skirmishes, combatants, meta json or None, format).

    `X.parquet` itself is the skirmish table, so `pd.read_parquet("X.parquet")` reads it;
    the combatant table goes beside it as `X.combatants.parquet`. The same for `.csv`
    (plus `X.meta.json`, since CSV has no metadata); a path without either suffix gets `.parquet`.
    """
    out = Path(out)
    fmt = "csv" if out.suffix.lower() == ".csv" else "parquet"
    stem = out.with_suffix("") if out.suffix.lower() in (".csv", ".parquet") else out
    meta = stem.parent / f"{stem.name}.meta.json" if fmt == "csv" else None
    return stem.parent / f"{stem.name}.{fmt}", stem.parent / f"{stem.name}.combatants.{fmt}", meta, fmt


# Kept out of sim/io.py on purpose: a ruleset's compiled kernel is keyed on the files it
# can read, sim/io.py among them (through sim/starters.py), and a change there would
# recompile that ruleset on every machine.
PAIR_KEY = b"skirmish_sim_pair"


def new_pair_id() -> str:
    """The id both tables of one `--out` write carry, so a skirmish table beside another
    run's combatant table is told apart from a matching pair."""
    import uuid
    return uuid.uuid4().hex


def with_pair_id(schema_metadata: dict | None, pair_id: str | None) -> dict:
    md = dict(schema_metadata or {})
    if pair_id:
        md[PAIR_KEY] = pair_id.encode()
    return md


def read_pair_id(path) -> str | None:
    """The pair id of a Parquet table written by `skirmish run --out` (None before they had one)."""
    import pyarrow.parquet as pq
    raw = (pq.read_schema(path).metadata or {}).get(PAIR_KEY)
    return raw.decode() if raw else None


@contextmanager
def replacing_together(paths):
    """Like `sim.io.replacing`, for files that belong together (a run's two outcome
    tables): yield one temporary path per target; only once every one is written are
    they all moved into place, so a failure or Ctrl-C while any is written leaves every
    target as it was. Ctrl-C is held off during the moves, so it cannot part them; only
    a SIGKILL or a power cut between two renames can, which the pair id shows."""
    import signal
    paths = [Path(p) for p in paths]
    tmps = []
    try:
        for path in paths:
            tmps.append(new_temporary(path))
        yield list(tmps)
        for tmp in tmps:
            _usual_mode(tmp)
        held = hasattr(signal, "pthread_sigmask")
        if held:
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            _replace_all(tmps, paths)
        finally:
            if held:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
    except BaseException:
        for tmp in tmps:
            Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        for tmp in tmps:
            finished_with(tmp)


def _replace_all(tmps: list, paths: list[Path]) -> None:
    """Move every temporary onto its target; should one move fail (a target that is a
    folder, say), put back the targets already replaced, from hard links kept of them."""
    kept = {}
    try:
        for path in paths:
            if path.is_file():
                backup = path.with_name(f".{path.name}.{owner_tag()}.old.part")
                try:
                    os.link(path, backup)
                except OSError:  # no hard links on this file system: no way back, go on
                    continue
                kept[path] = backup
        done = []
        try:
            for tmp, path in zip(tmps, paths):
                os.replace(tmp, path)
                done.append(path)
        except BaseException:
            for path in done:
                if path in kept:
                    os.replace(kept.pop(path), path)
                else:
                    path.unlink(missing_ok=True)  # new beside the old: none is better than a mismatch
            raise
    finally:
        for backup in kept.values():
            backup.unlink(missing_ok=True)


def write_frame(tmp, frame, fmt: str, meta: dict | None = None, pair_id: str | None = None) -> None:
    """`frame` into the file `tmp` (not atomically: give it a temporary path)."""
    if fmt not in ("parquet", "csv"):  # pragma: no cover - callers pass one of the two
        raise ValueError(fmt)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pa.Table.from_pandas(frame, preserve_index=False)
        merged = with_pair_id(table.schema.metadata, pair_id)
        if meta:
            merged[b"skirmish_sim"] = json.dumps(meta, default=str).encode()
        pq.write_table(table.replace_schema_metadata(merged), tmp)
    else:
        frame.to_csv(tmp, index=False)


def write_tables(result, out) -> list[Path]:
    """Write both tables (see `table_paths`) as one unit: both or, on any failure, neither;
    returns the paths written."""
    sk_path, cb_path, meta_path, fmt = table_paths(out)
    paths = [sk_path, cb_path] + ([meta_path] if meta_path is not None else [])
    pair = new_pair_id()
    with replacing_together(paths) as tmps:
        for tmp, frame in zip(tmps, (result.skirmishes, result.combatants)):
            write_frame(tmp, frame, fmt, result.meta, pair)
        if meta_path is not None:
            Path(tmps[2]).write_text(json.dumps(result.meta, indent=2, default=str), encoding="utf-8")
    return paths


def short_text(result, holds: str) -> str:
    """A result in one line, for a notebook or a REPL: who wins, with intervals, and what
    it holds. The default repr printed both tables' reprs whole (20,377 characters)."""
    s = result.summary()
    wins = ", ".join(f"{side} {_pct(v['win_rate']).strip()} [{_pct(v['ci95'][0]).strip()} .. "
                     f"{_pct(v['ci95'][1]).strip()}]" for side, v in s["sides"].items())
    return (f"<{type(result).__name__}: {s['scenario']} ({s['ruleset']}), {s['skirmishes']:,} skirmishes, "
            f"seed {s['seed']}: {wins}; {holds}; .summary_text() for the whole summary>")


def short_html(result, holds: str) -> str:
    """short_text as a small table, which Jupyter shows for a result left at the end of a cell."""
    from html import escape
    s = result.summary()
    rows = "".join(f"<tr><td>{escape(str(side))}</td><td>{_pct(v['win_rate']).strip()}</td>"
                   f"<td>{_pct(v['ci95'][0]).strip()} .. {_pct(v['ci95'][1]).strip()}</td></tr>"
                   for side, v in s["sides"].items())
    return (f"<p><b>{escape(str(s['scenario']))}</b> ({escape(s['ruleset'])}), {s['skirmishes']:,} skirmishes, "
            f"seed {s['seed']}</p><table><tr><th>side</th><th>wins</th><th>95% interval</th></tr>{rows}</table>"
            f"<p>{escape(holds)}; <code>.summary_text()</code> for the whole summary.</p>")
