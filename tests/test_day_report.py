"""The day's report: its tables read off the day's outcome tables, its figures drawn
without overlapping text, and the shipped pages what regenerate writes today."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.report import day as rd
from sim.report import day_figures as fig
from sim.report.style import text_overlaps
from tests.report_helpers import stable_text

ROOT = Path(__file__).resolve().parents[1]
ROAD = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"


@pytest.fixture(scope="module")
def road():
    return sim.day.run(ROAD, days=3000)


def test_the_staircase_falls_by_the_days_each_fight_ends_and_lands_on_survival(road):
    s = road.summary()
    stairs = rd.staircase_table(road)
    assert list(stairs["step"]) == ["start"] + [step.name for step in road.day.steps]
    assert np.all(np.diff(stairs["going"]) <= 0)
    assert stairs["going"].iloc[-1] == pytest.approx(s["survival"]["rate"])
    ended = {f["name"]: f["days_ended_here"] for f in s["fights"]}
    going = dict(zip(stairs["step"], stairs["going"]))
    assert going["goblin ambush"] == pytest.approx(1 - ended["goblin ambush"])
    assert going["camp"] == pytest.approx(1 - ended["goblin ambush"] - ended["orc patrol"])
    assert (stairs["ci95_low"] <= stairs["going"]).all() and (stairs["going"] <= stairs["ci95_high"]).all()


def test_a_full_rest_gives_back_exactly_what_the_first_fight_took(tmp_path):
    path = ROOT / "days/lifeforce/duel_twice.yaml"
    day = sim.day.run(path, days=2000)
    rests = rd.rest_table(day)
    assert list(rests["kind"]) == ["full"]
    m = day.members
    second = set(m.loc[m["fight"] == day.day.fights[1].name, "day"])
    first = m[(m["fight"] == day.day.fights[0].name) & m["day"].isin(second)]
    full = {w: day.day.rules_module.full(day.day.stats[w])["hp"] for w in day.day.members}
    taken = (first["combatant"].map(full).astype(int) - first["exit_hp"]).groupby(first["day"]).sum()
    assert rests["days"].iloc[0] == len(second)
    assert rests["hp change"].iloc[0] == pytest.approx(taken.mean())
    assert rests["changed something %"].iloc[0] == pytest.approx(100 * (taken != 0).mean())


def test_a_rest_that_changes_nothing_is_listed_without_effect(road):
    # The G&M short rest restores nothing by default (verve comes back the next day).
    rests = rd.rest_table(road)
    breather = rests[rests["rest"] == "breather"].iloc[0]
    assert breather["changed something %"] == 0 and breather["days"] > 0
    camp = rests[rests["rest"] == "camp"].iloc[0]
    assert camp["changed something %"] > 50
    inert = rd._inert_sentences(rests)
    assert len(inert) == 1 and "'breather'" in inert[0]


def test_every_day_figure_draws_without_overlapping_text(road):
    s = road.summary()
    from sim.day.result import state_value
    figures = {"staircase": fig.staircase_figure(rd.staircase_table(road)),
               "hazard": fig.hazard_figure(rd.hazard_table(s)),
               "resources": fig.resource_fan_figure(rd.fan_table(road)),
               "fates": fig.fates_figure(rd.fates_table(s)),
               "state value": fig.state_value_figure(state_value(road))}
    for name, f in figures.items():
        assert text_overlaps(f) == [], name


def test_the_fan_follows_the_partys_totals(road):
    fan = rd.fan_table(road)
    m = road.members[road.members["fight"] == "the yeti"]
    yeti = m.groupby("day")["entry_survival"].sum()  # the party's total, from the members table itself
    assert len(yeti) == int(road.fights.loc[road.fights["fight"] == "the yeti", "reached"].sum())
    row = fan[(fan["point"] == "before the yeti") & (fan["resource"] == "survival")].iloc[0]
    assert row["mean"] == pytest.approx(yeti.mean()) and row["q50"] == pytest.approx(yeti.median())
    first = fan[(fan["point"] == "before goblin ambush")]
    assert (first["q05"] == first["full"]).all() and (first["q95"] == first["full"]).all()


def test_skirmish_day_report_writes_a_page_with_its_verdict(tmp_path):
    out = CliRunner().invoke(main, ["day", str(ROAD), "-n", "1000", "-q", "--report", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "r/index.html").read_text()
    rate = sim.day.run(ROAD, days=1000).summary()["survival"]["rate"]
    assert f"lives through the day on {100 * rate:.1f}% of 1,000 days" in page
    for stem in ("day-staircase", "day-hazard", "day-resources", "day-fates"):
        assert (tmp_path / f"r/{stem}.png").exists() and (tmp_path / f"r/{stem}.svg").exists()
    assert "day file as played" in page and str(ROOT) not in page
    assert "Fight &#x27;the yeti&#x27;: what was played" in page


def test_every_shipped_day_has_its_report():
    for f in sorted((ROOT / "days").glob("*/*.yaml")):
        rel = f.relative_to(ROOT / "days").with_suffix("")
        assert (ROOT / "reports/days" / rel / "index.html").exists(), \
            f"run python -m sim.report.regenerate --days ({f})"


def test_a_shipped_day_report_is_what_regenerate_writes_today(tmp_path):
    from sim.report.regenerate import regenerate_days
    path = ROOT / "days/lifeforce/duel_twice.yaml"
    written = regenerate_days([path], reports_root=tmp_path, quiet=True)
    assert stable_text(written[0]) == stable_text(ROOT / "reports/days/lifeforce/duel_twice/index.html"), \
        "reports/days/lifeforce/duel_twice/index.html is out of date: run python -m sim.report.regenerate --days"


def test_a_night_roll_that_cannot_matter_is_listed_without_effect(tmp_path):
    import yaml
    data = yaml.safe_load(ROAD.read_text())
    data["include"] = str(ROOT / "library/gods_and_monsters.yaml")
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str((ROAD.parent / step["scenario"]).resolve())
    data["steps"].insert(0, {"rest": "a night before setting out", "kind": "night"})
    path = tmp_path / "rested_first.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    day = sim.day.run(path, days=1500)
    first = day.rests[day.rests["rest"] == "a night before setting out"]
    assert first["rested"].all() and not first["night_roll_mattered"].any()  # the party is whole
    camp = day.rests[(day.rests["rest"] == "camp") & day.rests["rested"]]
    assert 0 < camp["night_roll_mattered"].mean() < 1
    said = rd._inert_sentences(rd.rest_table(day), day)
    assert any("'a night before setting out' never changed" in s for s in said)
    assert not any("'camp' never changed" in s for s in said)
