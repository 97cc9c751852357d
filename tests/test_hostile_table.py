"""Every case of the hostile table (benchmarks/hostile_table.py, docs/hostile_pass.md) ends
as the table expects: bad input refused in one paragraph with exit 2 and nothing left
behind, valid input accepted."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import hostile_table  # noqa: E402


def test_the_table_has_at_least_400_cases_over_every_command():
    cases = hostile_table.cases()
    assert len(cases) >= 400
    commands = {c.command for c in cases}
    assert {"run", "validate", "odds", "balance", "import", "rerun", "day", "gauntlet", "matters"} <= commands


def test_every_case_ends_as_expected():
    outcomes = [hostile_table.play(c) for c in hostile_table.cases()]
    bad = [f"{o.case.command} / {o.case.what}: exit {o.status}, one paragraph {o.paragraph}, left {o.left}: {o.said}"
           for o in outcomes if not o.as_expected]
    assert not bad, "\n".join(bad)
    refused = [o for o in outcomes if o.case.expect == "refused"]
    assert all(o.status == 2 and o.said.startswith("error: ") for o in refused)
