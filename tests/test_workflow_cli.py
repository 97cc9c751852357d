"""From a blank page to a shared answer: what a result records, what --out writes, how
the commands are reached and what their exit statuses say."""
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import sim
from sim.cli import main
from sim.io import read_meta
from tests.analysis_helpers import duel, exact_hero_win

YETI = "scenarios/gods_and_monsters/yeti.yaml"
SET = "sides.yeti.combatants[Yeti].defense=4"
HERO_DEF = "sides.hero.combatants[Hero].defense"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_overrides_and_the_scenario_as_played_are_in_json_and_parquet(tmp_path):
    out = tmp_path / "o" / "t.parquet"
    res = invoke("run", YETI, "-n", "500", "--set", SET, "--out", out, "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    prov = payload["provenance"]
    assert prov["overrides"] == {"sides.yeti.combatants[Yeti].defense": "4"}
    played = yaml.safe_load(prov["scenario_text"])
    assert played["sides"]["yeti"]["combatants"][0]["defense"] == 4  # after the override (the file says 3)
    assert sim.run(played, n=500).summary()["sides"] == payload["sides"]  # it replays the same fights
    meta = read_meta(out)
    assert meta["overrides"] == prov["overrides"] and meta["scenario_text"] == prov["scenario_text"]
    assert payload["written"] == [str(out), str(out.with_name("t.combatants.parquet"))]
    assert sim.run(YETI, n=10).meta["overrides"] == {}


def test_out_x_parquet_is_what_pandas_reads(tmp_path):
    out = tmp_path / "o" / "t.parquet"
    res = invoke("run", YETI, "-n", "300", "--out", out)
    assert res.exit_code == 0
    assert f"wrote {out}, {tmp_path / 'o' / 't.combatants.parquet'}" in res.output
    sk, cb = pd.read_parquet(out), pd.read_parquet(tmp_path / "o" / "t.combatants.parquet")
    assert len(sk) == 300 and set(sk.columns) == {"skirmish", "winner", "rounds"} and len(cb) == 300 * 4
    assert sorted(p.name for p in out.parent.iterdir()) == ["t.combatants.parquet", "t.parquet"]
    # The report reader takes the same path.
    from sim.report.tables import load_tables
    (tables,) = load_tables(out)
    assert len(tables.skirmishes) == 300 and len(tables.combatants) == 1200


def test_streamed_out_uses_the_same_names(tmp_path):
    out = tmp_path / "s.parquet"
    res = invoke("run", YETI, "-n", "300", "--run-dir", tmp_path / "run", "--out", out)
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(out)) == 300 and (tmp_path / "s.combatants.parquet").exists()


@pytest.mark.parametrize("module", ["sim.cli", "sim"])
def test_every_command_is_reachable_with_python_m(module):
    for command in ("sweep", "tune", "sensitivity", "tournament", "report", "new", "validate"):
        proc = subprocess.run([sys.executable, "-m", module, command, "--help"], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 0 and "Usage:" in proc.stdout, (module, command, proc.stderr)


@pytest.fixture
def duel_file(tmp_path):
    p = tmp_path / "duel.yaml"
    p.write_text(yaml.safe_dump(duel()), encoding="utf-8")
    return p


def test_exit_status_3_when_precision_is_not_reached(duel_file):
    r = invoke("run", duel_file, "--precision", "0.001", "--max", "2000", "--json")
    assert r.exit_code == 3 and json.loads(r.stdout)["provenance"]["adaptive"]["reached"] is False
    assert invoke("run", duel_file, "--precision", "0.05").exit_code == 0
    r = invoke("sweep", duel_file, "--vary", f"{HERO_DEF}=0..1", "--precision", "0.001", "--max", "2000")
    assert r.exit_code == 3 and "NOT reached" in r.stdout
    assert invoke("sweep", duel_file, "--vary", f"{HERO_DEF}=0..1", "--precision", "0.05").exit_code == 0


def test_exit_status_3_is_in_the_help():
    for command in ("run", "sweep", "tune"):
        assert "3" in invoke(command, "--help").output and "Exit status" in invoke(command, "--help").output
    assert "Exit status 3" in Path("docs/analysis.md").read_text().replace("| 3 |", "Exit status 3")


def test_tune_json_gives_the_constants_once(duel_file):
    target = exact_hero_win(hero_defense=3)
    r = invoke("tune", duel_file, "--param", HERO_DEF, "--target", f"hero.win_rate={target}", "--range", "-10..10",
               "-n", "2000", "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    payload = json.loads(r.stdout)
    assert isinstance(payload["rule_options"], dict) and payload["status"] == "found"
    assert len(payload["rows"]) >= 3
    for row in payload["rows"]:
        assert not {"rule_options", "message", "param", "target"} & set(row)
        assert {"value", "role", "skirmishes", "hero.win_rate"} <= set(row)
    r = invoke("tune", duel_file, "--param", HERO_DEF, "--target", "hero.win_rate=0.99", "--range", "-2..2",
               "-n", "500", "--json")
    assert r.exit_code == 3 and json.loads(r.stdout)["status"] == "unreachable"
