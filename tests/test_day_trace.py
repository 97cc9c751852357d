"""`skirmish day --trace-day K`: day K blow by blow, from the same kernels and the same
dice as day K of the batch."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sim.day
from sim.cli import main
from sim.day.trace import day_score, representative_days, trace_day

ROOT = Path(__file__).resolve().parents[1]
DAYS = {"gods_and_monsters": ROOT / "days/gods_and_monsters/road_to_hightown.yaml",
        "lens": ROOT / "days/lens/troll_road.yaml",
        "lifeforce": ROOT / "days/lifeforce/patrol_day.yaml"}


def entry_lines(result, k: int) -> dict[str, list[str]]:
    """fight -> the party's lines at its entry on day k, written from the members table."""
    m = result.members[result.members["day"] == k]
    names = result.day.resources
    out = {}
    for fight, g in m.groupby("fight", observed=True, sort=False):
        out[str(fight)] = [f"{r.combatant}: {r.entry_state}, " + ", ".join(f"{x} {int(getattr(r, 'entry_' + x))}"
                                                                          for x in names) for r in g.itertuples()]
    return out


@pytest.mark.parametrize("ruleset", list(DAYS))
def test_a_traced_day_is_that_day_of_the_batch(ruleset):
    result = sim.day.run(DAYS[ruleset], days=12)
    for k in range(12):
        text = trace_day(DAYS[ruleset], k, days=12)  # raises if a traced fight disagrees with the batch
        survived = bool(result.days.loc[result.days["day"] == k, "survived"].iloc[0])
        assert text.rstrip().endswith("the party lived through it." if survived else "."), text[-200:]
        assert ("lost at" in text) != survived
        for fight, lines in entry_lines(result, k).items():
            section = text.split(f"== fight {fight!r}")[1].split("\n== ")[0]
            for line in lines:
                assert line in section, (fight, line)


def test_the_rest_lines_say_what_the_night_gave_back():
    text = trace_day(DAYS["gods_and_monsters"], 3, days=20000)
    camp = text.split("== rest 'camp' (night)")[1].split("\n== ")[0]
    assert camp.count("the night's health roll") == 3 and "->" in camp


def test_representative_days_sit_at_their_percentiles():
    result = sim.day.run(DAYS["gods_and_monsters"], days=2000)
    picks = representative_days(result)
    score = day_score(result)
    ids = np.sort(result.days["day"].to_numpy())
    for p, k in picks.items():
        s = score[ids == k][0]
        assert (score < s).mean() <= p / 100 <= (score <= s).mean()


def test_trace_day_on_the_command_line_and_its_bounds():
    ok = CliRunner().invoke(main, ["day", str(DAYS["lens"]), "--trace-day", "2"])
    assert ok.exit_code == 0 and ok.output.startswith("The troll road: day 2 of")
    bad = CliRunner().invoke(main, ["day", str(DAYS["lens"]), "-n", "10", "--trace-day", "10"])
    assert bad.exit_code == 2 and "past the run of 10 days" in bad.output and "Traceback" not in bad.output
    rep = CliRunner().invoke(main, ["day", str(DAYS["lens"]), "-n", "300", "-q", "--representative"])
    assert rep.exit_code == 0 and rep.output.count("percentile day: day") == 3


def test_precision_plays_chunks_until_survivals_interval_is_narrow_enough(monkeypatch):
    import sim.runner
    from sim.stats import wilson
    monkeypatch.setattr(sim.runner, "CHUNK_SIZE", 400)
    path = DAYS["lens"]
    got = sim.day.run(path, precision=0.03, jobs=2)
    n = len(got.days)
    assert n % 400 == 0 and got.meta["reached"] and got.meta["days"] == n
    k = int(got.days["survived"].sum())
    lo, hi = wilson(k, n)
    assert (hi - lo) / 2 <= 0.03
    lo, hi = wilson(int(got.days["survived"].iloc[:n - 400].sum()), n - 400)
    assert (hi - lo) / 2 > 0.03  # one chunk fewer was not enough
    assert got.days.equals(sim.day.run(path, days=n).days)  # the same days as a fixed run of that length
    capped = sim.day.run(path, precision=0.001, max_days=1200)
    assert len(capped.days) == 1200 and not capped.meta["reached"]
