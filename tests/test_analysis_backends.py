"""The analyses play on any backend (issue 31: one way to play for every command), to the
same figures: their chunks go through sim.backends.play_all when not on threads."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.analysis import sweep, tune
from sim.analysis.common import _WHERE, playing_on
from sim.cli import main
from sim.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[1]
YETI = ROOT / "scenarios/gods_and_monsters/yeti.yaml"
DEFENSE = "sides.yeti.combatants[Yeti].defense"


def _figures(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in ("package_version",) if c in df])


@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_a_sweep_on_worker_processes_is_the_sweep_on_threads(backend):
    here = sweep(YETI, {DEFENSE: [2, 5]}, n=40_000, seed=3, jobs=2)  # two chunks per variant
    with playing_on(backend):
        there = sweep(YETI, {DEFENSE: [2, 5]}, n=40_000, seed=3, jobs=2)
    assert _WHERE["backend"] == "threads"  # the block leaves the process as it was
    pd.testing.assert_frame_equal(_figures(here), _figures(there))


def test_a_tune_on_loky_finds_the_same_answer_on_the_same_skirmishes():
    here = tune(YETI, DEFENSE, "yeti", 0.01, lo=0, hi=12, n=6000, seed=2)
    with playing_on("loky"):
        there = tune(YETI, DEFENSE, "yeti", 0.01, lo=0, hi=12, n=6000, seed=2)
    pd.testing.assert_frame_equal(_figures(here), _figures(there))


def test_the_command_line_takes_backend_and_refuses_it_for_a_day():
    runner = CliRunner()
    args = ["sweep", str(YETI), "--vary", f"{DEFENSE}=2,4", "-n", "3000", "-q", "--json"]
    a = runner.invoke(main, args)
    b = runner.invoke(main, args + ["--backend", "loky", "-j", "2"])
    assert a.exit_code == b.exit_code == 0, b.output
    assert json.loads(a.stdout)["rows"] == json.loads(b.stdout)["rows"]
    assert _WHERE["backend"] == "threads"  # the command leaves the process as it was
    day = runner.invoke(main, ["sweep", str(ROOT / "days/lens/troll_road.yaml"), "--vary",
                               "day_rules.items_back=night", "--backend", "loky"])
    assert day.exit_code == 2 and "plays on threads" in day.output and _WHERE["backend"] == "threads"
    with pytest.raises(ScenarioError, match="unknown backend"):
        with playing_on("mpi"):
            pass
