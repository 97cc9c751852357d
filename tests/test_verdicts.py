"""Verdicts that claim only what the numbers show: tournament "no clear best", sensitivity
steps the rules read (and only fields the kind accepts), dice steps, two-stat tune and
the "between" wording."""
from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

import sim.cli
from sim.analysis import best_responses, tournament
from sim.analysis.sensitivity import next_read_step, rules_input, sensitivity, stat_blocks, stat_steps
from sim.analysis.tune import tune
from sim.analysis.tune_grid import tune_grid
from sim.report import verdict as vd
from sim.scenario import load_scenario

YETI = "scenarios/gods_and_monsters/yeti.yaml"
GOBLINS = "scenarios/gods_and_monsters/goblin_ambush.yaml"
# The Yeti fighting to the end on 60 survival: its attack bonus moves the party's win
# rate about 8 points a step, so a target between two steps is reachable by none.
FIGHTING_YETI = {"sides.yeti.policy.flee_below": 0, "sides.yeti.policy.flee_after_bad_round": False,
                 "sides.yeti.combatants[Yeti].survival": 60}
YETI_ATTACK = "sides.yeti.combatants[Yeti].attack"


def test_target_modes_against_a_lone_yeti_are_no_clear_best_everywhere(tmp_path):
    # Every target mode picks the only enemy: identical fights, and no policy may be called best.
    df = tournament(YETI, {"party": ["random", "focus", "weakest"]}, n=600, seed=2)
    party = best_responses(df).query("side == 'party'").iloc[0]
    assert not party["clearly_best"] and party["verdict"].startswith("no clear best")
    res = CliRunner().invoke(sim.cli.main, ["tournament", YETI, "--policies", "party=random,focus", "-n", "600",
                                            "-q", "--report", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert "party against yeti: scenario: no clear best" in res.output
    html = (tmp_path / "t" / "index.html").read_text(encoding="utf-8")
    assert "No clear best policy for party" in html and "Best policy" not in html
    js = json.loads(CliRunner().invoke(sim.cli.main, ["tournament", YETI, "--policies", "party=random,focus",
                                                      "-n", "600", "--json"]).output)
    party_rows = [r for r in js["best_responses"] if r["side"] == "party"]
    assert party_rows and all(r["verdict"].startswith("no clear best") for r in party_rows)


def test_a_real_difference_is_named_best():
    df = tournament(GOBLINS, {"goblins": [("bold", {"flee_below": 0, "rout_below": 0}),
                                          ("cautious", {"flee_below": 0.5})]}, n=3000, seed=2)
    goblins = best_responses(df).query("side == 'goblins'").iloc[0]
    assert goblins["clearly_best"] and goblins["verdict"] == "bold"
    long = pd.DataFrame({"row": df["policy.goblins"], "col": "scenario", "win_rate": df["goblins.win_rate"],
                         "ci_lo": df["goblins.win_lo"], "ci_hi": df["goblins.win_hi"]})
    m = long.pivot(index="row", columns="col", values="win_rate")
    assert vd.tournament_verdict(m, "goblins", long)[0].startswith("Best policy for goblins on average: bold")


def test_overlapping_report_intervals_say_no_clear_best():
    long = pd.DataFrame({"row": ["a", "b"], "col": ["x", "x"], "win_rate": [0.52, 0.50],
                         "ci_lo": [0.49, 0.47], "ci_hi": [0.55, 0.53]})
    m = long.pivot(index="row", columns="col", values="win_rate")
    text = vd.tournament_verdict(m, "party", long)[0]
    assert text.startswith("No clear best policy for party: a wins 52.0%") and "overlap" in text


def test_sensitivity_on_novice_party_vs_brute_steps_only_what_each_kind_accepts():
    res = CliRunner().invoke(sim.cli.main, ["sensitivity", "scenarios/lens/novice_party_vs_brute.yaml",
                                            "--combatant", "Ogre", "--combatant", "Warden", "-n", "100", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rows"]
    stepped = {(r["combatant"], r["stat"]) for r in rows}
    assert ("Warden", "bonus_momentum") in stepped  # a character may carry it
    assert ("Ogre", "bonus_momentum") not in stepped  # validation refuses it on a monster
    assert ("Ogre", "body") in stepped


def test_a_stat_read_in_bands_steps_to_the_next_band():
    base = load_scenario("scenarios/lifeforce/duel.yaml")
    side, _, raw = stat_blocks(base)[0]
    steps = {(stat, step): (path, old, new) for stat, path, old, new, step in stat_steps(base, side, 0, raw)}
    path, old, new = steps[("strength", 1)]
    assert (old, new) == (40, 41)
    value, _, kind = next_read_step(base, rules_input(base), path, old, new, 1)
    assert (value, kind) == (50, "next")  # floor(Str / 10): 41..49 play as 40
    value, _, kind = next_read_step(base, rules_input(base), path, old, 39, -1)
    assert (value, kind) == (39, "one")


def test_dice_steps_are_labelled_as_dice_steps():
    df = sensitivity(YETI, ["Yeti"], n=200, seed=1)
    claws = df[df["stat"].str.startswith("attacks[0]") & df["stat"].str.endswith("damage")]
    assert set(claws["label"]) == {"d6 -> d8 (dice step)", "d6 -> d4 (dice step)"}
    assert not df["label"].str.contains("±").any()


def test_tune_solves_two_stats_on_a_grid():
    df = tune_grid(YETI, [YETI_ATTACK, "sides.yeti.combatants[Yeti].survival"], "party", 0.5,
                   ranges=[(3, 6), (50, 70)], n=1500, seed=3, overrides=FIGHTING_YETI)
    meta = df.attrs["analysis"]
    assert len(df) == 4 * 9 and list(df["rank"]) == list(range(1, 37))
    assert (df["distance"].diff().dropna() >= 0).all()  # nearest first
    assert df["on_target"].any() and meta["status"] == "found"
    assert "pairs give party 50% within their interval; nearest: attack" in meta["message"]
    res = CliRunner().invoke(sim.cli.main, ["tune", YETI, "--param", YETI_ATTACK, "--param",
                                            "sides.yeti.combatants[Yeti].attacks[0].damage", "--range", "3..6",
                                            "--target", "party.win_rate=0.5", "-n", "500", "-q",
                                            *[f"--set={k}={v}" for k, v in FIGHTING_YETI.items()]])
    assert res.exit_code in (0, 3), res.output
    assert "pairs x 500 skirmishes" in res.output and "d6" in res.output


def test_tune_says_between_which_whole_values_the_target_lies():
    df = tune(YETI, YETI_ATTACK, "party", 0.51, 0, 8, n=4000, seed=2, overrides=FIGHTING_YETI)
    message = df.attrs["analysis"]["message"]
    assert message.startswith("no whole attack gives party 51%: 4 gives"), message
    assert "the target lies between 4 and 5" in message


def test_tune_steps_a_die_along_the_ladder():
    df = tune(YETI, "sides.yeti.combatants[Yeti].attacks[0].damage", "party", 0.9, n=1000, seed=2,
              overrides=FIGHTING_YETI)
    assert set(df["value"]) <= {"d2", "d4", "d6", "d8", "d10", "d12", "d20"}
    assert df.attrs["analysis"]["value"] in set(df["value"])
