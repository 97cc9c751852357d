"""The adventuring day (sim/day): carried state, keyed dice per fight, rests, outputs."""
from __future__ import annotations

import json
import types
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import sim
import sim.day
from sim.cli import main
from sim.day.dice import SITE_NIGHT, actor_key, dice_by_day
from sim.errors import ScenarioError
from sim.rulesets.base import DEAD, STANDING, UNCONSCIOUS

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios"
LIB = ROOT / "library"


def write_day(tmp_path, data: dict, name: str = "day.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def duel_day(ruleset: str, scenario: str, side: str, rest: str = "full", days: int = 4000) -> dict:
    file = str(SCEN / ruleset / scenario)
    return {"name": "twice", "ruleset": ruleset, "party": {"side": side, "from": {"scenario": file, "side": side}},
            "steps": [{"fight": "one", "scenario": file, "party_side": side}, {"rest": "between", "kind": rest},
                      {"fight": "two", "scenario": file, "party_side": side}],
            "run": {"days": days, "seed": 77}}


DUELS = [("gods_and_monsters", "yeti.yaml", "party"), ("lens", "greatsword_vs_dagger.yaml", "greatsword"),
         ("lifeforce", "duel.yaml", "red")]


def fresh_days(day, fight: str) -> np.ndarray:
    """The days on which the party entered `fight` standing with every resource full."""
    m = day.members[day.members["fight"] == fight]
    mod = day.day.rules_module
    fresh = m["entry_state"] == "standing"
    for who in day.day.members:
        full = mod.full(day.day.stats[who])
        for r in day.day.member_resources(who):
            fresh &= (m["combatant"] != who) | (m[f"entry_{r}"] == full[r])
    ok = fresh.groupby(m["day"]).all()
    return ok.index[ok.to_numpy()].to_numpy()


@pytest.mark.parametrize("ruleset,scenario,side", DUELS)
def test_each_fight_a_party_enters_fresh_is_the_skirmish_run_plays_with_the_fights_seed(tmp_path, ruleset,
                                                                                        scenario, side):
    # Day k = skirmish k of `skirmish run` of the fight's scenario with its derived seed.
    day = sim.day.run(write_day(tmp_path, duel_day(ruleset, scenario, side)))
    fights = day.fights.set_index(["fight", "day"])
    for f in day.day.fights:
        alone = sim.run(SCEN / ruleset / scenario, n=4000, seed=f.seed)
        won = (alone.skirmishes["winner"] == side).to_numpy()
        days = fresh_days(day, f.name)
        assert len(days) > 1000
        got = fights.loc[f.name].loc[days]
        assert (got["won"].to_numpy() == won[days]).all()
        assert (got["rounds"].to_numpy() == alone.skirmishes["rounds"].to_numpy()[days]).all()
    seeds = [f.seed for f in day.day.fights]
    assert seeds[0] == sim.day.derived_seed(77, "fight", "one") and seeds[0] != seeds[1]


@pytest.mark.parametrize("ruleset,scenario,side", DUELS[1:])  # nobody dies there, so a full rest restores all
def test_two_duels_with_a_full_rest_between_survive_as_the_win_chance_squared(tmp_path, ruleset, scenario, side):
    n = 8000
    day = sim.day.run(write_day(tmp_path, duel_day(ruleset, scenario, side, days=n)))
    p1, p2 = [float((sim.run(SCEN / ruleset / scenario, n=n, seed=f.seed).skirmishes["winner"] == side).mean())
              for f in day.day.fights]
    rate = float(day.days["survived"].mean())
    sigma = np.sqrt(p1 * p2 * (1 - p1 * p2) / n + p2 ** 2 * p1 * (1 - p1) / n + p1 ** 2 * p2 * (1 - p2) / n)
    assert abs(rate - p1 * p2) < 4 * sigma


START_CASES = [("gods_and_monsters", "goblin_ambush.yaml"), ("gods_and_monsters", "ambush_on_sleepers.yaml"),
               ("lens", "novice_party_vs_brute.yaml"), ("lifeforce", "crossbow_ambush.yaml")]


@pytest.mark.parametrize("ruleset,scenario", START_CASES)
def test_a_fresh_party_carried_in_plays_the_same_skirmishes_as_no_start(ruleset, scenario):
    # The start path (what every fight after the first takes) against the fresh one: the
    # same outcome, surprise and sleepers included, when nothing carried differs.
    scen = sim.load_scenario(SCEN / ruleset / scenario)
    setup = scen.ruleset.build(scen)
    mod = sim.day.spec.day_rules_module(ruleset)
    n, party = 3000, 0
    members = {k: ({r: np.full(n, v, np.int64) for r, v in mod.full(c.stats).items()}, np.zeros(n, np.int64))
               for k, c in enumerate(scen.combatants) if c.side == party}
    start = mod.start(setup, n, len(scen.combatants), members)
    fresh = scen.ruleset.play(setup, 5, 0, n, 100)
    carried = scen.ruleset.play(setup, 5, 0, n, 100, start)
    assert (fresh.winner == carried.winner).all() and (fresh.rounds == carried.rounds).all()
    for key in ("damage_taken", "final_state", "down_round"):
        assert (fresh.per_combatant[key] == carried.per_combatant[key]).all(), key


def road(tmp_path, yeti_survival: int = 20, rest_after: int = 1) -> Path:
    data = yaml.safe_load((ROOT / "days/gods_and_monsters/road_to_hightown.yaml").read_text())
    data["include"] = str(LIB / "gods_and_monsters.yaml")
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str(SCEN / "gods_and_monsters" / Path(step["scenario"]).name)
    if yeti_survival != 20:
        data["steps"][4] = {"fight": "the yeti", "sides": {"yeti": {"combatants": [
            {"name": "Yeti", "level": 4, "survival": yeti_survival, "combat": 4, "defense": 3,
             "attacks": [{"name": "claw", "damage": "d6"}, {"name": "claw", "damage": "d6"}]}]}}}
    if rest_after != 1:
        breather = data["steps"].pop(1)
        data["steps"].insert(rest_after, breather)
    data["run"] = {"days": 3000, "seed": 2026}
    return write_day(tmp_path, data, f"road-{yeti_survival}-{rest_after}.yaml")


def test_changing_the_third_fight_leaves_the_first_two_day_by_day(tmp_path):
    a, b = sim.day.run(road(tmp_path)), sim.day.run(road(tmp_path, yeti_survival=40))
    fa, fb = a.fights.set_index(["fight", "day"]), b.fights.set_index(["fight", "day"])
    for name in ("goblin ambush", "orc patrol"):
        assert fa.loc[name].equals(fb.loc[name])
    assert not fa.loc["the yeti"].equals(fb.loc["the yeti"])
    assert fb.loc["the yeti"]["won"].mean() < fa.loc["the yeti"]["won"].mean()


def test_moving_a_rest_keeps_every_fights_dice(tmp_path):
    a, b = sim.day.run(road(tmp_path)), sim.day.run(road(tmp_path, rest_after=2))
    assert [f.seed for f in a.day.fights] == [f.seed for f in b.day.fights]
    fa, fb = a.fights.set_index(["fight", "day"]), b.fights.set_index(["fight", "day"])
    assert fa.loc["goblin ambush"].equals(fb.loc["goblin ambush"])
    # Whether the orcs come is their own keyed draw, wherever the rest stands.
    ma = a.fights[a.fights["fight"] == "orc patrol"]["met"].to_numpy()
    mb = b.fights[b.fights["fight"] == "orc patrol"]["met"].to_numpy()
    alive = a.fights[a.fights["fight"] == "goblin ambush"]["won"].to_numpy()
    assert (ma[alive] == mb[alive]).all() and 0.4 < ma[alive].mean() < 0.6


def test_results_do_not_depend_on_chunks_or_threads(tmp_path, monkeypatch):
    path = road(tmp_path)
    whole = sim.day.run(path)
    monkeypatch.setattr(sim.runner, "CHUNK_SIZE", 700)
    cut = sim.day.run(path, jobs=2)
    for table in ("days", "fights", "members", "fates", "rests"):
        assert getattr(whole, table).equals(getattr(cut, table)), table


def orcs(tmp_path, day_rules: dict | None = None, days: int = 6000) -> Path:
    data = yaml.safe_load((ROOT / "days/gods_and_monsters/toromeen_and_the_orcs.yaml").read_text())
    data["include"] = str(LIB / "gods_and_monsters.yaml")
    data["day_rules"] = day_rules or {}
    data["run"] = {"days": days, "seed": 11}
    return write_day(tmp_path, data, f"orcs-{len(day_rules or {})}.yaml")


def test_the_nights_health_roll_is_its_keyed_d20_against_fortitude(tmp_path):
    day = sim.day.run(orcs(tmp_path, {"night_roll": "fortitude"}))
    rests = day.rests[day.rests["rested"]]
    camp = day.day.steps[2]
    d20 = dice_by_day(20, camp.seed, 0, len(day.days), SITE_NIGHT, actor_key("Toromeen"))
    assert (rests["night_roll_succeeded"].to_numpy() == (d20[rests["day"].to_numpy()] <= 11)).all()
    k, n = int(rests["night_roll_succeeded"].sum()), len(rests)
    assert abs(k / n - 11 / 20) < 4 * np.sqrt(11 / 20 * 9 / 20 / n)  # the exact binomial's sigma


def test_a_night_heals_level_survival_on_success_and_one_point_otherwise(tmp_path):
    day = sim.day.run(orcs(tmp_path))
    m = day.members.set_index(["fight", "day"])
    before, after = m.loc["second orc"], m.loc["third orc"]
    days = after.index
    ok = day.rests.set_index("day").loc[days, "night_roll_succeeded"].to_numpy()
    inj = before.loc[days, "exit_injuries"].to_numpy()
    gained = after["entry_survival"].to_numpy() - before.loc[days, "exit_survival"].to_numpy()
    cured = before.loc[days, "exit_injuries"].to_numpy() - after["entry_injuries"].to_numpy()
    room = 7 - before.loc[days, "exit_survival"].to_numpy()
    assert (after["entry_verve"] == 17).all()  # verve back the next day
    assert (cured[ok & (inj > 0)] == 1).all() and (gained[ok & (inj > 0)] == 0).all()
    assert (gained[ok & (inj == 0)] == np.minimum(2, room[ok & (inj == 0)])).all()
    assert (gained[~ok] == np.minimum(1, room[~ok])).all() and (cured[~ok] == 0).all()


def test_toromeen_against_the_orc_the_survival_pages_worked_example():
    # "Toromeen ends the encounter with 2 survival and no verve. He will have 2 survival
    # points in any future encounters that day ... If the roll is successful, Toromeen's
    # survival will increase by two, to 4." Never above 7, nor verve above 17.
    from sim.rulesets.gods_and_monsters import day as gm
    toromeen = sim.load_scenario(SCEN / "gods_and_monsters/yeti.yaml").combatants[2].stats
    assert gm.full(toromeen) == {"verve": 17, "survival": 7, "injuries": 0, "spell_uses": 0}
    per = {"verve_left": np.array([[0]] * 3), "survival_left": np.array([[2]] * 3), "injuries": np.zeros((3, 1))}
    setup = types.SimpleNamespace(spell_names=[], sp=np.zeros((9, 1), np.int64))
    outcome = types.SimpleNamespace(per_combatant=per, per_spell={"spell_uses_left": np.zeros((3, 0), np.int64)})
    res = gm.after_fight(outcome, setup, 0, {"spell_uses": "per_day"})
    assert res["survival"].tolist() == [2, 2, 2] and res["verve"].tolist() == [0, 0, 0]
    status = np.array([STANDING, STANDING, DEAD])
    rules = {"short_rest": "nothing", "night_roll": "fortitude_less_injuries", "night_heals": "injury_first"}
    gm.rest("short", res, status, toromeen, rules, np.zeros(3, np.int64))
    assert res["survival"].tolist() == [2, 2, 2] and res["verve"].tolist() == [0, 0, 0]
    ok = gm.rest("night", res, status, toromeen, rules, np.array([11, 12, 1]))
    assert ok.tolist() == [True, False, False]
    assert res["survival"].tolist() == [4, 3, 2] and res["verve"].tolist() == [17, 17, 0]
    res["survival"][:] = 6
    gm.rest("night", res, status, toromeen, rules, np.array([1, 20, 1]))
    assert res["survival"].tolist() == [7, 7, 6]


@pytest.mark.parametrize("fallen,standing", [("wakes", True), ("out_for_day", False)])
def test_the_fallen_of_a_won_fight_wake_or_stay_down_as_the_day_rule_says(tmp_path, fallen, standing):
    data = yaml.safe_load((ROOT / "days/lifeforce/patrol_day.yaml").read_text())
    for step in data["steps"]:
        if "scenario" in step:
            step["scenario"] = str(SCEN / "lifeforce" / Path(step["scenario"]).name)
    data["party"]["from"]["scenario"] = str(SCEN / "lifeforce/crossbow_ambush.yaml")
    data["day_rules"] = {"fallen": fallen}
    data["steps"][2]["chance"] = 1.0
    day = sim.day.run(write_day(tmp_path, data))
    m = day.members.set_index(["fight", "day", "combatant"])
    first, second = m.loc["crossbow ambush"], m.loc["dire wolf"]
    down = first.index[(first["exit_state"] == "unconscious").to_numpy()].intersection(second.index)
    assert len(down) > 20
    entry = second.loc[down, "entry_state"]
    assert (entry == ("standing" if standing else "unconscious")).all()
    if standing:  # back at 1 hit point at least
        assert (second.loc[down, "entry_hp"] >= 1).all()


@pytest.mark.parametrize("ruleset", ["lens", "lifeforce"])
def test_rests_of_the_silent_texts_heal_what_their_day_rules_say(ruleset):
    mod = sim.day.spec.day_rules_module(ruleset)
    key = "body" if ruleset == "lens" else "hp"
    stats = {"body": 10, "items": [{"uses": 2}], "hp": 10}
    res = {r: np.array([3, 3, 3]) for r in mod.RESOURCES}
    status = np.array([STANDING, UNCONSCIOUS, DEAD])
    rules = {f: v.default for f, v in mod.DAY_RULES.items()}
    rules["short_rest_body" if ruleset == "lens" else "short_rest_hp"] = 9
    mod.rest("short", res, status, stats, rules, np.zeros(3, np.int64))
    assert res[key].tolist() == [10, 10, 3]  # capped at the stat block; the dead stay as they are
    res[key][:] = 2
    mod.rest("night", res, status, stats, rules, np.zeros(3, np.int64))
    assert res[key].tolist() == [10, 10, 2]
    res[key][:] = 2
    mod.rest("full", res, status, stats, rules, np.zeros(3, np.int64))
    assert res[key].tolist() == [10, 10, 2]


def test_day_json_has_the_documented_shape(tmp_path):
    out = CliRunner().invoke(main, ["day", str(road(tmp_path)), "-n", "2000", "--json", "-q"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["days"] == 2000
    lo, hi = got["survival"]["ci95"]
    assert lo < got["survival"]["rate"] < hi
    assert [f["name"] for f in got["fights"]] == ["goblin ambush", "orc patrol", "the yeti"]
    assert {"name", "met", "reached", "lost", "lost_ci95"} <= set(got["fights"][0])
    assert {"mean", "ci95"} <= set(got["deaths"])
    prov = got["provenance"]
    assert prov["seed"] == 2026 and prov["package_version"] == sim.__version__ and prov["day_hash"]
    assert prov["steps"][0]["seed"] == sim.day.derived_seed(2026, "fight", "goblin ambush")


def test_the_out_folder_holds_every_table(tmp_path):
    out = CliRunner().invoke(main, ["day", str(road(tmp_path)), "-n", "500", "--out", str(tmp_path / "t"), "-q"])
    assert out.exit_code == 0, out.output
    import pandas as pd
    days = pd.read_parquet(tmp_path / "t/days.parquet")
    assert len(days) == 500 and set(days.columns) >= {"day", "survived", "ended_at", "deaths"}


@pytest.mark.parametrize("change,words", [
    (lambda d: d["steps"].append({"fight": "goblin ambush", "sides": {"x": {"combatants": [{"use": "Orc"}]}}}),
     "is used by steps[0] too"),
    (lambda d: d["steps"][0].update(party_side="goblinz"), "not a side of"),
    (lambda d: d["steps"].append({"rest": "nap", "kind": "siesta"}), "siesta"),
    (lambda d: d.update(day_rules={"night_roll": "maybe"}), "night_roll"),
    (lambda d: d["steps"][0].update(chance=2), "chance"),
])
def test_a_bad_day_file_is_one_paragraph_and_exit_2(tmp_path, change, words):
    data = yaml.safe_load(road(tmp_path).read_text())
    change(data)
    path = write_day(tmp_path, data, "bad.yaml")
    with pytest.raises(ScenarioError, match=re.escape(words)):
        sim.day.load_day(path)
    out = CliRunner().invoke(main, ["day", str(path), "-q"])
    assert out.exit_code == 2 and out.output.startswith("error: ") and words in out.output
    assert "Traceback" not in out.output and out.output.count("\n") == 1


@pytest.mark.parametrize("ruleset", ["gods_and_monsters", "lens", "lifeforce"])
def test_the_starter_day_plays_where_it_is_written(tmp_path, ruleset):
    path = tmp_path / "my_day.yaml"
    out = CliRunner().invoke(main, ["new", "--day", ruleset, str(path)])
    assert out.exit_code == 0, out.output
    day = sim.day.run(path, days=300)
    assert len(day.days) == 300 and len(day.day.fights) == 3
    assert 0 < day.days["fights_won"].mean() < 3
    for name in sim.day.spec.day_rule_fields(ruleset):
        assert f"#   {name}: " in path.read_text()


@pytest.mark.parametrize("ruleset", ["gods_and_monsters", "lens", "lifeforce"])
def test_every_day_rule_is_documented_on_its_rules_page(ruleset):
    page = (ROOT / f"docs/rules/{ruleset}.md").read_text()
    section = page[page.index("## The day"):]
    section = section[:section.index("\n## ")]
    for name in sim.day.spec.day_rules_module(ruleset).DAY_RULES:
        assert f"`{name}" in section, name
    assert "`fallen`" in (ROOT / "docs/day.md").read_text()


def test_every_shipped_day_file_loads():
    files = sorted((ROOT / "days").glob("*/*.yaml"))
    assert {f.parent.name for f in files} == {"gods_and_monsters", "lens", "lifeforce"}
    for f in files:
        day = sim.day.load_day(f)
        assert day.ruleset_name == f.parent.name and len(day.fights) >= 2
