"""Regenerate reports/<ruleset>/<scenario>/ for every shipped example scenario.

    python -m sim.report.regenerate              # all of scenarios/, their own run: blocks
    python -m sim.report.regenerate -n 20000 scenarios/gods_and_monsters/yeti.yaml
    python -m sim.report.regenerate --strongest-play   # also reports/strongest_play/
    python -m sim.report.regenerate --days             # also reports/days/ (the day files of days/)

Each scenario is played with its own `run:` block (skirmishes, seed, max_rounds) unless
-n is given, so the committed reports are reproducible from the files alone.
"""
from __future__ import annotations

from pathlib import Path

import click

from sim.recipe import recording

ROOT = Path(__file__).resolve().parents[2]
# The shipped scenarios whose strongest-play pages live in reports/strongest_play/ (one
# or two per ruleset, the ones docs/analysis.md discusses).
STRONGEST_PLAY = ("gods_and_monsters/goblin_ambush", "gods_and_monsters/yeti", "lens/greatsword_vs_dagger",
                  "lifeforce/grappler_vs_duellist")


def shown_path(scenario: Path) -> str:
    """The scenario's path as a page shows it: from the project folder when it lies inside,
    so a page regenerated on another machine (or with no arguments, which finds the files
    by absolute path) reads the same."""
    try:
        return Path(scenario).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(scenario)


def report_dir_for(scenario: Path, scenarios_root: Path, reports_root: Path) -> Path:
    """scenarios/gods_and_monsters/yeti.yaml -> reports/gods_and_monsters/yeti/"""
    try:
        rel = scenario.resolve().relative_to(scenarios_root.resolve())
    except ValueError:
        rel = Path(scenario.name)
    return reports_root / rel.with_suffix("")


def regenerate(scenarios=None, n: int | None = None, jobs: int = 1, reports_root=None, quiet: bool = False,
               scenarios_root=None) -> list[Path]:
    from sim.cli import scenario_files
    from sim.progress import progress_bar
    from sim.report import report_run
    from sim.runner import run
    from sim.scenario import load_scenario
    scenarios_root = Path(scenarios_root or ROOT / "scenarios")
    reports_root = Path(reports_root or ROOT / "reports")
    written = []
    for f in scenario_files(scenarios or [scenarios_root]):
        out = report_dir_for(f, scenarios_root, reports_root)
        with recording(["run", shown_path(f), *(["-n", str(n)] if n else []), "--report", shown_path(out)], ROOT):
            scen = load_scenario(f)
            with progress_bar(int(n or scen.run["skirmishes"]), desc=f.stem, quiet=quiet) as update:
                result = run(scen, n=n, jobs=jobs, progress=update)
            result.meta["scenario_file"] = shown_path(f)
            written.append(report_run(result, out))
    return written


def regenerate_strongest_play(reports_root=None, quiet: bool = False) -> list[Path]:
    """`skirmish optimize --report` for each scenario of STRONGEST_PLAY, default budget."""
    from sim.analysis.optimize import optimize
    from sim.progress import progress_bar
    from sim.report import report_frame
    from sim.scenario import load_scenario
    reports_root = Path(reports_root or ROOT / "reports") / "strongest_play"
    written = []
    for name in STRONGEST_PLAY:
        path, out = ROOT / "scenarios" / f"{name}.yaml", reports_root / f"{name.split('/')[-1]}"
        with recording(["optimize", shown_path(path), "--report", shown_path(out)], ROOT):
            with progress_bar(None, desc=f"optimize {path.stem}", quiet=quiet) as update:
                df = optimize(str(path), progress=update)
            # With the stat blocks as played, as `skirmish optimize --report` writes it.
            written.append(report_frame(df, out, scenario=load_scenario(path)))
    return written


def regenerate_days(days=None, reports_root=None, quiet: bool = False, n: int | None = None) -> list[Path]:
    """reports/days/<ruleset>/<day>/ for each day file of days/ (or those given), each
    played with its own `run:` block unless `n` is given."""
    import sim.day
    from sim.progress import progress_bar
    from sim.report.day import report_day
    reports_root = Path(reports_root or ROOT / "reports") / "days"
    written = []
    for f in sorted(Path(p) for p in days) if days else sorted((ROOT / "days").glob("*/*.yaml")):
        out = report_dir_for(f, ROOT / "days", reports_root)
        with recording(["day", shown_path(f), *(["--days", str(n)] if n else []), "--report", shown_path(out)],
                       ROOT):
            day = sim.day.load_day(f, days=n)
            with progress_bar(int(day.run["days"]), desc=f.stem, quiet=quiet) as update:
                result = sim.day.run(day, progress=update)
            written.append(report_day(result, out))
    return written


@click.command()
@click.argument("scenarios", nargs=-1)
@click.option("-n", "--skirmishes", type=click.IntRange(min=1), help="Override every scenario's run.skirmishes.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--reports", "reports_root", type=click.Path(file_okay=False),
              help="Where reports go (default: reports/).")
@click.option("--strongest-play", is_flag=True,
              help="Also rebuild reports/strongest_play/ (a strongest-play search per page, about 10 CPU-s each).")
@click.option("--days", "with_days", is_flag=True, help="Also rebuild reports/days/ from the day files of days/.")
@click.option("--quiet", "-q", is_flag=True)
def main(scenarios, skirmishes, jobs, reports_root, strongest_play, with_days, quiet):
    """Regenerate the report of each shipped scenario (default: all of scenarios/)."""
    from sim.terminal import echo
    for index in regenerate(list(scenarios) or None, skirmishes, jobs, reports_root, quiet):
        echo(f"wrote {index}", err=True)
    for index in (regenerate_days(reports_root=reports_root, quiet=quiet) if with_days else []):
        echo(f"wrote {index}", err=True)
    for index in (regenerate_strongest_play(reports_root, quiet) if strongest_play else []):
        echo(f"wrote {index}", err=True)


if __name__ == "__main__":  # pragma: no cover
    main()
