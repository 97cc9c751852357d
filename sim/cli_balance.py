"""`skirmish balance`: several stats searched at once to meet several targets
(sim/analysis/balance.py); registered on `sim.cli.main` when imported."""
from __future__ import annotations

import math

import click

from sim.cli_base import EXIT_NOT_REACHED, SKIRMISHES, echo, main
from sim.cli_analysis import bar, common_options, emit_json, naming, parse_sets, write_out
from sim.errors import ScenarioError

EPILOG = ("Exit status: 0 a design meets every target; 1 a fault in the simulator; 2 bad input (the message says "
          "what to change); 3 finished and written, but no design played meets every target.")
SHOWN = 5  # rows of the text table besides the designs meeting every target
CONSTANTS = ("message", "rule_options", "scenario", "scenario_file", "scenario_hash", "seed", "package_version")


@main.command(epilog=EPILOG)
@click.argument("scenario")
@click.option("--param", "params", required=True, multiple=True, metavar="PATH",
              help="A value to search: a whole number or a die (stepped along d2-d4-...-d20). Repeat for each.")
@click.option("--target", "targets", required=True, multiple=True, metavar="WHAT=VALUE",
              help="A target, repeatable: SIDE.win_rate=0.6, SIDE.win_rate>=0.5, SIDE.win_rate=0.55..0.65, "
                   "rounds.median=4..6, rounds.mean<=6, SIDE.any_death<=0.1, SIDE.any_down<=0.5, "
                   "SIDE.deaths.mean<=0.3.")
@click.option("--budget", metavar="EXPR", help="One comparison the params must keep, e.g. 'attack + defense <= 10' "
                                              "(names: the params' last path segments; a die counts as its mean).")
@click.option("--range", "rngs", multiple=True, metavar="P=LO..HI",
              help="Values to search for a param (its path or last segment), e.g. survival=20..60 or damage=d4..d12 "
                   "(default: current value +- max(10, |value|); dice: the whole ladder).")
@click.option("--tolerance", type=float, default=0.02, show_default=True,
              help="A target is met when its 95% interval meets the band, or lies within this of it (a share; "
                   "for rounds and deaths scaled as the score is).")
@click.option("--max-designs", type=click.IntRange(1, 10_000), default=60, show_default=True,
              help="Most designs played; the message says when the search stopped there.")
@click.option("--max", "max_n", type=SKIRMISHES,
              help="Most skirmishes for one of the final designs while a target is undecided (default 8 x -n).")
@common_options
def balance(scenario, params, targets, budget, rngs, tolerance, max_designs, max_n, skirmishes, seed, jobs,
            max_rounds, sets, out, as_json, report_dir, quiet):
    """Search several stats of SCENARIO at once for a design meeting every target
    (coordinate search on common random numbers; docs/analysis.md).

    Exits with status 3 (after printing the table) when no design played meets every target."""
    from sim.analysis.balance import balance as balance_fn
    from sim.day.compare import is_day_file
    if is_day_file(scenario):
        raise ScenarioError(f"{scenario} is a day file; `skirmish balance` searches the stats of one scenario. "
                            "Give one of the day's scenario files, or tune a day rate with `skirmish tune DAY`.")
    from sim.analysis.balance_targets import parse_target
    with naming(scenario):  # before any fight is played, and naming the scenario
        ranges = parse_ranges(rngs)
        targets = [parse_target(t) for t in targets]
    with bar("balance", scenario, quiet) as update:
        df = balance_fn(scenario, list(params), list(targets), budget=budget, ranges=ranges, tolerance=tolerance,
                        n=skirmishes or 4000, seed=seed, jobs=jobs, max_rounds=max_rounds,
                        overrides=parse_sets(sets), max_designs=max_designs, max_skirmishes=max_n,
                        progress=update)
    write_out(df, out, as_json, played=(scenario, sets))
    if report_dir:
        from sim.analysis.common import as_scenario
        from sim.report.balance import report_balance
        page = report_balance(df, as_scenario(scenario, parse_sets(sets) or None), report_dir)
        if not as_json:
            echo(f"wrote {page}", err=True)
    met = df.attrs["analysis"]["status"] == "met"
    if as_json:
        emit_json("balance", df, hoist=CONSTANTS)
    else:
        echo(df.attrs["analysis"]["message"])
        echo("")
        echo(table_text(df))
    if not met:
        raise SystemExit(EXIT_NOT_REACHED)


def parse_ranges(items) -> dict:
    """`--range survival=20..60` items as {param or name: (lo, hi)}."""
    from sim.analysis.tune import parse_tune_range
    out = {}
    for item in items:
        name, eq, text = str(item).rpartition("=")
        if not eq or not name.strip():
            raise ScenarioError(f"--range '{item}' needs the form PARAM=LO..HI, e.g. --range survival=20..60 or "
                                "--range damage=d4..d12.")
        out[name.strip()] = parse_tune_range(text.strip())
    return out


def table_text(df) -> str:
    """The best designs: each param's value, each target's estimate and interval, met or not."""
    meta = df.attrs["analysis"]
    names, params = meta["names"], meta["params"]
    keys = list(dict.fromkeys(k for k, _, _ in meta["bands"]))
    shown = df.head(max(SHOWN, min(int(df["meets_all"].sum()), 10)))
    cells = [[str(r["rank"]), *(str(r[p]) for p in params), *(estimate_text(k, r) for k in keys),
              ", ".join(t for t in meta["targets"] if not r[f"{t} met"]) or "all met", f"{r['skirmishes']:,}"]
             for _, r in shown.iterrows()]
    head = ["#", *names, *keys, "misses", "skirmishes"]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]

    def line(row):
        return "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
    more = f"\n  ... and {len(df) - len(shown)} more designs (--out or --json lists them all)" \
        if len(df) > len(shown) else ""
    return "\n".join([line(head), *(line(c) for c in cells)]) + more


def estimate_text(key: str, row) -> str:
    est, lo, hi = row[key], row[f"{key}.lo"], row[f"{key}.hi"]
    if any(isinstance(x, float) and math.isnan(x) for x in (est, lo, hi)):
        return "-"
    if key.endswith(("win_rate", "any_death", "any_down")):
        return f"{100 * est:.1f}% [{100 * lo:.1f} .. {100 * hi:.1f}]"
    digits = "g" if key == "rounds.median" else ".2f"
    return f"{est:{digits}} [{lo:{digits}} .. {hi:{digits}}]"
