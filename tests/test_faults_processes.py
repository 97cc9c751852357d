"""Faults from outside, second round (issue 33): an `--out` pair cut in the middle, a
scenario file name that walks out of `--run-dir`, a run folder of another version, the
parent killed under its workers, Ctrl-C at any moment, escape sequences in names, and
the local dask cluster's dashboard.

As in test_faults.py, each test drives the real CLI in a subprocess of its own session
(so a signal can go to the whole process group as a terminal's Ctrl-C does), with small
chunks so that faults land mid-run, and checks what a designer sees.
"""
from __future__ import annotations

import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import sim

from tests.process_helpers import (CHUNK, LAUNCH, LONG_N, LONG_RUN, ROOT, RUN_WITHIN_S, YETI, cli as _cli,
                                   finish as _finish, one_paragraph as _one_paragraph, wait_for as _wait_for)

YETI_COMBATANTS = 4


def read_pair_id(path: Path) -> str | None:
    raw = (pq.read_schema(path).metadata or {}).get(b"skirmish_sim_pair")
    return raw.decode() if raw else None


def _rows(path: Path) -> int:
    return pq.read_metadata(path).num_rows


def _assert_matching_pair(out: Path, skirmishes: int) -> None:
    """Both tables of `out` are there, of one run of `skirmishes` skirmishes."""
    cb = out.with_name(out.stem + ".combatants.parquet")
    assert (_rows(out), _rows(cb)) == (skirmishes, skirmishes * YETI_COMBATANTS)
    assert read_pair_id(out) == read_pair_id(cb) is not None


def _part_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".*.part"))


# ---------------------------------------------------------------- 1. the --out pair


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "sigkill"])
def test_a_run_stopped_while_its_combatant_table_is_written_leaves_the_previous_pair(tmp_path, sig):
    """The skirmish table of the new run beside the combatant table of the old one, with
    'No file was left half-written': stopped once the second table's file has content."""
    out = tmp_path / "t.parquet"
    code, _, err = _finish(_cli("run", YETI, "-n", 900, "--out", out), RUN_WITHIN_S)
    assert code == 0, err
    p = _cli("run", YETI, "-n", 150_000, "--out", out)
    _wait_for(lambda: any(f.stat().st_size > 0 for f in tmp_path.glob(".t.combatants.parquet.*.part")), p)
    os.killpg(p.pid, sig)
    code, _, err = _finish(p)
    if sig == signal.SIGINT:
        assert code == 130, err
        assert _one_paragraph(err).startswith("interrupted.")
    _assert_matching_pair(out, 900)
    if sig == signal.SIGINT:
        assert _part_files(tmp_path) == []


def _limit_file_size(limit: int):
    def apply():
        # A full disk, as one process can have it: writes past `limit` bytes fail with
        # EFBIG (the signal that would end the process instead is ignored).
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "in-memory"])
def test_a_full_disk_while_the_combatant_table_is_written_leaves_the_previous_pair(tmp_path, streamed):
    out = tmp_path / "t.parquet"
    code, _, err = _finish(_cli("run", YETI, "-n", 900, "--out", out), RUN_WITHIN_S)
    assert code == 0, err
    # 30,000 Yeti skirmishes: a skirmish table of about 200 kB, a combatant table of 900.
    extra = [] if streamed else ["--report", tmp_path / "report"]
    code, _, err = _finish(_cli("run", YETI, "-n", 30_000, "--out", out, *extra,
                                preexec_fn=_limit_file_size(500_000)), RUN_WITHIN_S)
    assert code in (1, 2), err
    assert "File too large" in _one_paragraph(err)
    _assert_matching_pair(out, 900)
    assert _part_files(tmp_path) == []


def test_a_combatant_table_that_is_a_folder_leaves_the_previous_skirmish_table(tmp_path):
    """A bad path for the second table only: the first must not be replaced alone."""
    out = tmp_path / "t.parquet"
    code, _, err = _finish(_cli("run", YETI, "-n", 900, "--out", out), RUN_WITHIN_S)
    assert code == 0, err
    before = read_pair_id(out)
    cb = tmp_path / "t.combatants.parquet"
    cb.unlink()
    cb.mkdir()
    code, _, err = _finish(_cli("run", YETI, "-n", 1200, "--out", out), RUN_WITHIN_S)
    assert code == 2, err
    _one_paragraph(err)
    assert read_pair_id(out) == before and _rows(out) == 900
    assert _part_files(tmp_path) == []


def test_report_refuses_a_skirmish_table_beside_another_runs_combatant_table(tmp_path):
    """What a SIGKILL between the pair's two renames would leave (or a copy from another
    run): `skirmish report` says so instead of mixing two runs."""
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    for target, n in ((a, 900), (b, 600)):
        code, _, err = _finish(_cli("run", YETI, "-n", n, "--out", target), RUN_WITHIN_S)
        assert code == 0, err
    code, _, err = _finish(_cli("report", a, "-o", tmp_path / "ok"), RUN_WITHIN_S)
    assert code == 0, err
    os.replace(tmp_path / "b.combatants.parquet", tmp_path / "a.combatants.parquet")
    for given in (a, tmp_path / "a.combatants.parquet", tmp_path):
        code, _, err = _finish(_cli("report", given, "-o", tmp_path / "mixed"), RUN_WITHIN_S)
        assert code == 2, err
        assert "were not written by the same run" in _one_paragraph(err)


# ---------------------------------------------------------------- 2. names from file stems


def test_scenario_files_named_with_dots_stay_inside_the_run_folder_and_the_out_folder(tmp_path):
    """`...yaml` has the stem '..': its run folder was `--run-dir`'s parent."""
    scenarios, runs, out = tmp_path / "s", tmp_path / "runs", tmp_path / "out"
    scenarios.mkdir()
    runs.mkdir()
    text = (ROOT / YETI).read_text()
    for name in ("...yaml", "..yaml", "yeti.yaml"):
        (scenarios / name).write_text(text)
    code, _, err = _finish(_cli("run", scenarios, "-n", 600, "--run-dir", runs / "x", "--out", out / "x", "-q"),
                           RUN_WITHIN_S)
    assert code == 0, err
    assert [p.name for p in runs.iterdir()] == ["x"]
    assert sorted(p.name for p in (runs / "x").iterdir()) == ["_", "__", "yeti"]
    assert all((runs / "x" / name / "manifest.json").is_file() for name in ("_", "__", "yeti"))
    assert [p.name for p in out.iterdir()] == ["x"]
    assert sorted(p.name for p in (out / "x").iterdir()) == [
        "_.combatants.parquet", "_.parquet", "__.combatants.parquet", "__.parquet",
        "yeti.combatants.parquet", "yeti.parquet"]


def test_two_scenarios_that_would_share_a_run_folder_are_refused_before_any_work(tmp_path):
    scenarios = tmp_path / "s"
    scenarios.mkdir()
    text = (ROOT / YETI).read_text()
    for name in ("...yaml", "__.yaml"):
        (scenarios / name).write_text(text)
    code, _, err = _finish(_cli("run", scenarios, "-n", 600, "--run-dir", tmp_path / "runs", "-q"), RUN_WITHIN_S)
    assert code == 2, err
    assert "would both be saved as '__'" in _one_paragraph(err)
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------- 3. --resume across versions


def test_resume_refuses_a_run_folder_written_by_another_package_version(tmp_path):
    run_dir = tmp_path / "run"
    args = ("run", YETI, "-n", 900, "--seed", 3, "--run-dir", run_dir, "--summary-only", "--json")
    code, _, err = _finish(_cli(*args), RUN_WITHIN_S)
    assert code == 0, err
    code, _, err = _finish(_cli(*args, "--resume"), RUN_WITHIN_S)  # the same version finishes it
    assert code == 0, err
    manifest = run_dir / "manifest.json"
    data = json.loads(manifest.read_text())
    assert data["package_version"] == sim.__version__
    manifest.write_text(json.dumps({**data, "package_version": "0.0.1"}))
    code, _, err = _finish(_cli(*args, "--resume"), RUN_WITHIN_S)
    assert code == 2, err
    line = _one_paragraph(err)
    assert f"skirmish-sim 0.0.1, but this is skirmish-sim {sim.__version__}" in line
    assert "start afresh with a new --run-dir" in line


# ---------------------------------------------------------------- 4. the parent killed


def _children(pid: int) -> list[tuple[int, str]]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append((int(entry.name), cmdline))
    return out


def _loky_workers(pid: int) -> list[int]:
    return [c for c, cmd in _children(pid) if "LokyProcess" in cmd]


def _running(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("extra", [[], ["--summary-only"]], ids=["in-memory", "summary-only"])
def test_workers_exit_when_their_parent_is_killed_with_sigkill(extra):
    """They went on, about 530 MB each, 18 minutes later. The parent alone is killed, as
    the OOM killer or `kill -9 PID` would: its workers must follow within seconds."""
    # Output to nowhere: workers that outlive the parent would hold its pipes open, and
    # reading them to the end would wait for as long as the workers live.
    p = subprocess.Popen([sys.executable, "-c", LAUNCH, "run", LONG_RUN, "-n", "3000000", "-j", "2",
                          "--backend", "loky", *extra],
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while len(_loky_workers(p.pid)) < 2:
        assert p.poll() is None and time.time() < deadline, "the run never got its two workers"
        time.sleep(0.01)
    time.sleep(0.5)  # both playing chunks
    workers = _loky_workers(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    deadline = time.time() + 5
    try:
        while any(map(_running, workers)) and time.time() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, workers)), "workers outlived their parent"
    finally:
        for w in workers:
            if _running(w):
                os.kill(w, signal.SIGKILL)



# ---------------------------------------------------------------- 5. Ctrl-C at any moment

# The launcher, with a mark once `sim.cli` is imported: Ctrl-C during `import sim` itself
# (about half a second of pandas and numpy imports in sim/__init__.py, before any code
# of the CLI runs) still prints Python's own traceback, which only sim/__init__.py or the
# console script's entry point can prevent; the moments here are counted from the mark.
LAUNCH_MARKED = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 f"import sim.runner as r; r.CHUNK_SIZE = {CHUNK}; from sim.cli import main; "
                 "open(sys.argv.pop(1), 'w').close(); main()")
# (seconds after the mark, scenario, skirmishes, extra options): seeded moments over 0-3 s;
# the short runs end within that time, so some interrupts land as the run exits.
OPTIONS = [[], ["--out"], ["--run-dir", "--out"], ["--summary-only", "--run-dir"]]
RNG = random.Random(33)
INTERRUPTS = [(round(RNG.uniform(0, 3), 2), *run, opts)
              for run, opts in zip([(LONG_RUN, LONG_N), (YETI, 20_000)] * 4, OPTIONS * 2)]
# Worker processes take a second or more to start, and each moment costs a process: the
# process backends get each set of options once (the threads, all eight moments), the
# short and the long run alternating. On dask the cluster takes about 1.5 s to start, and
# interrupts about 2 s in (1.85-2.3 s) made its worker processes print "Exception ignored
# in Client.__del__ ... IOLoop is closed" (4 of 6 tries): half the moments in that stretch.
LOKY_INTERRUPTS = INTERRUPTS[::2][:2] + INTERRUPTS[1::2][2:]
RNG_DASK = random.Random(34)
DASK_INTERRUPTS = [(round(RNG_DASK.uniform(*span), 2), *run, opts)
                   for span, run, opts in zip([(0.5, 3.5), (1.85, 2.3)] * 2, [(LONG_RUN, LONG_N), (YETI, 20_000)] * 2,
                                              OPTIONS)]


def _mismatched_pairs(folder: Path) -> list[str]:
    bad = []
    for cb in folder.rglob("*.combatants.parquet"):
        sk = cb.with_name(cb.name.replace(".combatants.parquet", ".parquet"))
        if not sk.exists() or read_pair_id(sk) != read_pair_id(cb) or _rows(cb) % max(_rows(sk), 1):
            bad.append(str(cb))
    return bad


@pytest.mark.parametrize("backend", ["threads", "loky", "dask"])
def test_ctrl_c_at_any_moment_of_a_parallel_run_is_one_paragraph_and_status_130(tmp_path, backend):
    """9 of 27 interrupts printed a traceback (while the run started, while its workers
    started, as it exited), a dask run's 77 lines and 4 tracebacks; here seeded moments
    with and without --out and --run-dir (8 on threads, 4 on loky and on dask)."""
    if backend == "dask":
        pytest.importorskip("distributed")
    seen = []
    moments = {"threads": INTERRUPTS, "loky": LOKY_INTERRUPTS, "dask": DASK_INTERRUPTS}[backend]
    for i, (delay, scenario, n, opts) in enumerate(moments):
        case = tmp_path / str(i)
        words = {"--out": ["--out", case / "out" / "t.parquet"], "--run-dir": ["--run-dir", case / "run"]}
        args = [w for o in opts for w in words.get(o, [o])]
        mark = case / "started"
        case.mkdir()
        p = subprocess.Popen([sys.executable, "-c", LAUNCH_MARKED, mark, "run", scenario, "-n", str(n), "-j", "2",
                              "--backend", backend, *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        _wait_for(mark.exists, p)
        time.sleep(delay)
        finished_first = p.poll() is not None
        if not finished_first:
            os.killpg(p.pid, signal.SIGINT)
        code, out, err = _finish(p)
        where = f"interrupt {i} ({delay} s, {scenario} -n {n} --backend {backend} {' '.join(opts)})"
        # A process seen alive may already be ending (its status set, its output whole):
        # the Ctrl-C then reaches nothing, and the run counts as finished first.
        finished_first = finished_first or (code == 0 and "interrupted" not in err and "scenario hash" in out)
        if finished_first:
            assert code == 0, f"{where}: {err}"
        else:
            assert code == 130, f"{where}: status {code}: {err}"
            assert "Traceback" not in err, f"{where}: {err}"
            lines = [line for line in err.strip().splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith("interrupted"), f"{where}: {err}"
        # The --out pair only: a run folder's chunk files are named otherwise and are kept.
        assert _mismatched_pairs(case / "out") == [], where
        assert [p.name for p in case.rglob(".*.part")] == [], where
        seen.append(finished_first)
    assert not all(seen), "every run ended before its interrupt"


DASHBOARD_PORT = 8787  # distributed's default, where the scheduler served its pages


def _listening_ports(pid: int) -> set[int]:
    import psutil
    root = psutil.Process(pid)
    ports = set()
    for proc in [root, *root.children(recursive=True)]:
        try:
            ports |= {c.laddr.port for c in proc.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN}
        except psutil.Error:
            pass  # a worker that exited meanwhile
    return ports


def _answers_http(port: int) -> bool:
    """Whether plain HTTP on 127.0.0.1:`port` gets an HTTP response (the scheduler's info
    pages, worker logs and call stacks, or a worker's metrics); a TLS comm port drops it."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /info/main/workers.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return s.recv(5) == b"HTTP/"
    except OSError:  # refused, reset or timed out
        return False


def test_a_dask_run_serves_no_dashboard_nor_any_http(monkeypatch):
    """The local cluster served its dashboard's info pages (worker logs, call stacks) and
    a JSON API unauthenticated on 127.0.0.1:8787, though started with dashboard_address=None
    and documented as having no dashboard; each worker served metrics on a port of its own.
    Probed from inside a real two-process dask run, while its chunks are played."""
    pytest.importorskip("distributed")
    from sim import runner
    monkeypatch.setattr(runner, "CHUNK_SIZE", 500)  # several chunks, so both worker processes start
    seen = []

    def probe(_k):
        if not seen:
            ports = _listening_ports(os.getpid())
            seen.append((ports, {port for port in ports if _answers_http(port)}))

    result = sim.run(YETI, n=3000, seed=5, jobs=2, backend="dask", progress=probe)
    assert len(result.skirmishes) == 3000
    (ports, http), = seen
    assert len(ports) >= 3, ports  # the scheduler's comm and each worker's (and nanny's): the cluster was up
    assert DASHBOARD_PORT not in ports
    assert http == set(), f"ports {sorted(http)} of the run's cluster answer HTTP"
    # Not probed again once the run is over: under xdist another test's own LocalCluster may
    # take 8787 meanwhile (seen twice in full runs); the probe above covers this run's processes.


def test_the_local_dask_clusters_client_has_no_dashboard(tmp_path):
    pytest.importorskip("distributed")
    from sim.backends import dask_client
    with dask_client(None, 2, str(tmp_path)) as client:
        assert client.dashboard_link == ""  # what distributed gives when no scheduler service is "dashboard"
        assert client.scheduler_info()["services"] == {}
        per_worker = client.run(lambda dask_worker: dict(dask_worker.services))
        assert len(per_worker) == 2 and all(services == {} for services in per_worker.values()), per_worker


CALLBACK_INTERRUPTS = '''
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)  # as started from a terminal, not by xdist
from sim import cli_scale
cli_scale.handle_interrupts()
cli_scale.INTERRUPTED["pending"] = True  # as the first Ctrl-C leaves it


class RaisesInDel:
    def __init__(self, error):
        self.error = error

    def __del__(self):
        raise self.error


class HalfBuilt:  # as a ZipFile whose __init__ the Ctrl-C cut off (CI saw it)
    def __del__(self):
        return self._writing  # never set


RaisesInDel(KeyboardInterrupt())  # the Ctrl-C landing in a callback: dropped
HalfBuilt()  # a destructor failing on what the interrupted __init__ never set: dropped
RaisesInDel(ValueError("a real fault in a callback"))  # anything else: still shown
print("went on")
'''


def test_a_ctrl_c_landing_in_a_callback_prints_nothing_and_other_faults_there_still_show():
    """CI caught it: interrupted 0.56 s into a run, the KeyboardInterrupt landed in an
    import lock's weakref callback and Python printed 'Exception ignored in ...' with a
    traceback before our one paragraph."""
    done = subprocess.run([sys.executable, "-c", CALLBACK_INTERRUPTS], cwd=ROOT, capture_output=True, text=True,
                          timeout=RUN_WITHIN_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "went on"
    assert "KeyboardInterrupt" not in done.stderr and "AttributeError" not in done.stderr
    assert "ValueError: a real fault in a callback" in done.stderr


HARD_EXIT_MID_WRITE = '''
import sys
from sim import cli_scale, io
writing = io.replacing(sys.argv[1])
tmp = writing.__enter__()
open(tmp, "w").write("half a table")
cli_scale._end_now()  # the Ctrl-C watchdog, firing while the table is written
'''


def test_the_ctrl_c_watchdog_ending_a_run_mid_write_leaves_no_part_file(tmp_path):
    """CI caught a .part chunk file left in a run folder by a Ctrl-C'd dask run."""
    target = tmp_path / "t.parquet"
    done = subprocess.run([sys.executable, "-c", HARD_EXIT_MID_WRITE, str(target)], cwd=ROOT, capture_output=True,
                          text=True, timeout=RUN_WITHIN_S)
    assert done.returncode == 130, done.stderr
    assert _part_files(tmp_path) == [] and not target.exists()
    # Its Ctrl-C's exception was lost, so nothing had said so: the watchdog does, once.
    assert done.stderr == "interrupted. No file was left half-written.\n"


def test_a_ctrl_c_lost_in_a_callback_stops_the_streaming_of_the_tables(tmp_path):
    """Under load, a run stopped while its tables were streamed into --out ended 5 s
    later by the watchdog with status 130 and nothing printed: the Ctrl-C's exception had
    been dropped in a callback, and streaming had no point that looked at the flag."""
    from sim.interrupts import INTERRUPTED
    from sim.rundir import run_chunked
    result = run_chunked(YETI, n=900, seed=3, run_dir=tmp_path / "run")
    INTERRUPTED["pending"] = True
    try:
        with pytest.raises(KeyboardInterrupt):
            result.write(tmp_path / "out" / "t.parquet")
    finally:
        INTERRUPTED["pending"] = False
    assert not (tmp_path / "out" / "t.parquet").exists() and _part_files(tmp_path / "out") == []


CTRL_C_IN_TEARDOWN = '''
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as started from a terminal, not by xdist


class CtrlCAtTeardown:
    """Stands for a Ctrl-C pressed while the interpreter tears itself down: its modules'
    objects are freed after it has put SIGINT back to the default action."""
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)


sys.modules["__main__"].pressed_late = CtrlCAtTeardown()
from sim.cli import main
main()
'''


def test_a_ctrl_c_after_the_command_is_done_never_kills_it_silently():
    """CI saw a run end by signal (status -2, nothing printed) when a Ctrl-C came as the
    process exited. A finished command now ends without the interpreter's teardown."""
    p = subprocess.Popen([sys.executable, "-c", CTRL_C_IN_TEARDOWN, "run", YETI, "-n", "300"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    code, out, err = _finish(p)
    assert code == 0, f"status {code}: {err}"
    assert "scenario hash" in out and err == ""


def test_a_ctrl_c_in_the_removal_of_the_hidden_chunk_folder_leaves_nothing_behind(tmp_path, monkeypatch):
    """CI-like find on the threads backend: a Ctrl-C at the end of a `--out` run (1.9 s in)
    stopped the removal of `.skirmish-chunks-...` halfway, its 31 chunk tables left beside
    the output. The interrupt's cleanup now finishes the removal."""
    import shutil

    from sim import io
    real, calls = shutil.rmtree, []

    def interrupted_once(path, **kw):
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(path, **kw)

    monkeypatch.setattr(io.shutil, "rmtree", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        with io.temporary_folder(".skirmish-chunks-x-", tmp_path) as folder:
            (Path(folder) / "chunk-000001.combatants.parquet").write_bytes(b"PAR1")
    assert Path(folder).exists()  # what the interrupted removal left
    from sim.cli_scale import settle_after_interrupt
    settle_after_interrupt()  # what the CLI does on Ctrl-C
    assert list(tmp_path.iterdir()) == []


def test_a_ctrl_c_as_a_temporary_file_is_made_leaves_no_part_file(tmp_path, monkeypatch):
    """On the threads backend 3 of 54 interrupted `--run-dir --out` runs left a chunk's
    `.part` file: the Ctrl-C was handled as the file's creation returned (the main thread
    waits for the interpreter's lock there), before it was registered for removal."""
    from sim import io
    from sim.cli_scale import settle_after_interrupt
    real_open = os.open

    def made_then_interrupted(*args, **kw):
        fd = real_open(*args, **kw)
        monkeypatch.setattr(os, "open", real_open)
        os.close(fd)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", made_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        io.atomic_write_text(tmp_path / "summary.json", "{}")
    settle_after_interrupt()
    assert list(tmp_path.iterdir()) == []


def test_a_ctrl_c_before_any_pool_started_imports_no_pool_to_stop_it():
    """A Ctrl-C 0.49 s into a loky run, while joblib itself was being imported, left it
    half initialised; the cleanup imported it again to stop a pool that never started,
    and printed an ImportError's traceback."""
    probe = ("import sys; from sim import cli_scale; cli_scale.settle_after_interrupt(); "
             "print(sorted(m for m in sys.modules if m.startswith('joblib')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
