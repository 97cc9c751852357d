"""The shipped Gods & Monsters scenarios load, run, and exercise the situation they are about."""
import re
from pathlib import Path

import pytest

import sim

ROOT = Path("scenarios/gods_and_monsters")
N = 3000


def summary(name, n=N, **over):
    over = {k.replace("__", "."): v for k, v in over.items()} or None
    r = sim.run(ROOT / f"{name}.yaml", n=n, seed=1, overrides=over)
    return r, {c["name"]: c for c in r.summary()["combatants"]}


@pytest.mark.parametrize("path", sorted(ROOT.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_scenario_runs(path):
    r = sim.run(path, n=500, seed=1)
    s = r.summary()
    total = sum(v["win_rate"] for v in s["sides"].values()) + s["draw_rate"] + s["unfinished_rate"]
    assert abs(total - 1) < 1e-9


def test_the_yeti_fight_uses_no_situation():
    # The plain chapter fight: surprise, attacks, damage and the rolls after them.
    for k in range(10):
        text = sim.trace(ROOT / "yeti.yaml", seed=1, skirmish=k, n=10)
        assert "attacks Yeti with" in text
        for situation in ("called shot", "tries to grab", "takes aim", "loads", "draws a weapon", "stray",
                          "casts", "leads", "covered target", "immobile target"):
            assert situation not in text, (k, situation)


def test_archer_skirmish_strays_hit_the_men_at_arms():
    _, on = summary("archer_skirmish")
    _, off = summary("archer_skirmish", rules__firing_into_close_combat=False)
    archer_on, archer_off = on["Archer 1"], off["Archer 1"]
    assert archer_on["hit_rate"] < archer_off["hit_rate"]  # strong cover for the goblins
    assert on["Man-at-arms 1"]["damage_taken"] > off["Man-at-arms 1"]["damage_taken"]


def test_ambush_sleepers_fall_faster_to_killing_blows():
    r_on, on = summary("ambush_on_sleepers")
    r_off, off = summary("ambush_on_sleepers", rules__sleepers_immobile=False)
    assert on["Traveller 1"]["dead_rate"] > off["Traveller 1"]["dead_rate"]
    assert r_on.summary()["sides"]["bandits"]["win_rate"] > r_off.summary()["sides"]["bandits"]["win_rate"]


def test_knockout_raid_puts_guards_down_with_few_injuries():
    r, _ = summary("knockout_raid")
    cb = r.combatants
    guards = cb[cb["combatant"].str.startswith("Guard")]
    r2, _ = summary("knockout_raid", sides__thugs__policy__knockout=False)
    cb2 = r2.combatants
    guards2 = cb2[cb2["combatant"].str.startswith("Guard")]
    # Knockout blows send a point of damage straight to injuries: guards fall unconscious more.
    assert (guards["final_state"] == "unconscious").mean() > (guards2["final_state"] == "unconscious").mean()


def test_grappling_brute_grabs_and_pins():
    texts = [sim.trace(ROOT / "grappling_brute.yaml", seed=1, skirmish=k, n=12, max_rounds=3) for k in range(12)]
    assert any("Bugbear has hold of it." in t for t in texts)
    assert any("is immobilized." in t or "is tied up." in t for t in texts)
    r_on, _ = summary("grappling_brute")
    r_off, _ = summary("grappling_brute", sides__brute__policy__immobilize="never")
    assert r_on.summary()["sides"]["brute"]["win_rate"] != r_off.summary()["sides"]["brute"]["win_rate"]


def test_spellcaster_duel_bodyguards_disrupt_spells():
    _, on = summary("spellcaster_duel")
    _, off = summary("spellcaster_duel", sides__red__policy__called_shot="never",
                     sides__blue__policy__called_shot="never")
    # Called shots at casters cost the bodyguards hits (-3), and what they disrupt changes the spells' yield.
    assert on["Blue bodyguard"]["hit_rate"] < off["Blue bodyguard"]["hit_rate"]
    assert on["Red bodyguard"]["hit_rate"] < off["Red bodyguard"]["hit_rate"]
    assert on["Blue sorcerer"]["damage_dealt"] != off["Blue sorcerer"]["damage_dealt"]


def test_arquebus_volley_reloading():
    _, s = summary("arquebus_volley")
    assert s["Arquebusier 1"]["attacks"] > 1  # the pre-loaded shot and at least one more
    # It exercises loading, drawing and high ground: the riders (combat 2, mounted, +1 to
    # attack) need 11 + 2 - 2 + 1 = 12 against an arquebusier's defense 2 once drawn.
    text = "\n".join(sim.trace(ROOT / "arquebus_volley.yaml", seed=1, skirmish=k, n=6) for k in range(6))
    assert "loads the arquebus" in text and "draws a weapon and tries to attack at once" in text
    assert re.search(r"Rider \d attacks Arquebusier \d with sabre: needs 12 or lower", text)


@pytest.mark.parametrize("path", sorted(ROOT.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_scenario_under_the_other_readings_and_crn(path):
    over = {"rules.resolution": "sequential", "rules.health_check": "end_of_round", "rules.death_rule": "guide_roll",
            "rules.contest": "higher_success", "rules.injury_penalty": "health_rolls"}
    r = sim.run(path, n=300, seed=2, overrides=over, crn=True)
    assert len(r.skirmishes) == 300
