"""`skirmish report RESULTS... -o DIR`: the shareable report of finished runs.

RESULTS are outcome tables written by `skirmish run --out` (the base path, either
table file, or a folder of them), or one saved analysis table (sweep, tune, sensitivity
or tournament, as Parquet or CSV). Registered on the `main` group by sim/cli.py.
"""
from __future__ import annotations

from pathlib import Path

import click

from sim.cli_base import echo, main
from sim.errors import ScenarioError


def _analysis_frame(path: Path):
    """A saved analysis table at `path`, with its provenance, or None."""
    import pandas as pd
    if not path.is_file() or path.suffix.lower() not in (".parquet", ".csv"):
        return None
    from sim.report.build import frame_kind
    if path.suffix.lower() == ".parquet":
        from sim.io import read_meta
        frame, meta = pd.read_parquet(path), read_meta(path)
    else:
        import json
        frame, side = pd.read_csv(path), path.with_suffix(".meta.json")
        meta = json.loads(side.read_text()) if side.exists() else {}
    if meta.get("command") and "analysis" not in frame.attrs:
        frame.attrs["analysis"] = meta
    return (frame, meta) if frame_kind(frame) else None


def check_pairs(item: Path) -> None:
    """Refuse a skirmish table and a combatant table that were not written together (a
    write of the pair cut between its two renames by SIGKILL or a power cut, or files
    copied in from different runs): their figures would mix two runs without a sign."""
    from sim.summary import read_pair_id
    from sim.report.tables import _pair_for
    if item.is_dir():
        pairs = [_pair_for(item / p.name[: -len(".combatants.parquet")]) for p in item.glob("*.combatants.parquet")]
    else:
        pairs = [_pair_for(item)]
    for found in pairs:
        if found is None or found[2] != "parquet":
            continue  # CSV tables carry no metadata; their meta.json is written with them
        sk, cb, _ = found
        try:
            ids = read_pair_id(sk), read_pair_id(cb)
        except (ValueError, OSError):
            continue  # unreadable: reading the tables says so, in its own words
        if ids[0] != ids[1]:
            raise ScenarioError(f"{sk} and {cb.name} beside it were not written by the same run (their pair "
                                f"ids differ: {ids[0] or 'none'} and {ids[1] or 'none'}), so its skirmishes and "
                                "combatants would not match; write both again with `skirmish run SCENARIO --out "
                                f"{sk}`, or give a pair that was written together.")


def _read_results(item: Path):
    """Outcome tables (a list) or one analysis table (frame, meta) at `item`."""
    from sim.report import load_tables
    check_pairs(item)
    try:
        return load_tables(item)
    except ScenarioError:
        found = _analysis_frame(item)
        if found is None:
            raise
        return found


def write_cli_report(results, out_dir, title=None, stacked: bool = False) -> Path:
    """What `skirmish report` does, as a function (paths in, index.html path out)."""
    from sim.report import report_frame, report_results
    tables, frames = [], []
    for item in map(Path, results):
        try:
            got = _read_results(item)
        except (ValueError, KeyError, TypeError, OSError) as e:  # pyarrow's ArrowInvalid is a ValueError
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise ScenarioError(f"cannot be read ({first}); it is damaged or was not written by skirmish. "
                                "Write it again (skirmish run ... --out, or the analysis command's --out) "
                                "or leave it out.", file=str(item)) from None
        (tables.extend if isinstance(got, list) else frames.append)(got)
    if frames and (tables or len(frames) > 1):
        raise ScenarioError("an analysis table (sweep, tune, sensitivity or tournament) gets a report of its own; "
                            "give it alone, e.g. `skirmish report sweep.parquet -o reports/sweep/`.")
    if frames:
        frame, meta = frames[0]
        return report_frame(frame, out_dir, meta=meta, title=title)
    if len(tables) == 2 and not stacked:
        from sim.report.compare import report_comparison
        return report_comparison(tables[0], tables[1], out_dir, title=title)
    return report_results(tables, out_dir, title=title)


@main.command("report")
@click.argument("results", nargs=-1, required=True)
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for index.html and the figures (PNG and SVG); created if missing.")
@click.option("--title", help="Heading of the report (default: the scenario's name).")
@click.option("--stacked", is_flag=True, help="Two runs: one report after the other instead of the comparison page.")
def report(results, out_dir, title, stacked):
    """Write a self-contained HTML report (plus PNG and SVG figures) of RESULTS:
    outcome tables from `skirmish run --out X.parquet` (X.parquet, X.skirmishes.parquet
    or a folder of them), or one saved sweep, tune, sensitivity or tournament table.
    Two runs give a comparison page: A (the first) against B, every figure with B - A."""
    from sim.io import check_output_folder
    check_output_folder(out_dir, "-o")
    index = write_cli_report(results, out_dir, title, stacked)
    echo(f"wrote {index}", err=True)
