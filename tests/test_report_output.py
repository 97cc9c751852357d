"""Written reports: every section for each kind of result, self-contained HTML, atomic
writes, the `skirmish report` and `run --report` commands, every ruleset."""
import base64
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import sim
from sim import rulesets
from sim.cli import main
from sim.report import (load_tables, report_results, report_run, report_sensitivity, report_sweep,
                        report_tournament)
from tests.report_helpers import (hand_tables, sensitivity_frame, stable_text, sweep2_frame, sweep_frame,
                                  tournament_frame)

YETI = "scenarios/gods_and_monsters/yeti.yaml"
RUN_FIGURES = ["win-rates", "fight-length", "survival", "at-least", "damage", "hit-rates", "down-rates"]
RUN_SECTIONS = ["verdict", "who-wins", "how-fights-unfold", "at-least-x", "what-each-combatant-does", "provenance"]


@pytest.fixture(scope="module")
def yeti():
    return sim.run(YETI, n=3000, seed=5)


def check_page(index: Path, figures, sections):
    html = index.read_text(encoding="utf-8")
    for sec in sections:
        assert f'id="{sec}"' in html, sec
    # self-contained: nothing fetched from elsewhere, every figure embedded as a PNG
    assert not re.search(r'(src|href)="(https?:)?//', html)
    embedded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(embedded) == len(figures)
    assert all(base64.b64decode(e)[:8] == b"\x89PNG\r\n\x1a\n" for e in embedded)
    for stem in figures:
        assert (index.parent / f"{stem}.png").read_bytes()[:4] == b"\x89PNG", stem
        assert b"<svg" in (index.parent / f"{stem}.svg").read_bytes()[:2000], stem
    assert not list(index.parent.glob(".*.part"))
    return html


def test_run_report_has_every_section(yeti, tmp_path):
    index = report_run(yeti, tmp_path / "yeti")
    html = check_page(index, RUN_FIGURES, RUN_SECTIONS)
    verdict = html[html.index('id="verdict"'):html.index('id="who-wins"')]
    assert "Decisive" in verdict or "Not decisive" in verdict
    prov = html[html.index('id="provenance"'):]
    for key, value in (("scenario hash", yeti.meta["scenario_hash"]), ("seed", 5), ("skirmishes", 3000),
                       ("package version", yeti.meta["package_version"]), ("ruleset", "gods_and_monsters")):
        assert f"<th>{key}</th><td><code>{value}</code></td>" in prov, key
    assert "<th>rule options</th>" in prov and "resolution" in prov
    assert "Charlotte Kordé" in html


def test_report_of_several_runs_keeps_them_apart(yeti, tmp_path):
    other = sim.run(YETI, n=1000, seed=6, overrides={"sides.yeti.combatants[Yeti].defense": 8})
    index = report_results([yeti, other], tmp_path / "two")
    html = index.read_text()
    ids = re.findall(r'id="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    stems = [f"{p}-{f}" for p in ("yeti-in-the-snowy-mountains", "yeti-in-the-snowy-mountains-x")
             for f in RUN_FIGURES]
    check_page(index, stems, ["verdict", "provenance"])


@pytest.mark.parametrize("kind", ["sweep", "sweep2", "sensitivity", "tournament"])
def test_analysis_reports_have_every_section(kind, tmp_path):
    meta = {"scenario": "Yeti", "scenario_hash": "abc123", "seed": 1, "package_version": sim.__version__}
    if kind == "sweep":
        index = report_sweep(sweep_frame(), tmp_path, meta=meta)
        figs, sec = ["sweep"], "win-rate-against-the-varied-value"
    elif kind == "sweep2":
        index = report_sweep(sweep2_frame(), tmp_path, meta=meta)
        figs, sec = ["sweep-party", "sweep-yeti"], "win-rate-against-the-varied-values"
    elif kind == "sensitivity":
        index = report_sensitivity(sensitivity_frame(4), tmp_path, meta=meta)
        figs, sec = ["tornado-party", "tornado-yeti"], "which-stats-matter-most"
    else:
        index = report_tournament(tournament_frame(5), tmp_path, meta=meta)
        figs, sec = ["tournament"], "policy-against-policy"
    html = check_page(index, figs, ["verdict", sec, "provenance"])
    assert "abc123" in html


def test_report_is_written_atomically(yeti, tmp_path, monkeypatch):
    out = tmp_path / "r"
    index = report_run(yeti, out)
    before = index.read_bytes()
    from sim.report import html as html_mod
    calls = []

    def failing(fig, fmt):
        calls.append(fmt)
        if len(calls) > 3:
            raise OSError("disk full")
        return b"\x89PNG\r\n\x1a\nfake" if fmt == "png" else b"<svg/>"
    monkeypatch.setattr(html_mod, "figure_bytes", failing)
    with pytest.raises(OSError):
        report_run(sim.run(YETI, n=500, seed=9), out)
    assert index.read_bytes() == before  # the old page stands until a new one is complete
    assert not list(out.glob(".*.part"))


def test_cli_report_from_run_tables(tmp_path):
    r = CliRunner()
    res = r.invoke(main, ["run", YETI, "-n", "2000", "--out", str(tmp_path / "y.parquet"), "--json"])
    assert res.exit_code == 0, res.output
    for arg in ("y.parquet", "y.skirmishes.parquet", "y.combatants.parquet", "y"):
        (t,) = load_tables(tmp_path / arg)
        assert len(t.skirmishes) == 2000 and t.meta["skirmishes"] == 2000 and t.names[-1] == "Yeti"
    res = r.invoke(main, ["report", str(tmp_path / "y.combatants.parquet"), "-o", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    html = check_page(tmp_path / "rep" / "index.html", RUN_FIGURES, RUN_SECTIONS)
    assert "2,000" in html  # provenance from the Parquet metadata, not guessed


def test_tables_from_folder_and_csv(tmp_path):
    r = CliRunner()
    assert r.invoke(main, ["run", YETI, "-n", "800", "--out", str(tmp_path / "csv" / "y.csv")]).exit_code == 0
    t = load_tables(tmp_path / "csv" / "y.csv")[0]
    assert t.sides == ["party", "yeti"] and t.meta["skirmishes"] == 800
    assert r.invoke(main, ["run", YETI, YETI, "-n", "800", "--out", str(tmp_path / "many")]).exit_code == 0
    assert len(load_tables(tmp_path / "many")) == 1  # same stem twice: one pair of files
    assert t.names == load_tables(tmp_path / "many")[0].names


def test_cli_report_of_saved_analysis_table(tmp_path):
    sensitivity_frame(3).to_csv(tmp_path / "sens.csv", index=False)
    res = CliRunner().invoke(main, ["report", str(tmp_path / "sens.csv"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "tornado-party.svg").exists()


def test_cli_report_bad_input_exits_2(tmp_path):
    res = CliRunner().invoke(main, ["report", str(tmp_path / "nope.parquet"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "no outcome tables found" in res.output and "Traceback" not in res.output
    pd.DataFrame({"a": [1]}).to_csv(tmp_path / "junk.csv", index=False)
    res = CliRunner().invoke(main, ["report", str(tmp_path / "junk.csv"), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2


def test_run_with_report_option(tmp_path):
    res = CliRunner().invoke(main, ["run", YETI, "-n", "1000", "--report", str(tmp_path / "rep"), "--json"])
    assert res.exit_code == 0, res.output
    import json
    json.loads(res.stdout)  # stdout stays one JSON object; the report notice goes to stderr
    check_page(tmp_path / "rep" / "index.html", RUN_FIGURES, RUN_SECTIONS)


def shipped(ruleset):
    return sorted(Path("scenarios", ruleset).glob("*.yaml"))


@pytest.mark.parametrize("ruleset", rulesets.names())
def test_figures_for_every_ruleset(ruleset, tmp_path):
    files = shipped(ruleset)
    if not files:
        pytest.skip(f"no shipped scenario for {ruleset}")
    result = sim.run(files[0], n=600, seed=3)
    check_page(report_run(result, tmp_path), RUN_FIGURES, RUN_SECTIONS)


@pytest.mark.parametrize("ruleset", ["lens", "lifeforce"])
def test_report_needs_only_the_standard_columns(ruleset, tmp_path):
    # Rulesets still to come write the same standard columns plus their own; a report
    # must not depend on anything else (e.g. Gods & Monsters' verve_left).
    rows = []
    for i in range(40):
        rows += [dict(skirmish=i, combatant="Scout", side="a", attacks=3, hits=i % 3, damage_dealt=i % 5,
                      final_state="dead" if i % 4 == 0 else "standing", down_round=2 if i % 4 == 0 else None,
                      cell_charge=i),
                 dict(skirmish=i, combatant="Brute", side="b", attacks=2, hits=1, damage_dealt=3,
                      final_state="fled" if i % 2 else "standing", down_round=3 if i % 2 else None, cell_charge=0)]
    t = hand_tables(["a" if i % 2 else "b" for i in range(40)], [2 + i % 3 for i in range(40)], rows,
                    sides=("a", "b"), meta={"scenario": f"{ruleset} test", "ruleset": ruleset, "seed": 0})
    html = check_page(report_run(t, tmp_path), RUN_FIGURES, RUN_SECTIONS)
    assert ruleset in html


def test_regenerate_writes_reports_mirroring_scenarios(tmp_path):
    from sim.report.regenerate import regenerate
    written = regenerate([YETI], n=500, reports_root=tmp_path, quiet=True)
    assert written == [tmp_path / "gods_and_monsters" / "yeti" / "index.html"]
    check_page(written[0], RUN_FIGURES, RUN_SECTIONS)


@pytest.mark.parametrize("scenario", ["gods_and_monsters/spellcaster_duel", "lens/caster_duel", "lifeforce/duel"])
def test_a_shipped_report_is_what_regenerate_writes_today(scenario, tmp_path):
    """The shipped pages went stale once (they lacked the sections issue 15 added to every
    report): a change to what a report holds must come with `python -m sim.report.regenerate`.
    One cheap scenario per ruleset, the page's text exactly (its figures left out: their
    pixels belong to the installed matplotlib, not to the report)."""
    from sim.report.regenerate import regenerate
    written = regenerate([f"scenarios/{scenario}.yaml"], reports_root=tmp_path, quiet=True)

    assert stable_text(written[0]) == stable_text(Path("reports") / scenario / "index.html"), \
        f"reports/{scenario}/index.html is out of date: run python -m sim.report.regenerate"


def test_shipped_reports_exist_for_every_scenario():
    for f in Path("scenarios").rglob("*.yaml"):
        rel = f.relative_to("scenarios").with_suffix("")
        assert (Path("reports") / rel / "index.html").exists(), f"run python -m sim.report.regenerate ({f})"
