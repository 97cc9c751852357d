"""`skirmish matters`: who matters, each combatant benched in turn (sim/analysis/matters.py)."""
from __future__ import annotations

import click

from sim.cli_base import EXIT_STATUSES, JOBS, ROUNDS, SEED, SKIRMISHES, echo, main, note_cores, writable_file_option


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenario")
@click.option("-n", "--skirmishes", type=SKIRMISHES, default=20000, show_default=True,
              help="Skirmishes for the fight with everyone and for each benched combatant.")
@click.option("--seed", type=SEED, help="Random seed (default: the scenario's run.seed).")
@click.option("--jobs", "-j", type=JOBS, default=1, show_default=True,
              callback=lambda _ctx, _param, jobs: note_cores(jobs) or jobs, help="Chunks played side by side.")
@click.option("--max-rounds", type=ROUNDS, help="Rounds before a fight counts as unfinished.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Override a scenario value first.")
@click.option("--baseline", metavar="NAME",
              help="Also replace each combatant in place by this stat block (of the scenario, its library or "
                   "bestiary): what it is worth against an ordinary stand-in.")
@click.option("--out", type=click.Path(dir_okay=False), callback=writable_file_option,
              help="Write the table: X.parquet (default) or X.csv, atomically.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object instead of text.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False),
              help="Also write an HTML page (the ranked worth of each combatant, the stat blocks, the provenance).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def matters(scenario, skirmishes, seed, jobs, max_rounds, sets, baseline, out, as_json, report_dir, quiet):
    """Who matters: each combatant of SCENARIO benched in turn (present, never acting,
    never a target), on the same dice; the change in its side's win rate, ranked."""
    from sim.analysis.matters import matters as matters_fn, matters_text
    from sim.cli_analysis import bar, emit_json, parse_sets, write_out
    from sim.day.compare import is_day_file
    from sim.errors import ScenarioError
    if is_day_file(scenario):
        raise ScenarioError(f"{scenario} is a day file; `skirmish matters` benches the combatants of one scenario. "
                            "Give one of the day's scenario files, or price the party's stats over the day with "
                            "`skirmish sensitivity DAY`.")
    if report_dir:
        from sim.io import check_output_folder
        check_output_folder(report_dir, "--report")
    with bar("matters", scenario, quiet) as update:
        df = matters_fn(scenario, n=skirmishes, seed=seed, jobs=jobs, max_rounds=max_rounds,
                        overrides=parse_sets(sets), baseline=baseline, progress=update)
    write_out(df, out, as_json)
    if report_dir:
        from sim.analysis.common import as_scenario
        from sim.report.matters import report_matters
        page = report_matters(df, as_scenario(scenario, parse_sets(sets)), report_dir)
        if not as_json:
            echo(f"wrote {page}", err=True)
    if as_json:
        return emit_json("matters", df)
    echo(matters_text(df))
