"""`skirmish import`: stat blocks from a spreadsheet (CSV) or a pasted stat table, as a
library file scenarios include (sim/importer.py, docs/import.md)."""
from __future__ import annotations

from pathlib import Path

import click

from sim.cli_base import EXIT_STATUSES, echo, main, writable_file_option
from sim.errors import ScenarioError


@main.command("import", epilog=EXIT_STATUSES)
@click.argument("file", required=False)
@click.option("--ruleset", "-r", metavar="RULESET", help="The ruleset of the stat blocks (gods_and_monsters, lens, "
              "lifeforce).")
@click.option("-o", "--out", type=click.Path(dir_okay=False), callback=writable_file_option,
              help="The library file to write (.yaml), atomically; without it the library is printed.")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
@click.option("--template", "template_of", metavar="RULESET",
              help="Print (or write with -o) a CSV template for RULESET: every column and two example rows.")
@click.option("--stat-table", is_flag=True,
              help="FILE is Gods & Monsters stat tables pasted as text, in the Conflicts chapter's layout.")
@click.option("--weapons", metavar="CELL", help="With --stat-table: the weapons (cell syntax, e.g. 'long sword; "
              "dagger') of every stat block whose table gives it no weapons or attacks.")
def import_command(file, ruleset, out, force, template_of, stat_table, weapons):
    """Turn FILE, a CSV of stat blocks (one a row, one column a field), into a library
    of `bestiary:` stat blocks that scenarios use with `include:` and `{use: NAME}`.
    Every cell is checked as the scenario loader checks it; nothing is written on an error."""
    from sim.importer import import_csv, import_stat_table, template, write_library
    if template_of:
        if file or stat_table:
            raise ScenarioError("--template prints a CSV template and reads no FILE; drop FILE (or --template).")
        text = template(template_of)
        if out:
            _writable(out, force)
            from sim.io import atomic_write_text
            atomic_write_text(out, text)
            echo(f"wrote {out}: the columns of {template_of} and two example rows; fill it in, then "
                 f"`skirmish import {out} --ruleset {template_of} -o library/mine.yaml`.", err=True)
        else:
            echo(text, nl=False)
        return
    ruleset = _ruleset_for(file, ruleset, stat_table, weapons)
    if out:
        _writable(out, force)
        if Path(out).suffix.lower() not in (".yaml", ".yml"):
            raise ScenarioError(f"-o {out} should end in .yaml: a library is YAML, and `skirmish validate FOLDER` "
                                "looks for .yaml files.")
    data = import_stat_table(Path(file), weapons=weapons) if stat_table else import_csv(Path(file), ruleset)
    blocks, shared = len(data["bestiary"]), len(data.get("armory") or {})
    held = f"{blocks} stat block{'s' if blocks != 1 else ''}" + (
        f" and {shared} shared weapon{'s' if shared != 1 else ''} (armory)" if shared else "")
    first = next(iter(data["bestiary"]))
    if not out:
        import yaml
        echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000), nl=False)
        echo(f"{held} read from {file}; write them with -o FILE.yaml.", err=True)
        return
    write_library(data, out)
    echo(f"wrote {held} to {out}; a scenario includes them with `include: {out}` (the path relative to the "
         f"scenario file) and uses one as `combatants: [{{use: {first}}}]`.", err=True)


def _ruleset_for(file, ruleset, stat_table: bool, weapons) -> str:
    if not file:
        raise ScenarioError("give the CSV file to import (skirmish import FILE.csv --ruleset RULESET -o OUT.yaml), "
                            "or --template RULESET for a CSV to start from.")
    if weapons and not stat_table:
        raise ScenarioError("--weapons arms the stat blocks of a pasted stat table (--stat-table); in a CSV give "
                            "each row its weapons cell.")
    if stat_table:
        if ruleset not in (None, "gods_and_monsters"):
            raise ScenarioError(f"--stat-table reads the Gods & Monsters chapter's stat tables, not {ruleset}'s; "
                                "give --ruleset gods_and_monsters (or leave it out), or import a CSV.")
        return "gods_and_monsters"
    if not ruleset:
        from sim import rulesets
        raise ScenarioError(f"name the ruleset of {file}'s stat blocks with --ruleset, one of "
                            f"{', '.join(rulesets.names())}.")
    return ruleset


def _writable(out, force: bool) -> None:
    path = Path(out)
    if path.is_dir():
        raise ScenarioError(f"-o {out} is a folder; give the file to write, e.g. -o library/mine.yaml.")
    if path.exists() and not force:
        raise ScenarioError(f"-o {out} exists; add --force to overwrite it, or give another name.")
