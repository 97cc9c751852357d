"""The pages of the analyses over a day (sim/report/day_analyses.py, day_rankings.py): sweep,
tune, sensitivity, tournament and where to rest, each with `--report DIR`."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.report.figures import pct
from sim.rerun import page_lines
from tests.report_helpers import stable_text

ROOT = Path(__file__).resolve().parents[1]
# Relative to ROOT, where the commands run: the page and its replay then name the day file alike.
ROAD = "days/gods_and_monsters/road_to_hightown.yaml"
SURVIVAL = "party.combatants[Toromeen].survival"

COMMANDS = {
    "sweep": ["sweep", ROAD, "--vary", f"{SURVIVAL}=5,7,9", "-n", "300", "--set",
              "party.combatants[Sam Stevens].defense=3"],
    "tune": ["tune", ROAD, "--param", SURVIVAL, "--target", "day.survival=0.8", "-n", "300", "--max", "600"],
    "sensitivity": ["sensitivity", ROAD, "--combatant", "Toromeen", "-n", "200"],
    "tournament": ["tournament", ROAD, "--policies", "party=random,focus,weakest", "-n", "300"],
    "where_to_rest": ["day", ROAD, "--where-to-rest", "camp", "-n", "300"],
}
FIGURES = {"sweep": ["day-sweep"], "tune": ["day-tune"], "sensitivity": ["day-sensitivity"],
           "tournament": ["day-tournament", "day-tournament-vs-best"],
           "where_to_rest": ["where-to-rest", "where-to-rest-vs-written"]}


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each command's page and the JSON it printed, played once for the tests below."""
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        for kind, args in COMMANDS.items():
            page = tmp_path_factory.mktemp(kind) / "page"
            done = _invoke(*args, "--json", "-q", "--report", page)
            assert done.exit_code == 0, done.output
            out[kind] = (page, json.loads(done.stdout))
    return out


def _lines(page: Path) -> list[str]:
    return [line for _, line in page_lines((page / "index.html").read_text(encoding="utf-8"))]


def _cell(d, lo, hi, scale=100, digits=1) -> str:
    return f"{scale * d:+.{digits}f} [{scale * lo:+.{digits}f}, {scale * hi:+.{digits}f}]"


def _rate_cells(row: dict, key: str) -> list[str]:
    return [f"{100 * row[key]:.1f}", f"[{100 * row[key + '_lo']:.1f}, {100 * row[key + '_hi']:.1f}]"]


def _expected(kind: str, data: dict) -> tuple[list[str], list[str]]:
    """(verdict sentences, table cells) the page must hold, from the command's JSON."""
    rows = data["rows"]
    if kind == "sweep":
        rates = [r["day.survival"] for r in rows]
        verdict = [f"the party lives through the day on {pct(min(rates))} to {pct(max(rates))} of 300 days each",
                   "--set party.combatants[Sam Stevens].defense=3"]
        cells = [c for r in rows for c in _rate_cells(r, "day.survival") + [f"{r['day.deaths']:.2f}"]]
        cells += [_cell(*(r["day.survival.diff_base" + t] for t in ("", "_lo", "_hi"))) for r in rows[1:]]
        cells += [_cell(*(r["day.deaths.diff_base" + t] for t in ("", "_lo", "_hi")), 1, 2) for r in rows[1:]]
    elif kind == "tune":
        verdict = [data["message"]]
        cells = [c for r in rows for c in _rate_cells(r, "day.survival") + [f"{r['days']:,}"]]
        cells += [_cell(r["diff_vs_answer"], r["diff_vs_answer_lo"], r["diff_vs_answer_hi"]) for r in rows
                  if r["role"] != "answer"]
    elif kind == "sensitivity":
        top = rows[0]
        verdict = [f"{top['combatant']}'s {top['stat']} ({top['label']}) moves day survival most: "
                   f"{100 * top['delta']:+.1f} points [{100 * top['delta_lo']:+.1f}, {100 * top['delta_hi']:+.1f}]",
                   f"{sum(not r['significant'] for r in rows)} of {len(rows)} steps make no clear change"]
        cells = [c for r in rows for c in _rate_cells(r, "survival")
                 + [_cell(r["delta"], r["delta_lo"], r["delta_hi"]),
                    _cell(r["deaths_delta"], r["deaths_delta_lo"], r["deaths_delta_hi"], 1, 2)]]
    elif kind == "tournament":
        verdict = [data["verdict"]]
        cells = [c for r in rows for c in _rate_cells(r, "day.survival") + _rate_cells(r, "day.nobody_dies")[:1]
                 + [f"party {r['policy.party']}", f"{r['day.deaths']:.2f}"]]
        cells += [_cell(r["vs_best"], r["vs_best_lo"], r["vs_best_hi"]) for r in rows[1:]]
    else:
        best = max(rows, key=lambda r: r["survival"])
        verdict = [f"Best: after {best['after']!r}"]
        cells = [c for r in rows for c in _rate_cells(r, "survival") + [r["after"], f"{r['deaths']:.2f}"]]
        cells += [_cell(r["diff"], r["diff_lo"], r["diff_hi"]) for r in rows[1:]]
    return verdict, cells


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_each_page_holds_the_table_the_verdict_and_the_figures(pages, kind):
    page, data = pages[kind]
    html = (page / "index.html").read_text(encoding="utf-8")
    lines = _lines(page)
    said = " ".join(lines[:lines.index("Verdict") + 6])
    verdict, cells = _expected(kind, data)
    for sentence in verdict:
        assert sentence in said, (sentence, said)
    missing = [c for c in cells if c not in lines]
    assert not missing, missing
    for stem in FIGURES[kind]:
        assert (page / f"{stem}.png").stat().st_size > 1000 and (page / f"{stem}.svg").stat().st_size > 1000
        assert f'href="{stem}.png"' in html
    assert f"<code>{sim.day.load_day(ROOT / ROAD).hash}</code>" in html  # the day file's, before --set
    for field in ("day hash", "seed", "days", "package version", "day file as played"):
        assert f"<th>{field}</th>" in html, field


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_rerun_of_each_page_reproduces_it(pages, kind, tmp_path, monkeypatch):
    page, _ = pages[kind]
    monkeypatch.chdir(tmp_path)  # the replay needs nothing but the page
    done = _invoke("rerun", page, "--keep", tmp_path / "keep")
    assert done.exit_code == 0 and done.output.startswith("identical: all"), done.output
    assert stable_text(page / "index.html") == stable_text(tmp_path / "keep" / "_replayed_page" / "index.html")


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_a_report_folder_that_cannot_be_written_is_refused_before_play(kind, tmp_path, monkeypatch):
    def played(*_, **__):
        raise AssertionError("a day was played")
    monkeypatch.setattr(sim.day, "run", played)
    monkeypatch.chdir(ROOT)
    (tmp_path / "file.txt").write_text("a file, not a folder")
    done = _invoke(*COMMANDS[kind], "-q", "--report", tmp_path / "file.txt" / "page")
    assert done.exit_code == 2, done.output
    assert "is below" in done.output and "which is a file; give a path in a folder" in done.output
    assert done.output.count("\n") == 1


def _frame(data: dict) -> pd.DataFrame:
    """The analysis' DataFrame again from the JSON its command printed."""
    df = pd.DataFrame(data["rows"])
    df.attrs["analysis"] = {k: v for k, v in data.items() if k != "rows"}
    return df


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_no_text_of_a_figure_overlaps_another_or_leaves_the_canvas(pages, kind):
    from sim.report import day_analyses, day_rankings
    from sim.report.style import text_overlaps
    figures = {"sweep": day_analyses.sweep_figures, "tune": day_analyses.tune_figures,
               "sensitivity": day_rankings.sensitivity_figures, "tournament": day_rankings.tournament_figures,
               "where_to_rest": day_rankings.where_to_rest_figures}[kind](_frame(pages[kind][1]))
    assert [stem for stem, _ in figures] == FIGURES[kind]
    for stem, fig in figures:
        assert text_overlaps(fig) == [], stem


def test_the_figures_draw_the_frame_s_rates_and_paired_intervals():
    from sim.day.placement import where_to_rest
    from sim.day.variants import sweep_day
    from sim.report.day_analyses import sweep_figures
    from sim.report.day_rankings import paired_figure
    df = sweep_day(ROOT / ROAD, {SURVIVAL: "5,9"}, days=300)
    ax = sweep_figures(df, [SURVIVAL])[0][1].axes[0]
    assert np.allclose(ax.lines[0].get_ydata(), 100 * df["day.survival"])
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert np.isclose(band.min(), 100 * df["day.survival_lo"].min()) and np.isclose(
        band.max(), 100 * df["day.survival_hi"].max())
    rest = where_to_rest(ROOT / ROAD, "camp", days=300)
    moved = rest.iloc[1:]
    fig = paired_figure(["after goblin ambush"], rest["survival"].iloc[0], moved["survival"], moved["diff"],
                        moved["diff_lo"], moved["diff_hi"], "day.survival", "the day as written", "t")
    bars = [c for c in fig.axes[0].containers if len(c.lines[0].get_xdata())]  # the clear and the unclear
    assert np.allclose([x for c in bars for x in c.lines[0].get_xdata()], 100 * moved["diff"])
    ends = [sorted(seg[:, 0]) for c in bars for seg in c.lines[2][0].get_segments()]
    assert np.allclose(ends, 100 * moved[["diff_lo", "diff_hi"]].to_numpy())


def test_a_sweep_of_two_values_is_a_heat_map_of_day_survival():
    from sim.day.variants import sweep_day
    from sim.report.day_analyses import sweep_figures
    from sim.report.style import text_overlaps
    defense = "party.combatants[Toromeen].defense"
    df = sweep_day(ROOT / ROAD, {SURVIVAL: "5,9", defense: "4,6"}, days=200)
    (stem, fig), = sweep_figures(df)
    cells = fig.axes[0].images[0].get_array()
    grid = df.pivot_table(index=defense, columns=SURVIVAL, values="day.survival")
    assert stem == "day-sweep" and np.allclose(cells, 100 * grid.to_numpy())
    assert text_overlaps(fig) == []


def test_day_paths_and_figures_are_named_as_a_designer_reads_them():
    from sim.report.day_analyses import day_path_label, metric_noun
    assert day_path_label("party.combatants[Toromeen].survival") == "Toromeen: survival"
    assert day_path_label('steps."the yeti".sides.yeti.combatants[Yeti].defense') == "the yeti: Yeti: defense"
    assert day_path_label("party.policy.target") == "the party's policy: target"
    assert day_path_label("rules.death_rule") == "rule death_rule"
    assert [metric_noun(m) for m in ("day.survival", "fight.the yeti.lost", "Toromeen.dead", "day.deaths")] == [
        "day survival", "'the yeti' lost", "Toromeen dead", "deaths per day"]
