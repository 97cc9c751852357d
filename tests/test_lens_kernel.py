"""The compiled Lens: the same source with and without JIT, the rule fixes, the default play.

Scenarios are small dicts played through the public API (sim.run, sim.trace). Random
results use fixed seeds and tolerances of about 4 standard errors.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

import sim
from sim.scenario import load_scenario

HERO = {"name": "Hero", "body": 20, "armor_rating": 2, "talent": 8,
        "abilities": {k: {"training": "journeyman"} for k in
                      ("weapon_use", "maneuvering", "shield_use", "armor_use", "abjuration")},
        "weapons": [{"name": "long sword", "size": "medium", "workmanship": "common"}]}
BEAST = {"name": "Beast", "kind": "monster", "body": 30, "defense": 5, "attack_rating": 5, "initiative": 4,
         "attacks": [{"name": "claw", "damage": "2d6"}]}


def scenario(hero=None, beast=None, rules=None, policy=None, beast_side=None):
    return {"name": "t", "ruleset": "lens", "rules": rules or {}, "run": {"max_rounds": 60},
            "sides": {"a": {"policy": policy or {}, "combatants": [hero or HERO]},
                      "b": beast_side or {"combatants": [beast or BEAST]}}}


def win_rate(data, n=4000, seed=3, side="a"):
    r = sim.run(data, n=n, seed=seed)
    return float((r.skirmishes["winner"] == side).mean()), r


def test_one_skirmish_traces_the_same_with_and_without_jit():
    code = ("import sim, json, sys; d = json.loads(sys.argv[1]); "
            "print(sim.trace(d, seed=5, skirmish=3, n=10))")
    data = json.dumps(scenario(hero={**HERO, "shield": "fine"}, policy={"family": "hold_for_defence"}))
    out = []
    for jit_off in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit_off}
        res = subprocess.run([sys.executable, "-c", code, data], capture_output=True, text=True, env=env, check=True)
        out.append(res.stdout)
    assert out[0] == out[1]
    assert "defends with" in out[0] and "--- Round 1 ---" in out[0]


def test_trace_shows_the_dice_faces_of_each_challenge():
    text = sim.trace(scenario(), seed=1, skirmish=0, n=1)
    rolls = [line for line in text.splitlines() if "rolls weapon_use: talent" in line]
    assert rolls, text
    # "talent 7, training 2 and 5 against TN 5: 1 effort, Sacrifice": efforts are the dice at or over the TN.
    import re
    for line in rolls:
        m = re.search(r"talent (\d+), training (\d+) and (\d+) against TN (\d+): (\d) effort", line)
        t, a, b, tn, eff = map(int, m.groups())
        assert eff == (t >= tn) + (a >= tn) + (b >= tn)


def test_skirmish_k_is_the_same_fight_in_any_run():
    data = scenario()
    a = sim.run(data, n=50, seed=9).skirmishes
    b = sim.run(data, n=2000, seed=9).skirmishes
    assert (a["rounds"].to_numpy() == b["rounds"].to_numpy()[:50]).all()


def test_a_soaked_blow_still_carries_its_tags():
    """Fixed: the tag's condition rides on a connecting blow that armour takes to 0."""
    hero = {**HERO, "weapons": [{"name": "club", "damage": "1", "tags": ["STUNNING"]}]}
    beast = {**BEAST, "armor_rating": 5, "body": 5}
    text = sim.trace(scenario(hero=hero, beast=beast, policy={"family": "all_out", "tags": 1}), seed=2,
                     skirmish=0, n=1, max_rounds=3)
    assert "down to 0" in text
    assert "Beast gains STUN from the tags" in text


def test_surprise_freezes_a_side_not_every_character():
    """Fixed: in a duel of characters, party_surprised costs the first side its round, not both."""
    foe = {**HERO, "name": "Rival"}
    data = scenario(rules={"surprise": "party_surprised"}, policy={"family": "all_out"},
                    beast_side={"policy": {"family": "all_out"}, "combatants": [foe]})
    text = sim.trace(data, seed=4, skirmish=0, n=1)
    round1 = text.split("--- Round 1 ---")[1].split("--- Round 2 ---")[0]
    assert "Rival attacks Hero" in round1
    assert "Hero attacks" not in round1


def test_no_attack_at_a_zero_chance():
    """Novice training dice are d4 and the Talent a d6: against Defense 7 nothing can connect."""
    hero = {**HERO, "talent": 6, "abilities": {"weapon_use": {"training": "novice"}}}
    beast = {**BEAST, "defense": 7}
    for family in ("expected_value", "all_out"):
        r = sim.run(scenario(hero=hero, beast=beast, policy={"family": family}), n=300, seed=1)
        hero_rows = r.combatants[r.combatants["combatant"] == "Hero"]
        assert hero_rows["attacks"].sum() == 0


def test_all_out_off_balance_does_not_pay_to_go_first():
    text = sim.trace(scenario(policy={"family": "all_out"}), seed=1, skirmish=0, n=1)
    for k in range(40):
        text += sim.trace(scenario(policy={"family": "all_out"}), seed=1, skirmish=k, n=40)
    assert "Off-Balance" in text
    assert "goes first, -1" not in text
    explicit = "".join(sim.trace(scenario(policy={"family": "all_out", "timing": "before"}), seed=1, skirmish=k,
                                 n=40) for k in range(40))
    assert "goes first, -1" in explicit


def test_held_momentum_is_not_spent_on_a_sacrifice_or_an_item():
    """Fixed: with hold 1 before the monsters, a character keeps 1 Momentum whatever it rolls."""
    hero = {**HERO, "body": 20, "items": [{"name": "keg", "size": "huge", "heal": "2d6", "uses": 1}]}
    data = scenario(hero=hero, policy={"family": "hold_for_defence", "timing": "before", "heal_below": 0.9})
    texts = "".join(sim.trace(data, seed=7, skirmish=k, n=30) for k in range(30))
    lines = texts.splitlines()
    before = False
    for line in lines:
        if line.startswith("Hero ("):
            before = "acts before" in line
        if before and "(the opponents act)" in line:
            before = False
        if before and "Momentum left)" in line:
            left = int(line.split("Momentum ")[-1].split(" left")[0])
            assert left >= 1, line
    assert "uses keg" in texts


def test_default_play_defends_and_a_better_shield_wins_more():
    base = {**HERO, "abilities": {**HERO["abilities"], "shield_use": {"training": "journeyman"}}}
    rates = []
    for shield in (None, "common", "legendary"):
        hero = {**base, "shield": shield}
        p, r = win_rate(scenario(hero=hero, rules={"challenge": "tool_die"}), n=6000)
        rates.append(p)
        if shield:
            assert r.combatants[r.combatants["combatant"] == "Hero"]["defences_used"].mean() > 0.5
    se = np.sqrt(0.25 / 6000) * np.sqrt(2)
    assert rates[1] > rates[0] + 4 * se
    assert rates[2] > rates[1] + 2 * se


def test_default_play_armour_and_a_weapon_tag_help():
    p0, _ = win_rate(scenario(hero={**HERO, "armor_rating": 0}), n=6000)
    p1, _ = win_rate(scenario(hero={**HERO, "armor_rating": 3}), n=6000)
    se = np.sqrt(0.5 / 6000)
    assert p1 > p0 + 4 * se
    tagged = {**HERO, "weapons": [{**HERO["weapons"][0], "tags": ["STUNNING"]}]}
    p2, r = win_rate(scenario(hero=tagged, beast={**BEAST, "body": 40}), n=6000)
    p3, _ = win_rate(scenario(beast={**BEAST, "body": 40}), n=6000)
    assert p2 > p3 + 4 * se


def test_kernel_with_fixes_off_agrees_with_the_old_engine():
    from benchmarks.agree_lens import compare
    rows, _, _ = compare("scenarios/lens/novice_party_vs_brute.yaml", 6000, fixes=0)
    off = [(k, round(a, 3), round(b, 3), round(z, 1)) for k, a, b, z in rows if abs(z) > 4.5]
    assert not off, off


def test_a_run_may_start_from_given_state():
    scen = load_scenario(scenario())
    setup = scen.ruleset.build(scen)
    n = 200
    start = {"body_left": np.tile([3, 30], (n, 1)), "void": np.zeros((n, 2), int)}
    hurt = scen.ruleset.play(setup, 1, 0, n, 60, start=start)
    whole = scen.ruleset.play(setup, 1, 0, n, 60)
    assert (hurt.winner == 0).mean() < (whole.winner == 0).mean()


def test_designer_is_told_when_a_challenge_cannot_succeed(tmp_path):
    """Novice Training dice are d4: against Defense 7 with a d8 Talent only a Sacrifice is possible;
    against 9 not even that."""
    import yaml
    from click.testing import CliRunner

    from sim.cli import main
    hero = {**HERO, "abilities": {"weapon_use": {"training": "novice"}}}
    data = scenario(hero=hero, beast={**BEAST, "defense": 7})
    path = tmp_path / "novice.yaml"
    path.write_text(yaml.safe_dump(data))
    out = CliRunner().invoke(main, ["validate", str(path)]).output
    assert "Hero's weapon use (Talent d8, Training 2d4) cannot succeed against TN 7 (Beast's Defense): every " \
           "roll is a Botch or a Sacrifice." in out
    summary = sim.run(data, n=100, seed=1).summary_text()
    assert "cannot succeed against TN 7" in summary
    path.write_text(yaml.safe_dump(scenario(hero=hero, beast={**BEAST, "defense": 9})))
    out = CliRunner().invoke(main, ["validate", str(path)]).output
    assert "cannot reach TN 9 (Beast's Defense): every roll is a Botch." in out
    clean = tmp_path / "clean.yaml"
    clean.write_text(yaml.safe_dump(scenario()))
    assert "note:" not in CliRunner().invoke(main, ["validate", str(clean)]).output


SAVINGS_CHECK = """
import sys
from sim.scenario import load_scenario
from sim.rulesets.lens import kcore, kvalue, ktables as T, play
worst, rows = 0.0, 0
for name in sys.argv[1:]:
    scen = load_scenario(f"scenarios/lens/{name}.yaml")
    kt, K, _ = play._tables(scen.ruleset.build(scen))
    ci, cf, R = K
    C = kt.ci.shape[0]
    si = kcore.slot_table(K)
    blows = [(si[s, T.S_OWNER], s, bool(si[s, T.S_MAGICAL]), kcore.slot_mean(K, s)) for s in range(R[T.R_SLOTS])]
    blows += [(c, 0, False, cf[c, T.W_MEAN]) for c in range(C) if ci[c, T.IS_CHAR]]
    blows += [(c, 0, True, cf[c, T.SP_MEAN]) for c in range(C) if ci[c, T.IS_CHAR] and ci[c, T.HAS_SPELL]]
    for who in range(C):
        if not ci[who, T.IS_CHAR] or ci[who, T.EV]:
            continue
        for att, blow, magical, mean in blows:
            row = kcore.savings_row(K, who, kcore.blow_source(K, att, blow, magical))
            for d in range(5):
                live = kvalue.defence_saving(K, who, d, R[T.R_DEF_AB0 + d], ci[att, T.ATT_RATING], mean,
                                             cf[who, T.MOMENTUM_VALUE], ci[who, T.TAKE_SAC] == 1, False)
                worst, rows = max(worst, abs(row[d] - live)), rows + 1
print(rows, worst)
"""


def test_the_savings_table_holds_what_a_defence_would_save_of_each_blow():
    # Run uncompiled: the table filled once must equal the saving recomputed at the blow,
    # for monster slots and for characters' weapons and spells alike.
    names = ["novice_party_vs_brute", "greatsword_vs_dagger", "caster_duel", "support_party_vs_troll"]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", SAVINGS_CHECK, *names], env=env, capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rows, worst = out.stdout.split()
    assert int(rows) > 100
    assert float(worst) == 0.0
