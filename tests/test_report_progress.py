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


class Recorder:
    """A progress callback that also hears the announced totals, like the CLI's bar."""

    def __init__(self):
        self.done, self.totals = [], []

    def __call__(self, k):
        self.done.append(k)

    def expect(self, total):
        self.totals.append(total)


def test_every_analysis_reports_progress_up_to_its_total():
    from sim.analysis import sensitivity, sweep, tournament, tune
    yeti = "scenarios/gods_and_monsters/yeti.yaml"
    cases = {
        "sweep": lambda p: sweep(yeti, {"sides.yeti.combatants[Yeti].defense": "2..4"}, n=400, progress=p),
        "sensitivity": lambda p: sensitivity(yeti, ["Yeti"], n=300, progress=p),
        "tournament": lambda p: tournament(yeti, {"party": ["random", "weakest"]}, n=300, progress=p),
        "tune": lambda p: tune(yeti, "sides.yeti.combatants[Yeti].survival", "yeti", 0.05, 10, 60, n=300,
                               progress=p),
        "compare": lambda p: sim.compare(yeti, yeti, n=300, progress=p),
    }
    for name, call in cases.items():
        rec = Recorder()
        df = call(rec)
        assert rec.done and rec.totals, name
        assert sum(rec.done) == rec.totals[-1], name  # the bar ends full, never past its total
        if name == "sweep":
            assert rec.totals == [3 * 400] and len(df) == 3
        if name == "compare":
            assert rec.totals == [2 * 300]


def test_analysis_bar_shows_on_a_terminal_and_grows_its_total():
    stream = FakeTTY()
    with progress_bar(None, desc="tune yeti", stream=stream, delay=0) as update:
        update.expect(100)
        update(100)
        update.expect(300)
        update(200)
        assert (update.bar.n, update.bar.total) == (300, 300)
    assert "tune yeti" in stream.getvalue() and "/300" in stream.getvalue()


def test_cli_analyses_print_no_bar_off_a_terminal():
    from click.testing import CliRunner
    from sim.cli import main
    res = CliRunner().invoke(main, ["sweep", "scenarios/gods_and_monsters/yeti.yaml", "--vary",
                                    "sides.yeti.combatants[Yeti].defense=3..4", "-n", "200"])
    assert res.exit_code == 0, res.output
    assert "skirmish/s" not in res.output and "it/s" not in res.output
