"""Summary-only aggregates, run folders and --resume, streamed tables, crash reports.

Chunks are made small (CHUNK_SIZE patched) so a run has many chunks and stays fast;
everything reads `sim.runner.CHUNK_SIZE` at call time and workers get chunk sizes
explicitly, so the patch reaches loky workers too.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from sim import rundir, runner
from sim.aggregate import Aggregate, aggregate_outcome
from sim.backends import RunFailed, WorkerDied, play_all
from sim.cli import main
from sim.errors import ScenarioError

YETI = "scenarios/gods_and_monsters/yeti.yaml"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(runner, "CHUNK_SIZE", 500)
    return 500


def test_summary_only_gives_exactly_the_summary_of_the_full_tables(small_chunks):
    full = sim.run(YETI, n=2300, seed=5)
    summ = sim.run_summary(YETI, n=2300, seed=5, jobs=2)
    assert summ.aggregate.n == 2300
    assert summ.summary() == full.summary()
    assert summ.summary_text() == full.summary_text()


@pytest.mark.parametrize("path", sorted(str(p) for p in (ROOT / "scenarios").rglob("*.yaml")))
def test_summary_only_matches_the_full_summary_for_every_shipped_scenario(small_chunks, path):
    full = sim.run(path, n=900, seed=9)
    assert sim.run_summary(path, n=900, seed=9).summary() == full.summary()


def test_aggregate_merge_is_exact_and_order_free():
    rng = np.random.default_rng(0)
    parts = []
    for _ in range(6):
        n = int(rng.integers(1, 50))
        out = sim.rulesets.base.Outcome(
            winner=rng.integers(-2, 2, n), rounds=rng.integers(1, 40, n),
            per_combatant={k: rng.integers(0, 400, (n, 3)) for k in
                           ("attacks", "hits", "damage_dealt", "damage_taken")} |
                          {"final_state": rng.integers(0, 4, (n, 3))})
        parts.append((out, aggregate_outcome(out, n_sides=2)))
    a = Aggregate.empty(2, 3)
    b = Aggregate.empty(2, 3)
    for _, p in parts:
        a.merge(p)
    for _, p in reversed(parts):
        b.merge(Aggregate.from_bytes(p.to_bytes()))
    assert a.n == b.n == sum(len(o.winner) for o, _ in parts)
    assert np.array_equal(a.rounds_hist, b.rounds_hist)
    assert all(np.array_equal(a.sums[k], b.sums[k]) for k in a.sums)
    assert np.array_equal(a.states, b.states)
    rounds = np.concatenate([o.rounds for o, _ in parts])
    for q in (0, 10, 50, 90, 99, 100):
        assert a.rounds_percentile(q) == float(np.percentile(rounds, q))
    dealt = np.concatenate([o.per_combatant["damage_dealt"] for o, _ in parts])
    # Damage histograms are exact below the last bin, which counts everything above.
    assert a.damage_hist["damage_dealt"][1, 7] == int((dealt[:, 1] == 7).sum())
    assert a.damage_hist["damage_dealt"][1, -1] == int((dealt[:, 1] >= 255).sum())
    assert a.sums["damage_dealt"][2] == int(dealt[:, 2].sum())


def test_run_folder_tables_and_streamed_files_equal_the_in_memory_run(small_chunks, tmp_path):
    full = sim.run(YETI, n=1700, seed=2)
    res = sim.run_to_folder(YETI, tmp_path / "run", n=1700, seed=2, jobs=2, out=tmp_path / "out" / "y.parquet")
    pd.testing.assert_frame_equal(res.skirmishes, full.skirmishes)
    pd.testing.assert_frame_equal(res.combatants, full.combatants)
    for kind, name in (("skirmishes", "y.parquet"), ("combatants", "y.combatants.parquet")):
        streamed = pd.read_parquet(tmp_path / "out" / name)
        pd.testing.assert_frame_equal(streamed, getattr(full, kind))
        assert sim.io.read_meta(tmp_path / "out" / name) == json.loads(
            json.dumps(full.meta, default=str))
    assert json.loads((tmp_path / "run" / "summary.json").read_text()) == json.loads(
        json.dumps(full.summary(), default=str))
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["seed"], manifest["skirmishes"], manifest["chunk_size"], manifest["chunks"]) == (2, 1700, 500, 4)
    assert manifest["scenario_hash"] == full.meta["scenario_hash"]
    # Nothing half-written is left behind.
    assert not list(tmp_path.rglob("*.part"))


def test_streamed_csv_equals_the_in_memory_csv(small_chunks, tmp_path):
    full = sim.run(YETI, n=1200, seed=4)
    full.write(tmp_path / "mem.csv")
    sim.run_to_folder(YETI, tmp_path / "run", n=1200, seed=4, out=tmp_path / "stream.csv")
    for name in ("{}.csv", "{}.combatants.csv", "{}.meta.json"):
        assert (tmp_path / name.format("stream")).read_text() == (tmp_path / name.format("mem")).read_text()


def _interrupt_at(monkeypatch, chunk_to_fail, exc):
    played = []
    real = rundir.play_task

    def task(chunk, *args):
        if chunk == chunk_to_fail:
            raise exc
        played.append(chunk)
        return real(chunk, *args)
    monkeypatch.setattr(rundir, "play_task", task)
    return played


@pytest.mark.parametrize("summary_only", [False, True])
def test_resume_after_ctrl_c_replays_only_unfinished_chunks_and_gives_the_same_result(
        small_chunks, tmp_path, monkeypatch, summary_only):
    reference = sim.run(YETI, n=3100, seed=11)
    played = _interrupt_at(monkeypatch, 4, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        sim.run_to_folder(YETI, tmp_path / "run", n=3100, seed=11, summary_only=summary_only)
    assert played == [0, 1, 2, 3]
    assert not (tmp_path / "run" / "summary.json").exists()
    monkeypatch.undo()
    monkeypatch.setattr(runner, "CHUNK_SIZE", 500)
    again = _interrupt_at(monkeypatch, -1, None)
    res = sim.run_to_folder(YETI, tmp_path / "run", n=3100, seed=11, summary_only=summary_only, resume=True)
    assert again == [4, 5, 6]
    assert res.summary() == reference.summary()
    if not summary_only:
        pd.testing.assert_frame_equal(res.combatants, reference.combatants)


def test_resume_refuses_a_folder_of_another_run_and_a_plain_rerun_refuses_to_overwrite(small_chunks, tmp_path):
    sim.run_to_folder(YETI, tmp_path / "run", n=600, seed=1, summary_only=True)
    with pytest.raises(ScenarioError, match="already holds a run; add --resume"):
        sim.run_to_folder(YETI, tmp_path / "run", n=600, seed=1, summary_only=True)
    with pytest.raises(ScenarioError, match="seed 1, but this run has 2"):
        sim.run_to_folder(YETI, tmp_path / "run", n=600, seed=2, summary_only=True, resume=True)
    with pytest.raises(ScenarioError, match="scenario_hash"):
        sim.run_to_folder(YETI, tmp_path / "run", n=600, seed=1, summary_only=True, resume=True,
                          overrides={"sides.yeti.combatants[Yeti].defense": "4"})
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ScenarioError, match="holds no run"):
        sim.run_to_folder(YETI, tmp_path / "other", n=600, seed=1)
    # Resuming a finished run plays nothing and gives the same summary.
    done = sim.run_to_folder(YETI, tmp_path / "run", n=600, seed=1, summary_only=True, resume=True)
    assert done.summary() == sim.run(YETI, n=600, seed=1).summary()


def test_a_crashing_chunk_is_reported_with_its_seed_and_the_command_that_reproduces_it(
        small_chunks, tmp_path, monkeypatch):
    real = runner.play_chunk

    def broken(data_json, source, chunk, *args):
        if chunk == 2:
            raise FloatingPointError("boom")
        return real(data_json, source, chunk, *args)
    monkeypatch.setattr(runner, "play_chunk", broken)
    with pytest.raises(RunFailed) as e:
        sim.run_to_folder(YETI, tmp_path / "run", n=2000, seed=77, summary_only=True,
                          overrides={"rules.resolution": "sequential"})
    msg = str(e.value)
    assert "chunk 2 (skirmishes 1000..1499, seed 77" in msg
    assert "FloatingPointError: boom" in msg
    assert (f"skirmish trace {YETI} --seed 77 -n 2000 --skirmish 1000 --max-rounds 100 "
            "--set rules.resolution=sequential") in msg
    assert "--run-dir" in msg and "--resume" in msg
    # The chunks that did finish are kept for --resume.
    assert {0, 1} <= rundir.RunFolder(tmp_path / "run").finished()


def test_cli_crash_is_one_paragraph_with_exit_status_1(small_chunks, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "play_chunk", lambda *a: (_ for _ in ()).throw(MemoryError("no room")))
    r = CliRunner().invoke(main, ["run", YETI, "-n", "900", "--summary-only"])
    assert r.exit_code == 1
    assert "chunk 0" in r.stderr and "skirmish trace" in r.stderr and "Traceback" not in r.output + r.stderr


def _die(chunk, seed, size):
    if chunk == 1:
        os._exit(3)
    return chunk


def test_a_killed_worker_process_names_the_unfinished_chunks():
    with pytest.raises(WorkerDied) as e:
        list(play_all(_die, [(i, 5, 10) for i in range(3)], jobs=2, backend="loky"))
    assert 1 in [c for c, _, _ in e.value.unfinished]


def _cli(*args):
    return subprocess.Popen([sys.executable, "-c", "import sim.runner as r; r.CHUNK_SIZE = 300; "
                             "from sim.cli import main; main()", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_resume_after_the_process_is_killed_gives_the_uninterrupted_result(tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    args = ["run", YETI, "-n", "30000", "--seed", "8", "--summary-only", "--run-dir", str(run_dir), "--json"]
    p = _cli(*args)
    deadline = time.time() + 60
    while time.time() < deadline and len(list((run_dir / "chunks").glob("*.agg.npz"))) < 3:
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    finished_before = len(list((run_dir / "chunks").glob("*.agg.npz")))
    assert 3 <= finished_before < 100 and not (run_dir / "summary.json").exists()
    q = _cli(*args, "--resume")
    stdout, stderr = q.communicate(timeout=120)
    assert q.returncode == 0, stderr
    monkeypatch.setattr(runner, "CHUNK_SIZE", 300)
    reference = sim.run_summary(YETI, n=30000, seed=8)
    assert json.loads(stdout) == json.loads(json.dumps(reference.summary(), default=str))


def test_cli_long_run_options_check_their_combinations(tmp_path):
    r = CliRunner().invoke(main, ["run", YETI, "-n", "10", "--resume"])
    assert r.exit_code == 2 and "--resume needs --run-dir" in r.stderr
    r = CliRunner().invoke(main, ["run", YETI, "-n", "10", "--summary-only", "--out", str(tmp_path / "x.parquet")])
    assert r.exit_code == 2 and "nothing for --out" in r.stderr
    assert not list(tmp_path.iterdir())


def _die_on_chunk_2(chunk, seed, size, *args):
    if chunk == 2:
        os._exit(9)  # the worker process vanishes, as when the OS kills it
    return _REAL_PLAY_TASK(chunk, seed, size, *args)


_REAL_PLAY_TASK = rundir.play_task


def test_a_killed_worker_is_reported_and_resume_finishes_the_run(small_chunks, tmp_path, monkeypatch):
    monkeypatch.setattr(rundir, "play_task", _die_on_chunk_2)
    with pytest.raises(RunFailed) as e:
        sim.run_to_folder(YETI, tmp_path / "run", n=2400, seed=12, jobs=2, summary_only=True, backend="loky")
    msg = str(e.value)
    assert "a worker process died" in msg
    assert "chunk 2 (skirmishes 1000..1499, seed 12" in msg and "--skirmish 1000" in msg
    assert f"--run-dir {tmp_path / 'run'} --resume" in msg
    monkeypatch.setattr(rundir, "play_task", _REAL_PLAY_TASK)
    res = sim.run_to_folder(YETI, tmp_path / "run", n=2400, seed=12, jobs=2, summary_only=True, resume=True)
    assert res.summary() == sim.run(YETI, n=2400, seed=12).summary()


def test_cli_out_streams_the_tables_and_leaves_no_chunk_folder(small_chunks, tmp_path):
    r = CliRunner().invoke(main, ["run", YETI, "-n", "1300", "--seed", "3", "--out", str(tmp_path / "o" / "y.parquet")])
    assert r.exit_code == 0, r.output
    assert "wrote " in r.stderr and "y.combatants.parquet" in r.stderr
    full = sim.run(YETI, n=1300, seed=3)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "o" / "y.combatants.parquet"), full.combatants)
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["y.combatants.parquet", "y.parquet"]
    assert full.summary_text() in r.stdout


def test_precision_refuses_the_long_run_options():
    r = CliRunner().invoke(main, ["run", YETI, "--precision", "0.01", "--summary-only"])
    assert r.exit_code == 2 and "does not combine" in r.stderr


def test_cli_ctrl_c_exits_130_with_the_resume_command(small_chunks, tmp_path, monkeypatch):
    _interrupt_at(monkeypatch, 1, KeyboardInterrupt())
    r = CliRunner().invoke(main, ["run", YETI, "-n", "1500", "--seed", "5", "--run-dir", str(tmp_path / "r")])
    assert r.exit_code == 130
    assert f"skirmish run {YETI} --seed 5 -n 1500 --max-rounds 100 --run-dir {tmp_path / 'r'} --resume" in r.stderr
    assert rundir.RunFolder(tmp_path / "r").finished() == {0}


def test_column_sums_and_maxima_equal_numpys_axis_reductions_for_every_outcome_dtype():
    from sim.aggregate import _column_maxima, _column_sums
    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int32, np.int64, bool):
        a = rng.integers(-100 if dtype is not bool else 0, 100 if dtype is not bool else 2, size=(777, 5)).astype(dtype)
        np.testing.assert_array_equal(_column_sums(a), a.sum(axis=0, dtype=np.int64))
        np.testing.assert_array_equal(_column_maxima(a), a.max(axis=0).astype(np.int64))
        assert _column_sums(a).dtype == _column_maxima(a).dtype == np.int64
    empty = np.zeros((0, 3), dtype=np.int32)
    np.testing.assert_array_equal(_column_sums(empty), [0, 0, 0])
    np.testing.assert_array_equal(_column_maxima(empty), [0, 0, 0])


@pytest.mark.parametrize("path", [YETI, "scenarios/lens/novice_party_vs_brute.yaml",
                                  "scenarios/lifeforce/archers_vs_beast.yaml"])
def test_a_summary_folded_in_blocks_is_the_summary_of_one_pass(path, monkeypatch):
    from sim import aggregate
    result = sim.run(path, n=2000, seed=4)
    one_pass = result.summary()
    monkeypatch.setattr(aggregate, "FOLD_ROWS", 37)  # blocks of every size, a short last one
    assert result.summary() == one_pass
    assert one_pass["skirmishes"] == 2000
