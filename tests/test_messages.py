"""Messages a designer reads (issue 31): one problem said once, hints for words from other
tools, libraries validated as libraries, every trace option explained."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
YETI = ROOT / "scenarios/gods_and_monsters/yeti.yaml"
GOBLINS = ROOT / "scenarios/gods_and_monsters/goblin_ambush.yaml"
LIBRARY = ROOT / "library/gods_and_monsters.yaml"


def _validate(*paths):
    r = CliRunner().invoke(main, ["validate", *map(str, paths)])
    return r.exit_code, r.stdout, r.stderr


def _edited(tmp_path, source: Path, old: str, new: str, name: str = "edited.yaml") -> Path:
    text = source.read_text(encoding="utf-8")
    assert old in text
    f = tmp_path / name
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    return f


def test_a_side_policy_problem_is_said_once_not_once_per_combatant(tmp_path):
    f = _edited(tmp_path, YETI, "policy: {target: random}", "policy: {target: lowest_hp}")
    code, _, err = _validate(f)
    assert code == 2
    assert err.count("lowest_hp") == 1 and "problems" not in err


@pytest.mark.parametrize("old, new, hint", [
    ("policy: {target: random}", "policy: {target: lowest_hp}", "Did you mean 'weakest'?"),
    ("policy: {target: random}", "policy: {target: closest}", "Did you mean 'nearest'?"),
])
def test_words_from_other_tools_get_our_word(tmp_path, old, new, hint):
    code, _, err = _validate(_edited(tmp_path, YETI, old, new))
    assert code == 2 and hint in err


def test_hp_in_a_condition_points_to_health(tmp_path):
    code, _, err = _validate(_edited(tmp_path, GOBLINS, "enemies_standing == 1", "hp < 3"))
    assert code == 2 and "uses 'hp'" in err and "Did you mean 'health'?" in err


def test_validate_checks_a_library_as_a_library():
    code, out, err = _validate(ROOT / "library")
    assert code == 0, err
    assert f"{ROOT / 'library/gods_and_monsters.yaml'}: ok (a gods_and_monsters library: 7 stat blocks, 1 weapon, " \
           "2 policies)" in out
    assert out.count(": ok (a ") == 3


@pytest.mark.parametrize("old, new, where", [
    ("    defense: 2\n", "    defense: 999\n", "field 'bestiary.Ogre.defense': got 999"),
    ("bully: {target: strongest", "bully: {target: lowest_hp", "field 'policies.bully.target': got 'lowest_hp'"),
])
def test_a_bad_definition_in_a_library_is_named_where_it_is(tmp_path, old, new, where):
    code, _, err = _validate(_edited(tmp_path, LIBRARY, old, new, "lib.yaml"))
    assert code == 2 and where in err and str(tmp_path / "lib.yaml") in err


@pytest.mark.parametrize("command", sorted(main.commands))
def test_every_option_says_what_it_does(command):
    for option in (p for p in main.commands[command].params if p.param_type_name == "option"):
        assert (option.help or "").strip(), f"skirmish {command} {option.opts[-1]} has no help text"


def test_a_report_shows_the_policy_a_combatant_plays_not_only_its_own_fields():
    """An ogre written {target: strongest, flee_below: 0.1} inherited its side's
    rout_below: 0.5 and fled in 60.6% of fights; the report showed the two fields only."""
    import yaml

    import sim
    from sim.report.designs import design_section
    data = yaml.safe_load(YETI.read_text(encoding="utf-8"))
    data["sides"]["yeti"]["policy"] = {"target": "random", "rout_below": 0.5}
    data["sides"]["yeti"]["combatants"][0]["policy"] = {"target": "strongest", "flee_below": 0.1}
    tables = dict(design_section(sim.load_scenario(data)).tables)
    yeti = tables["Side yeti — policy: target random, rout_below 0.5"]
    assert yeti.loc[0, "own policy"] == "target strongest, flee_below 0.1"
    assert yeti.loc[0, "policy as played"] == "target strongest, flee_below 0.1, rout_below 0.5"
    party = next(t for title, t in tables.items() if title.startswith("Side party"))
    assert "policy as played" not in party.columns  # no policy of its own: the side's heading says it


def test_a_result_shows_itself_in_a_line_and_a_small_table():
    """The default repr of a result printed both tables whole: 20,377 characters."""
    import sim
    result = sim.run(YETI, n=500, seed=3)
    line = repr(result)
    assert len(line) < 400 and "\n" not in line
    party = result.summary()["sides"]["party"]["win_rate"]
    assert line.startswith("<RunResult: Yeti in the snowy mountains") and f"party {100 * party:.1f}%" in line
    assert ".combatants (2,000 rows)" in line
    html = result._repr_html_()
    assert "<table>" in html and len(html) < 1000
    folded = sim.run_summary(YETI, n=500, seed=3)
    assert repr(folded).startswith("<ChunkedResult: Yeti") and "counts, sums and histograms only" in repr(folded)


def test_an_analysis_table_and_its_page_name_the_scenario(tmp_path):
    """The sweep, sensitivity, tournament and optimize pages had no scenario name in their
    title or provenance: shared alone, they did not say what they were about."""
    from sim.analysis import sweep
    from sim.report import report_frame
    df = sweep(str(YETI), {"sides.party.combatants[Toromeen].defense": [3, 4]}, n=300)
    assert set(df["scenario"]) == {"Yeti in the snowy mountains"} and set(df["scenario_file"]) == {str(YETI)}
    page = report_frame(df, tmp_path / "sweep").read_text(encoding="utf-8")
    assert "<title>Yeti in the snowy mountains — Sweep: " in page
    assert str(YETI) in page  # the provenance block names the file


def test_a_sweep_page_shows_the_paired_differences_its_table_holds(tmp_path):
    from sim.analysis import sweep
    from sim.report import report_frame
    df = sweep(str(YETI), {"sides.party.combatants[Toromeen].defense": [1, 4]}, n=400, seed=2)
    page = report_frame(df, tmp_path / "sweep").read_text(encoding="utf-8")
    assert "Paired against the first variant" in page
    change = 100 * df["yeti.diff_base"].iloc[1]
    assert f"{change:+.1f} [" in page
