"""`skirmish optimize`: the balance as written beside the balance under the strongest
play found (sim.analysis.optimize; of a day file, sim.day.optimize). Registers on the
`main` group of sim/cli.py."""
from __future__ import annotations

import click

from sim.cli_base import echo, EXIT_NOT_REACHED, main, parse_sets
from sim.cli_analysis import _exit_unless, bar, common_options, emit_json, interval, signed, write_out
from sim.errors import ScenarioError

OPTIMIZE_EXIT = (f"Exit status: 0 done, the search converged; 1 a fault in the simulator; 2 bad input (the message "
                 f"says what to change); {EXIT_NOT_REACHED} finished, but the search hit its limit of best "
                 "responses while a side was still improving (the figures are printed; raise --budget "
                 "responses=...).")

BUDGET_HELP = ("Search effort: quick, normal (default) or thorough, or key=value pairs over normal: far "
               "(random candidates per best response, 12), first (skirmishes per candidate on the first "
               "rung, 200), rungs (of successive halving, 7), confirm (fresh skirmishes a found improvement "
               "must hold on, 4000), responses (best responses in all, 8; quick 4, thorough 12). "
               "E.g. --budget responses=10.")


@main.command(epilog=OPTIMIZE_EXIT)
@click.argument("scenario")
@click.option("--side", "sides", multiple=True, metavar="NAME",
              help="Search only this side's play (repeatable; default every side). The others keep theirs. Of a "
                   "day file: party (its policy in every fight) or FIGHT.SIDE (one fight's other side).")
@click.option("--objective", metavar="fight|day",
              help="Of a day file only: what the fights' sides search for: fight (default; win their own fight "
                   "as the party reaches it within the day) or day (that the party falls by the day's end). The "
                   "party's is always day survival.")
@click.option("--budget", default="normal", show_default=True, metavar="PRESET|KEY=VALUE,...", help=BUDGET_HELP)
@common_options
def optimize(scenario, sides, objective, budget, skirmishes, seed, jobs, max_rounds, sets, out, as_json, report_dir,
             quiet):
    """Search each side's strongest play (its policy family's parameters and targeting,
    alternating best responses on common random numbers) and give the balance as written
    beside the balance under the strongest play found, with the policies found.

    Figures are played on the scenario's seed and skirmishes (-n, default
    min(run.skirmishes, 20000)); the search plays its own, separate skirmishes. Of a day
    file (docs/day.md): the party's and each fight's sides' play over the whole day, -n
    counting days."""
    from sim.analysis.optimize import optimize as optimize_fn
    from sim.analysis.optimize import parse_budget
    from sim.day.compare import is_day_file
    spent = parse_budget(budget)  # a typo fails before anything is played
    if is_day_file(scenario):
        return optimize_day_command(scenario, sides, objective, spent, skirmishes, seed, jobs, max_rounds, sets, out,
                                    as_json, report_dir, quiet)
    if objective is not None:
        raise ScenarioError(f"--objective is taken by an optimize of a day file (what each fight's sides search "
                            f"for over the day); {scenario} is a scenario, whose sides each search for their own "
                            "win rate. Drop --objective, or give a day file.")
    with bar("optimize", scenario, quiet) as update:
        df = optimize_fn(scenario, n=skirmishes, seed=seed, jobs=jobs, max_rounds=max_rounds,
                         sides=list(sides) or None, budget=spent, overrides=parse_sets(sets), progress=update)
    meta = df.attrs["analysis"]
    write_out(df, out, as_json, report_dir=report_dir, played=(scenario, sets))
    if as_json:
        emit_json("optimize", df, hoist=("scenario_hash", "variant_hash", "seed", "rule_options",
                                          "package_version"))
        return _exit_unless(meta["converged"])
    echo(optimize_text(df))
    _exit_unless(meta["converged"])


def optimize_day_command(path, sides, objective, budget, days, seed, jobs, max_rounds, sets, out, as_json,
                         report_dir, quiet):
    """`skirmish optimize` of a day file (sim.day.optimize.optimize_day): -n counts days."""
    from sim.cli_day import _threads_only
    from sim.day.optimize import check_objective, optimize_day
    from sim.day.optimize_table import optimize_day_text
    _threads_only()
    refused = [name for name, given in (("--max-rounds", max_rounds), ("--report", report_dir)) if given]
    if refused:
        raise ScenarioError(f"{', '.join(refused)} {'is' if len(refused) == 1 else 'are'} not taken by an optimize "
                            "of a day file: write rounds into the day's `run: max_rounds`, and use `skirmish day "
                            "FILE --report DIR` for the day's page (write the policies found into a copy of it).")
    objective = check_objective(objective)
    with bar("optimize", path, quiet) as update:
        df = optimize_day(path, sides=list(sides) or None, objective=objective, days=days, seed=seed, jobs=jobs,
                          budget=budget, progress=update, overrides=parse_sets(sets))
    meta = df.attrs["analysis"]
    write_out(df, out, as_json)
    if as_json:
        emit_json("optimize", df, hoist=("day", "day_file", "day_hash", "variant_hash", "seed", "days", "day_rules",
                                          "package_version"))
        return _exit_unless(meta["converged"])
    echo(optimize_day_text(df))
    _exit_unless(meta["converged"])


def optimize_text(df) -> str:
    from sim.analysis.optimize import policy_lines
    meta = df.attrs["analysis"]
    lines = [f"{meta['skirmishes']:,} skirmishes per figure, seed {df['seed'].iloc[0]}; the search played "
             f"{meta['search_skirmishes']:,} others in {meta['responses']} best responses "
             f"({'converged' if meta['converged'] else 'NOT converged'}). Win rates with 95% intervals; "
             "shifts paired, in percentage points.", ""]
    lines.append(f"  {'side':<14} {'as written':<28} {'strongest play found':<28} {'shift':<28} own play alone")
    for _, r in df.iterrows():
        written = interval(r["written.win_rate"], r["written.win_lo"], r["written.win_hi"])
        lines.append(f"  {r['side']:<14} {written:<28} "
                     f"{interval(r['strongest.win_rate'], r['strongest.win_lo'], r['strongest.win_hi']):<28} "
                     f"{signed(r['shift'], r['shift_lo'], r['shift_hi']):<28} "
                     f"{signed(r['own_gain'], r['own_gain_lo'], r['own_gain_hi'])}")
    lines.append("")
    lines += policy_lines(df.to_dict("records"))
    lines += ["", meta["message"],
              "own play alone: the side's found policy against the others as written."]
    return "\n".join(lines)
