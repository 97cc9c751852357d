"""The `skirmish` command. Each command is a thin wrapper over a function of the
Python API, so a notebook can do exactly what the command line does.

Bad input exits with status 2 and one paragraph on stderr, never a traceback.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sim.terminal import echo
from sim.errors import ScenarioError

from sim.cli_base import (  # noqa: F401 (the names the commands and callers have always imported from here)
    EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, EXIT_NOT_REACHED, EXIT_STATUSES, JOBS, MAX_JOBS, MAX_ROUNDS,
    MAX_SEED, MAX_SKIRMISHES, ROUNDS, SEED, SKIRMISHES, STANDALONE, Group, main, note_cores, parse_assignments,
    parse_sets, scenario_files, writable_file_option, writable_folder_option)


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenarios", nargs=-1, required=True)
@click.option("-n", "--skirmishes", type=SKIRMISHES,
              help="How many skirmishes (default: the scenario's run.skirmishes).")
@click.option("--seed", type=SEED, help="Random seed (default: the scenario's run.seed).")
@click.option("--jobs", "-j", type=JOBS, default=1, show_default=True,
              help="Chunks played side by side (threads of this process unless --backend says otherwise; "
                   "never more than the run has chunks of 32,768 skirmishes).")
@click.option("--max-rounds", type=ROUNDS, help="Rounds before a fight counts as unfinished.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="Override a scenario value, e.g. rules.resolution=sequential.")
@click.option("--out", type=click.Path(dir_okay=True),
              help="Write the outcome tables: X.parquet is the skirmish table (pd.read_parquet reads it), "
                   "X.combatants.parquet beside it; or X.csv (+ X.meta.json); a folder for several scenarios. "
                   "The paths written are printed.")
@click.option("--json", "as_json", is_flag=True,
              help="Print exactly one JSON object to stdout instead of the text summary.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False),
              help="Also write an HTML report with figures into this folder.")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar (there is none anyway when stderr is not a terminal).")
@click.option("--backend", type=click.Choice(["threads", "loky", "dask"]), default="threads", show_default=True,
              help="Where the --jobs workers play chunks: threads of this process (nothing to start, "
                   "so even a small run gains from a second one), local worker processes (loky; each "
                   "spends about a CPU-second starting) or a dask cluster (a local one unless "
                   "--scheduler is given).")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Play on an existing dask cluster (implies --backend dask).")
@click.option("--summary-only", is_flag=True, help="Keep counts, sums and histograms only: constant memory for any -n.")
@click.option("--run-dir", type=click.Path(file_okay=False),
              help="Save every finished chunk in this folder, so --resume can finish an interrupted run.")
@click.option("--resume", is_flag=True, help="Finish the run in --run-dir without replaying its finished chunks.")
def run(scenarios, skirmishes, seed, jobs, max_rounds, sets, out, as_json, report_dir, quiet, backend, scheduler,
        summary_only, run_dir, resume):
    """Play SCENARIOS (files or folders of them) and summarise who wins."""
    from sim.progress import progress_bar
    from sim.runner import run as run_scenario
    from sim.scenario import load_scenario
    files = scenario_files(scenarios)
    overrides = parse_sets(sets)
    if summary_only and report_dir:
        raise ScenarioError("--report needs the outcome tables, which --summary-only does not keep; "
                            "drop one of the two.")
    # Every file and output path is checked before the first skirmish: a bad last file or
    # an unwritable --report must not cost the whole run.
    loaded = [load_scenario(f, overrides) for f in files]
    check_outputs(out, run_dir, report_dir, len(files))
    note_cores(jobs, scheduler)
    if len(loaded) > 1:  # a file whose set-up fails must stop the run before the first file's outputs
        from sim.runner import built
        for scen in loaded:
            built(scen)
    from sim.rundir import RunFolder, subfolder_name
    if len(files) > 1 and (run_dir or out):
        check_distinct_names(files)
    if run_dir:
        for f in files:
            RunFolder(Path(run_dir) / subfolder_name(f) if len(files) > 1 else run_dir).check_usable(resume)
    summaries, results = [], []
    for f, scen in zip(files, loaded):
        total = int(skirmishes or scen.run["skirmishes"])
        # --out alone streams the tables chunk by chunk too, unless --report wants them in memory.
        chunked = summary_only or run_dir or resume or (out and not report_dir)
        with progress_bar(total, desc=f.stem, quiet=quiet) as bar:
            from sim.cli_scale import crash_guard, interruptible, run_chunked_cli
            update = interruptible(bar)
            if chunked:
                result = run_chunked_cli(f, len(files), skirmishes, seed, jobs, max_rounds, overrides, backend,
                                         scheduler, summary_only, run_dir, resume, out, update)
            else:
                with crash_guard():
                    result = run_scenario(scen, n=skirmishes, seed=seed, jobs=jobs, max_rounds=max_rounds,
                                          progress=update, backend=backend, scheduler=scheduler)
        if report_dir:
            results.append(result)
        if out:
            target = Path(out) / subfolder_name(f) if len(files) > 1 else Path(out)
            written = result.written if chunked else result.write(target)  # chunked: streamed already
            if not as_json:
                echo("wrote " + ", ".join(map(str, written)), err=True)
        if as_json:
            summaries.append({**result.summary(), **({"written": [str(p) for p in written]} if out else {})})
        else:
            echo(result.summary_text())
            if len(files) > 1:
                echo("")
    if report_dir:
        from sim.report import report_results
        index = report_results(results, report_dir)
        echo(f"wrote {index}", err=True)
    if as_json:
        payload = summaries[0] if len(summaries) == 1 else {"scenarios": summaries}
        echo(json.dumps(payload, default=str))


def check_distinct_names(files) -> None:
    """Refuse, before any work, two scenarios that would write into one run folder or onto
    one pair of tables (yeti.yaml in two folders, or ...yaml beside __.yaml)."""
    from sim.rundir import subfolder_name
    seen: dict[str, Path] = {}
    for f in files:
        name = subfolder_name(f)
        if name in seen:
            raise ScenarioError(f"{seen[name]} and {f} would both be saved as '{name}' in --run-dir or --out; "
                                "rename one of them, or run them one at a time.")
        seen[name] = f


def check_outputs(out, run_dir, report_dir, n_files: int) -> None:
    from sim.io import check_output_folder
    if out:
        if n_files == 1:
            from sim.io import check_output_name
            check_output_name(out, "--out")
        check_output_folder(Path(out) if n_files > 1 else Path(out).parent, "--out")
    if out and n_files == 1:
        from sim.summary import table_paths
        for target in filter(None, table_paths(out)[:3]):
            if target.is_dir():
                raise ScenarioError(f"--out {out} writes {target}, which is a folder; move the folder away "
                                    "or give --out another name.")
    if run_dir:
        check_output_folder(run_dir, "--run-dir")
    if report_dir:
        check_output_folder(report_dir, "--report")


def _is_library(path) -> bool:
    from sim.library import is_library
    from sim.yamlload import load_text, read_file
    try:
        return is_library(load_text(read_file(path), file=str(path))[0])
    except ScenarioError:
        return False  # the scenario loader reports it


@main.command()
@click.argument("scenarios", nargs=-1, required=True)
def validate(scenarios):
    """Check scenario files (or folders of them) and report every problem in each, with its line."""
    from sim.scenario import load_scenario
    bad = 0
    for f in scenario_files(scenarios):
        try:
            if _is_library(f):
                from sim.library import check_library_file
                echo(f"{f}: ok ({check_library_file(f)})")
                continue
            s = load_scenario(f)
            echo(f"{f}: ok ({s.ruleset.title}, {len(s.combatants)} combatants, sides "
                       f"{', '.join(s.side_names)})")
            for note in getattr(s.ruleset, "warnings", lambda _: [])(s):
                echo(f"  note: {note}")
        except ScenarioError as e:
            bad += 1
            for problem in sorted(e.problems, key=lambda p: p.line or 0):
                echo(f"error: {problem.single()}", err=True)
            if len(e.problems) > 1:
                echo(f"{f}: {len(e.problems)} problems", err=True)
    if bad:
        sys.exit(EXIT_BAD_INPUT)


@main.command()
@click.argument("ruleset")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.option("--day", "day_file", is_flag=True, help="Write a starter day file (docs/day.md) instead.")
def new(ruleset, file, force, day_file):
    """Write a commented starter scenario for RULESET into FILE (it validates and runs as it is)."""
    from sim.starters import write_starter
    path = write_starter(ruleset, file, force=force, day=day_file)
    nxt = f"skirmish day {path}" if day_file else f"skirmish validate {path} && skirmish run {path}"
    echo(f"wrote {path}; next: {nxt}", err=True)


@main.command()
@click.argument("scenario")
@click.option("--seed", type=SEED, help="Seed of the run to replay (default: the scenario's).")
@click.option("--skirmish", "-k", type=click.IntRange(0, MAX_SKIRMISHES - 1), default=0, show_default=True,
              help="Which skirmish of that run.")
@click.option("-n", "--skirmishes", type=SKIRMISHES, help="Size of the run it belongs to (default: the scenario's).")
@click.option("--max-rounds", type=ROUNDS, help="Rounds before the fight counts as unfinished (default: the "
              "scenario's run.max_rounds).")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="Override a scenario value, as for run; the replay is of the run with these overrides.")
@click.option("--won-by", metavar="SIDE", help="Trace the first skirmish from --skirmish on that SIDE won "
              "(or that ended in a `draw`, or `unfinished`).")
@click.option("--percentile", metavar="P,P,...",
              help="Play the run and trace a representative fight at each percentile, e.g. 5,50,95: ranked by how "
                   "it went for --side (won, then share standing), or by length with --by rounds.")
@click.option("--side", metavar="SIDE",
              help="With --percentile: the side whose fights are ranked (default: the first).")
@click.option("--by", type=click.Choice(["outcome", "rounds"]), default="outcome", show_default=True,
              help="With --percentile: rank fights by how they went for --side, or by rounds.")
def trace(scenario, seed, skirmish, skirmishes, max_rounds, sets, won_by, percentile, side, by):
    """Print one skirmish blow by blow, exactly as the batch run played it."""
    from sim.trace import trace as trace_fn
    n = skirmishes
    if percentile is not None:
        from sim.trace_pick import percentiles, traces
        if won_by or skirmish:
            raise ScenarioError("--percentile picks its own skirmishes; drop --won-by and --skirmish, or "
                                "drop --percentile to trace the one you name.")
        return echo(traces(scenario, percentiles(percentile), side=side, by=by, seed=seed, n=n,
                           max_rounds=max_rounds, overrides=parse_sets(sets)))
    if side or by != "outcome":
        raise ScenarioError("--side and --by rank the fights of --percentile; add --percentile 5,50,95, "
                            "or drop them.")
    try:
        text = trace_fn(scenario, seed=seed, skirmish=skirmish, n=n, max_rounds=max_rounds,
                        overrides=parse_sets(sets), won_by=won_by)
    except ValueError as e:
        hint = "" if won_by else "; pick --skirmish below the run size or raise -n"
        raise ScenarioError(str(e).rstrip(".") + hint + ".") from None
    echo(text)


@main.command()
@click.argument("ruleset", required=False)
def rules(ruleset):
    """List the rulesets, or one ruleset's rule options with their defaults."""
    from sim import rulesets
    from sim.errors import closest
    if not ruleset:
        for name in rulesets.names():
            echo(f"{name}: {rulesets.get(name).title}")
        return
    if ruleset not in rulesets.names():
        raise ScenarioError(f"unknown ruleset '{ruleset}'.{closest(ruleset, rulesets.names())} "
                            f"Known: {', '.join(rulesets.names())}.")
    rs = rulesets.get(ruleset)
    for name, spec in rs.rule_options.items():
        # Defaults as YAML spells them (null, true), since that is what the file would say.
        default = spec.default
        shown = "null" if default is None else str(default).lower() if isinstance(default, bool) else repr(default)
        echo(f"{name} (default {shown}; {spec.describe()})\n    {spec.doc}\n")


@main.command()
@click.argument("rulesets", nargs=-1)
def warm(rulesets):
    """Compile the rules of RULESETS (default: all) now, once per machine, so the first
    run of each starts at once. Worth it after installing, or on a machine that will run
    many short jobs; a run compiles what it needs by itself otherwise."""
    from sim import rulesets as registry
    from sim.errors import closest
    from sim.runner import warm_rulesets
    for name in rulesets:
        if name not in registry.names():
            raise ScenarioError(f"unknown ruleset '{name}'.{closest(name, registry.names())} "
                                f"Known: {', '.join(registry.names())}.")
    for name, fresh, seconds in warm_rulesets(rulesets):
        echo(f"{name}: {'compiled' if fresh else 'already compiled; loaded'} in {seconds:.1f} s", err=True)


from sim import cli_report  # noqa: E402,F401
from sim import cli_analysis  # noqa: E402,F401  (registers sweep, tune, sensitivity, tournament)
from sim import cli_optimize  # noqa: E402,F401  (registers optimize)
from sim import cli_day  # noqa: E402,F401  (registers day and gauntlet)
from sim import cli_matters  # noqa: E402,F401  (registers matters)
from sim import cli_odds  # noqa: E402,F401  (registers odds)
from sim import cli_rerun  # noqa: E402,F401  (registers rerun)
from sim import cli_import  # noqa: E402,F401  (registers import)
from sim import cli_balance  # noqa: E402,F401  (registers balance)

if __name__ == "__main__":  # pragma: no cover (`python -m sim.cli`; the group is sim.cli_base's either way)
    main()
