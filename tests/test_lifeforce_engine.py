"""The Lifeforce ruleset on the engine: exact rates by simulation, grapple track, CLI."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sim
from sim.errors import ScenarioError
from sim.rulesets.lifeforce import tables as T
from sim.rulesets.lifeforce.attacks import hit_probability, stunt_point_distribution
from sim.scenario import load_scenario

SCENARIOS = sorted(Path("scenarios/lifeforce").glob("*.yaml"))


def fighter(name, **kw):
    base = {"name": name, "hp": 40, "reaction": 30, "movement": 12, "dodge": 20, "reflex": 15, "reactions": [],
            "weapons": [{"name": "sword", "skill": 20, "damage": "d6", "damage_type": "slashing"}]}
    base.update(kw)
    return base


def duel(a=None, b=None, rules=None, pa=None, pb=None):
    return {
        "name": "test duel", "ruleset": "lifeforce", "rules": rules or {},
        "sides": {
            "a": {"policy": pa or {"family": "steady", "stunts": "none"}, "combatants": [a or fighter("A")]},
            "b": {"policy": pb or {"family": "steady", "stunts": "none"}, "combatants": [b or fighter("B")]},
        },
        "run": {"skirmishes": 1000, "seed": 1, "max_rounds": 40},
    }


def within(observed, p, n, sigmas=4):
    return abs(observed - p) <= sigmas * np.sqrt(p * (1 - p) / n) + 1e-12


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_scenarios_run(path):
    r = sim.run(path, n=400, seed=3)
    s = r.summary()
    total = sum(v["win_rate"] for v in s["sides"].values()) + s["draw_rate"] + s["unfinished_rate"]
    assert total == pytest.approx(1.0)
    assert s["unfinished_rate"] < 0.05
    assert (r.combatants["attacks"] >= r.combatants["hits"]).all()


def test_at_least_five_scenarios():
    assert len(SCENARIOS) >= 5


def test_hit_rate_matches_exact_d100_chance():
    # Offence 25 against Touch 60 (Dodge 10): exactly 0.65; no stunts, so Defence never moves.
    a = fighter("A", weapons=[{"name": "sword", "skill": 25, "damage": "d4"}], dodge=10)
    b = fighter("B", weapons=[{"name": "sword", "skill": 25, "damage": "d4"}], dodge=10)
    r = sim.run(duel(a, b), n=4000, seed=2)
    attacks, hits = int(r.combatants["attacks"].sum()), int(r.combatants["hits"].sum())
    assert within(hits / attacks, hit_probability(25, 60), attacks)


def test_stunt_points_per_attack_match_the_exact_distribution():
    # Buying nothing that applies still generates the points (Rapid Reload needs Loading).
    pol = {"family": "steady", "stunt_order": ["rapid_reload"]}
    r = sim.run(duel(pa=pol, pb=pol), n=3000, seed=4)
    dist = stunt_point_distribution(20, 70)
    mean = sum(k * p for k, p in dist.items())
    var = sum(k * k * p for k, p in dist.items()) - mean ** 2
    attacks = int(r.combatants["attacks"].sum())
    got = r.combatants["stunt_points"].sum() / attacks
    assert abs(got - mean) < 4 * np.sqrt(var / attacks)
    # Without generating (stunts: none) there are none at all.
    r0 = sim.run(duel(), n=200, seed=4)
    assert r0.combatants["stunt_points"].sum() == 0


def test_steady_attacker_makes_at_most_two_attacks_a_round():
    tough = dict(hp=400)
    r = sim.run(duel(fighter("A", **tough), fighter("B", **tough)), n=300, seed=5, max_rounds=6)
    per = r.combatants.merge(r.skirmishes[["skirmish", "rounds"]], on="skirmish")
    assert (per["attacks"] <= 2 * per["rounds"]).all()
    # Starting in contact, two 2 AP attacks fit in every round: exactly 12 in 6 rounds.
    assert (per["attacks"] == 12).all()


def test_grapple_track_in_play():
    # A wrestler that cannot lose a check: engage in phase 1, Held after the phase-2 check,
    # Pinned (and its victim Prone) after phase 3, and it stays dominant through phase 4.
    w = fighter("W", athletics=300, reaction=90)
    pol = {"family": "grappler", "contest_grapple": "always"}
    r = sim.run(duel(w, fighter("D"), pa=pol), n=64, seed=0, max_rounds=1)
    per = lambda name: r.combatants[r.combatants["combatant"] == name]
    assert (per("W")["grapples_won"] == 1).all() and (per("W")["grapple_checks_won"] == 3).all()
    assert per("D")["ended_prone"].all() and (per("D")["grapple_checks_won"] == 0).all()
    text = sim.trace(duel(w, fighter("D"), pa=pol), n=3, max_rounds=1)
    checks = re.findall(r"Grappling check: .*: (\w+) dominant, (\w+)\.", text)
    assert checks == [("W", "HELD"), ("W", "PINNED"), ("W", "PINNED")]


def test_grapple_ends_when_neither_contests():
    w = fighter("W", athletics=300, reaction=90)
    pol = {"family": "grappler", "contest_grapple": "never"}
    # The defender buys no stunts: a Knock Prone (the default buyer takes one where it pays)
    # would spend W's next phase standing up instead of engaging.
    r = sim.run(duel(w, fighter("D"), pa=pol, pb={"family": "steady", "contest_grapple": "never", "stunts": "none"}),
                n=64, seed=0, max_rounds=1)
    # Each phase the untended grapple lapses at the start and the grappler engages anew:
    # four engagements, and no grappling check is ever made.
    w_rows = r.combatants[r.combatants["combatant"] == "W"]
    assert (w_rows["grapples_won"] == 4).all()
    assert r.combatants["grapple_checks_won"].sum() == 0


def test_hastened_acts_first_in_the_trace():
    slow = fighter("Slowpoke", reaction=5, hastened=1)
    data = duel(slow, fighter("Quick", reaction=80))
    text = sim.trace(data, skirmish=0, n=10)
    order_line = next(line for line in text.splitlines() if line.startswith("Turn order"))
    assert order_line.index("Slowpoke") < order_line.index("Quick")
    for p in range(1, 5):
        assert f" Phase {p}" in text


def test_zero_hp_reading_is_an_option():
    r = sim.run(duel(rules={"at_zero_hp": "dead"}), n=200, seed=6)
    states = set(r.combatants["final_state"].astype(str))
    assert "dead" in states and "unconscious" not in states
    assert r.meta["rule_options"]["at_zero_hp"] == "dead"


def test_charge_bonus_and_spear_wall_readied_attacks_change_results():
    base = sim.run("scenarios/lifeforce/charge_spear_wall.yaml", n=3000, seed=1).summary()
    loose = sim.run("scenarios/lifeforce/charge_spear_wall.yaml", n=3000, seed=1,
                    overrides={"sides.spearmen.policy.ready": "none"}).summary()
    p0, p1 = base["sides"]["spearmen"]["win_rate"], loose["sides"]["spearmen"]["win_rate"]
    assert p0 - p1 > 4 * np.sqrt(p0 * (1 - p0) / 3000 + p1 * (1 - p1) / 3000)


def test_bad_input_is_a_scenario_error():
    bad = duel(pa={"family": "skirmisher"})
    with pytest.raises(ScenarioError, match="skirmisher without a ranged weapon"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="unknown condition"):
        load_scenario(duel(rules={"conditions": {"dazed": {"offence": -5}}}))
    with pytest.raises(ScenarioError, match="family"):
        load_scenario(duel(pa={"family": "berserker"}))


def test_condition_table_override_changes_prone():
    data = duel(rules={"conditions": {"prone": {"offence": -30}}})
    setup = load_scenario(data).ruleset.build(load_scenario(data))
    assert setup.legacy.cond["offence"][T.COND["prone"]] == -30


def test_cli_json_and_rules():
    out = subprocess.run([sys.executable, "-m", "sim", "run", "scenarios/lifeforce/duel.yaml", "-n", "300",
                          "--json"], capture_output=True, text=True, check=True)
    s = json.loads(out.stdout)
    assert s["ruleset"] == "lifeforce" and s["skirmishes"] == 300
    rules = subprocess.run([sys.executable, "-m", "sim", "rules", "lifeforce"], capture_output=True, text=True,
                           check=True).stdout
    assert "attack_die" in rules and "stunt_step" in rules


def test_docs_name_every_rule_option_and_policy_field():
    from sim.rulesets.lifeforce import schema
    doc = Path("docs/rules/lifeforce.md").read_text()
    for name in list(schema.RULE_OPTIONS) + list(schema.POLICY_FIELDS):
        assert f"`{name}`" in doc, name


def test_scripted_rules_see_every_observation_and_override_the_family():
    from sim.rulesets.lifeforce import schema
    every = " + ".join(schema.OBSERVATIONS)
    # A rule that never fires but evaluates every observation, then one that always holds:
    # a side that only ever holds never attacks.
    pol = {"family": "steady", "rules": [{"if": f"{every} < -1000000", "do": "attack"}, {"if": True, "do": "hold"}]}
    r = sim.run(duel(pa=pol), n=200, seed=9, max_rounds=40)
    a = r.combatants[r.combatants["combatant"] == "A"]
    assert a["attacks"].sum() == 0
    assert (r.skirmishes["winner"] == "b").mean() > 0.9


def _far_duel(a, b, pa, pb, distance):
    data = duel(a, b, pa=pa, pb=pb)
    data["battlefield"] = {"start_distance": distance, "width": 40, "height": 7}
    return data


def test_run_doubles_a_phase_and_charge_adds_ten_offence_and_flat_footed_touch():
    import re
    charger = fighter("Charger", movement=12, reaction=90,
                      weapons=[{"name": "axe", "skill": 20, "damage": "d6"}], offence=5)
    dummy = fighter("Dummy", dodge=30, surprised=True, movement=0)
    idle = {"family": "steady", "rules": [{"if": True, "do": "hold"}]}
    text = sim.trace(_far_duel(charger, dummy, {"family": "charger", "stunts": "none"}, idle, 14), n=5, skirmish=0)
    # Movement 12 is 3 a phase: Run moves 6 squares in phase 1.
    m = re.search(r"Charger runs from \((\d+), \d+\) to \((\d+), \d+\)", text)
    assert m and int(m.group(2)) - int(m.group(1)) == 6
    # The charge's attack: 20 skill + 5 Offence + 10, against a Flat-Footed Touch of 50 in round 1.
    m = re.search(r"Charger charges into Dummy with axe: d100 (\d+) \+(\d+) = \d+ vs Touch (\d+)", text)
    assert m and int(m.group(2)) == 35
    round_of_charge = text[:m.start()].count("--- Round")
    assert int(m.group(3)) == (50 if round_of_charge == 1 else 80)


def test_readied_attack_of_opportunity_strikes_an_approaching_enemy():
    spear = fighter("Spear", reaction=10, reactions=["attack_of_opportunity"], weapons=[
        {"name": "spear", "skill": 20, "damage": "d8", "reach": 2}])
    walker = fighter("Walker", reaction=50, movement=4)  # 1 m a phase: it walks through the spear's reach
    text = sim.trace(_far_duel(walker, spear, {"family": "steady", "stunts": "none"},
                               {"family": "guardian", "ready": "opportunity", "stunts": "none"}, 5), n=5)
    # The readied one goes first and is the only one for that move (one attack per trigger),
    # and the guardian kept preparing it although the walker was already within reach.
    assert "Spear makes an Attack of Opportunity (readied) as Walker moves" in text
    assert "drops opportunity" not in text
    first = text.index("Attack of Opportunity")
    assert "(Reaction) as Walker moves" not in text[first:text.index("\n", text.index("\n", first) + 1)]


@pytest.mark.parametrize("stunt, expect", [
    ("seize_the_initiative", "] (Hastened)"),          # Hastened in the next round's turn order
    ("knock_prone", "PRONE"),
    ("disarm", "drops the weapon"),
    ("threaten", "THREATENED"),
])
def test_stunts_take_effect(stunt, expect):
    # Offence 150 against Touch 70 always succeeds by 81+: five or more stunt points.
    ace = fighter("Ace", offence=130, reaction=10, intimidate=200,
                  weapons=[{"name": "blade", "skill": 20, "damage": "d2"}])
    text = sim.trace(duel(ace, fighter("B", hp=200), pa={"family": "steady", "stunt_order": [stunt]}),
                     n=3, max_rounds=3)
    assert expect in text


def test_stunt_once_per_phase_and_dual_strike_generates_none():
    ace = fighter("Ace", offence=130, weapons=[{"name": "blade", "skill": 20, "damage": "d2"}])
    data = duel(ace, fighter("B", hp=500), pa={"family": "steady", "stunt_order": ["dual_strike", "minor_critical"]})
    data["sides"]["b"]["combatants"].append(fighter("C", hp=500))
    text = sim.trace(data, n=3, max_rounds=2)
    dual = [line for line in text.splitlines() if "dual-strikes" in line]
    assert dual and all("stunt point" not in line for line in dual)


def test_focus_mode_makes_a_side_share_its_target():
    data = duel(pa={"family": "steady", "stunts": "none", "target": "focus"})
    data["sides"]["a"]["combatants"] = [fighter("A1"), fighter("A2")]
    data["sides"]["b"]["combatants"] = [fighter("B1", hp=400), fighter("B2", hp=400)]
    chosen = set()
    for k in range(12):
        text = sim.trace(data, skirmish=k, n=12, max_rounds=1)
        targets = set(re.findall(r"A\d attacks (B\d)", text))
        assert len(targets) == 1  # both share one target
        chosen |= targets
    assert chosen == {"B1", "B2"}  # either enemy, chosen at random
