"""The command line: what a designer types and what comes back."""
from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.io import read_meta

YETI = "scenarios/gods_and_monsters/yeti.yaml"
GOBLINS = "scenarios/gods_and_monsters/goblin_ambush.yaml"


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_json_prints_exactly_one_object_with_the_documented_keys():
    res = CliRunner().invoke(main, ["run", YETI, "-n", "3000", "--seed", "5", "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)  # fails if anything but one JSON document is on stdout
    assert isinstance(payload, dict)
    for key in ("scenario", "ruleset", "skirmishes", "seed", "sides", "draw_rate", "unfinished_rate",
                "rounds", "combatants"):
        assert key in payload, key
    assert payload["scenario"] == "Yeti in the snowy mountains"
    assert payload["ruleset"] == "gods_and_monsters"
    assert payload["skirmishes"] == 3000 and payload["seed"] == 5
    assert set(payload["sides"]) == {"party", "yeti"}
    total = payload["draw_rate"] + payload["unfinished_rate"]
    for side in payload["sides"].values():
        assert set(side) >= {"win_rate", "ci95"}
        lo, hi = side["ci95"]
        assert 0 <= lo <= side["win_rate"] <= hi <= 1
        total += side["win_rate"]
    assert abs(total - 1) < 1e-9
    assert set(payload["rounds"]) >= {"mean", "p50", "p90"}
    assert payload["rounds"]["p50"] <= payload["rounds"]["p90"]
    names = [c["name"] for c in payload["combatants"]]
    assert names == ["Sam Stevens", "Charlotte Kordé", "Toromeen", "Yeti"]
    for c in payload["combatants"]:
        assert set(c) >= {"name", "side", "attacks", "hits", "damage_dealt", "damage_taken", "down_rate"}
        assert 0 <= c["hits"] <= c["attacks"] and 0 <= c["down_rate"] <= 1


def test_json_through_a_real_process_has_nothing_else_on_stdout():
    proc = subprocess.run([sys.executable, "-m", "sim", "run", YETI, "-n", "500", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().count("\n") == 0
    assert json.loads(proc.stdout)["skirmishes"] == 500


def test_json_for_a_folder_holds_every_scenario():
    res = invoke("run", "scenarios/gods_and_monsters", "-n", "300", "--json")
    payload = json.loads(res.stdout)
    assert len(payload["scenarios"]) >= 3
    assert "Yeti in the snowy mountains" in {s["scenario"] for s in payload["scenarios"]}


def test_text_summary_names_sides_and_combatants():
    res = invoke("run", YETI, "-n", "1000")
    assert res.exit_code == 0
    for word in ("party", "yeti", "Toromeen", "Who wins", "Fight length"):
        assert word in res.output


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_out_writes_both_tables(tmp_path, suffix):
    target = tmp_path / f"x.{suffix}"
    res = invoke("run", GOBLINS, "-n", "700", "--seed", "3", "--out", str(target))
    assert res.exit_code == 0, res.output
    read = pd.read_parquet if suffix == "parquet" else pd.read_csv
    sk = read(target)  # X.parquet itself is the skirmish table, so pandas reads what was asked for
    cb = read(tmp_path / f"x.combatants.{suffix}")
    assert len(sk) == 700 and list(sk["skirmish"]) == list(range(700))
    assert {"winner", "rounds"} <= set(sk.columns)
    assert len(cb) == 700 * 9
    assert {"skirmish", "combatant", "side", "attacks", "hits", "damage_dealt", "damage_taken",
            "final_state", "down_round"} <= set(cb.columns)
    # `count: 6` made six distinct goblins.
    assert {f"Goblin {i}" for i in range(1, 7)} <= set(cb["combatant"].astype(str))
    meta = read_meta(target) if suffix == "parquet" else \
        json.loads((tmp_path / "x.meta.json").read_text())
    assert meta["seed"] == 3 and meta["skirmishes"] == 700 and meta["ruleset"] == "gods_and_monsters"
    assert "resolution" in meta["rule_options"]
    assert not list(tmp_path.glob("*.part"))  # nothing half-written left behind


def test_set_changes_the_run():
    plain = json.loads(invoke("run", YETI, "-n", "2000", "--json").stdout)
    hard = json.loads(invoke("run", YETI, "-n", "2000", "--json",
                             "--set", "sides.yeti.combatants[Yeti].defense=15").stdout)
    hit = lambda p, name: next(c["hit_rate"] for c in p["combatants"] if c["name"] == name)
    assert hit(hard, "Toromeen") < hit(plain, "Toromeen") - 0.2
    assert plain["provenance"]["scenario_hash"] != hard["provenance"]["scenario_hash"]


def test_validate_and_rules_commands():
    res = invoke("validate", "scenarios/")
    assert res.exit_code == 0 and res.output.count(": ok (") >= 3
    res = invoke("rules", "gods_and_monsters")
    assert res.exit_code == 0 and "resolution (default 'simultaneous'" in res.output
    res = CliRunner().invoke(main, ["rules", "gods_and_monster"])
    assert res.exit_code == 2 and "Did you mean 'gods_and_monsters'" in res.output


def test_trace_command_prints_the_fight():
    res = invoke("trace", YETI, "--skirmish", "3", "-n", "10")
    assert res.exit_code == 0
    assert "--- Round 1 ---" in res.output and "Result after" in res.output
    res = CliRunner().invoke(main, ["trace", YETI, "--skirmish", "10", "-n", "10"])
    assert res.exit_code == 2 and "Traceback" not in res.output and "outside the run" in res.output


def test_out_folder_for_several_scenarios(tmp_path):
    res = invoke("run", "scenarios/gods_and_monsters", "-n", "200", "--out", str(tmp_path / "all"))
    assert res.exit_code == 0
    for stem in ("yeti", "goblin_ambush", "ogre_vs_two_warriors"):
        assert len(pd.read_parquet(tmp_path / "all" / f"{stem}.parquet")) == 200, stem
        assert len(pd.read_parquet(tmp_path / "all" / f"{stem}.combatants.parquet")) > 200
