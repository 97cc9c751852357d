"""`skirmish rerun PAGE`: replay a report page from the recipe it embeds (sim/rerun.py)."""
from __future__ import annotations

import sys

import click

from sim.cli_base import EXIT_STATUSES, echo, main


@main.command(epilog=EXIT_STATUSES + " rerun: 0 every figure identical, 3 some differ.")
@click.argument("page")
@click.option("--keep", type=click.Path(file_okay=False), metavar="DIR",
              help="Lay the files out and write the replayed page in DIR (kept) instead of a temporary folder.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object instead of text.")
def rerun(page, keep, as_json):
    """Play PAGE (a report's index.html, or its folder) again from the command and files it
    embeds, and say whether every figure came out identical; which differ, and why, if not."""
    import json
    from dataclasses import asdict

    from sim.rerun import rerun as rerun_fn, rerun_text
    if keep:
        from sim.io import check_output_folder
        check_output_folder(keep, "--keep")
    result = rerun_fn(page, keep=keep)
    if as_json:
        echo(json.dumps({"command": "rerun", **asdict(result), "changed_versions": result.changed_versions}))
    else:
        echo(rerun_text(result))
    sys.exit(0 if result.identical else 3)
