"""The threads backend: chunks side by side in this process, stopped cleanly."""
import threading
import time

import pytest

import sim
from sim.backends import ChunkCrash, play_all
from sim.threads import IN_FLIGHT_PER_THREAD, threaded

YETI = "scenarios/gods_and_monsters/yeti.yaml"


def _slow_echo(i, delay):
    time.sleep(delay)
    return i, threading.current_thread().name


def test_ordered_results_come_back_in_call_order_though_they_finish_out_of_order():
    # Call 0 is the slowest: unordered, it comes last; ordered, first.
    calls = [(0, 0.15), (1, 0.0), (2, 0.0), (3, 0.0)]
    assert [i for i, _ in threaded(_slow_echo, calls, 2, ordered=True)] == [0, 1, 2, 3]
    unordered = [i for i, _ in threaded(_slow_echo, calls, 2)]
    assert sorted(unordered) == [0, 1, 2, 3] and unordered[-1] == 0


def test_two_jobs_use_two_threads_and_one_job_none():
    calls = [(i, 0.02) for i in range(8)]
    names = {name for _, (_, name) in threaded(_slow_echo, calls, 2)}
    assert len(names) == 2 and all(n.startswith("skirmish-chunks") for n in names)
    assert {name for _, (_, name) in threaded(_slow_echo, calls, 1)} == {threading.current_thread().name}


def test_never_more_threads_than_calls():
    names = {name for _, (_, name) in threaded(_slow_echo, [(0, 0.05), (1, 0.05)], 64)}
    assert len(names) == 2


def test_a_failing_call_stops_the_queue_and_raises_in_the_caller():
    started = []

    def work(i):
        started.append(i)
        time.sleep(0.01)
        if i == 1:
            raise ValueError("bad chunk")
        return i

    with pytest.raises(ValueError, match="bad chunk"):
        list(threaded(work, [(i,) for i in range(100)], 2))
    time.sleep(0.1)  # the calls already running end; none of the queued ones may start
    assert len(started) <= 2 + IN_FLIGHT_PER_THREAD * 2


def test_a_chunk_that_raises_on_a_thread_is_a_chunk_crash_naming_it():
    def fn(chunk, seed, size):
        if chunk == 2:
            raise ValueError("bad")
        return chunk

    with pytest.raises(ChunkCrash) as e:
        list(play_all(fn, [(i, 5, 10) for i in range(4)], jobs=2, backend="threads"))
    assert e.value.chunk == 2 and "ValueError: bad" in e.value.error


def test_threads_give_the_tables_of_one_job_with_chunks_shared_between_them(monkeypatch):
    monkeypatch.setattr(sim.runner, "CHUNK_SIZE", 500)
    one = sim.run(YETI, n=4100, seed=8, jobs=1)
    seen = set()
    original = one.scenario.ruleset.play_into

    def spy(*args):
        seen.add(threading.current_thread().name)
        time.sleep(0.02)  # each chunk long enough that the other thread takes the next, even on a busy machine
        return original(*args)

    monkeypatch.setattr(one.scenario.ruleset, "play_into", spy)
    two = sim.run(YETI, n=4100, seed=8, jobs=2, backend="threads")
    assert len(seen) == 2
    assert one.skirmishes.equals(two.skirmishes) and one.combatants.equals(two.combatants)


def test_an_unknown_backend_is_refused_in_one_sentence():
    with pytest.raises(sim.ScenarioError, match="unknown backend 'fork'; use one of threads, loky, dask"):
        sim.run(YETI, n=10, backend="fork")


def test_never_more_workers_than_chunks_nor_than_cores_on_this_machine(monkeypatch):
    from sim import backends
    monkeypatch.setattr(backends, "cores", lambda: 2)
    assert backends.local_workers(64, 7) == 2
    assert backends.local_workers(64, 1) == 1
    assert backends.local_workers(64, 7, scheduler="tcp://10.0.0.5:8786") == 7  # a cluster counts its own


def test_more_jobs_than_cores_is_said_in_one_line(monkeypatch):
    from click.testing import CliRunner

    from sim import backends
    from sim.cli import main
    monkeypatch.setattr(backends, "cores", lambda: 2)
    r = CliRunner().invoke(main, ["run", YETI, "-n", "50", "-j", "8"])
    assert r.exit_code == 0, r.output
    assert "note: -j 8 on a machine with 2 cores: 2 workers play" in r.stderr
    quiet = CliRunner().invoke(main, ["run", YETI, "-n", "50", "-j", "2"])
    assert "note:" not in quiet.stderr


def test_an_analysis_on_a_cold_cache_compiles_once_with_its_notice(monkeypatch, tmp_path, capsys):
    """The analyses played their chunks without warming the ruleset: on a cold cache the
    first chunk compiled silently (a designer saw nothing for a minute)."""
    from sim import compiled
    from sim.analysis import sweep
    monkeypatch.setattr(compiled, "_marker", lambda name: tmp_path / f"not-yet-{name}")  # as if never compiled
    monkeypatch.setattr(compiled, "_record_timing", lambda *a: None)
    sweep(YETI, {"sides.party.combatants[Toromeen].defense": [3, 4]}, n=200, jobs=2)
    assert "Gods & Monsters" in capsys.readouterr().err
    assert (tmp_path / "not-yet-gods_and_monsters").exists()
