"""Days played chunk by chunk: summary-only, run folders and --resume, other backends.

Every figure comes from a DayAggregate; these tests hold it to the outcome tables it
summarises (recomputed here with pandas), and hold every way of playing to the plain
in-memory run, day for day.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.aggregate import _histogram, hist_quantile
from sim.errors import ScenarioError
from sim.runner import CHUNK_SIZE
from sim.stats import wilson

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days" / "gods_and_monsters" / "road_to_hightown.yaml"
TROLL = ROOT / "days" / "lens" / "troll_road.yaml"
TOROMEEN = ROOT / "days" / "gods_and_monsters" / "toromeen_and_the_orcs.yaml"
TWO_CHUNKS = CHUNK_SIZE + 700  # a short second chunk: merging and its order matter


def same_figures(a: dict, b: dict) -> None:
    """Two summaries equal in every figure (floats to rounding), provenance aside."""
    def walk(x, y, where):
        if isinstance(x, dict):
            assert set(x) == set(y), where
            for k in x:
                if k != "provenance":
                    walk(x[k], y[k], f"{where}.{k}")
        elif isinstance(x, list):
            assert len(x) == len(y), where
            for i, (u, v) in enumerate(zip(x, y)):
                walk(u, v, f"{where}[{i}]")
        elif isinstance(x, float) and (math.isnan(x) or math.isnan(y)):
            assert math.isnan(x) and math.isnan(y), where
        elif isinstance(x, float):
            assert x == pytest.approx(y, rel=1e-12, abs=1e-12), where
        else:
            assert x == y, where
    walk(a, b, "summary")


@pytest.fixture(scope="module")
def road_full():
    return sim.day.run(ROAD, days=TWO_CHUNKS, jobs=2)


def test_hist_quantile_is_numpys_linear_quantile():
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 10, 997):
        v = rng.integers(-3, 9, n)
        values, counts = np.unique(v, return_counts=True)
        for q in (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0):
            assert hist_quantile(values, counts, q) == pytest.approx(float(np.quantile(v, q)), abs=1e-12)


def test_the_summary_read_off_counts_is_the_one_the_tables_give(road_full):
    r, s = road_full, road_full.summary()
    d, f = r.days, r.fights
    assert s["days"] == len(d) == TWO_CHUNKS
    assert s["survival"]["rate"] == d["survived"].mean()
    assert s["survival"]["ci95"] == pytest.approx([float(x) for x in wilson(int(d["survived"].sum()), len(d))])
    se = d["deaths"].std(ddof=1) / np.sqrt(len(d))
    assert s["deaths"]["mean"] == pytest.approx(d["deaths"].mean())
    assert s["deaths"]["ci95"][1] - s["deaths"]["mean"] == pytest.approx(1.959963984540054 * se)
    for row in s["fights"]:
        g = f[f["fight"] == row["name"]]
        assert row["lost"] == pytest.approx((g["reached"] & ~g["won"]).sum() / g["reached"].sum())
        assert row["rounds"] == pytest.approx(g.loc[g["reached"], "rounds"].mean())
        assert row["days_ended_here"] == pytest.approx((d["ended_at"] == row["name"]).mean())
    for row in s["resources"]:
        m = r.members[(r.members["fight"] == row["fight"]) & (r.members["combatant"] == row["combatant"])]
        v = m[f"{row['when']}_{row['resource']}"].to_numpy()
        assert row["mean"] == pytest.approx(v.mean())
        assert [row[k] for k in ("q05", "q25", "q50", "q75", "q95")] == pytest.approx(
            list(np.quantile(v, (0.05, 0.25, 0.5, 0.75, 0.95))))
    for m in s["members"]:
        g = r.fates[r.fates["combatant"] == m["name"]]
        assert m["dead"] == pytest.approx((g["end_state"] == "dead").mean())
        dead = g[g["end_state"] == "dead"]["died_in"].value_counts() / len(g)
        assert m["died_in"] == pytest.approx({str(k): v for k, v in dead.items() if v})


def test_win_chance_by_entry_health_is_the_tables(road_full):
    # Each (day, fight) binned by the party's share of its full verve + survival at entry.
    r = road_full
    m = r.members
    full = {w: r.day.rules_module.full(r.day.stats[w]) for w in r.day.members}
    top = m["combatant"].map({w: full[w]["verve"] + full[w]["survival"] for w in full}).astype(float)
    share = pd.DataFrame({"day": m["day"], "fight": m["fight"], "have": (m["entry_verve"] + m["entry_survival"])
                          .clip(lower=0), "top": top}).groupby(["day", "fight"], observed=True).sum()
    share = share.join(r.fights.set_index(["day", "fight"])["won"])
    share["bin"] = pd.cut(share["have"] / share["top"], (0, 0.25, 0.5, 0.75, 1.0), include_lowest=True,
                          labels=("0-25%", "25-50%", "50-75%", "75-100%"))
    want = share.groupby(["fight", "bin"], observed=True)["won"].agg(["size", "sum"]).reset_index()
    got = sim.day.result.state_value(r)
    assert len(got) == len(want) > 3
    assert got["days"].tolist() == want["size"].tolist()
    assert got["won"].tolist() == pytest.approx((want["sum"] / want["size"]).tolist())


def test_summary_only_gives_the_same_figures_and_keeps_no_tables(road_full):
    lean = sim.day.run(ROAD, days=TWO_CHUNKS, summary_only=True)
    same_figures(lean.summary(), road_full.summary())
    with pytest.raises(ScenarioError, match="summary-only"):
        lean.days  # noqa: B018 - the property is the test


def test_loky_workers_play_the_days_threads_play():
    # Toromeen's three one-orc fights (some 600,000 days a CPU-second): two real chunks
    # cost the workers' start-up, not the play.
    threads = sim.day.run(TOROMEEN, days=TWO_CHUNKS, jobs=2)
    other = sim.day.run(TOROMEEN, days=TWO_CHUNKS, jobs=2, backend="loky")
    for name in ("days", "fights", "members", "fates", "rests"):
        pd.testing.assert_frame_equal(getattr(other, name), getattr(threads, name))
    same_figures(other.summary(), threads.summary())


def test_precision_stops_at_the_same_days_summary_only_or_not():
    full = sim.day.run(TROLL, precision=0.004, max_days=3 * CHUNK_SIZE)
    lean = sim.day.run(TROLL, precision=0.004, max_days=3 * CHUNK_SIZE, summary_only=True, jobs=2)
    assert full.meta["reached"] and lean.meta["reached"]
    assert lean.summary()["days"] == full.summary()["days"] == len(full.days)
    same_figures(lean.summary(), full.summary())


def test_a_run_folder_resumes_to_the_uninterrupted_result_and_replays_damaged_chunks(tmp_path, monkeypatch):
    # Chunks of 1,000 days (a short third one): what resuming does does not depend on their
    # size, and a day's dice do not depend on its chunk, so the uninterrupted result is the
    # run in one chunk.
    days = 2_700
    whole = sim.day.run(ROAD, days=days)
    monkeypatch.setattr("sim.runner.CHUNK_SIZE", 1_000)
    folder = tmp_path / "run"
    first = sim.day.run(ROAD, days=days, run_dir=folder)
    same_figures(first.summary(), whole.summary())
    pd.testing.assert_frame_equal(first.members, whole.members)
    chunks = folder / "chunks"
    (chunks / "chunk-000001.agg.npz").unlink()  # as if killed before chunk 1 finished
    (chunks / "chunk-000000.fates.parquet").write_bytes(b"PAR1 cut short")  # and chunk 0 damaged
    with pytest.raises(ScenarioError, match="--resume"):
        sim.day.run(ROAD, days=days, run_dir=folder)
    done = sim.day.run(ROAD, days=days, run_dir=folder, resume=True)
    assert [c for c, _ in done.replayed] == [0]
    same_figures(done.summary(), whole.summary())
    for name in ("days", "fights", "members", "fates", "rests"):
        pd.testing.assert_frame_equal(getattr(done, name).reset_index(drop=True),
                                      getattr(whole, name).reset_index(drop=True), check_dtype=False)
    assert json.loads((folder / "summary.json").read_text())["days"] == days


def test_a_run_folder_refuses_another_seed_and_a_scenarios_run(tmp_path):
    folder = tmp_path / "run"
    sim.day.run(ROAD, days=500, run_dir=folder, summary_only=True)
    with pytest.raises(ScenarioError, match="seed"):
        sim.day.run(ROAD, days=500, seed=9, run_dir=folder, resume=True, summary_only=True)
    from sim.rundir import run_to_folder
    with pytest.raises(ScenarioError, match="a day"):
        run_to_folder(ROOT / "scenarios" / "gods_and_monsters" / "yeti.yaml", folder, n=100, resume=True)


@pytest.mark.parametrize("args,says", [
    (["--summary-only", "--report", "R"], "--report needs the outcome tables"),
    (["--summary-only", "--representative"], "--representative needs"),
    (["--resume"], "--resume needs --run-dir"),
    (["--precision", "0.01", "--run-dir", "R"], "fixed number of days"),
])
def test_options_that_cannot_go_together_are_refused_before_any_day(tmp_path, args, says):
    args = [str(tmp_path / a) if a == "R" else a for a in args]
    out = CliRunner().invoke(main, ["day", str(ROAD), "-q", *args])
    assert out.exit_code == 2, out.output
    assert says in out.output
    assert not (tmp_path / "R").exists()


def test_the_cli_summary_only_json_has_the_figures(tmp_path):
    out = CliRunner().invoke(main, ["day", str(ROAD), "-n", "800", "-q", "--summary-only", "--json",
                                    "--run-dir", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    s = json.loads(out.output)
    full = sim.day.run(ROAD, days=800).summary()
    assert s["survival"] == full["survival"] and s["days"] == 800
    again = CliRunner().invoke(main, ["day", str(ROAD), "-n", "800", "-q", "--summary-only", "--json",
                                      "--run-dir", str(tmp_path / "r"), "--resume"])
    assert again.exit_code == 0 and json.loads(again.output)["survival"] == full["survival"]


def test_ctrl_c_on_a_day_in_a_run_folder_exits_130_and_the_printed_command_finishes_it(tmp_path):
    import os
    import shlex
    import signal
    import time

    from tests.process_helpers import RUN_WITHIN_S, cli, finish, one_paragraph, wait_for
    run_dir = tmp_path / "run"
    p = cli("day", ROAD, "-n", 30000, "--run-dir", run_dir, "-j", 2)  # chunks of 300 days
    wait_for(lambda: len(list((run_dir / "chunks").glob("*.agg.npz"))) >= 2 if (run_dir / "chunks").exists()
             else False, p)
    time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    code, _, err = finish(p)
    assert code == 130, err
    line = one_paragraph(err)
    assert line.startswith("interrupted. Finished chunks are saved; finish the run with: skirmish day ")
    words = shlex.split(line.split("finish the run with: ", 1)[1])
    assert words[-3:] == ["--run-dir", str(run_dir), "--resume"] and "-j" in words
    kept = len(list((run_dir / "chunks").glob("*.agg.npz")))
    assert 2 <= kept < 100
    code, out, err = finish(cli(*words[1:], "--json", "-q"), RUN_WITHIN_S)
    assert code == 0, err
    whole = sim.day.run(ROAD, days=30000, summary_only=True).summary()
    same_figures(json.loads(out), json.loads(json.dumps(whole, default=str)))


@pytest.mark.parametrize("values", [np.arange(-5, 20).repeat(3)[::2], np.array([7] * 5), np.array([], np.int64),
                                    np.array([0, 10**9, 10**9, 5]), np.array([-3, -3, 2])])
def test_a_resource_histogram_is_what_np_unique_counts(values):
    got, want = _histogram(values), np.unique(values.astype(np.int64), return_counts=True)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_a_day_builds_its_tables_only_when_one_is_read():
    result = sim.day.run(TROLL, days=3000)
    assert result.tables is None and len(result.chunks) == 1
    before = result.summary()
    days = result.days
    assert result.chunks is None and set(result.tables) == {"days", "fights", "members", "fates", "rests"}
    assert len(days) == 3000 and days["survived"].mean() == before["survival"]["rate"]
