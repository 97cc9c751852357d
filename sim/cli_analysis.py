"""The analysis commands: sweep, tune, sensitivity, tournament, and `run --precision`.

Each is a thin wrapper over a function of `sim.analysis` that returns a DataFrame;
they register on the `main` group of sim/cli.py when that module is imported.
"""
from __future__ import annotations

import json
import math
from contextlib import contextmanager
from pathlib import Path

from typing import TYPE_CHECKING

import click

from sim.cli_base import (EXIT_NOT_REACHED, EXIT_STATUSES, JOBS, ROUNDS, SEED, SKIRMISHES, echo, main, note_cores,
                     parse_assignments, parse_sets, scenario_files, writable_file_option, writable_folder_option)
from sim.errors import ScenarioError

if TYPE_CHECKING:  # pandas only where a command runs: start-up and --help stay light
    import pandas as pd


@contextmanager
def naming(scenario):
    """An option's error (a --vary, --range or --target that does not read) names the
    scenario it was given for, as the scenario's own errors do."""
    try:
        yield
    except ScenarioError as e:
        raise e.located(str(scenario)) from None


def _where_option(ctx, param, value):
    """--backend and --scheduler: where every analysis of this command plays its chunks."""
    from sim.analysis.common import play_on
    if "where.backend" not in ctx.meta and "where.scheduler" not in ctx.meta:
        ctx.call_on_close(lambda: play_on("threads", None))  # a command in a notebook or test leaves no trace
    ctx.meta[f"where.{param.name}"] = value
    backend, scheduler = ctx.meta.get("where.backend") or "threads", ctx.meta.get("where.scheduler")
    if param.name == "scheduler" or scheduler:
        play_on(backend, scheduler)
    elif param.name == "backend":
        play_on(backend, None)
    return value


def common_options(f):
    opts = [
        click.option("-n", "--skirmishes", type=SKIRMISHES,
                     help="Skirmishes per variant (default: the command's own, or the scenario's run.skirmishes)."),
        click.option("--seed", type=SEED, help="Random seed, shared by every variant."),
        click.option("--jobs", "-j", type=JOBS, default=1, show_default=True,
                     callback=lambda _ctx, _param, jobs: note_cores(jobs) or jobs,
                     help="Chunks played side by side, on threads of this process."),
        click.option("--max-rounds", type=ROUNDS, help="Rounds before a fight counts as unfinished."),
        click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
                     help="Override a scenario value before the analysis, e.g. rules.resolution=sequential."),
        click.option("--out", type=click.Path(dir_okay=False), callback=writable_file_option,
                     help="Write the table: X.parquet (default) or X.csv, atomically."),
        click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object instead of text."),
        click.option("--report", "report_dir", type=click.Path(file_okay=False), callback=writable_folder_option,
                     help="Also write an HTML report with figures into this folder."),
        click.option("--quiet", "-q", is_flag=True,
                     help="No progress bar (there is none anyway when stderr is not a terminal)."),
        click.option("--backend", type=click.Choice(["threads", "loky", "dask"]), default="threads",
                     show_default=True, expose_value=False, is_eager=True, callback=_where_option,
                     help="Where chunks are played: threads of this process, local worker processes (loky), or a "
                          "local dask cluster; the same results on each."),
        click.option("--scheduler", metavar="ADDRESS", expose_value=False, callback=_where_option,
                     help="Play on an existing dask cluster (implies --backend dask); its workers must see the "
                          "scenario files."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def play_option(meaning: str):
    """`--play as-written|best`; `meaning` says what `best` means for this command."""
    return click.option("--play", type=click.Choice(["as-written", "best"]), default="as-written", show_default=True,
                        help="as-written: the policies in the file; best: the strongest play `skirmish optimize` "
                             "finds (see docs/analysis.md), " + meaning)


def play_note(df: pd.DataFrame) -> None:
    """Under --play best, say which play the figures are for (one policy set, or per variant)."""
    meta = df.attrs.get("analysis", {})
    found = meta.get("play_policies")
    if meta.get("play") != "best" or not found:
        return
    if isinstance(found, list):
        echo("Each variant played under its own strongest play found (skirmish optimize); the policies "
                   "are in --json / --out (play_policies).")
        return
    from sim.analysis.optimize_space import yaml_text
    echo("Played under the strongest play found (skirmish optimize): "
               + "; ".join(f"{side} {yaml_text(p)}" for side, p in found.items()))


@contextmanager
def bar(command: str, scenario, quiet: bool):
    """A progress bar on stderr for a long analysis; its total arrives once the
    analysis has built its variants (sim.progress.expect)."""
    from sim.progress import progress_bar
    with progress_bar(None, desc=f"{command} {Path(str(scenario)).stem}", quiet=quiet) as update:
        yield update


def played_scenario(scenario, sets):
    """The base scenario an analysis played (its file after --set), so its page can show
    the stat blocks; None if it cannot be read again."""
    from sim.analysis.common import as_scenario
    try:
        return as_scenario(scenario, parse_sets(sets or ()) or None)
    except ScenarioError:  # played already, so not expected; the page goes on without the designs
        return None


def write_out(df: pd.DataFrame, out: str | None, as_json: bool, extra: dict | None = None,
              report_dir: str | None = None, played: tuple | None = None) -> None:
    """`played`: (SCENARIO, --set values) of the command, for the stat blocks of its page."""
    scen = played_scenario(*played) if played and (report_dir or out) else None
    if report_dir:
        from sim.report import report_frame
        page = report_frame(df, report_dir, scenario=scen)
        if not as_json:
            echo(f"wrote {page}", err=True)
    if not out:
        return
    if scen is not None:  # `skirmish report` of the saved table shows the same stat blocks
        extra = {**(extra or {}), "scenario_text": scen.text,
                 **({"overrides": dict(scen.overrides)} if scen.overrides else {})}
    from sim.io import atomic_write_frame
    p = Path(out)
    fmt = "csv" if p.suffix.lower() == ".csv" else "parquet"
    if p.suffix.lower() not in (".csv", ".parquet"):
        p = p.with_name(p.name + ".parquet")
    meta = {**df.attrs.get("analysis", {}), **(extra or {})}
    atomic_write_frame(p, df, fmt, meta)
    if fmt == "csv":
        from sim.io import atomic_write_text
        atomic_write_text(p.with_suffix(".meta.json"), json.dumps(meta, indent=2, default=str))
    if not as_json:
        echo(f"wrote {p}", err=True)


def records(df: pd.DataFrame) -> list[dict]:
    return json.loads(df.to_json(orient="records", default_handler=str))


def emit_json(command: str, df: pd.DataFrame, hoist: tuple = (), **extra) -> None:
    """One JSON object; columns named in `hoist` that are the same in every row are given
    once at the top (rule_options decoded) instead of in each row."""
    rows = records(df)
    once = {c: rows[0][c] for c in hoist if rows and c in rows[0] and all(r.get(c) == rows[0][c] for r in rows)}
    if isinstance(once.get("rule_options"), str):
        once["rule_options"] = json.loads(once["rule_options"])
    rows = [{k: v for k, v in r.items() if k not in once} for r in rows]
    payload = {"command": command, **once, **df.attrs.get("analysis", {}), **extra, "rows": rows}
    echo(json.dumps(payload, default=str, allow_nan=False))


def pct(x) -> str:
    return "   -  " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:5.1f}%"


def interval(p, lo, hi) -> str:
    return f"{pct(p)} [{pct(lo)} .. {pct(hi)}]"


def signed(d, lo, hi) -> str:
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return ""
    return f"{100 * d:+5.1f} [{100 * lo:+5.1f} .. {100 * hi:+5.1f}] pts"


def parse_vary(items) -> dict:
    return parse_assignments(items, "--vary", "PATH=VALUES", "--vary 'sides.yeti.combatants[Yeti].defense=0..6' "
                             "or ...damage=d6,d8,d10")


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenario")
@click.option("--vary", multiple=True, metavar="PATH=VALUES",
              help="A path and the values to try: 0..6, 0..20:5, d6,d8,d10 or [..]; repeat for a grid. "
                   "Default: the scenario's sweep: block.")
@click.option("--precision", type=float, help="Play chunks until every variant's win-rate half-width is at most "
                                              f"this (exit status {EXIT_NOT_REACHED} if --max comes first).")
@click.option("--max", "max_n", type=SKIRMISHES, default=1_000_000, show_default=True,
              help="With --precision: stop at this many skirmishes per variant.")
@play_option("searched for the base scenario, then re-searched for every variant from there with the quick "
             "budget (a sweep spans ranges over which the best play changes); costs a search per variant.")
@common_options
def sweep(scenario, vary, precision, max_n, play, skirmishes, seed, jobs, max_rounds, sets, out, as_json,
          report_dir, quiet):
    """Run a grid of variants of SCENARIO (or of a day file) on common random numbers, one row per variant."""
    from sim.day.compare import is_day_file
    if is_day_file(scenario):
        from sim.cli_day import sweep_day_command
        return sweep_day_command(scenario, vary, precision, play, skirmishes, seed, jobs, max_rounds, sets, out,
                                 as_json, report_dir, quiet)
    from sim.analysis import sweep as sweep_fn
    with naming(scenario):
        grid = parse_vary(vary) or None
    with bar("sweep", scenario, quiet) as update:
        df = sweep_fn(scenario, grid, n=skirmishes, seed=seed, jobs=jobs, max_rounds=max_rounds,
                      overrides=parse_sets(sets), precision=precision, max_skirmishes=max_n if precision else None,
                      play=play, progress=update)
    if precision is not None:
        df.attrs["analysis"]["precision_reached"] = _sweep_reached(df, precision)
    write_out(df, out, as_json, report_dir=report_dir, played=(scenario, sets))
    if as_json:
        emit_json("sweep", df)
        return _exit_unless(df.attrs["analysis"].get("precision_reached", True))
    meta = df.attrs["analysis"]
    paths = list(meta["vary"])
    sides = meta["sides"]
    echo(f"{len(df)} variants x {meta['skirmishes']:,} skirmishes, common random numbers; "
               "differences are to the previous value of the last path, paired, in percentage points.")
    play_note(df)
    for p in paths:
        echo(f"  {p}")
    for _, r in df.iterrows():
        values = ", ".join(str(r[p]) for p in paths)
        echo(f"\n[{r['variant']}] {values}")
        for side in sides:
            echo(f"  {side:<16} {interval(r[f'{side}.win_rate'], r[f'{side}.win_lo'], r[f'{side}.win_hi'])}"
                       f"   {signed(r[f'{side}.diff_prev'], r[f'{side}.diff_prev_lo'], r[f'{side}.diff_prev_hi'])}")
        echo(f"  {'draw':<16} {pct(r['draw_rate'])}   rounds {r['rounds_mean']:.2f}")
    if not meta.get("precision_reached", True):
        echo(f"\nNOT reached: precision +-{precision:g} within --max {max_n:,} skirmishes per variant.")
    _exit_unless(meta.get("precision_reached", True))


def _sweep_reached(df: pd.DataFrame, precision: float) -> bool:
    sides = df.attrs["analysis"]["sides"]
    widest = max(float((df[f"{s}.win_hi"] - df[f"{s}.win_lo"]).max()) / 2 for s in sides)
    return widest <= precision + 1e-12


def _exit_unless(ok: bool) -> None:
    """Exit with EXIT_NOT_REACHED once the output is written, so scripts can tell."""
    if not ok:
        raise SystemExit(EXIT_NOT_REACHED)


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenario")
@click.option("--param", "params", required=True, multiple=True, metavar="PATH",
              help="The value to solve for: a whole number, or a die stepped along the die ladder (d4, d6, ... "
                   "d20). Give it twice to solve for two at once on a small grid.")
@click.option("--target", required=True, metavar="SIDE.win_rate=RATE", help="e.g. party.win_rate=0.6")
@click.option("--range", "rngs", multiple=True, metavar="LO..HI",
              help="Values to search, e.g. 1..40 or d4..d12 (default: current value +- max(10, |value|), or "
                   "+-3 on a two-stat grid; dice: the whole ladder). One per --param, in order.")
@click.option("--max", "max_n", type=SKIRMISHES,
              help="Most skirmishes for one value while its interval still contains the target (default 8 x -n).")
@play_option("searched for the base scenario, the value tuned under it, the play re-searched at the value "
             "found and the value tuned again if the play changed (at most 3 times).")
@common_options
def tune(scenario, params, target, rngs, max_n, play, skirmishes, seed, jobs, max_rounds, sets, out, as_json,
         report_dir, quiet):
    """Find the value of PATH that gives a side the target win rate (bisection, paired runs),
    or with two --param the pairs of a small grid nearest it.

    Exits with status 3 (after printing the table) when the target is unreachable in the range."""
    from sim.day.compare import is_day_file
    if is_day_file(scenario):
        from sim.cli_day import tune_day_command
        return tune_day_command(scenario, params, target, rngs, max_n, play, skirmishes, seed, jobs, max_rounds,
                                sets, out, as_json, report_dir, quiet)
    from sim.analysis import tune as tune_fn
    from sim.analysis.tune import parse_target, parse_tune_range
    with naming(scenario):
        side, rate = parse_target(target)
        if len(params) > 2 or len(rngs) > len(params):
            raise ScenarioError("tune takes one or two --param, and at most one --range per --param.")
        ranges = [parse_tune_range(r) for r in rngs] + [(None, None)] * (len(params) - len(rngs))
    if len(params) == 2:
        if play != "as-written":
            raise ScenarioError("--play best tunes one --param at a time: a two-stat grid under a searched "
                                "play would search once per pair. Tune one stat with --play best, or drop it.")
        return _tune_grid(scenario, params, side, rate, ranges, skirmishes, seed, jobs, max_rounds, sets, out,
                          as_json, report_dir, quiet)
    (lo, hi), param = ranges[0], params[0]
    with bar("tune", scenario, quiet) as update:
        df = tune_fn(scenario, param, side, rate, lo, hi, n=skirmishes or 20000, seed=seed, jobs=jobs,
                     max_rounds=max_rounds, overrides=parse_sets(sets), max_skirmishes=max_n, play=play,
                     progress=update)
    write_out(df, out, as_json, report_dir=report_dir, played=(scenario, sets))
    reachable = df.attrs["analysis"]["status"] != "unreachable"
    if as_json:
        emit_json("tune", df, hoist=TUNE_CONSTANTS)
        return _exit_unless(reachable)
    meta = df.attrs["analysis"]
    echo(meta["message"])
    play_note(df)
    echo("")
    echo(f"  {'value':>7}  {side + ' win rate':<28} {'vs answer (paired)':<30} skirmishes")
    for _, r in df.iterrows():
        mark = {"answer": "<- answer", "below": "", "above": ""}.get(r["role"], "")
        rate = interval(r[f"{side}.win_rate"], r[f"{side}.win_lo"], r[f"{side}.win_hi"])
        vs = (signed(r["diff_vs_answer"], r["diff_vs_answer_lo"], r["diff_vs_answer_hi"])
              if r["role"] != "answer" else "")
        echo(f"  {r['value']:>7}  {rate:<28} {vs:<30} {r['skirmishes']:>9,} {mark}")
    _exit_unless(reachable)


def _tune_grid(scenario, params, side, rate, ranges, skirmishes, seed, jobs, max_rounds, sets, out, as_json,
               report_dir, quiet):
    from sim.analysis.tune_grid import NEAREST, tune_grid
    with bar("tune", scenario, quiet) as update:
        df = tune_grid(scenario, list(params), side, rate, ranges, n=skirmishes or 4000, seed=seed, jobs=jobs,
                       max_rounds=max_rounds, overrides=parse_sets(sets), progress=update)
    write_out(df, out, as_json, report_dir=report_dir, played=(scenario, sets))
    meta = df.attrs["analysis"]
    reachable = meta["status"] != "unreachable"
    if as_json:
        emit_json("tune", df, hoist=("rule_options", "scenario_hash", "seed", "package_version"))
        return _exit_unless(reachable)
    echo(f"{len(df)} pairs x {meta['skirmishes']:,} skirmishes, common random numbers.")
    echo(meta["message"])
    names = [p.rsplit(".", 1)[-1] for p in params]
    echo(f"\n  {names[0]:>12} {names[1]:>12}  {side + ' win rate':<28} on target")
    for _, r in df.head(max(NEAREST, int(df["on_target"].sum()))).iterrows():
        rate_text = interval(r[f"{side}.win_rate"], r[f"{side}.win_lo"], r[f"{side}.win_hi"])
        echo(f"  {str(r[params[0]]):>12} {str(r[params[1]]):>12}  {rate_text:<28} "
                   f"{'yes' if r['on_target'] else ''}")
    _exit_unless(reachable)


# Columns of a tune table that hold one value for the whole search; its JSON gives them once.
TUNE_CONSTANTS = ("message", "rule_options", "param", "target_side", "target", "status", "on_target",
                  "scenario_hash", "seed", "package_version")


@main.command()
@click.argument("scenario")
@click.option("--combatant", "combatants", multiple=True, metavar="NAME",
              help="Only this combatant's stats (repeatable; default all).")
@click.option("--metric", metavar="FIGURE",
              help="Price each step in this figure too, and rank by it: rounds.mean, SIDE.win_rate, SIDE.any_death, "
                   "SIDE.any_down, SIDE.deaths.mean; of a day file day.survival (the default), day.nobody_dies, "
                   "day.deaths, day.fights_won, fight.NAME.lost, MEMBER.dead.")
@play_option("searched once for the base scenario and kept for every step (a small step changes the best play's "
             "value only to second order; the steps stay paired).")
@common_options
def sensitivity(scenario, combatants, metric, play, skirmishes, seed, jobs, max_rounds, sets, out, as_json,
                report_dir, quiet):
    """Stat weights: each numeric stat one step up and down, paired change in win rates, ranked
    (of a day file: the party's stats, priced in points of day survival)."""
    from sim.day.compare import is_day_file
    if is_day_file(scenario):
        from sim.cli_day import sensitivity_day_command
        return sensitivity_day_command(scenario, combatants, play, skirmishes, seed, jobs, max_rounds, sets, out,
                                       as_json, report_dir, quiet, metric or "day.survival")
    from sim.analysis import sensitivity as sens_fn
    with bar("sensitivity", scenario, quiet) as update:
        df = sens_fn(scenario, list(combatants) or None, n=skirmishes or 20000, seed=seed, jobs=jobs,
                     max_rounds=max_rounds, overrides=parse_sets(sets), play=play, progress=update, metric=metric)
    write_out(df, out, as_json, report_dir=report_dir, played=(scenario, sets))
    if as_json:
        return emit_json("sensitivity", df)
    sides = [c[:-len(".delta")] for c in df.columns if c.endswith(".delta") and c != "metric.delta"]
    echo(f"{len(df)} changes x {df.attrs['analysis']['skirmishes']:,} skirmishes, common random numbers; "
               "change in win rate in percentage points with paired 95% intervals.")
    play_note(df)
    width = max(len(f"{r.combatant} {r.stat}") for r in df.itertuples()) + 2
    change_w = max(14, *(len(x) for x in df["label"])) + 1
    if metric:
        echo(f"Ranked by the change in {metric} ({_metric_words(metric, df)}), the last column.")
    echo(f"\n  {'#':>3} {'stat':<{width}} {'change':<{change_w}} " + "".join(f"{s:<30}" for s in sides)
         + (metric or ""))
    for _, r in df.iterrows():
        cells = "".join(f"{signed(r[f'{s}.delta'], r[f'{s}.delta_lo'], r[f'{s}.delta_hi']):<30}" for s in sides)
        if metric:
            scale = 1 if metric == "rounds.mean" or metric.endswith("deaths.mean") else 100
            cells += (f"{scale * r['metric.delta']:+.2f} [{scale * r['metric.delta_lo']:+.2f}, "
                      f"{scale * r['metric.delta_hi']:+.2f}]")
        same = all(r[f"{s}.delta_lo"] == r[f"{s}.delta_hi"] == 0 for s in sides)
        echo(f"  {r['rank']:>3} {r['combatant'] + ' ' + r['stat']:<{width}} {r['label']:<{change_w}} {cells}"
             + ("  (no skirmish changed)" if same else ""))
    skipped = df.attrs["analysis"].get("unstepped") or []
    if skipped:
        echo("\nNot stepped: " + "; ".join(f"{u['combatant']} {u['stat']} {u['step']} ({u['reason']})"
                                          for u in skipped) + ".")


def _metric_words(metric: str, df) -> str:
    base = df["metric.base"].iloc[0] if len(df) else float("nan")
    if metric == "rounds.mean" or metric.endswith("deaths.mean"):
        return f"{base:.2f} as written; the change per fight"
    return f"{100 * base:.1f}% as written; the change in points"


@main.command()
@click.argument("scenario")
@click.option("--policies", multiple=True, metavar="SIDE=POLICIES", required=True,
              help="Policies for a side: preset names (random,weakest,strongest,focus,scenario), or inline "
                   "YAML/JSON: '[random, {target: focus, flee_below: 0.5}]' or '{brave: {flee_below: 0}, "
                   "timid: {flee_below: 0.5}}'. Repeat per side; unlisted sides keep their policy.")
@play_option("searched for the scenario; every side's strongest play found joins its entrants as `best`.")
@common_options
def tournament(scenario, policies, play, skirmishes, seed, jobs, max_rounds, sets, out, as_json, report_dir, quiet):
    """Every pairing of the listed policies: win-rate matrices, best responses, robustness.
    Of a day file: the party's policies in every fight (party=...) or one fight's side's
    (FIGHT.SIDE=...), ranked by day survival on the same days."""
    from sim.analysis import best_responses, matrix, tournament as tour_fn, verdicts
    from sim.analysis.tournament import parse_policy_list
    from sim.day.compare import is_day_file
    spec = {}
    for item in policies:
        if "=" not in item:
            raise ScenarioError(f"--policies '{item}' needs the form SIDE=POLICIES, e.g. party=random,weakest.")
        side, text = item.split("=", 1)
        spec.setdefault(side.strip(), []).extend(parse_policy_list(text, side.strip()))
    if is_day_file(scenario):
        from sim.cli_day import tournament_day_command
        return tournament_day_command(scenario, spec, play, skirmishes, seed, jobs, max_rounds, sets, out, as_json,
                                      report_dir, quiet)
    with bar("tournament", scenario, quiet) as update:
        df = tour_fn(scenario, spec, n=skirmishes or 20000, seed=seed, jobs=jobs, max_rounds=max_rounds,
                     overrides=parse_sets(sets), play=play, progress=update)
    br = best_responses(df)
    says = verdicts(df)
    write_out(df, out, as_json, {"verdicts": says, "best_responses": records(br)}, report_dir=report_dir,
              played=(scenario, sets))
    if as_json:
        return emit_json("tournament", df, best_responses=records(br), verdicts=says)
    meta = df.attrs["analysis"]
    echo(f"{len(df)} pairings x {meta['skirmishes']:,} skirmishes, common random numbers.")
    import pandas as pd
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.float_format", lambda x: f"{100 * x:.1f}%"):
        for side in meta["sides"]:
            if df[f"policy.{side}"].nunique() > 1 or len(meta["sides"]) == 2:
                echo(f"\n{side} win rate")
                echo(matrix(df, side).to_string())
    echo("\nBest responses")
    for _, r in br.iterrows():
        if r["runner_up"] is None:
            continue  # one policy listed for this side: nothing to choose between
        lead = f"{r['best_policy']} {interval(r['win_rate'], r['win_lo'], r['win_hi'])}"
        said = lead if r["clearly_best"] else f"{r['verdict']} (top: {lead})"
        echo(f"  {r['side']} against {r['against']}: {said}")
    echo("")
    for s in says:
        echo(s)


@main.command()
@click.argument("scenario_a")
@click.argument("scenario_b")
@click.option("--set-b", "sets_b", multiple=True, metavar="PATH=VALUE",
              help="Override a value in B only (after --set), e.g. compare a file with a changed copy of itself.")
@common_options
def compare(scenario_a, scenario_b, sets_b, skirmishes, seed, jobs, max_rounds, sets, out, as_json, report_dir,
            quiet):
    """Play SCENARIO_A and SCENARIO_B on the same skirmishes (common random numbers) and
    give every figure of both with B - A and its paired 95% interval. Two day files
    (docs/day.md) are compared day by day, on the same days."""
    from sim.day.compare import is_day_file
    if is_day_file(scenario_a) or is_day_file(scenario_b):
        from sim.cli_day import compare_days_command
        return compare_days_command(scenario_a, scenario_b, sets, sets_b, skirmishes, seed, jobs, max_rounds, out,
                                    as_json, report_dir, quiet)
    from sim.analysis.compare import compare_results, play_pair
    with bar("compare", scenario_a, quiet) as update:
        ra, rb = play_pair(scenario_a, scenario_b, n=skirmishes or 20000, seed=seed, jobs=jobs,
                           max_rounds=max_rounds, overrides=parse_sets(sets), overrides_b=parse_sets(sets_b),
                           progress=update)
    df = compare_results(ra, rb)
    if report_dir:
        from sim.report.compare import report_comparison
        page = report_comparison(ra, rb, report_dir, figures=df)
        if not as_json:
            echo(f"wrote {page}", err=True)
    write_out(df, out, as_json)
    if as_json:
        return emit_json("compare", df)
    echo(compare_text(df))


def compare_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    (la, lb), (na, _) = meta["labels"], meta["skirmishes"]
    seed = meta["a"].get("seed", "?")
    how = ("same seed and skirmish index (common random numbers), paired" if meta["paired"]
           else "runs of different sizes, unpaired")
    lines = [f"A = {la}", f"B = {lb}", f"{na:,} skirmishes each, seed {seed}; B - A by {how}, 95% intervals.", ""]
    lines += figure_lines(df)
    lines += ["", "down = dead or unconscious at the end; fled is counted apart. pts = percentage points."]
    return "\n".join(lines)


def figure_lines(df: pd.DataFrame) -> list[str]:
    """A comparison table's rows as text: each figure of A and of B, and B - A."""
    width = max(len(f) for f in df["figure"]) + 2
    lines = [f"  {'':<{width}}{'A':>26}{'B':>26}   B - A"]
    for _, r in df.iterrows():
        if r["kind"] == "rate":
            a, b = interval(r["a"], r["a_lo"], r["a_hi"]), interval(r["b"], r["b_lo"], r["b_hi"])
            d = "" if math.isnan(r["diff"]) else signed(r["diff"], r["diff_lo"], r["diff_hi"])
        else:
            a, b = mean_interval(r["a"], r["a_lo"], r["a_hi"]), mean_interval(r["b"], r["b_lo"], r["b_hi"])
            d = "" if math.isnan(r["diff"]) else f"{r['diff']:+6.2f} [{r['diff_lo']:+6.2f} .. {r['diff_hi']:+6.2f}]"
        lines.append(f"  {r['figure']:<{width}}{a:>26}{b:>26}   {d}")
    return lines


def mean_interval(m, lo, hi) -> str:
    return "   -  " if math.isnan(m) else f"{m:6.2f} [{lo:6.2f} .. {hi:6.2f}]"


def _add_adaptive_run() -> None:
    """Give `run` the options --precision and --max without editing its body."""
    cmd = main.commands["run"]
    if any(p.name == "precision" for p in cmd.params):
        return
    original = cmd.callback
    cmd.params.append(click.Option(["--precision"], type=float,
                                   help="Play chunks until every side's win-rate half-width is at most this "
                                        "(e.g. 0.005), then report how many skirmishes it took; replaces -n. "
                                        f"Exit status {EXIT_NOT_REACHED} if --max came first."))
    cmd.params.append(click.Option(["--max", "max_n"], type=SKIRMISHES, default=1_000_000,
                                   show_default=True, help="With --precision: stop at this many skirmishes."))

    def callback(precision=None, max_n=None, **kw):
        if precision is None:
            return original(**kw)
        if kw.get("summary_only") or kw.get("run_dir") or kw.get("resume") or kw.get("scheduler") \
                or kw.get("backend", "threads") != "threads":
            raise ScenarioError("--precision plays in memory on threads of this process; it does not combine "
                                "with --backend loky or dask, --scheduler, --summary-only, --run-dir or --resume.")
        from sim.analysis import run_adaptive
        files = scenario_files(kw["scenarios"])
        summaries, all_reached = [], True
        for f in files:
            result = run_adaptive(f, precision, max_skirmishes=max_n, seed=kw["seed"], jobs=kw["jobs"],
                                  max_rounds=kw["max_rounds"], overrides=parse_sets(kw["sets"]))
            a = result.meta["adaptive"]
            all_reached = all_reached and a["reached"]
            note = (f"{'reached' if a['reached'] else 'NOT reached'} precision +-{precision:g} after "
                    f"{len(result.skirmishes):,} skirmishes ({a['steps']} steps"
                    + ("" if a["reached"] else f"; stopped at --max {max_n:,}") + ")")
            if kw["out"]:
                from sim.rundir import subfolder_name
                target = Path(kw["out"]) / subfolder_name(f) if len(files) > 1 else Path(kw["out"])
                written = result.write(target)
                if not kw["as_json"]:
                    echo("wrote " + ", ".join(map(str, written)), err=True)
            if kw["as_json"]:
                summaries.append(result.summary())
            else:
                echo(result.summary_text())
                echo(note)
                if len(files) > 1:
                    echo("")
        if kw["as_json"]:
            payload = summaries[0] if len(summaries) == 1 else {"scenarios": summaries}
            echo(json.dumps(payload, default=str))
        _exit_unless(all_reached)

    cmd.callback = callback


_add_adaptive_run()
