"""`skirmish odds`: the exact odds of every exchange of a scenario (sim/analysis/odds.py)."""
from __future__ import annotations

from pathlib import Path

import click

from sim.cli_base import EXIT_STATUSES, echo, main, writable_file_option


@main.command(epilog=EXIT_STATUSES)
@click.argument("scenario")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Override a scenario value first.")
@click.option("--attacker", metavar="NAME", help="Only the exchanges of this attacking stat block.")
@click.option("--defender", metavar="NAME", help="Only the exchanges against this stat block.")
@click.option("--damage", "show_damage", is_flag=True,
              help="Also print each exchange's whole damage distribution: exactly k, and at least k.")
@click.option("--out", type=click.Path(dir_okay=False), callback=writable_file_option,
              help="Write the matchup table to X.parquet (default) or X.csv and the damage distributions "
                   "beside it as X.damage.parquet / X.damage.csv, atomically.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object instead of text.")
def odds(scenario, sets, attacker, defender, show_damage, out, as_json):
    """Exact odds of one exchange: for every attacker / defender / attack pair SCENARIO can
    meet, the chance the attack lands, its outcome distribution and the damage reaching the
    defender after armour, by enumerating the dice (no sampling)."""
    from sim.analysis.odds import odds as odds_fn, odds_text
    from sim.cli_analysis import emit_json, parse_sets, records, write_out
    from sim.day.compare import is_day_file
    from sim.errors import ScenarioError
    if is_day_file(scenario):
        raise ScenarioError(f"{scenario} is a day file; `skirmish odds` pairs the combatants of one scenario. "
                            "Give one of the day's scenario files.")
    result = odds_fn(scenario, overrides=parse_sets(sets), attacker=attacker, defender=defender)
    if out:
        write_out(result.pairs, out, as_json)
        write_out(result.damage, _beside(out), as_json)
    if as_json:
        return emit_json("odds", result.pairs, damage=records(result.damage))
    echo(odds_text(result, result.pairs.attrs["analysis"]["scenario"]))
    if show_damage:
        echo(damage_text(result.damage))


def _beside(out: str) -> str:
    p = Path(out)
    suffix = p.suffix if p.suffix.lower() in (".csv", ".parquet") else ".parquet"
    stem = p.name[: -len(p.suffix)] if p.suffix.lower() in (".csv", ".parquet") else p.name
    return str(p.with_name(f"{stem}.damage{suffix}"))


def damage_text(damage) -> str:
    lines = []
    keys = ["attacker", "attack", "defender"]
    for (att, weapon, dfd), rows in damage.groupby(keys, sort=False):
        lines.append(f"\n{att} ({weapon}) -> {dfd}:  damage  exactly  at least")
        for r in rows.itertuples():
            if r.p > 0 or r.damage == 0:
                lines.append(f"  {r.damage:>6}  {100 * r.p:6.2f}%  {100 * r.p_at_least:6.2f}%")
    return "\n".join(lines)
