"""`skirmish day`: a party through a day of fights and rests (sim/day); `skirmish gauntlet`:
one fight again and again (sim/day/gauntlet)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from sim.cli_base import EXIT_STATUSES, JOBS, SEED, echo, main, note_cores

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
@click.option("--trace-day", type=click.IntRange(min=0), metavar="K",
              help="Print day K (0-based) blow by blow, rests included, instead of playing every day.")
@click.option("--representative", is_flag=True,
              help="After the summary, the traces of the days at the 5th, 50th and 95th percentile of how the "
                   "day went (fights won, then members standing).")
@click.option("--precision", type=click.FloatRange(min=0, min_open=True, max=0.5),
              help="Play chunks of days until the 95%% interval of survival is at most +-this (0.005 = half a "
                   "point), instead of -n days.")
@click.option("--max", "max_days", type=DAYS, default=1_000_000, show_default=True,
              help="With --precision: stop at this many days.")
@click.option("--backend", type=click.Choice(["threads", "loky", "dask"]), default="threads", show_default=True,
              help="Where chunks of days are played: threads of this process, local worker processes (loky), "
                   "or a local dask cluster.")
@click.option("--scheduler", metavar="ADDRESS",
              help="Play on an existing dask cluster (implies --backend dask); its workers must see the day file "
                   "and its scenario files unchanged.")
@click.option("--summary-only", is_flag=True,
              help="Keep the figures only (counts and histograms): constant memory for any -n; no --out, --report "
                   "or --representative.")
@click.option("--run-dir", type=click.Path(file_okay=False),
              help="Save every finished chunk of days in this folder, so --resume can finish an interrupted run.")
@click.option("--resume", is_flag=True, help="Finish the run in --run-dir without playing its finished chunks again.")
@click.option("--where-to-rest", "rest_name", metavar="REST",
              help="Try the rest named REST after each fight instead of the day: survival per placement, each "
                   "paired with the day as written on the same days.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def day(day_file, days, seed, jobs, as_json, out, report_dir, trace_day, representative, precision, max_days,
        backend, scheduler, summary_only, run_dir, resume, rest_name, quiet):
    """Play DAY_FILE: one party through its fights in a row, with rests between, and say
    how often it lives through the day, where days end and what each fight costs."""
    import sim.day
    from sim.errors import ScenarioError
    from sim.io import check_output_folder
    from sim.progress import progress_bar
    loaded = sim.day.load_day(day_file, days=days, seed=seed)
    if rest_name is not None:
        return _where_to_rest(loaded, rest_name, jobs, as_json, quiet, report_dir, out=out,
                              representative=representative, precision=precision, run_dir=run_dir,
                              trace_day=trace_day is not None, summary_only=summary_only, resume=resume,
                              backend=backend != "threads" or scheduler)
    if trace_day is not None:
        from sim.day.trace import trace_day as traced
        given = [name for name, v in (("--out", out), ("--report", report_dir), ("--representative", representative),
                                      ("--precision", precision), ("--summary-only", summary_only),
                                      ("--run-dir", run_dir), ("--resume", resume), ("--json", as_json)) if v]
        if given:
            raise ScenarioError(f"--trace-day prints one day blow by blow and plays no other; it does not take "
                                f"{', '.join(given)}. Drop {'it' if len(given) == 1 else 'them'}, or drop --trace-day.")
        if trace_day >= int(loaded.run["days"]):
            raise ScenarioError(f"--trace-day {trace_day} is past the run of {int(loaded.run['days']):,} days "
                                f"(0..{int(loaded.run['days']) - 1}); give a smaller K or a larger -n.")
        echo(traced(loaded, trace_day))
        return
    _check_options(out, report_dir, representative, precision, days, summary_only, run_dir, resume)
    for folder, option in ((out, "--out"), (report_dir, "--report"), (run_dir, "--run-dir")):
        if folder:
            check_output_folder(folder, option)
    note_cores(jobs, scheduler)
    hint = None
    if run_dir:
        from sim.day.runs import resume_command
        from sim.rundir import RunFolder
        RunFolder(run_dir).check_usable(resume)
        hint = resume_command(loaded, run_dir, summary_only, jobs, backend, scheduler)
    total = max_days if precision else int(loaded.run["days"])
    with progress_bar(total, desc=Path(day_file).stem, quiet=quiet) as bar:
        from sim.cli_scale import crash_guard, interruptible
        with crash_guard(hint):
            result = sim.day.run(loaded, jobs=jobs, progress=interruptible(bar), precision=precision,
                                 max_days=max_days, backend=backend, scheduler=scheduler, summary_only=summary_only,
                                 run_dir=run_dir, resume=resume)
    if result.replayed:
        shown = "; ".join(f"chunk {chunk} ({problem})" for chunk, problem in result.replayed[:3])
        echo(f"note: {run_dir}: {len(result.replayed)} finished chunk(s) had damaged files and were played again, "
             f"which gives the same result: {shown}.", err=True)
    written = _write(result, out) if out else []
    if report_dir:
        from sim.report.day import report_day
        written.append(str(report_day(result, report_dir)))
    if as_json:
        echo(json.dumps({**result.summary(), **({"written": written} if written else {})}, default=str))
    else:
        echo(result.summary_text())
        if representative:
            from sim.day.trace import representative_days, trace_day as traced
            for p, k in representative_days(result).items():
                echo(f"\n--- the {p}th percentile day: day {k} ---\n" + traced(loaded, k))
        if written:
            echo("wrote " + ", ".join(written), err=True)


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--party", required=True, metavar="SIDE", help="The scenario's side that fights again and again.")
@click.option("--rest", default="none", show_default=True, metavar="'KIND every N'",
              help="A rest after every Nth fight: short, night or full (a KIND alone: after every fight).")
@click.option("--until", type=click.IntRange(1, 1000), default=20, show_default=True, metavar="K",
              help="The most fights in a row to try.")
@click.option("-n", "--days", type=DAYS, default=10_000, show_default=True, help="Days (runs of the gauntlet).")
@click.option("--seed", type=SEED, help="Random seed (default: the scenario's run.seed).")
@click.option("--jobs", "-j", type=JOBS, default=1, show_default=True, help="Threads playing chunks of days.")
@click.option("--json", "as_json", is_flag=True, help="Print the survival curve as JSON instead of text.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False),
              help="Folder for an HTML page of the gauntlet (figures as PNG and SVG beside it).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def gauntlet(scenario, party, rest, until, days, seed, jobs, as_json, report_dir, quiet):
    """The same fight of SCENARIO again and again, the --party side carrying its wounds
    and spent resources from one into the next: how often it wins at least k in a row
    (S(k), with 95% intervals) and N50, the most it wins in a row on half the days."""
    from sim.day.gauntlet import gauntlet as play_gauntlet, gauntlet_day
    from sim.io import check_output_folder
    from sim.progress import progress_bar
    gauntlet_day(scenario, party, rest, until, days, seed)  # every problem said before anything is played
    if report_dir:
        check_output_folder(report_dir, "--report")
    note_cores(jobs, None)
    with progress_bar(days, desc=Path(scenario).stem + " gauntlet", quiet=quiet) as bar:
        from sim.cli_scale import crash_guard, interruptible
        with crash_guard(None):
            g = play_gauntlet(scenario, party, rest, until, days, seed, jobs=jobs, progress=interruptible(bar))
    written = []
    if report_dir:
        from sim.report.gauntlet import report_gauntlet
        written.append(str(report_gauntlet(g, report_dir)))
    if as_json:
        echo(json.dumps({**g.summary(), **({"written": written} if written else {})}, default=str))
    else:
        echo(g.summary_text())
        if written:
            echo("wrote " + ", ".join(written), err=True)


def _where_to_rest(loaded, rest_name, jobs, as_json, quiet, report_dir, **others) -> None:
    from sim.cli_analysis import emit_json
    from sim.day.placement import placements, where_to_rest, where_to_rest_text
    from sim.errors import ScenarioError
    from sim.io import check_output_folder
    from sim.progress import progress_bar
    given = [f"--{k.replace('_', '-')}" for k, v in others.items() if v]
    if given:
        them = "it" if len(given) == 1 else "them"
        raise ScenarioError(f"--where-to-rest plays the day once per placement of the rest and prints the "
                            f"comparison; it does not take {', '.join(given)}. Drop {them}, or play one "
                            "placement as its own day file.")
    count = len(placements(loaded, rest_name))
    if report_dir:
        check_output_folder(report_dir, "--report")
    with progress_bar(count * int(loaded.run["days"]), desc=f"where to rest {rest_name}", quiet=quiet) as bar:
        from sim.cli_scale import crash_guard, interruptible
        with crash_guard(None):
            df = where_to_rest(loaded, rest_name, jobs=jobs, progress=interruptible(bar))
    if report_dir:
        from sim.report.day_rankings import report_where_to_rest
        _wrote(report_where_to_rest(df, report_dir, day=loaded), as_json)
    if as_json:
        return emit_json("where_to_rest", df)
    echo(where_to_rest_text(df))


def _check_options(out, report_dir, representative, precision, days, summary_only, run_dir, resume) -> None:
    """Refuse, before any day is played, options that cannot go together."""
    from sim.errors import ScenarioError
    if precision and days:
        raise ScenarioError("--precision plays as many days as the interval needs; give it without -n "
                            "(--max caps the days).")
    if precision and run_dir:
        raise ScenarioError("--precision plays as many days as the interval needs, and a run folder holds a fixed "
                            "number of days; give -n DAYS with --run-dir, or drop --run-dir.")
    if resume and not run_dir:
        raise ScenarioError("--resume needs --run-dir, the folder of the day's run to finish.")
    wanting = [name for name, given in (("--out", out), ("--report", report_dir),
                                        ("--representative", representative)) if given]
    if summary_only and wanting:
        raise ScenarioError(f"{', '.join(wanting)} {'needs' if len(wanting) == 1 else 'need'} the outcome tables, "
                            "which --summary-only does not keep; drop one or the other (the summary prints, or "
                            "use --json).")


def _write(result, out) -> list[str]:
    from sim.io import atomic_write_frame
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    return [str(atomic_write_frame(folder / f"{name}.parquet", getattr(result, name), "parquet", result.meta))
            for name in TABLES]


def _threads_only() -> None:
    """A day's variants live in memory, where worker processes cannot load them."""
    from sim.analysis.common import _WHERE
    from sim.errors import ScenarioError
    if _WHERE["backend"] != "threads":
        raise ScenarioError("an analysis of a day file plays on threads of this process: its variants are made in "
                            "memory, and worker processes load a day from its file. Drop --backend / --scheduler "
                            "(use -j for threads), or play one variant written as its own day file with "
                            "`skirmish day FILE --backend ...`.")


def sweep_day_command(path, vary, precision, play, days, seed, jobs, max_rounds, sets, out, as_json, report_dir,
                      quiet):
    """`skirmish sweep` of a day file (sim.day.variants.sweep_day): -n counts days."""
    _threads_only()
    from sim.cli_analysis import bar, emit_json, parse_sets, parse_vary, write_out
    from sim.day.variants import sweep_day, sweep_day_text
    from sim.errors import ScenarioError
    refused = [name for name, given in (("--precision", precision is not None), ("--play best", play == "best"),
                                        ("--max-rounds", max_rounds)) if given]
    if refused:
        raise ScenarioError(f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} not taken by a sweep of a "
                            "day file: give -n DAYS, and write rounds into the day's `run: max_rounds`.")
    if not vary:
        raise ScenarioError("a sweep of a day file needs --vary PATH=VALUES, e.g. --vary "
                            "'party.combatants[NAME].survival=5..9' or 'steps.FIGHT.sides.SIDE.combatants[NAME]"
                            ".defense=2..6' (paths: docs/day.md 'Sweeps over a day').")
    with bar("sweep", path, quiet) as update:
        df = sweep_day(path, parse_vary(vary), days=days, seed=seed, jobs=jobs, overrides=parse_sets(sets),
                       progress=update)
    write_out(df, out, as_json)
    _day_page("sweep", df, report_dir, path, days, seed, sets, as_json)
    if as_json:
        return emit_json("sweep", df)
    echo(sweep_day_text(df))


def tune_day_command(path, params, target, rngs, max_days, play, days, seed, jobs, max_rounds, sets, out, as_json,
                     report_dir, quiet):
    """`skirmish tune` of a day file (sim.day.tune.tune_day): -n and --max count days."""
    _threads_only()
    from sim.analysis.tune import parse_tune_range
    from sim.cli_analysis import _exit_unless, bar, emit_json, parse_sets, write_out
    from sim.day.tune import parse_day_target, tune_day
    from sim.errors import ScenarioError
    refused = [name for name, given in (("a second --param", len(params) > 1), ("--play best", play == "best"),
                                        ("--max-rounds", max_rounds)) if given]
    if refused:
        raise ScenarioError(f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} not taken by a tune of a "
                            "day file: tune one --param, and write rounds into the day's `run: max_rounds`.")
    metric, rate = parse_day_target(target)
    lo, hi = parse_tune_range(rngs[0]) if rngs else (None, None)
    with bar("tune", path, quiet) as update:
        df = tune_day(path, params[0], metric, rate, lo, hi, days=days, seed=seed, jobs=jobs, max_days=max_days,
                      overrides=parse_sets(sets), progress=update)
    write_out(df, out, as_json)
    _day_page("tune", df, report_dir, path, days, seed, sets, as_json)
    meta = df.attrs["analysis"]
    if as_json:
        emit_json("tune", df)
        return _exit_unless(meta["status"] != "unreachable")
    echo(meta["message"])
    echo(f"\n  {'value':>7}  {metric:<30} {'vs answer (paired), pts':<26} days")
    for r in df.to_dict("records"):
        answer = r["role"] == "answer"
        vs = "" if answer else (f"{100 * r['diff_vs_answer']:+.1f} [{100 * r['diff_vs_answer_lo']:+.1f}, "
                                f"{100 * r['diff_vs_answer_hi']:+.1f}]")
        rate_text = f"{100 * r[metric]:5.1f}% [{100 * r[metric + '_lo']:.1f}, {100 * r[metric + '_hi']:.1f}]"
        echo(f"  {str(r['value']):>7}  {rate_text:<30} {vs:<26} {r['days']:,}{'  <- answer' if answer else ''}")
    _exit_unless(meta["status"] != "unreachable")


def _refuse_for_a_day(command: str, play, max_rounds) -> None:
    """The options a day's sensitivity and tournament do not take, named in one paragraph."""
    from sim.errors import ScenarioError
    refused = [name for name, given in (("--play best", play == "best"), ("--max-rounds", max_rounds)) if given]
    if refused:
        raise ScenarioError(f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} not taken by a {command} "
                            "of a day file: the day's fights play as the file writes them; write rounds into the "
                            "day's `run: max_rounds`.")


# By name, imported only when a page is asked for: the pages load matplotlib, the analyses do not.
PAGES = {"sweep": ("day_analyses", "report_day_sweep"), "tune": ("day_analyses", "report_day_tune"),
         "sensitivity": ("day_rankings", "report_day_sensitivity"),
         "tournament": ("day_rankings", "report_day_tournament")}


def _day_page(command: str, df, report_dir, path, days, seed, sets, as_json) -> None:
    """--report of an analysis over a day: its page, with the day as loaded for the provenance."""
    if not report_dir:
        return
    import importlib

    import sim.day
    from sim.cli_analysis import parse_sets
    module, name = PAGES[command]
    report = getattr(importlib.import_module(f"sim.report.{module}"), name)
    _wrote(report(df, report_dir, day=sim.day.load_day(path, days=days, seed=seed), overrides=parse_sets(sets)),
           as_json)


def _wrote(page, as_json) -> None:
    if not as_json:
        echo(f"wrote {page}", err=True)


def sensitivity_day_command(path, members, play, days, seed, jobs, max_rounds, sets, out, as_json, report_dir,
                            quiet, metric="day.survival"):
    """`skirmish sensitivity` of a day file (sim.day.sensitivity): -n counts days."""
    _threads_only()
    from sim.cli_analysis import bar, emit_json, parse_sets, write_out
    from sim.day.sensitivity import sensitivity_day, sensitivity_day_text
    _refuse_for_a_day("sensitivity", play, max_rounds)
    with bar("sensitivity", path, quiet) as update:
        df = sensitivity_day(path, list(members) or None, days=days or 5000, seed=seed, jobs=jobs,
                             overrides=parse_sets(sets), progress=update, metric=metric)
    write_out(df, out, as_json)
    _day_page("sensitivity", df, report_dir, path, days or 5000, seed, sets, as_json)
    if as_json:
        return emit_json("sensitivity", df)
    echo(sensitivity_day_text(df))


def tournament_day_command(path, spec, play, days, seed, jobs, max_rounds, sets, out, as_json, report_dir, quiet):
    """`skirmish tournament` of a day file (sim.day.tournament): -n counts days."""
    _threads_only()
    from sim.cli_analysis import bar, emit_json, parse_sets, write_out
    from sim.day.tournament import tournament_day, tournament_day_text
    _refuse_for_a_day("tournament", play, max_rounds)
    with bar("tournament", path, quiet) as update:
        df = tournament_day(path, spec, days=days or 5000, seed=seed, jobs=jobs, overrides=parse_sets(sets),
                            progress=update)
    write_out(df, out, as_json)
    _day_page("tournament", df, report_dir, path, days or 5000, seed, sets, as_json)
    if as_json:
        return emit_json("tournament", df)
    echo(tournament_day_text(df))


def compare_days_command(a, b, sets, sets_b, days, seed, jobs, max_rounds, out, as_json, report_dir, quiet):
    """`skirmish compare` of two day files."""
    from sim.cli_analysis import bar, emit_json, write_out
    from sim.day.compare import compare_days, is_day_file
    from sim.errors import ScenarioError
    if not (is_day_file(a) and is_day_file(b)):
        day, other = (a, b) if is_day_file(a) else (b, a)
        raise ScenarioError(f"{day} is a day file and {other} is not: `skirmish compare` compares two scenarios "
                            "or two day files (a day file has `party:` and `steps:`); give two of the same kind.")
    refused = [name for name, given in (("--set", sets), ("--set-b", sets_b), ("--max-rounds", max_rounds),
                                        ("--report", report_dir)) if given]
    if refused:
        raise ScenarioError(f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} not taken when comparing "
                            "two day files: write the change into a copy of the day file (its fights' `rules:`, "
                            "`run: max_rounds`), and use `skirmish day FILE --report DIR` for each day's page.")
    with bar("compare", a, quiet) as update:
        df = compare_days(a, b, days=days, seed=seed, jobs=jobs, progress=update)
    write_out(df, out, as_json)
    if as_json:
        return emit_json("compare", df)
    echo(compare_days_text(df))


def compare_days_text(df) -> str:
    from sim.cli_analysis import figure_lines
    meta = df.attrs["analysis"]
    (la, lb), (n, _) = meta["labels"], meta["days"]
    how = "the same days (each fight keyed by its name), paired" if meta["paired"] else "unpaired"
    return "\n".join([f"A = {la}", f"B = {lb}", f"{n:,} days each, seed {meta['a'].get('seed', '?')}; B - A on "
                      f"{how}, 95% intervals.", ""] + figure_lines(df)
                     + ["", "A fight or member only one day has shows no difference. pts = percentage points."])
