"""Analysis tables in the spelling of sim.analysis (dotted columns, provenance columns,
attrs) give the same figures and reports as the plain layout."""
import re

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report import adapt as ad
from sim.report import analysis_figures as af
from sim.report import report_frame
from sim.report.style import text_overlaps
from tests.report_helpers import (dotted_sensitivity_frame, dotted_sweep_frame, dotted_tournament_frame,
                                  dotted_tune_frame)

DEF = "sides.yeti.combatants[Yeti].defense"


def test_kinds_are_recognised_with_and_without_attrs():
    for make, kind in ((dotted_sweep_frame, "sweep"), (dotted_sensitivity_frame, "sensitivity"),
                       (dotted_tournament_frame, "tournament"), (dotted_tune_frame, "tune")):
        d = make()
        assert ad.frame_kind(d) == kind
        d.attrs = {}
        assert ad.frame_kind(d) == kind


def test_sweep_layout_finds_varied_value_and_sides():
    d = dotted_sweep_frame()
    for frame in (d, d.copy()):  # with attrs, and from the columns alone
        if frame is not d:
            frame.attrs = {}
        plain, params, sides = ad.sweep_layout(frame)
        assert params == [DEF] and sides == ["party", "yeti"]
        assert (plain["party_ci_hi"] == d["party.win_hi"]).all()


def test_sensitivity_layout_is_long_per_side():
    long = ad.sensitivity_layout(dotted_sensitivity_frame())
    assert len(long) == 3 * 2 * 2
    row = long[(long["side"] == "party") & (long["stat"] == DEF) & (long["step"] == 1)].iloc[0]
    assert row["delta"] == pytest.approx(-0.1) and row["ci_lo"] == pytest.approx(-0.11)
    fig = af.tornado_figure(long, "party")
    assert fig.axes[0].get_yticklabels()[0].get_text() == "Yeti: defense (±1)"


def test_tournament_layout_and_matrix():
    long = ad.tournament_layout(dotted_tournament_frame())
    m, lo, hi = af.tournament_matrix(long)
    assert list(m.index) == ["random", "weakest", "strongest"] and list(m.columns) == ["random", "focus"]
    assert m.loc["strongest", "focus"] == pytest.approx(0.7)
    assert long.attrs["row_side"] == "party" and long.attrs["col_label"] == "yeti policy"
    assert text_overlaps(af.tournament_figure(long)) == []


def test_tune_figure_marks_answer_and_target():
    plain, param, side, target, answer, message = ad.tune_layout(dotted_tune_frame())
    assert (param, side, target, answer) == (DEF, "party", 0.5, 9)
    fig = af.tune_figure(plain, param, side, target, answer)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert " answer 9" in texts
    assert text_overlaps(fig) == []


@pytest.mark.parametrize("make,figs,section", [
    (dotted_sweep_frame, ["sweep"], "win-rate-against-the-varied-value"),
    (dotted_sensitivity_frame, ["tornado-party", "tornado-yeti"], "which-stats-matter-most"),
    (dotted_tournament_frame, ["tournament"], "policy-against-policy"),
    (dotted_tune_frame, ["tune"], "values-tried"),
], ids=["sweep", "sensitivity", "tournament", "tune"])
def test_reports_of_analysis_tables(make, figs, section, tmp_path):
    index = report_frame(make(), tmp_path)
    html = index.read_text()
    for f in figs:
        assert (tmp_path / f"{f}.png").exists() and (tmp_path / f"{f}.svg").exists()
    assert len(re.findall(r"data:image/png;base64", html)) == len(figs)
    for sec in ("verdict", section, "provenance"):
        assert f'id="{sec}"' in html
    prov = html[html.index('id="provenance"'):]
    assert "feedbeef12345678" in prov and "2026" in prov and "resolution" in prov


def test_cli_report_reads_analysis_parquet_with_its_meta(tmp_path):
    from sim.io import atomic_write_frame
    d = dotted_tune_frame()
    atomic_write_frame(tmp_path / "tune.parquet", d, "parquet", d.attrs["analysis"])
    res = CliRunner().invoke(main, ["report", str(tmp_path / "tune.parquet"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "o" / "index.html").read_text()
    assert "= 9 gives party a win rate of 46.0%" in html
