"""The dask backend: a LocalCluster on loopback gives exactly the local results.

Clusters here run their workers as threads (processes=False) so they start in well
under a second; the code path (scheduler, tcp comms, task submission,
serialisation of tasks and results) is the one a remote cluster uses.
"""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import sim
from sim import backends, runner
from sim.cli import main
from sim.errors import ScenarioError

distributed = pytest.importorskip("distributed")

YETI = "scenarios/gods_and_monsters/yeti.yaml"


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(runner, "CHUNK_SIZE", 400)


@pytest.fixture
def cluster(tmp_path):
    import dask
    scratch = str(tmp_path / "dask")
    with dask.config.set({"temporary-directory": scratch}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                     host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                                     local_directory=scratch) as c:
        yield c


def test_dask_backend_on_a_local_cluster_gives_the_local_result(small_chunks, tmp_path):
    local = sim.run(YETI, n=1500, seed=3)
    # --backend dask with jobs=1 starts its own single-worker (threaded) cluster on loopback.
    remote = sim.run(YETI, n=1500, seed=3, backend="dask")
    assert remote.summary() == local.summary()
    assert remote.combatants.equals(local.combatants)


def test_existing_scheduler_gives_the_local_result_for_summary_and_run_folders(small_chunks, tmp_path, cluster):
    local = sim.run(YETI, n=2100, seed=6)
    addr = cluster.scheduler_address
    assert addr.startswith("tcp://127.0.0.1:")
    assert sim.run_summary(YETI, n=2100, seed=6, scheduler=addr).summary() == local.summary()
    folder = sim.run_to_folder(YETI, tmp_path / "run", n=2100, seed=6, scheduler=addr)
    assert folder.skirmishes.equals(local.skirmishes)


def test_cli_scheduler_option(small_chunks, cluster):
    r = CliRunner().invoke(main, ["run", YETI, "-n", "800", "--seed", "4", "--json",
                                  "--scheduler", cluster.scheduler_address])
    assert r.exit_code == 0, r.output
    local = CliRunner().invoke(main, ["run", YETI, "-n", "800", "--seed", "4", "--json"])
    assert r.stdout == local.stdout


def test_a_crash_on_the_cluster_names_the_chunk(small_chunks, cluster, monkeypatch):
    # Threaded workers share this process, so the patch reaches them.
    real = runner.play_chunk
    monkeypatch.setattr(runner, "play_chunk", lambda d, s, chunk, *a: (_ for _ in ()).throw(ValueError("bad"))
                        if chunk == 1 else real(d, s, chunk, *a))
    with pytest.raises(backends.RunFailed, match=r"chunk 1 \(skirmishes 400\.\.799, seed 2.*ValueError: bad"):
        sim.run_summary(YETI, n=1200, seed=2, scheduler=cluster.scheduler_address)


def test_unreachable_or_malformed_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(backends, "CONNECT_TIMEOUT_S", 1)
    with pytest.raises(ScenarioError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        sim.run(YETI, n=10, scheduler="tcp://127.0.0.1:9")
    r = CliRunner().invoke(main, ["run", YETI, "-n", "10", "--scheduler", "localhost:8786"])
    assert r.exit_code == 2 and "write it like tcp://HOST:PORT" in r.stderr
