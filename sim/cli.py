"""The `skirmish` command. Each command is a thin wrapper over a function of the
Python API, so a notebook can do exactly what the command line does.

Bad input exits with status 2 and one paragraph on stderr, never a traceback.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sim.errors import ScenarioError

EXIT_BAD_INPUT = 2


def scenario_files(paths) -> list[Path]:
    """Expand folders into the scenario files they hold (recursively, sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(list(p.rglob("*.yaml")) + list(p.rglob("*.yml")))
            if not found:
                raise ScenarioError("holds no scenario files (*.yaml).", file=str(p))
            files.extend(found)
        else:
            files.append(p)
    return files


def parse_sets(items) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ScenarioError(f"--set '{item}' needs the form PATH=VALUE, e.g. "
                                "--set sides.yeti.combatants[Yeti].defense=4.")
        path, value = item.split("=", 1)
        out[path.strip()] = value
    return out


class Group(click.Group):
    """Turns ScenarioError into the one-paragraph message and exit status 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ScenarioError as e:
            click.echo(f"error: {e}", err=True)
            ctx.exit(EXIT_BAD_INPUT)


@click.group(cls=Group)
@click.version_option(package_name="skirmish-sim")
def main():
    """Monte Carlo balance simulator for tabletop skirmish combat."""


@main.command()
@click.argument("scenarios", nargs=-1, required=True)
@click.option("-n", "--skirmishes", type=click.IntRange(min=1), help="How many skirmishes (default: the scenario's run.skirmishes).")
@click.option("--seed", type=click.IntRange(min=0), help="Random seed (default: the scenario's run.seed).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--max-rounds", type=click.IntRange(min=1), help="Rounds before a fight counts as unfinished.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Override a scenario value, e.g. rules.resolution=sequential.")
@click.option("--out", type=click.Path(dir_okay=True), help="Write both outcome tables: X.parquet (default) or X.csv; a folder for several scenarios.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object to stdout instead of the text summary.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False), help="Also write an HTML report with figures into this folder.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar (there is none anyway when stderr is not a terminal).")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="Where chunks are played: local worker processes (loky) or a dask cluster (a local one "
                   "with --jobs workers unless --scheduler is given).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="Play on an existing dask cluster (implies --backend dask).")
@click.option("--summary-only", is_flag=True, help="Keep counts, sums and histograms only: constant memory for any -n.")
@click.option("--run-dir", type=click.Path(file_okay=False), help="Save every finished chunk in this folder, so --resume can finish an interrupted run.")
@click.option("--resume", is_flag=True, help="Finish the run in --run-dir without replaying its finished chunks.")
def run(scenarios, skirmishes, seed, jobs, max_rounds, sets, out, as_json, report_dir, quiet, backend, scheduler,
        summary_only, run_dir, resume):
    """Play SCENARIOS (files or folders of them) and summarise who wins."""
    from sim.progress import progress_bar
    from sim.runner import run as run_scenario
    from sim.scenario import load_scenario
    files = scenario_files(scenarios)
    overrides = parse_sets(sets)
    summaries, results = [], []
    for f in files:
        scen = load_scenario(f, overrides)
        total = int(skirmishes or scen.run["skirmishes"])
        # --out alone streams the tables chunk by chunk too, unless --report wants them in memory.
        chunked = summary_only or run_dir or resume or (out and not report_dir)
        if summary_only and report_dir:
            raise ScenarioError("--report needs the outcome tables, which --summary-only does not keep; "
                                "drop one of the two.")
        with progress_bar(total, desc=f.stem, quiet=quiet) as update:
            from sim.cli_scale import crash_guard, run_chunked_cli
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
            target = Path(out) / f.stem if len(files) > 1 else Path(out)
            written = result.written if chunked else result.write(target)  # chunked: streamed already
            if not as_json:
                click.echo("wrote " + ", ".join(map(str, written)), err=True)
        if as_json:
            summaries.append(result.summary())
        else:
            click.echo(result.summary_text())
            if len(files) > 1:
                click.echo("")
    if report_dir:
        from sim.report import report_results
        index = report_results(results, report_dir)
        click.echo(f"wrote {index}", err=True)
    if as_json:
        payload = summaries[0] if len(summaries) == 1 else {"scenarios": summaries}
        click.echo(json.dumps(payload, default=str))


@main.command()
@click.argument("scenarios", nargs=-1, required=True)
def validate(scenarios):
    """Check scenario files and report the first problem in each."""
    from sim.scenario import load_scenario
    bad = 0
    for f in scenario_files(scenarios):
        try:
            s = load_scenario(f)
            click.echo(f"{f}: ok ({s.ruleset.title}, {len(s.combatants)} combatants, sides "
                       f"{', '.join(s.side_names)})")
            for note in getattr(s.ruleset, "warnings", lambda _: [])(s):
                click.echo(f"  note: {note}")
        except ScenarioError as e:
            bad += 1
            click.echo(f"error: {e}", err=True)
    if bad:
        sys.exit(EXIT_BAD_INPUT)


@main.command()
@click.argument("scenario")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of the run to replay (default: the scenario's).")
@click.option("--skirmish", "-k", type=click.IntRange(min=0), default=0, show_default=True, help="Which skirmish of that run.")
@click.option("-n", "--skirmishes", type=click.IntRange(min=1), help="Size of the run it belongs to (default: the scenario's).")
@click.option("--max-rounds", type=click.IntRange(min=1))
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE")
def trace(scenario, seed, skirmish, skirmishes, max_rounds, sets):
    """Print one skirmish blow by blow, exactly as the batch run played it."""
    from sim.trace import trace as trace_fn
    n = skirmishes
    try:
        text = trace_fn(scenario, seed=seed, skirmish=skirmish, n=n, max_rounds=max_rounds,
                        overrides=parse_sets(sets))
    except ValueError as e:
        raise ScenarioError(str(e) + "; pick --skirmish below the run size or raise -n.") from None
    click.echo(text)


@main.command()
@click.argument("ruleset", required=False)
def rules(ruleset):
    """List the rulesets, or one ruleset's rule options with their defaults."""
    from sim import rulesets
    from sim.errors import closest
    if not ruleset:
        for name in rulesets.names():
            click.echo(f"{name}: {rulesets.get(name).title}")
        return
    if ruleset not in rulesets.names():
        raise ScenarioError(f"unknown ruleset '{ruleset}'.{closest(ruleset, rulesets.names())} "
                            f"Known: {', '.join(rulesets.names())}.")
    rs = rulesets.get(ruleset)
    for name, spec in rs.rule_options.items():
        click.echo(f"{name} (default {spec.default!r}; {spec.describe()})\n    {spec.doc}\n")


from sim import cli_report  # noqa: E402,F401

if __name__ == "__main__":  # pragma: no cover
    main()
from sim import cli_analysis  # noqa: E402,F401  (registers sweep, tune, sensitivity, tournament)
