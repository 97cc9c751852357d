"""The fused duel loop (kduel.py) plays what the general round plays: skirmish for
skirmish the same outcome columns under every rule option and policy parameter it
accepts, and scenarios outside its domain never take it."""
from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import yaml

import sim
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS
from sim.rulesets.lifeforce import kplay

ROOT = "scenarios/lifeforce/"
N = int(__import__("os").environ.get("LF_DUEL_N", 3000))


def _raw(name: str) -> dict:
    with open(f"{ROOT}{name}.yaml") as f:
        return yaml.safe_load(f)


def _setup(raw: dict):
    scen = sim.load_scenario(raw)
    return scen.ruleset.build(scen)


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.winner, b.winner)
    np.testing.assert_array_equal(a.rounds, b.rounds)
    for k, v in a.per_combatant.items():
        np.testing.assert_array_equal(v, b.per_combatant[k], err_msg=k)


def _both_paths(setup, seed=11, first=500, n=N, max_rounds=60):
    assert setup.duel
    fast = kplay.play(setup, seed, first, n, max_rounds)
    slow = kplay.play(dataclasses.replace(setup, duel=False), seed, first, n, max_rounds)
    _same(fast, slow)
    return fast


def _fighters(raw):
    return [side["combatants"][0] for side in raw["sides"].values()]


def _edit(name, rules=None, red=None, blue=None, policy=None, battlefield=None, run=None):
    raw = copy.deepcopy(_raw(name))
    raw["rules"] = {**(raw.get("rules") or {}), **(rules or {})}
    a, b = _fighters(raw)
    a.update(red or {})
    b.update(blue or {})
    for side in raw["sides"].values():
        side["policy"] = {**side.get("policy", {}), **(policy or {})}
    raw["battlefield"] = {**raw.get("battlefield", {}), **(battlefield or {})}
    raw["run"] = {**raw["run"], **(run or {})}
    return raw


SHIELD = {"shield": "d6", "reactions": ["shield_block"]}
AXE = [{"name": "great axe", "skill": 25, "damage": "2d6+1", "damage_type": "slashing", "two_handed": True,
        "armor_penetration": 2}]
POLEARM = [{"name": "glaive", "skill": 20, "damage": "d10", "damage_type": "slashing", "reach": 2}]

ORDER = ["defensive_stance", "seize_the_initiative", "minor_critical", "knock_prone"]

VARIANTS = {
    "reroll_each_round_no_carry": _edit("duel", rules={"turn_order_reroll": "each_round",
                                                       "preparation_carries_over": False}),
    "after_armor_dead_d80": _edit("duel", rules={"critical_applies": "after_armor", "at_zero_hp": "dead",
                                                 "attack_die": 80, "stunt_step": 4}),
    "expected_stunts": _edit("duel", policy={"stunts": "expected"}),
    "shields_answer_threats": _edit("duel", red=SHIELD, blue=SHIELD, policy={"answer_threats": True}),
    "shields_readied_next_turn": _edit("duel", rules={"readied_lasts": "next_turn", "reaction_actions": "ap"},
                                       red=SHIELD, blue=SHIELD, policy={"answer_threats": True}),
    "shields_reaction_only": _edit("duel", rules={"reaction_actions": "reaction"}, red=SHIELD,
                                   blue={"shield": "2d4-3"}),
    "armour_penetration_two_handed": _edit("duel", red={"armor": 6, "weapons": AXE}, blue={"armor": 5}),
    "many_damage_dice": _edit("duel", red={"weapons": [{"name": "flail", "skill": 15, "damage": "5d4",
                                                        "damage_type": "bludgeoning"}]}),
    "surprise_no_actions": _edit("duel", rules={"surprise_round": "no_actions"}, red={"surprised": True,
                                                                                      "dodge": -20}),
    "surprise_flat_footed": _edit("stunt_choices", red={"surprised": True}),
    "hastened_slowed": _edit("duel", red={"hastened": 1}, blue={"slowed": 2}),
    "seize_off_initiative": _edit("duel", rules={"seize_the_initiative": "none", "turn_order_by": "initiative"},
                                  red={"initiative": 40}),
    "reach_and_opportunity": _edit("duel", red={"weapons": POLEARM, "reactions": ["attack_of_opportunity"]},
                                   blue=SHIELD, battlefield={"start_distance": 14}),
    "unequal_far_apart": _edit("duel", red={"hp": 45, "offence": 15, "dodge": 5, "movement": 7},
                               blue={"hp": 22, "dodge": 35, "movement": 16}, policy={"run": False},
                               battlefield={"start_distance": 20}),
    "control_options": _edit("stunt_choices", rules={"initiator_check": "attack_total",
                                                     "defensive_stance_defences": "touch",
                                                     "disarmed_recover_ap": 0, "stand_up_ap": 2,
                                                     "threaten_phases": 3, "unarmed_damage": "d4"}),
    "control_expected": _edit("stunt_choices", policy={"stunts": "expected"},
                              rules={"defensive_stance_defences": "touch_reflex"}),
    "stunt_order_spell_table": _edit("stunt_choices", policy={"stunt_order": ORDER},
                                     red={"weapons": [{"name": "staff", "skill": 30, "damage": "d8",
                                                       "stunts": "spell"}]}),
    "stunt_order_spell_costs_weapon": _edit("stunt_choices", policy={"stunt_order": ORDER},
                                            rules={"spell_stunt_costs": "weapon"},
                                            blue={"weapons": [{"name": "staff", "skill": 30, "damage": "d8",
                                                               "stunts": "spell"}]}),
    "prone_may_walk": _edit("stunt_choices", rules={"conditions": {"prone": {"moves": True, "offence": -20}}}),
    "no_stunts_cell_size_2": _edit("duel", policy={"stunts": "none"}, battlefield={"cell_size": 2}),
}


@pytest.mark.parametrize("name", ["duel", "stunt_choices"])
def test_shipped_duels_take_the_fused_loop_and_play_what_the_general_round_plays(name):
    raw = _raw(name)
    out = _both_paths(_setup(raw), seed=int(raw["run"]["seed"]))
    assert (out.winner >= 0).all() and out.per_combatant["hits"].sum() > 0


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variants_play_what_the_general_round_plays(name):
    out = _both_paths(_setup(VARIANTS[name]))
    assert (out.winner >= 0).mean() > 0.5  # real fights were played


def test_what_the_variants_exercise_happened():
    # Shield Blocks, Attacks of Opportunity, every stunt column: the equality above is no
    # accident of rules that never came into play.
    counts = {}
    for name in ("shields_answer_threats", "reach_and_opportunity", "control_options", "control_expected"):
        counts[name] = kplay.play(_setup(VARIANTS[name]), 11, 500, N, 60).per_combatant
    assert counts["shields_answer_threats"]["shield_blocks"].sum() > 0
    assert counts["reach_and_opportunity"]["opportunity_attacks"][:, 0].sum() > 0
    for stunt in ("knock_prone", "disarm", "threaten", "major_critical", "defensive_stance"):
        assert counts["control_options"][f"stunt_{stunt}"].sum() > 0, stunt
    assert counts["control_expected"]["stunt_points"].sum() > 0


def test_max_rounds_reached_in_the_fused_loop():
    raw = _edit("duel", red={"armor": 60}, blue={"armor": 60})
    out = _both_paths(_setup(raw), max_rounds=7)
    assert (out.winner == -2).all() and (out.rounds == 7).all()


def test_a_traced_skirmish_or_a_given_start_takes_the_general_round_with_the_same_fights():
    setup = _setup(_raw("duel"))
    whole = kplay.play(setup, 7, 0, 200, 60)
    out, text = kplay.trace(setup, 7, 42, 60)
    assert out.winner[0] == whole.winner[42] and out.rounds[0] == whole.rounds[42] and text
    start = {"hp_left": np.full((200, 2), 12)}
    fast = kplay.play(setup, 7, 0, 200, 60, start=start)
    _same(fast, kplay.play(dataclasses.replace(setup, duel=False), 7, 0, 200, 60, start=start))
    assert fast.rounds.mean() < whole.rounds.mean()


@pytest.mark.parametrize("name", ["duel", "stunt_choices", "shields_answer_threats", "control_options"])
def test_a_carried_start_of_hit_points_and_states_plays_in_the_fused_loop_what_the_general_round_plays(name):
    # What a day carries into its next fight (sim/rulesets/lifeforce/day.py): hit points
    # and who is down. Standing creatures have at least 1 hit point, as a fight leaves them.
    setup = _setup(_raw(name) if name in ("duel", "stunt_choices") else VARIANTS[name])
    rng = np.random.default_rng(3)
    state = rng.choice([STANDING] * 8 + [UNCONSCIOUS, DEAD], size=(N, 2))
    hp = np.where(state == STANDING, rng.integers(1, np.asarray(setup.legacy.hp) + 1, size=(N, 2)),
                  rng.integers(-3, 1, size=(N, 2)))
    start = {"hp_left": hp, "final_state": state}
    fast = kplay.play(setup, 11, 500, N, 60, start=start)
    _same(fast, kplay.play(dataclasses.replace(setup, duel=False), 11, 500, N, 60, start=start))
    assert (fast.rounds == 0).sum() > N // 10 and (fast.rounds > 0).mean() > 0.5
    prone = {**start, "ended_prone": np.eye(2, dtype=np.int64)[rng.integers(0, 2, N)]}
    _same(kplay.play(setup, 11, 500, N, 60, start=prone),
          kplay.play(dataclasses.replace(setup, duel=False), 11, 500, N, 60, start=prone))


@pytest.mark.parametrize("name", ["archers_vs_beast", "charge_spear_wall", "crossbow_ambush",
                                  "grappler_vs_duellist", "shield_wall"])
def test_shipped_scenarios_outside_the_duel_domain_do_not_take_it(name):
    scen = sim.load_scenario(f"{ROOT}{name}.yaml")
    assert not scen.ruleset.build(scen).duel


@pytest.mark.parametrize("edit", [
    {"policy": {"family": "charger"}},
    {"policy": {"family": "grappler"}},
    {"policy": {"stunt_order": ["skirmish", "minor_critical"]}},
    {"red": {"weapons": [{"name": "bow", "skill": 20, "damage": "d8", "range": 30}]}},
    {"policy": {"rules": [{"if": "round > 2", "do": "hold"}]}},
])
def test_duels_with_what_the_fused_loop_does_not_play_take_the_general_round(edit):
    assert _setup(_edit("duel")).duel
    assert not _setup(_edit("duel", **edit)).duel


def test_three_combatants_take_the_general_round():
    raw = _edit("duel")
    side = next(iter(raw["sides"].values()))
    side["combatants"].append({**side["combatants"][0], "name": "Second red"})
    assert not _setup(raw).duel


def test_stunt_points_by_a_multiply_equal_the_division_for_every_margin_below_its_limit():
    """The strike divides its margin by the stunt step with a multiply (kduel._step_points);
    the shipped steps only reach small margins, so every margin is checked here."""
    from numba import njit

    from sim.rulesets.lifeforce import kduel

    @njit
    def mismatches(step):
        recip = ((1 << 32) + step - 1) // step if 0 < step < kduel.RECIP_LIMIT else 0
        bad = 0
        for margin in range(kduel.RECIP_LIMIT + 5):  # past the limit the division itself is used
            bad += kduel._step_points(margin, step, recip) != margin // step
        return bad

    for step in (1, 2, 3, 5, 7, 10, 13, 20, 97, 1000, 4099, 65535, 65536, 100_000):
        assert mismatches(step) == 0, step
