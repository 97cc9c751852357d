"""A run folder's damaged or foreign files (issue 31): one paragraph and exit 2 where the
folder cannot be used, a note naming each damaged chunk that is played again."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

YETI = str(Path(__file__).resolve().parent.parent / "scenarios/gods_and_monsters/yeti.yaml")
ARGS = ["run", YETI, "-n", "70000", "--seed", "4", "--summary-only", "-q"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("runs") / "yeti"
    r = CliRunner().invoke(main, [*ARGS, "--run-dir", str(run_dir)])
    assert r.exit_code == 0, r.output
    return run_dir


def _copy(finished: Path, tmp_path: Path) -> Path:
    run_dir = tmp_path / "yeti"
    shutil.copytree(finished, run_dir)
    (run_dir / "summary.json").unlink()
    return run_dir


def _resume(run_dir: Path):
    return CliRunner().invoke(main, [*ARGS, "--run-dir", str(run_dir), "--resume"])


@pytest.mark.parametrize("text, says", [("[1, 2]", "is not a run's manifest (a JSON list"),
                                        ("{garbage", "is damaged (not JSON)")])
def test_a_manifest_that_is_no_run_manifest_is_one_paragraph(finished, tmp_path, text, says):
    run_dir = _copy(finished, tmp_path)
    (run_dir / "manifest.json").write_text(text)
    r = _resume(run_dir)
    assert r.exit_code == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0] and "manifest.json" in lines[0]


def test_a_damaged_chunk_is_played_again_and_said_so(finished, tmp_path):
    run_dir = _copy(finished, tmp_path)
    (run_dir / "chunks" / "chunk-000001.agg.npz").write_bytes(b"junk")
    r = _resume(run_dir)
    assert r.exit_code == 0, r.output
    assert "note: " in r.stderr and "1 finished chunk had damaged files and was played again" in r.stderr
    assert "chunk 1 (" in r.stderr


def test_a_foreign_file_named_like_a_chunk_is_not_taken_for_one(finished, tmp_path):
    run_dir = _copy(finished, tmp_path)
    shutil.copy(run_dir / "chunks" / "chunk-000000.agg.npz", run_dir / "chunks" / "chunk-x.agg.npz")
    r = _resume(run_dir)
    assert r.exit_code == 0 and r.exception is None, r.output
    assert "note:" not in r.stderr
