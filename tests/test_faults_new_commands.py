"""Ctrl-C in the commands of issue 30 that run long (balance, and rerun with its replaying
child): status 130, one paragraph, no table or page left half-written."""
from __future__ import annotations

import os
import signal
import time

from click.testing import CliRunner

from process_helpers import ROOT, YETI, cli, finish, wait_for
from sim.cli import main
from sim.recipe import with_recipe
from sim.rerun import read_recipe


def _interrupted(p, after_s: float) -> str:
    time.sleep(after_s)
    assert p.poll() is None, "the command ended before the interrupt: " + p.stderr.read()
    os.killpg(p.pid, signal.SIGINT)
    code, _, err = finish(p)
    assert code == 130 and "Traceback" not in err, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted"), err
    return err


def test_ctrl_c_in_balance_leaves_no_table(tmp_path):
    out = tmp_path / "balance.parquet"
    p = cli("balance", "scenarios/lens/novice_party_vs_brute.yaml", "--param", "sides.brute.combatants[Ogre].body",
            "--target", "party.win_rate=0.6", "-n", 400_000, "--out", out, "-q")
    _interrupted(p, 3.0)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_in_rerun_stops_the_replay_and_removes_its_folder(tmp_path):
    page = tmp_path / "page"
    assert CliRunner().invoke(main, ["run", str(ROOT / YETI), "-n", "200", "--report", str(page), "-q"]).exit_code == 0
    index = page / "index.html"
    recipe = read_recipe(page)
    recipe["argv"][recipe["argv"].index("-n") + 1] = "50000000"  # a replay that would take minutes
    index.write_text(with_recipe(index.read_text(), recipe))
    keep = tmp_path / "replay"
    p = cli("rerun", page, "--keep", keep)
    wait_for(lambda: (keep / "_replayed_page").exists() or any(keep.rglob("*.yaml")), p)
    _interrupted(p, 2.0)
    assert not (keep / "_replayed_page" / "index.html").exists()
    assert [q.name for q in tmp_path.rglob(".*.part")] == []
