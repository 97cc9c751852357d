"""Progress bars: on stderr only for a terminal, silent with --quiet, and the runner
reports every finished chunk."""
import io

import sim
import sim.runner
from sim.progress import progress_bar, wanted


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_silent_when_not_a_terminal_or_quiet():
    assert not wanted(stream=io.StringIO())
    assert wanted(stream=FakeTTY())
    assert not wanted(quiet=True, stream=FakeTTY())
    with progress_bar(10, stream=io.StringIO()) as update:
        assert update is None


def test_bar_writes_to_a_terminal():
    stream = FakeTTY()
    with progress_bar(100, desc="yeti", stream=stream, delay=0) as update:
        update(40)
        update(60)
    assert "yeti" in stream.getvalue()


def test_runner_reports_each_chunk(monkeypatch):
    monkeypatch.setattr(sim.runner, "CHUNK_SIZE", 1000)
    seen = []
    result = sim.run("scenarios/gods_and_monsters/yeti.yaml", n=2500, seed=1, progress=seen.append)
    assert seen == [1000, 1000, 500]
    assert len(result.skirmishes) == 2500


def test_progress_does_not_change_results():
    a = sim.run("scenarios/gods_and_monsters/yeti.yaml", n=500, seed=4)
    b = sim.run("scenarios/gods_and_monsters/yeti.yaml", n=500, seed=4, progress=lambda k: None)
    assert a.skirmishes.equals(b.skirmishes)


def test_cli_run_quiet_prints_no_bar(tmp_path):
    from click.testing import CliRunner
    from sim.cli import main
    res = CliRunner().invoke(main, ["run", "scenarios/gods_and_monsters/yeti.yaml", "-n", "300", "-q"])
    assert res.exit_code == 0 and "skirmish/s" not in res.output
