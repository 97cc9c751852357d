"""Report tables, verdict and figures: exact values on hand-made tables, and no
overlapping or cut-off text with twelve combatants."""
import numpy as np
import pandas as pd
import pytest

import sim
from sim.report import analysis_figures as af
from sim.report import figures as rf
from sim.report import verdict as vd
from sim.report.style import short, text_overlaps
from sim.report.tables import (RunTables, combatant_table, length_table, survival_table, win_table)
from tests.report_helpers import (HORDE, hand_tables, sensitivity_frame, sweep2_frame, sweep_frame,
                                  tournament_frame)


def two_fights():
    # fight 0: red wins in 2 rounds, r2 falls in round 1; fight 1: blue wins in 3 rounds.
    rows = [
        dict(combatant="r1", side="red", attacks=2, hits=1, damage_dealt=5, damage_taken=0),
        dict(combatant="r2", side="red", attacks=1, hits=0, final_state="unconscious", down_round=1, damage_taken=6),
        dict(combatant="b1", side="blue", attacks=2, hits=2, damage_dealt=6, damage_taken=5, final_state="dead",
             down_round=2),
        dict(combatant="r1", side="red", attacks=3, hits=2, damage_dealt=4, final_state="dead", down_round=3),
        dict(combatant="r2", side="red", attacks=1, hits=1, damage_dealt=1, final_state="fled", down_round=2),
        dict(combatant="b1", side="blue", attacks=3, hits=2, damage_dealt=9, damage_taken=5),
    ]
    for i, r in enumerate(rows):
        r["skirmish"] = i // 3
    return hand_tables(["red", "blue"], [2, 3], rows)


def test_win_table_counts_and_intervals():
    w = win_table(two_fights()).set_index("outcome")
    assert list(w.index) == ["red", "blue", "draw", "unfinished"]
    assert w.loc["red", "wins"] == 1 and w.loc["blue", "rate"] == 0.5 and w.loc["draw", "rate"] == 0
    assert 0 < w.loc["red", "ci_lo"] < 0.5 < w.loc["red", "ci_hi"] < 1


def test_combatant_table_exact():
    c = combatant_table(two_fights()).set_index("combatant")
    assert c.loc["r1", "hit_rate"] == pytest.approx(3 / 5)
    assert c.loc["r1", "damage_dealt"] == pytest.approx(4.5)
    # r2 went down once and fled once: down counts only the fall, fled is apart
    assert c.loc["r2", "down_rate"] == 0.5 and c.loc["r2", "fled_rate"] == 0.5
    assert c.loc["b1", "dead_rate"] == 0.5 and c.loc["b1", "standing_rate"] == 0.5
    # r1 dealt 9 of red's 10 points of damage over both fights
    assert c.loc["r1", "share_of_side_damage"] == pytest.approx(0.9)
    assert c.loc["b1", "side_size"] == 1


def test_survival_curve_exact():
    s = survival_table(two_fights(), last_round=4)
    red = s[s["side"] == "red"].set_index("round")["standing"]
    # red slots: r2 down round 1; r2 down round 2; r1 down round 3; r1 never (4 slots)
    assert list(red) == pytest.approx([1, 0.75, 0.5, 0.25, 0.25])
    blue = s[s["side"] == "blue"].set_index("round")["standing"]
    assert list(blue) == pytest.approx([1, 1, 0.5, 0.5, 0.5])


def test_length_table_shares_sum_to_one():
    t = two_fights()
    lt = length_table(t)
    assert lt.to_numpy().sum() == pytest.approx(1)
    assert lt.loc[2, "red"] == 0.5 and lt.loc[3, "blue"] == 0.5


def test_missing_standard_column_is_a_one_paragraph_error():
    t = two_fights()
    with pytest.raises(sim.ScenarioError, match="down_round"):
        RunTables(t.skirmishes, t.combatants.drop(columns="down_round"), {}, "x.parquet")


def decided(red_wins, n, rounds=None, winners_extra=()):
    winners = ["red"] * red_wins + ["blue"] * (n - red_wins - len(winners_extra)) + list(winners_extra)
    rows = []
    for i in range(n):
        rows += [dict(skirmish=i, combatant="r1", side="red", attacks=2, hits=1, damage_dealt=10),
                 dict(skirmish=i, combatant="r2", side="red", attacks=2, hits=1, damage_dealt=1),
                 dict(skirmish=i, combatant="b1", side="blue", attacks=2, hits=1, damage_dealt=3)]
    return hand_tables(winners, rounds if rounds is not None else [3] * n, rows)


def test_verdict_decisive_favoured_side():
    text = " ".join(vd.run_verdict(decided(700, 1000)))
    assert "Red is strongly favoured" in text and "Decisive" in text
    assert "40.0 percentage points more than blue" in text


def test_verdict_not_decisive_when_interval_covers_half():
    text = " ".join(vd.run_verdict(decided(52, 100)))
    assert "Not decisive" in text and "9,604 fights" in text
    assert "No side is clearly favoured" in text


def test_verdict_flags_unfinished_fights_and_idle_combatant():
    t = decided(50, 100, rounds=[4] * 90 + [100] * 10, winners_extra=["unfinished"] * 10)
    t.meta["max_rounds"] = 100
    text = " ".join(vd.run_verdict(t))
    assert "10 (10.0%) were still going after 100 rounds" in text
    # r2 deals 1 of red's 11 points: 9% against a fair share of 50%
    assert "R2 hardly matters: it deals 9.1% of red's damage" in text
    assert "R1 hardly" not in text and "B1" not in text  # b1 fights alone: never judged


def test_verdict_long_tail_without_unfinished():
    rounds = [3] * 95 + [20] * 5
    text = " ".join(vd.run_verdict(decided(50, 100, rounds=rounds)))
    assert "1 fight in 100 lasts 20 rounds or more" in text
    assert "run long" not in " ".join(vd.run_verdict(decided(50, 100)))


def test_short_keeps_the_distinguishing_end():
    a, b = short("Goblin skirmisher with a very long name 10"), short("Goblin skirmisher with a very long name 11")
    assert a != b and a.endswith("name 10") and len(a) <= 28
    assert short("Yeti") == "Yeti"


@pytest.fixture(scope="module")
def horde(tmp_path_factory):
    path = tmp_path_factory.mktemp("horde") / "horde.yaml"
    path.write_text(HORDE)
    return RunTables.from_result(sim.run(path, n=1500, seed=7))


def run_figures(t):
    table = combatant_table(t)
    return {
        "win": rf.win_rates_figure(win_table(t)),
        "length": rf.fight_length_figure(length_table(t), t.sides),
        "survival": rf.survival_figure(survival_table(t), table.groupby("side").size().to_dict()),
        "damage": rf.damage_figure(t.combatants, t.names, t.side_of),
        "hits": rf.hit_rate_figure(table),
        "downs": rf.down_rate_figure(table),
    }


def test_twelve_combatants_no_overlapping_text(horde):
    assert len(horde.names) == 12
    for name, fig in run_figures(horde).items():
        assert text_overlaps(fig) == [], name
        labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
        if name in ("damage", "hits", "downs"):
            assert len(set(labels) & set(map(short, horde.names))) == 12, name


def test_figures_have_titles_and_labelled_axes(horde):
    for name, fig in run_figures(horde).items():
        title = fig.get_suptitle() or fig.axes[0].get_title()
        assert len(title) > 15, name
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_xlabel() or ax.get_ylabel(), name


def test_overlap_check_catches_overlap():
    from sim.report.style import new_figure
    fig, ax = new_figure(2)
    ax.text(0.5, 0.5, "one label")
    ax.text(0.5, 0.5, "another label")
    ax.set_title("x" * 400)  # runs off the canvas
    found = text_overlaps(fig)
    assert ("one label", "another label") in found
    assert any(b == "<edge>" for _, b in found)


@pytest.mark.parametrize("make", [
    lambda: af.sweep_figure(sweep_frame(), target=0.5),
    lambda: af.sweep_figure(sweep_frame(values=["random", "weakest", "strongest", "focus"],
                                        param="sides.party.policy.target")),
    lambda: af.sweep_figure(sweep2_frame()),
    lambda: af.tornado_figure(sensitivity_frame(12)),
    lambda: af.tornado_figure(sensitivity_frame(3), side="yeti"),
    lambda: af.tournament_figure(tournament_frame(12)),
    lambda: af.tournament_figure(tournament_frame(4)),
], ids=["sweep", "sweep-choices", "heatmap", "tornado12", "tornado3", "tournament12", "tournament4"])
def test_analysis_figures_no_overlapping_text(make):
    fig = make()
    assert text_overlaps(fig) == []
    assert fig.axes[0].get_title()


def test_sweep_params_detection():
    d = sweep_frame()
    assert af.sweep_params(d) == ["sides.yeti.combatants[Yeti].defense"]
    assert af.sweep_sides(d) == ["party", "yeti"]
    assert af.path_label("sides.yeti.combatants[Yeti].defense") == "Yeti: defense"
    assert af.path_label("rules.resolution") == "rule resolution"


def test_tornado_orders_stats_by_reach():
    fig = af.tornado_figure(sensitivity_frame(5))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0].startswith("rule resolution")  # delta 0.2, the largest
    assert labels[-1].startswith("Yeti: stat_number_4")


def test_tournament_long_frame_keeps_order_and_cells():
    d = tournament_frame(3)
    m, lo, hi = af.tournament_matrix(d)
    assert list(m.index) == ["party policy 0", "party policy 1", "party policy 2"]
    assert m.loc["party policy 1", "yeti policy 2"] == d.iloc[5]["win_rate"]
    assert (hi - lo).to_numpy() == pytest.approx(np.full((3, 3), 0.04))


def test_analysis_verdicts():
    s = " ".join(vd.sweep_verdict(sweep_frame(), ["sides.yeti.combatants[Yeti].defense"], ["party", "yeti"]))
    assert "Closest to 50.0% for party: Yeti: defense = 3" in s
    t = " ".join(vd.sensitivity_verdict(sensitivity_frame(3)))
    assert t.startswith("Rule resolution moves party's win rate most: +20.0 points")
    m, _, _ = af.tournament_matrix(pd.DataFrame({"row": ["a", "a", "b", "b"], "col": ["x", "y", "x", "y"],
                                                 "win_rate": [0.9, 0.2, 0.6, 0.5]}))
    u = " ".join(vd.tournament_verdict(m, "party"))
    # a and b both average 55%: naming either the best would claim more than the numbers show
    assert "No clear best policy for party on average: a and b each win 55.0%" in u
    assert "best worst case): b, winning at least 50.0%" in u
    assert "Hardest opposing policy: y" in u
