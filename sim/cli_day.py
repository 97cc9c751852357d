"""`skirmish day`: a party through a day of fights and rests (sim/day)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from sim.cli import EXIT_STATUSES, JOBS, SEED, echo, main, note_cores

DAYS = click.IntRange(1, 10**8)
TABLES = ("days", "fights", "members", "fates", "rests")


@main.command(epilog=EXIT_STATUSES)
@click.argument("day_file", type=click.Path(dir_okay=False))
@click.option("-n", "--days", type=DAYS, help="Days to play (default: the file's run.days).")
@click.option("--seed", type=SEED, help="Random seed (default: the file's run.seed).")
@click.option("--jobs", "-j", type=JOBS, default=1, show_default=True, help="Threads playing chunks of days.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead of text.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Folder for the tables (days, fights, members, fates, rests), as Parquet.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False),
              help="Folder for an HTML report of the day (figures as PNG and SVG beside it).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def day(day_file, days, seed, jobs, as_json, out, report_dir, quiet):
    """Play DAY_FILE: one party through its fights in a row, with rests between, and say
    how often it lives through the day, where days end and what each fight costs."""
    import sim.day
    from sim.progress import progress_bar
    loaded = sim.day.load_day(day_file, days=days, seed=seed)
    if out:
        from sim.io import check_output_folder
        check_output_folder(out, "--out")
    if report_dir:
        from sim.io import check_output_folder
        check_output_folder(report_dir, "--report")
    note_cores(jobs)
    with progress_bar(int(loaded.run["days"]), desc=Path(day_file).stem, quiet=quiet) as bar:
        from sim.cli_scale import interruptible
        result = sim.day.run(loaded, jobs=jobs, progress=interruptible(bar))
    written = _write(result, out) if out else []
    if report_dir:
        from sim.report.day import report_day
        written.append(str(report_day(result, report_dir)))
    if as_json:
        echo(json.dumps({**result.summary(), **({"written": written} if written else {})}, default=str))
    else:
        echo(result.summary_text())
        if written:
            echo("wrote " + ", ".join(written), err=True)


def _write(result, out) -> list[str]:
    from sim.io import atomic_write_frame
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return [str(atomic_write_frame(folder / f"{name}.parquet", getattr(result, name), "parquet", result.meta))
            for name in TABLES]
