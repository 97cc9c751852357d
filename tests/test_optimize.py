"""The strongest play: the search beats a deliberately bad policy on paired fights, is
deterministic, finds policies the scenario accepts, and `--play best` reaches the
analyses. Small budgets on the exact duel (Gods & Monsters, quick to play)."""
import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from sim.analysis import optimize_play
from sim.analysis import optimize_space as sp
from sim.analysis.optimize import Budget, optimize, parse_budget, with_policies
from sim.cli import main
from sim.errors import ScenarioError
from sim.policy import TARGET_MODES, policy_schema
from sim.scenario import load_scenario
from tests.analysis_helpers import duel

SMALL = Budget(far=2, first=100, rungs=4, confirm=2000, responses=1)
# Flees once it has lost a tenth of its verve and survival: a play any search should improve on.
TIMID = {"target": "random", "flee_below": 0.9}


def bad_duel() -> dict:
    return duel(hero_policy=dict(TIMID))


@pytest.fixture(scope="module")
def searched():
    return optimize(bad_duel(), n=3000, sides=["hero"], budget=SMALL)


def test_search_beats_a_deliberately_bad_policy(searched):
    hero = searched.set_index("side").loc["hero"]
    found = yaml.safe_load(hero["policy_found"])
    assert found["flee_below"] < TIMID["flee_below"]
    # Paired on the reported skirmishes, and on the search's fresh confirmation fights.
    assert hero["own_gain_lo"] > 0 and hero["shift_lo"] > 0
    step = searched.attrs["analysis"]["history"][0]
    assert step["side"] == "hero" and step["changed"] and step["gain_lo"] > 0
    # The monster was not searched: its play is as written in every profile.
    monster = searched.set_index("side").loc["monster"]
    assert not monster["searched"] and monster["changes"] == "{}"
    assert monster["policy_found"] == monster["policy_written"]


def test_one_response_that_changes_a_side_has_not_converged(searched):
    meta = searched.attrs["analysis"]
    assert meta["responses"] == 1 and not meta["converged"]
    assert "limit of 1 best responses" in meta["message"]


def test_as_written_figures_are_the_plain_run(searched):
    import sim
    run = sim.run(bad_duel(), n=3000)
    rate = float((run.skirmishes["winner"] == "hero").mean())
    assert searched.set_index("side").loc["hero", "written.win_rate"] == rate


def test_found_policy_validates_in_the_scenario(searched):
    data = bad_duel()
    text = searched.set_index("side").loc["hero", "policy_found"]
    data["sides"]["hero"]["policy"] = yaml.safe_load(text)  # what a designer pastes
    scen = load_scenario(data)
    assert scen.data["sides"]["hero"]["policy"] == searched.attrs["analysis"]["policies"]["hero"]
    assert with_policies(bad_duel(), searched.attrs["analysis"]["policies"]).hash == scen.hash


def test_provenance_in_rows_and_attrs(searched):
    for col in ("scenario_hash", "seed", "rule_options", "package_version"):
        assert searched[col].notna().all()
    assert searched["seed"].iloc[0] == 7
    assert searched.attrs["analysis"]["command"] == "optimize"
    assert searched.attrs["analysis"]["budget"]["responses"] == 1


def test_same_seed_same_answer_whatever_the_workers(searched):
    again = optimize(bad_duel(), n=3000, sides=["hero"], budget=SMALL, jobs=2)
    pd.testing.assert_frame_equal(searched, again)
    assert again.attrs["analysis"]["policies"] == searched.attrs["analysis"]["policies"]
    other = optimize(bad_duel(), n=3000, sides=["hero"], budget=SMALL, seed=8)
    assert other["seed"].iloc[0] == 8


def test_space_comes_from_the_ruleset_declarations():
    for path in ("scenarios/gods_and_monsters/yeti.yaml", "scenarios/lens/greatsword_vs_dagger.yaml",
                 "scenarios/lifeforce/duel.yaml"):
        scen = load_scenario(path)
        fields = policy_schema(scen.ruleset.policy_fields)
        side = scen.side_names[0]
        dims = {d.field: d.values for d in sp.space(scen, side)}
        assert "rules" not in dims and set(dims) <= set(fields)
        assert set(dims["target"]) == set(getattr(scen.ruleset, "target_modes", TARGET_MODES))
        for name, spec in fields.items():
            if spec.kind == "choice" and name != "target":
                assert set(dims[name]) == set(spec.choices), name
            if spec.kind in ("int", "float") and name in dims:
                numbers = [v for v in dims[name] if v is not None]
                assert all(spec.min is None or v >= spec.min for v in numbers)
                assert all(spec.max is None or v <= spec.max for v in numbers)


def test_a_field_every_combatant_sets_itself_is_not_searched():
    data = duel()
    data["sides"]["hero"]["combatants"][0]["policy"] = {"move": "hold"}
    dims = {d.field for d in sp.space(load_scenario(data), "hero")}
    assert "move" not in dims and "target" in dims


def test_budget_presets_and_pairs():
    assert parse_budget("quick").responses < parse_budget("thorough").responses
    assert parse_budget("responses=3,confirm=500") == Budget(responses=3, confirm=500)
    for bad in ("bogus", "responses=0", "confirm=x", "far=-1"):
        with pytest.raises(ScenarioError, match="--budget"):
            parse_budget(bad)


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def scen_file(tmp_path):
    p = tmp_path / "duel.yaml"
    p.write_text(yaml.safe_dump(bad_duel(), sort_keys=False))
    return str(p)


def test_cli_text_json_and_exit_3_when_not_converged(scen_file, tmp_path):
    args = ("optimize", scen_file, "--side", "hero", "-n", "2000",
            "--budget", "far=2,first=100,rungs=4,confirm=2000,responses=1")
    r = invoke(*args)
    assert r.exit_code == 3, r.output
    assert "strongest play found" in r.output and "NOT converged" in r.output
    r = invoke(*args, "--json", "--report", str(tmp_path / "rep"))
    assert r.exit_code == 3
    payload = json.loads(r.output)
    assert payload["command"] == "optimize" and {row["side"] for row in payload["rows"]} == {"hero", "monster"}
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "strongest found" in page and "flee_below" in page


@pytest.mark.parametrize("args", [("--side", "nobody"), ("--budget", "responses=many"), ("--seed", "-1")])
def test_cli_bad_input_exits_2_with_one_paragraph(scen_file, args):
    r = invoke("optimize", scen_file, *args)
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert len([p for p in r.output.strip().split("\n\n") if p.strip()]) == 1


@pytest.fixture
def tiny_play_budget(monkeypatch):
    monkeypatch.setattr(optimize_play, "BASE_BUDGET", SMALL)
    monkeypatch.setattr(optimize_play, "VARIANT_BUDGET", SMALL)


@pytest.mark.parametrize("command", [
    ("sweep", "--vary", "sides.monster.combatants[Monster].defense=0..1"),
    ("sensitivity", "--combatant", "Monster"),
    ("tune", "--param", "sides.monster.combatants[Monster].defense", "--target", "hero.win_rate=0.5",
     "--range", "-3..3"),
    ("tournament", "--policies", "hero=random"),
])
def test_play_best_reaches_the_four_analyses(scen_file, tiny_play_budget, command):
    name, *rest = command
    r = invoke(name, scen_file, *rest, "-n", "500", "--play", "best", "--json")
    assert r.exit_code in (0, 3), r.output
    payload = json.loads(r.output)
    if name == "tournament":
        assert "best" in payload["policies"]["hero"] and "best" in payload["policies"]["monster"]
    else:
        assert payload["play"] == "best"
        policies = payload["play_policies"]
        hero = (policies[0] if isinstance(policies, list) else policies)["hero"]
        assert hero["flee_below"] < TIMID["flee_below"]  # the timid hero no longer plays as written


def test_play_rejects_an_unknown_value(scen_file):
    r = invoke("sensitivity", scen_file, "--play", "clever")
    assert r.exit_code == 2 and "as-written" in r.output


def test_every_strongest_play_page_has_its_scenario_and_is_regenerated_from_it():
    from sim.report.regenerate import ROOT, STRONGEST_PLAY
    shipped = {p.name for p in (ROOT / "reports" / "strongest_play").iterdir() if p.is_dir()}
    assert shipped == {name.rsplit("/", 1)[1] for name in STRONGEST_PLAY}
    for name in STRONGEST_PLAY:
        assert (ROOT / "scenarios" / f"{name}.yaml").is_file()
