"""The analysis commands: thin wrappers, --json, --out, errors exit 2."""
import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from sim.cli import main
from sim.io import read_meta
from tests.analysis_helpers import duel, exact_hero_win

HERO_DEF = "sides.hero.combatants[Hero].defense"


@pytest.fixture
def scen(tmp_path):
    p = tmp_path / "duel.yaml"
    p.write_text(yaml.safe_dump(duel(), sort_keys=False))
    return str(p)


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_sweep_json_and_out(scen, tmp_path):
    out = tmp_path / "sweep.parquet"
    r = invoke("sweep", scen, "--vary", f"{HERO_DEF}=0..2", "-n", "1500", "--seed", "3", "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    payload = json.loads(r.stdout)
    assert payload["command"] == "sweep" and len(payload["rows"]) == 3
    assert payload["rows"][0]["hero.diff_prev"] is None
    df = pd.read_parquet(out)
    assert list(df[HERO_DEF]) == [0, 1, 2]
    assert {"scenario_hash", "seed", "rule_options", "package_version"} <= set(df.columns)
    assert read_meta(out)["command"] == "sweep"


def test_sweep_text_and_csv(scen, tmp_path):
    out = tmp_path / "s.csv"
    r = invoke("sweep", scen, "--vary", "sides.hero.combatants[Hero].weapons[0].damage=3,d4", "-n", "800",
               "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "2 variants x 800 skirmishes" in r.stdout and "pts" in r.stdout
    assert len(pd.read_csv(out)) == 2 and (tmp_path / "s.meta.json").exists()


def test_tune_command(scen):
    target = exact_hero_win(hero_defense=3)
    r = invoke("tune", scen, "--param", HERO_DEF, "--target", f"hero.win_rate={target}", "--range", "-10..10",
               "-n", "4000", "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    payload = json.loads(r.stdout)
    assert payload["status"] == "found" and payload["value"] == 3
    r = invoke("tune", scen, "--param", HERO_DEF, "--target", "hero.win_rate=0.99", "--range", "-2..2", "-n", "1000")
    assert r.exit_code == 3 and "unreachable" in r.stdout  # finished, but no answer: scripts can tell


def test_sensitivity_and_tournament_commands(scen):
    r = invoke("sensitivity", scen, "--combatant", "Monster", "-n", "1000")
    assert r.exit_code == 0, r.output
    assert "Monster defense" in r.stdout
    r = invoke("tournament", scen, "--policies", "hero=random,focus", "--policies",
               "monster={brave: {flee_below: 0}, timid: {flee_below: 0.9}}", "-n", "1000", "--json")
    assert r.exit_code == 0, r.output
    payload = json.loads(r.stdout)
    assert len(payload["rows"]) == 4 and len(payload["verdicts"]) == 2 and payload["best_responses"]
    r = invoke("tournament", scen, "--policies", "hero=random", "--policies", "monster=scenario,timid", "-n", "100")
    assert r.exit_code == 2 and "no preset 'timid'" in r.output


def test_run_with_precision(scen):
    r = invoke("run", scen, "--precision", "0.05", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["provenance"]["adaptive"]["reached"]
    assert all((v["ci95"][1] - v["ci95"][0]) / 2 <= 0.05 for v in s["sides"].values())
    r = invoke("run", scen, "--precision", "0.001", "--max", "2000")
    assert r.exit_code == 3 and "NOT reached" in r.stdout and "2,000 skirmishes" in r.stdout
    r = invoke("run", scen, "-n", "300")  # the plain path is untouched
    assert r.exit_code == 0 and "300 skirmishes" in r.stdout


def test_bad_input_exits_2(scen):
    for args in (["sweep", scen, "--vary", "nonsense"], ["sweep", scen, "-n", "10"],
                 ["tune", scen, "--param", HERO_DEF, "--target", "hero=0.5"],
                 ["sensitivity", scen, "--combatant", "Nobody"],
                 ["run", scen, "--precision", "2"]):
        r = invoke(*args)
        assert r.exit_code == 2, args
        assert r.output.startswith("error:") and "Traceback" not in r.output
