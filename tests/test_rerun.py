"""`skirmish rerun PAGE`: a page replays from itself alone and names what differs, and why."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from sim.cli import main
from sim.recipe import SCRIPT_ID, with_recipe
from sim.rerun import page_lines, read_recipe, replay_argv

ROOT = Path(__file__).resolve().parents[1]


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _scenario_with_library(folder: Path) -> Path:
    """The Lens caster duel, its library included from another folder, as a designer lays them out."""
    (folder / "lib").mkdir(parents=True)
    (folder / "fights").mkdir()
    (folder / "lib" / "lens.yaml").write_text((ROOT / "library" / "lens.yaml").read_text())
    text = (ROOT / "scenarios" / "lens" / "caster_duel.yaml").read_text()
    text, swapped = re.subn(r"(?m)^include:.*$", "include: ../lib/lens.yaml", text)
    assert swapped == 1
    path = folder / "fights" / "duel.yaml"
    path.write_text(text)
    return path


def test_a_page_replays_identical_from_the_page_alone_with_its_overrides(tmp_path, monkeypatch):
    scen = _scenario_with_library(tmp_path / "src")
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page"
    done = _invoke("run", scen, "-n", 600, "--seed", 11, "--set", "run.max_rounds=40", "--report", page, "-q")
    assert done.exit_code == 0, done.output
    recipe = read_recipe(page)
    assert recipe["argv"][:2] == ["run", "src/fights/duel.yaml"]
    assert set(recipe["files"]) >= {"src/fights/duel.yaml", "src/lib/lens.yaml"}
    shutil.rmtree(tmp_path / "src")  # nothing but the page is left
    again = _invoke("rerun", page, "--json")
    assert again.exit_code == 0, again.output
    said = json.loads(again.output)
    assert said["identical"] and said["figures"] > 50 and said["differences"] == []


def test_a_changed_figure_is_named_with_its_section_and_the_reason(tmp_path):
    page = tmp_path / "page"
    assert _invoke("run", ROOT / "scenarios/lens/greatsword_vs_dagger.yaml", "-n", 400, "--report", page,
                   "-q").exit_code == 0
    index = page / "index.html"
    text = index.read_text()
    verdict = text.index('id="verdict"')
    first = re.compile(r"\d+\.\d%").search(text, verdict)
    index.write_text(text[:first.start()] + "12.3%" + text[first.end():])
    # The edit on a page that also names another numba: the line is named, the reason is the version.
    recipe = read_recipe(page)
    recipe["versions"]["numba"] = "0.1.0"
    index.write_text(with_recipe(index.read_text(), recipe))
    other = _invoke("rerun", page)
    assert other.exit_code == 3 and "another version plays it: numba 0.1.0 then" in other.output
    assert "different: 1 of" in other.output and "12.3%" in other.output and "[Verdict]" in other.output


def test_without_another_version_the_reason_is_an_edit_or_a_fault():
    from sim.recipe import versions
    from sim.rerun import Rerun, rerun_text
    now = versions()
    r = Rerun(page="p/index.html", command="skirmish run a.yaml", identical=False, figures=10,
              differences=[("Verdict", "wins 12.3%", "wins 48.1%")], versions_then=now, versions_now=now)
    text = rerun_text(r)
    assert "[Verdict] wins 12.3%" in text and "now: wins 48.1%" in text
    assert "the page was edited after it was written, or this is a fault" in text


def test_a_day_page_replays_identical(tmp_path):
    page = tmp_path / "day"
    assert _invoke("day", ROOT / "days/lens/duel_twice.yaml", "-n", 300, "--report", page).exit_code == 0
    again = _invoke("rerun", page)
    assert again.exit_code == 0 and again.output.startswith("identical: all"), again.output


def test_a_page_without_a_recipe_is_one_paragraph_and_exit_2(tmp_path):
    (tmp_path / "index.html").write_text("<html><body><h1>old page</h1></body></html>")
    done = _invoke("rerun", tmp_path)
    assert done.exit_code == 2
    assert "holds no replay recipe" in done.output and "skirmish run SCENARIO --report DIR" in done.output
    assert done.output.count("\n") == 1
    missing = _invoke("rerun", tmp_path / "nowhere")
    assert missing.exit_code == 2 and "no such report page" in missing.output


def test_the_replay_writes_its_page_aside_and_no_tables():
    argv = ["run", "a.yaml", "--out", "t.parquet", "--report", "pages/a", "--run-dir=rd", "-n", "5"]
    assert replay_argv(argv, Path("/x")) == ["run", "a.yaml", "--report", "/x", "-n", "5"]


def test_page_lines_read_words_and_numbers_not_pictures_or_provenance():
    html = ('<h1>T</h1><h2 id="verdict">Verdict</h2><p>wins <b>48.8%</b></p><img src="data:image/png;base64,AAAA">'
            '<table><tr><th>a</th><td>1.5</td></tr></table><h2 id="provenance">Provenance</h2><p>seed 3</p>'
            f'<script type="application/json" id="{SCRIPT_ID}">{{}}</script>')
    assert page_lines(html) == [("", "T"), ("", "Verdict"), ("Verdict", "wins 48.8%"), ("Verdict", "a"),
                                ("Verdict", "1.5")]


def test_a_shipped_page_replays_identical():
    # The shipped pages are regenerated with the code that plays them: one that no longer
    # replays identically is stale (python -m sim.report.regenerate), or a figure moved.
    done = _invoke("rerun", ROOT / "reports/lens/greatsword_vs_dagger")
    assert done.exit_code == 0, done.output
    assert done.output.startswith("identical: all")
