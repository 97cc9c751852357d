"""Malformed scenarios get a clear error (exit 2), never a traceback or a half-written file.

Property-based: hypothesis mutates the shipped scenarios (wrong types, missing and
unknown fields, absurd numbers, huge counts, broken dice, broken YAML, non-UTF-8
bytes) and checks the loader and the CLI on each.
"""
from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import sim  # noqa: E402
from sim.cli import main  # noqa: E402
from sim.errors import ScenarioError  # noqa: E402
from sim.scenario import load_scenario  # noqa: E402

# Every shipped scenario, so each ruleset's fields get broken; the Yeti first (used below).
BASES = [yaml.safe_load(p.read_text()) for p in
         sorted(Path("scenarios").rglob("*.yaml"), key=lambda p: (p.name != "yeti.yaml", str(p)))]

dice_like = st.one_of(
    st.from_regex(r"\A[0-9]{0,4}[dD][0-9]{0,5}([+-][0-9]{0,6})?\Z", fullmatch=True),
    st.sampled_from(["d0", "0d6", "d", "2d", "d6+", "1e9d6", "d-6", "  ", "", "d6d6", "d99999999999999999999",
                     "101d6", "d1001", "2d6+99999999999999999999", "-d6", "d6*2", "½d6"]),
)
absurd_numbers = st.one_of(
    st.integers(min_value=-2**70, max_value=2**70),
    st.sampled_from([0, -1, 10**6, 10**9, 10**12, 2**31, 2**63, -2**63, 10**100]),
    st.floats(allow_nan=True, allow_infinity=True),
)
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), absurd_numbers, st.text(max_size=12), dice_like),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)


def _paths(node, prefix=()):
    """Every (container, key) in a parsed scenario, to pick one to break."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append(prefix + (k,))
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append(prefix + (i,))
            out += _paths(v, prefix + (i,))
    return out


def _get(node, path):
    for k in path:
        node = node[k]
    return node


@st.composite
def broken_scenarios(draw):
    data = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(data)
        path = draw(st.sampled_from(paths))
        parent, key = _get(data, path[:-1]), path[-1]
        how = draw(st.sampled_from(["replace", "delete", "unknown", "dice", "number", "count"]))
        if how == "replace":
            parent[key] = draw(junk)
        elif how == "delete":
            del parent[key]
        elif how == "unknown" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(junk)
        elif how == "dice":
            parent[key] = draw(dice_like)
        elif how == "number":
            parent[key] = draw(absurd_numbers)
        elif how == "count" and isinstance(parent, dict) and "name" in parent:
            parent["count"] = draw(st.sampled_from([0, -3, 1001, 10**6, 10**12, 2**70, "many", 2.5, None]))
    return data


def _load_or_error(data):
    """Either a scenario or a ScenarioError; anything else fails the test."""
    try:
        return load_scenario(data)
    except ScenarioError as e:
        msg = str(e)
        assert msg and "\n" not in msg.strip() and "Traceback" not in msg
        return None


# Random examples locally (to keep finding new cases); a fixed sequence in CI (no flaky runs).
CI = bool(os.environ.get("CI"))


@settings(max_examples=300, deadline=None, derandomize=CI, suppress_health_check=[HealthCheck.too_slow])
@given(broken_scenarios())
def test_loader_turns_every_malformed_scenario_into_a_scenario_error(data):
    scen = _load_or_error(data)
    if scen is not None:
        # Still valid after the mutation: it must also play.
        r = sim.run(scen, n=16, seed=0, max_rounds=30)
        assert len(r.skirmishes) == 16


@st.composite
def broken_files(draw):
    data = draw(broken_scenarios())
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8")
    how = draw(st.sampled_from(["as is", "truncate", "bytes", "latin1", "tabs"]))
    if how == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif how == "bytes":
        pos = draw(st.integers(0, len(text)))
        text = text[:pos] + draw(st.binary(min_size=1, max_size=8)) + text[pos:]
    elif how == "latin1":
        text = text.replace(b"Kord\xc3\xa9", b"Kord\xe9") + b"# caf\xe9\n"
    elif how == "tabs":
        text = text.replace(b"  ", b"\t", 1)
    return text


@settings(max_examples=120, deadline=None, derandomize=CI, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(broken_files())
def test_cli_exits_2_with_one_paragraph_and_leaves_no_partial_output(tmp_path, raw):
    case = Path(tempfile.mkdtemp(dir=tmp_path))
    f = case / "scenario.yaml"
    f.write_bytes(raw)
    out = case / "out"
    r = CliRunner().invoke(main, ["run", str(f), "-n", "16", "--max-rounds", "30", "--out", str(out / "t.parquet")])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output + r.stderr
    if r.exit_code == 0:
        assert sorted(p.name for p in out.iterdir()) == ["t.combatants.parquet", "t.parquet"]
    else:
        assert r.exit_code == 2
        assert r.stderr.startswith("error: ") and str(f) in r.stderr
        assert not out.exists() or not any(out.iterdir())


# Absurd but valid: these finish, or stop with a clear message, instead of hanging.

YETI = BASES[0]


def _variant(**changes):
    data = copy.deepcopy(YETI)
    for fn in changes.values():
        fn(data)
    return data


def _untouchable(data):
    for side in data["sides"].values():
        for c in side["combatants"]:
            c["defense"] = 40  # 11 + combat + attack - 40 < 1: no d20 roll can hit


def test_nobody_can_hurt_anybody_with_max_rounds_of_a_million_stops_with_a_message():
    from sim import engine
    r = sim.run(_variant(x=_untouchable), n=300, seed=1, max_rounds=10**6)
    assert (r.skirmishes["winner"] == "unfinished").all()
    assert r.meta["stalled_skirmishes"] == 300
    # Stopped at the first check after STALL_ROUNDS unchanged rounds, far below the million.
    assert r.skirmishes["rounds"].max() <= engine.STALL_ROUNDS + 2 * engine.STALL_EVERY
    assert "Note: 300 skirmishes stopped" in r.summary_text()
    assert "nobody could hurt anybody" in sim.trace(_variant(x=_untouchable), skirmish=5, n=300, seed=1,
                                                     max_rounds=10**6)


def test_a_monster_nobody_can_hit_still_finishes_the_fight():
    def yeti_untouchable(data):
        data["sides"]["yeti"]["combatants"][0]["defense"] = 40
    r = sim.run(_variant(x=yeti_untouchable), n=500, seed=1, max_rounds=10**6)
    assert (r.skirmishes["winner"] == "yeti").all()
    assert "stalled_skirmishes" not in r.meta
    assert r.combatants.loc[r.combatants["combatant"] == "Yeti", "damage_taken"].sum() == 0


def test_the_stall_check_never_cuts_a_long_fight_that_is_still_moving(monkeypatch):
    from sim import engine

    def marathon(data):
        for side in data["sides"].values():
            side["policy"] = {"target": "random"}
            for c in side["combatants"]:
                c["survival"], c["verve"], c["defense"] = 1500, 0, 12
                for w in c.get("weapons", []) + c.get("attacks", []):
                    w["damage"] = "d2"
    data = _variant(x=marathon)
    r = sim.run(data, n=20, seed=3, max_rounds=20000)
    assert r.skirmishes["rounds"].median() > 2 * engine.STALL_ROUNDS  # long fights indeed
    assert "stalled_skirmishes" not in r.meta
    monkeypatch.setattr(engine, "STALL_ROUNDS", 10**9)
    unchecked = sim.run(data, n=20, seed=3, max_rounds=20000)
    assert r.combatants.equals(unchecked.combatants) and r.skirmishes.equals(unchecked.skirmishes)


def test_huge_scenarios_are_played_in_slices_that_trace_replays_exactly(monkeypatch):
    from sim import engine
    monkeypatch.setattr(engine, "BATCH_BYTES", 40 * 1700)  # about 40 Yeti skirmishes a slice
    setup = sim.load_scenario(YETI)
    assert engine.rows_per_batch(setup.ruleset, setup.ruleset.build(setup), 1000) < 50
    r = sim.run(YETI, n=700, seed=4)
    for k in (0, 39, 40, 41, 333, 699):
        text = sim.trace(YETI, skirmish=k, n=700, seed=4)
        row = r.skirmishes.iloc[k]
        assert f"Result after {row['rounds']} rounds" in text
        for _, c in r.combatants[r.combatants["skirmish"] == k].iterrows():
            assert f"{c['combatant']}: {c['final_state']}, dealt {c['damage_dealt']}, took {c['damage_taken']}" in text


def test_a_thousand_combatants_finish_in_bounded_memory(tmp_path):
    import subprocess
    import sys
    data = copy.deepcopy(YETI)
    data["sides"]["party"]["combatants"] = [dict(YETI["sides"]["party"]["combatants"][2], name="Warrior",
                                                 count=500)]
    data["sides"]["yeti"]["combatants"] = [dict(YETI["sides"]["yeti"]["combatants"][0], count=500)]
    data["battlefield"] = {"width": 200, "height": 600}
    f = tmp_path / "horde.yaml"
    f.write_text(yaml.safe_dump(data))
    # The peak is read once the kernel is loaded and again after the battle: a process that
    # finds the cache being rewritten by another test's worker compiles, and a compile's
    # peak is not the battle's (CI saw 1.08 GB so, against 0.27 GB loading from the cache).
    code = ("import resource, json, sim, sim.runner; peak = lambda: resource.getrusage(resource.RUSAGE_SELF)."
            "ru_maxrss; s = sim.load_scenario(%r); sim.runner.warm(s); loaded = peak(); "
            "r = sim.run(s, n=2, seed=1, max_rounds=40); print(json.dumps([len(r.combatants), loaded, peak()]))"
            % str(f))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    rows, loaded_kb, maxrss_kb = json.loads(out.stdout)
    assert rows == 2 * 1000
    assert maxrss_kb - loaded_kb < 512 * 1024  # the battle itself adds under 512 MB
    assert maxrss_kb < 2 * 1024 * 1024


def _horde(per_side: int) -> dict:
    data = copy.deepcopy(YETI)
    data["sides"]["party"]["combatants"] = [dict(YETI["sides"]["party"]["combatants"][2], name="Warrior",
                                                 count=per_side)]
    data["sides"]["yeti"]["combatants"] = [dict(YETI["sides"]["yeti"]["combatants"][0], count=per_side)]
    data["battlefield"] = {"width": 100, "height": 300}
    return data


@pytest.mark.skip(reason="the compiled Gods & Monsters kernel plays one skirmish at a time on O(C) scratch: "
                         "there are no slices to bound (a horde test for a NumPy ruleset would keep this)")
def test_slices_bound_the_memory_of_a_big_battle(monkeypatch):
    import tracemalloc
    from sim import engine
    scen = sim.load_scenario(_horde(50))
    per_row = scen.ruleset.row_bytes(scen.ruleset.build(scen))

    def peak(n):
        tracemalloc.start()
        try:
            sim.run(scen, n=n, seed=1, max_rounds=20)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    monkeypatch.setattr(engine, "BATCH_BYTES", 6 * per_row)  # slices of 6 skirmishes
    sliced = peak(24)
    monkeypatch.setattr(engine, "BATCH_BYTES", 10**12)  # all 24 at once
    whole = peak(24)
    assert sliced < whole / 2.5
    assert sliced < 1.5 * 6 * per_row  # the ruleset's estimate is not below the real cost


def test_no_shipped_scenario_is_sliced_so_their_results_are_unchanged():
    from sim import engine, runner
    for path in sorted(Path("scenarios").rglob("*.yaml")):
        scen = sim.load_scenario(path)
        assert engine.rows_per_batch(scen.ruleset, scen.ruleset.build(scen), runner.CHUNK_SIZE) == runner.CHUNK_SIZE


# Issue 17: what a designer types or does must end in a result or one paragraph.

def _sides(data, party_count: int, yeti_count: int) -> dict:
    data["sides"]["party"]["combatants"] = [dict(YETI["sides"]["party"]["combatants"][2], name="Warrior",
                                                 count=party_count)]
    data["sides"]["yeti"]["combatants"] = [dict(YETI["sides"]["yeti"]["combatants"][0], count=yeti_count)]
    return data


@settings(max_examples=60, deadline=None, derandomize=CI)
@given(per_side=st.integers(1, 500),
       formations=st.tuples(*[st.sampled_from(["line", "column", "wedge", "scattered"])] * 2))
def test_a_big_battle_with_no_battlefield_block_always_fits_its_default_grid(per_side, formations):
    data = _sides(copy.deepcopy(YETI), per_side, per_side)
    for side, formation in zip(data["sides"].values(), formations):
        side["formation"] = formation
    scen = load_scenario(data)
    grid = scen.battlefield
    assert ((scen.layout.static >= 0) & (scen.layout.static < (grid.width, grid.height))).all()


@settings(max_examples=60, deadline=None, derandomize=CI)
@given(per_side=st.integers(1, 300), height=st.integers(1, 120))
def test_a_line_fills_every_cell_of_an_explicit_height_or_says_what_to_enlarge(per_side, height):
    data = _sides(copy.deepcopy(YETI), per_side, per_side)
    data["battlefield"] = {"height": height}
    scen = _load_or_error(data)
    if scen is None:  # only when a line (ranks fill the grid's whole height) cannot fit at all
        assert height < 3
        return
    assert (scen.layout.static[:, 1] < height).all() and (scen.layout.static[:, 1] >= 0).all()


def test_an_even_height_with_that_many_a_side_plays():
    data = _sides(copy.deepcopy(YETI), 44, 44)
    r = sim.run(data, n=4, seed=1, max_rounds=5)
    assert len(r.combatants) == 4 * 88
    data["battlefield"] = {"height": 30}
    assert load_scenario(_sides(data, 50, 50)).battlefield.height == 30


side_names = st.one_of(st.sampled_from(["draw", "unfinished", "Draw", " draw ", "UNFINISHED", "", "  ", None, 0, 1.5,
                                        True, "party", "yeti"]),
                       st.text(min_size=1, max_size=8))


@settings(max_examples=80, deadline=None, derandomize=CI)
@given(name=side_names)
def test_a_side_name_that_validate_accepts_also_plays(name):
    data = copy.deepcopy(YETI)
    data["sides"] = {"party": data["sides"]["party"], name: data["sides"]["yeti"]}
    scen = _load_or_error(data)
    if scen is None:
        return
    assert str(name).strip().lower() not in ("draw", "unfinished")
    r = sim.run(scen, n=8, seed=0, max_rounds=20)
    assert set(r.skirmishes["winner"].cat.categories) == {"party", name, "draw", "unfinished"}


conditions = st.one_of(
    st.integers(1, 6000).map(lambda k: "not " * k + "round > 1"),
    st.integers(1, 30000).map(lambda k: " and ".join(["round > 1"] * k)),
    st.integers(1, 30000).map(lambda k: "+".join(["1"] * k) + " > 0"),
    st.integers(1, 300).map(lambda k: "(" * k + "round" + ")" * k + " > 1"),
    st.integers(1, 3000).map(lambda k: "-" * k + "round > 1"),
)


@settings(max_examples=60, deadline=None, derandomize=CI)
@given(cond=conditions)
def test_a_huge_condition_is_compiled_or_refused_quickly(cond):
    import time
    data = copy.deepcopy(YETI)
    data["sides"]["yeti"]["policy"]["rules"] = [{"if": cond, "do": "attack"}]
    start = time.perf_counter()
    scen = _load_or_error(data)
    assert time.perf_counter() - start < 2
    if scen is not None:
        assert len(cond) <= 1000
        sim.run(scen, n=4, seed=0, max_rounds=5)


@settings(max_examples=40, deadline=None, derandomize=CI)
@given(x=st.integers(-10, 10**6), y=st.integers(-10, 10**6))
def test_an_explicit_position_is_placed_or_refused(x, y):
    data = copy.deepcopy(YETI)
    data["sides"]["yeti"]["combatants"][0]["position"] = [x, y]
    data["battlefield"] = {"width": 2000, "height": 2000}
    scen = _load_or_error(data)
    if scen is not None:
        assert 0 <= x < 2000 and 0 <= y < 2000
        assert tuple(scen.layout.static[-1]) == (x, y)


too_big = st.integers(10**9 + 1, 10**40)
YETI_FILE = "scenarios/gods_and_monsters/yeti.yaml"


@settings(max_examples=30, deadline=None, derandomize=CI)
@given(args=st.one_of(
    too_big.map(lambda v: ["run", YETI_FILE, "-n", str(v)]),
    too_big.map(lambda v: ["run", YETI_FILE, "-n", str(v), "--summary-only"]),
    st.integers(2**63, 10**30).map(lambda v: ["run", YETI_FILE, "--seed", str(v)]),
    st.integers(10**6 + 1, 10**30).map(lambda v: ["run", YETI_FILE, "--max-rounds", str(v)]),
    st.integers(257, 10**9).map(lambda v: ["run", YETI_FILE, "-j", str(v)]),
    too_big.map(lambda v: ["trace", YETI_FILE, "-n", str(v)]),
    too_big.map(lambda v: ["trace", YETI_FILE, "--skirmish", str(v)]),
    st.integers(10**4, 10**30).map(lambda v: ["sweep", YETI_FILE, "--vary",
                                              f"sides.yeti.combatants[Yeti].defense=0..{v}"]),
    st.integers(45, 200).map(lambda v: ["sweep", YETI_FILE, "--vary", f"sides.yeti.combatants[Yeti].defense=0..{v}",
                                        "--vary", f"sides.yeti.combatants[Yeti].level=0..{v}"]),
    st.sampled_from([["run", YETI_FILE, "--precision", "0"], ["run", YETI_FILE, "--precision", "-1"],
                     ["run", YETI_FILE, "--precision", "2"], ["sweep", YETI_FILE, "--precision", "0"]]),
))
def test_numbers_past_the_limits_are_refused_at_once(args):
    import time
    start = time.perf_counter()
    r = CliRunner().invoke(main, args)
    assert time.perf_counter() - start < 5
    assert r.exit_code == 2, (args, r.output, r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and r.stdout == "", r.output


@pytest.fixture
def played(monkeypatch):
    """Records every skirmish run the CLI starts, to prove a refusal came before any."""
    from sim import rundir, runner
    calls = []
    real_run, real_chunked = runner.run, rundir.run_chunked
    monkeypatch.setattr(runner, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    monkeypatch.setattr(rundir, "run_chunked", lambda *a, **k: calls.append(a) or real_chunked(*a, **k))
    return calls


@pytest.mark.parametrize("option", ["--out", "--run-dir", "--report"])
def test_an_output_below_a_plain_file_is_refused_before_playing(tmp_path, played, option):
    (tmp_path / "plain").write_text("a file")
    target = tmp_path / "plain" / "sub" / ("t.parquet" if option == "--out" else "dir")
    r = CliRunner().invoke(main, ["run", YETI_FILE, "-n", "50", option, str(target)])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"error: {option} ") and "is a file" in r.stderr and r.stderr.count("\n") == 1
    assert played == []


@pytest.mark.parametrize("option", ["--out", "--report"])
def test_an_analysis_output_below_a_plain_file_is_refused_before_playing(tmp_path, monkeypatch, option):
    import importlib
    sweep_module = importlib.import_module("sim.analysis.sweep")  # sim.analysis.sweep is also the function
    monkeypatch.setattr(sweep_module, "play_variants", lambda *a, **k: pytest.fail("played"))
    (tmp_path / "plain").write_text("a file")
    r = CliRunner().invoke(main, ["sweep", YETI_FILE, "--vary", "sides.yeti.combatants[Yeti].defense=1..2",
                                  "-n", "50", option, str(tmp_path / "plain" / "x")])
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {option} ") and r.stderr.count("\n") == 1


def test_several_files_are_all_checked_before_the_first_is_played(tmp_path, played):
    bad = tmp_path / "bad.yaml"
    data = copy.deepcopy(YETI)
    data["sides"]["draw"] = data["sides"].pop("yeti")
    bad.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(main, ["run", YETI_FILE, YETI_FILE, str(bad), "-n", "50", "--json"])
    assert r.exit_code == 2 and "a side is named 'draw'" in r.stderr
    assert r.stdout == "" and played == []
    (tmp_path / "runs" / "yeti").mkdir(parents=True)
    (tmp_path / "runs" / "yeti" / "stray.txt").write_text("not a run")
    r = CliRunner().invoke(main, ["run", YETI_FILE, "scenarios/gods_and_monsters/goblin_ambush.yaml", "-n", "50",
                                  "--run-dir", str(tmp_path / "runs")])
    assert r.exit_code == 2 and "holds no run" in r.stderr and played == []


def test_tables_and_reports_get_the_permissions_of_any_new_file(tmp_path):
    old = os.umask(0o022)
    try:
        for extra in ([], ["--report", str(tmp_path / "rep")]):
            out = tmp_path / f"o{len(extra)}" / "t.parquet"
            r = CliRunner().invoke(main, ["run", YETI_FILE, "-n", "50", "--out", str(out), *extra])
            assert r.exit_code == 0, r.output
            for p in out.parent.iterdir():
                assert p.stat().st_mode & 0o777 == 0o644, p
        assert all(p.stat().st_mode & 0o777 == 0o644 for p in (tmp_path / "rep").iterdir())
    finally:
        os.umask(old)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_table_given_to_report_is_one_paragraph(tmp_path, damage):
    out = tmp_path / "t.parquet"
    assert CliRunner().invoke(main, ["run", YETI_FILE, "-n", "50", "--out", str(out)]).exit_code == 0
    victim = out  # the skirmish table (t.combatants.parquet beside it)
    raw = victim.read_bytes()
    victim.write_bytes({"garbage": b"not parquet at all", "truncated": raw[: len(raw) // 2], "empty": b""}[damage])
    r = CliRunner().invoke(main, ["report", str(out), "-o", str(tmp_path / "rep")])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"error: {out}: cannot be read") and r.stderr.count("\n") == 1
    assert not (tmp_path / "rep").exists()


def test_a_damaged_run_folder_is_replayed_where_damaged_and_gives_the_uninterrupted_result(tmp_path, monkeypatch):
    from sim import runner
    monkeypatch.setattr(runner, "CHUNK_SIZE", 200)
    run_dir = tmp_path / "run"
    whole = sim.run_to_folder(YETI_FILE, run_dir, n=1000, seed=9)
    chunks = run_dir / "chunks"
    (run_dir / "summary.json").unlink()
    (chunks / "chunk-000001.agg.npz").write_bytes(b"junk")
    raw = (chunks / "chunk-000003.combatants.parquet").read_bytes()
    (chunks / "chunk-000003.combatants.parquet").write_bytes(raw[:100])
    (chunks / "chunk-000004.skirmishes.parquet").unlink()
    again = sim.run_to_folder(YETI_FILE, run_dir, n=1000, seed=9, resume=True)
    assert again.summary() == whole.summary()
    assert [chunk for chunk, _ in again.replayed] == [1, 3, 4]  # what the CLI's note names (issue 31)
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(again.combatants, sim.run(YETI_FILE, n=1000, seed=9).combatants)


def test_ctrl_c_before_any_chunk_is_status_130_not_a_click_abort(monkeypatch):
    import sim.scenario

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(sim.scenario, "load_scenario", interrupted)
    r = CliRunner().invoke(main, ["run", YETI_FILE, "-n", "50"])
    assert r.exit_code == 130 and r.stderr == "interrupted. No file was left half-written.\n"


def test_a_worker_death_in_a_plain_parallel_run_is_a_run_failure(monkeypatch):
    from sim import runner
    from sim.backends import RunFailed
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    def dies():
        raise TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated.")
    with pytest.raises(RunFailed, match="a worker process died .* fewer workers"):
        runner._worker_deaths_reported(dies, [("{}", "x", 0, 100, 7, 10, False)])


def test_a_policy_of_thousands_of_rules_is_refused_at_load(tmp_path):
    from sim.policy import MAX_RULES
    data = yaml.safe_load(open(YETI_FILE, encoding="utf-8"))
    data["sides"]["yeti"]["policy"]["rules"] = [{"if": f"round == {i}", "do": "attack"} for i in range(MAX_RULES + 1)]
    path = tmp_path / "many.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    r = CliRunner().invoke(main, ["validate", str(path)])
    assert r.exit_code == 2
    assert f"at most {MAX_RULES}" in r.output and "rules" in r.output
    data["sides"]["yeti"]["policy"]["rules"] = data["sides"]["yeti"]["policy"]["rules"][:MAX_RULES]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert CliRunner().invoke(main, ["validate", str(path)]).exit_code == 0
