"""What a designer sees while the rules compile: the notice, its progress and its estimate."""
from __future__ import annotations

import io
import time

import pytest
from click.testing import CliRunner

from sim import compiled, kernel_cache
from sim.cli import main


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SKIRMISH_CACHE_DIR", str(tmp_path))
    kernel_cache.machine_folder.cache_clear()
    yield tmp_path
    kernel_cache.machine_folder.cache_clear()


def test_the_progress_shows_elapsed_time_against_the_estimate_and_ends_with_the_time_taken():
    stream = io.StringIO()
    with compiled._Ticker("Lens", 120, stream=stream, period_s=0.05):
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "compiling the Lens rules, once: about 2 minutes (later runs load them from the cache)"
    assert "compiling the Lens rules, once: 0:00 so far, about 2 minutes in all" in lines[1:-1]
    assert lines[-1] == "compiled the Lens rules in 0:00"
    assert "busy" in compiled._Ticker("Lens", 60).line(100) and "busy" not in compiled._Ticker("Lens", 60).line(50)


def _busy(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_the_estimate_is_this_machines_last_compile_or_the_shipped_one_scaled_by_it(private_cache, monkeypatch):
    monkeypatch.setattr(compiled, "_load_stretch", lambda: 1.0)
    assert compiled.machine_estimate("lens", 240) == 240  # nothing measured here yet
    calls = []
    compiled.warm("gods_and_monsters", "Gods & Monsters", 100, lambda: calls.append(_busy(0.3)), quiet=True)
    assert compiled.is_compiled("gods_and_monsters") and calls
    measured = compiled.machine_estimate("gods_and_monsters", 100)
    assert 0 < measured < 5
    # A machine that compiled G&M in a fraction of its shipped estimate gets the Lens's scaled alike.
    assert compiled.machine_estimate("lens", 240) == pytest.approx(240 * measured / 100)
    compiled.warm("gods_and_monsters", "Gods & Monsters", 100, lambda: calls.append(1))  # compiled: no notice
    assert len(calls) == 2


def test_a_busy_machine_stretches_the_estimate(monkeypatch):
    # Three compiles running on two cores: a fourth gets half a core.
    monkeypatch.setattr(compiled.os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    monkeypatch.setattr(compiled.os, "cpu_count", lambda: 2)
    assert compiled._load_stretch() == 2.0
    monkeypatch.setattr(compiled.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert compiled._load_stretch() == 1.0


def test_warm_compiles_ahead_and_names_an_unknown_ruleset():
    result = CliRunner().invoke(main, ["warm", "lifeforce"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("lifeforce: ")
    bad = CliRunner().invoke(main, ["warm", "lense"])
    assert bad.exit_code == 2 and "unknown ruleset 'lense'" in bad.output and "lens" in bad.output
