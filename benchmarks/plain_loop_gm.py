"""The baseline: Gods & Monsters core combat as a plain Python loop, one skirmish at a time.

This is the program one would write without the batch engine: `random` for the dice, a
loop over skirmishes, rounds, combatants and attacks. It plays the same rules as the
engine's defaults (simultaneous resolution, surprise with the first round lost, snapping
out, verve/survival/injuries, rolls to stay conscious, death when injuries exceed
Fortitude, all rolls penalised by injuries, flee_below / flee_after_bad_round morale,
random targeting) and reads the fighters from the same scenario file, so its win rates
must agree with the engine's within sampling error. It is both the speed yardstick of
docs/performance.md and an independent implementation the tests compare with.

It plays the readings of issue 18: a surprised combatant's roll to stay conscious takes
the -3 only after round 1 ("in subsequent rounds"), and by default a target surprised
in round 1 is not defending: +4 to attack it while it is unaware
(`surprised_are_unaware`), +10 while a sleeper sleeps through round 1
(`sleepers_immobile`, with the default policy's killing blows: a called shot at -3,
half the damage straight to injuries). A scenario file may set either option to false.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.tally import Tally
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.tables import strength_bonus
from sim.scenario import load_scenario

STANDING, UNCONSCIOUS, DEAD, FLED = "standing", "unconscious", "dead", "fled"
# The defaults of issue 18; today's engine still has both false (its core slice).
NOT_DEFENDING_DEFAULTS = {"surprised_are_unaware": True, "sleepers_immobile": True}


@dataclass
class Fighter:
    name: str
    side: int
    survival: int
    verve: int
    uses_verve: bool
    defense: int
    fortitude: int
    surprise_target: int | None  # None: never rolls
    snap_target: int
    round1_level: str  # how it is not defending in round 1 if surprised (S.NOT_DEFENDING)
    attacks: list  # (to-hit base, dice count, sides, bonus)
    flee_below: float
    flee_after_bad_round: bool
    killing_blow: bool  # every attack on an immobile target is a called shot to kill


def not_defending_options(scenario) -> dict[str, bool]:
    """The two options as the file sets them, else the issue-18 defaults (whatever the
    engine's own defaults are)."""
    given = scenario.data.get("rules") or {}
    return {k: bool(given.get(k, v)) for k, v in NOT_DEFENDING_DEFAULTS.items()}


def round1_level(awareness: str, options: dict[str, bool]) -> str:
    """How this combatant is not defending in round 1 if it failed its surprise roll: the
    best level for the attacker that applies ("these bonuses do not combine"). A sleeper
    sleeps through round 1 and wakes at the start of round 2."""
    if awareness == "asleep" and options["sleepers_immobile"]:
        return "immobile"
    if awareness != "aware" and options["surprised_are_unaware"]:
        return "unaware"
    return "defending"


def attack_modifiers(target: Fighter, surprised: bool, rnd: int, killing_blow: bool) -> tuple[int, bool]:
    """(defense to beat, a killing blow?) of one attack on `target`. Surprise costs 2
    defense from round 2 on; in round 1 a surprised target is not defending."""
    if not surprised:
        return target.defense, False
    if rnd > 1:
        return target.defense - S.SURPRISED_DEFENSE_PENALTY, False
    kill = killing_blow and target.round1_level == "immobile"
    bonus = S.NOT_DEFENDING_BONUS[target.round1_level][0] - (S.CALLED_SHOT_PENALTY if kill else 0)
    return target.defense - bonus, kill


def fighters_from(scenario) -> list[Fighter]:
    rules = scenario.rules
    defaults = {k: f.default for k, f in S.RULE_OPTIONS.items()}
    supported = {"strength_damage_bonus", "verve_archetypes", *NOT_DEFENDING_DEFAULTS}
    options = not_defending_options(scenario)
    for key, value in rules.items():
        if key not in supported and value != defaults[key]:
            raise ValueError(f"the plain loop plays the default rules only; {key} is {value!r}")
    out = []
    for c in scenario.combatants:
        st = c.stats
        if c.policy.rules or c.policy.target != 0:
            raise ValueError(f"{c.name}: the plain loop plays random targeting without scripted rules")
        aware = st["awareness"] == "aware"
        extra = st["damage_bonus"] + strength_bonus(st["strength"], rules["strength_damage_bonus"])
        entries = st["attacks"] or st["weapons"][:1]
        out.append(Fighter(
            name=c.name, side=c.side, survival=st["survival"], verve=st["verve"],
            uses_verve=any(a.lower() in {v.lower() for v in rules["verve_archetypes"]} for a in st["archetypes"]),
            defense=st["defense"], fortitude=st["fortitude"],
            surprise_target=None if aware else st["perception"] + S.AWARENESS_SURPRISE_MODIFIER[st["awareness"]],
            snap_target=max(st["willpower"], st["fortitude"]),
            round1_level=round1_level(st["awareness"], options),
            attacks=[(S.BASE_TARGET + st["combat"] + st["attack"] + e["attack"], e["damage"].count,
                      e["damage"].sides, e["damage"].bonus + extra) for e in entries],
            flee_below=c.policy.params["flee_below"], flee_after_bad_round=c.policy.params["flee_after_bad_round"],
            killing_blow=c.policy.params["killing_blow"],
        ))
    return out


def d20(rng: random.Random) -> int:
    return rng.randint(1, 20)


def skirmish(fs: list[Fighter], n_sides: int, rng: random.Random, max_rounds: int):
    """One fight. Returns (winner side, -1 for a draw, -2 unfinished; rounds; final states)."""
    n = len(fs)
    verve = [f.verve for f in fs]
    surv = [f.survival for f in fs]
    inj = [0] * n
    status = [STANDING] * n
    surprised = [f.surprise_target is not None and d20(rng) > f.surprise_target for f in fs]
    last_taken = [0] * n
    last_dealt = [0] * n
    for rnd in range(1, max_rounds + 1):
        if rnd > 1:
            for i in range(n):
                if surprised[i] and d20(rng) <= fs[i].snap_target - inj[i]:
                    surprised[i] = False
        for i, f in enumerate(fs):
            if status[i] != STANDING:
                continue
            health = (verve[i] + surv[i]) / (f.verve + f.survival)
            bad_round = rnd > 1 and last_taken[i] > 0 and last_dealt[i] == 0
            if health < f.flee_below or (f.flee_after_bad_round and bad_round):
                status[i] = FLED
        standing = [s == STANDING for s in status]
        taken = [0] * n
        direct = [0] * n  # injury points of killing blows: half the damage, rounded up
        dealt = [0] * n
        for i, f in enumerate(fs):
            if not standing[i] or (rnd == 1 and surprised[i]):
                continue  # surprised combatants lose the first round
            penalty = inj[i] + (3 if surprised[i] else 0)
            for base, count, sides, bonus in f.attacks:
                enemies = [j for j in range(n) if standing[j] and fs[j].side != f.side]
                if not enemies:
                    break
                j = rng.choice(enemies)
                defense, kill = attack_modifiers(fs[j], surprised[j], rnd, f.killing_blow)
                if d20(rng) <= base - defense - penalty:
                    dmg = max(sum(rng.randint(1, sides) for _ in range(count)) + bonus, 0)
                    to_injuries = (dmg + 1) // 2 if kill else 0
                    taken[j] += dmg - to_injuries
                    direct[j] += to_injuries
                    dealt[i] += dmg
        for j, f in enumerate(fs):
            if taken[j] == 0 and direct[j] == 0:
                continue
            left = taken[j]
            if f.uses_verve:
                off = min(verve[j], left)
                verve[j] -= off
                left -= off
            had_survival = surv[j] > 0
            off = min(surv[j], left)
            surv[j] -= off
            left -= off
            inj[j] += left + direct[j]
            owed = (had_survival and surv[j] == 0 and taken[j] > 0) or left > 0 or direct[j] > 0
            if status[j] != STANDING or not owed:
                continue
            if inj[j] > f.fortitude:
                status[j] = DEAD
            elif d20(rng) > f.fortitude - inj[j] - (3 if surprised[j] and rnd > 1 else 0):
                status[j] = UNCONSCIOUS
        last_taken, last_dealt = [t + d for t, d in zip(taken, direct)], dealt
        alive = {fs[i].side for i in range(n) if status[i] == STANDING}
        if len(alive) <= 1:
            return (alive.pop() if alive else -1), rnd, status
    return -2, max_rounds, status


def play(path, n: int, seed: int = 0, max_rounds: int | None = None) -> dict:
    """Play `n` skirmishes; counts of winners, total rounds and final states per combatant."""
    scen = load_scenario(path)
    fs = fighters_from(scen)
    max_rounds = max_rounds or scen.run["max_rounds"]
    rng = random.Random(seed)
    tally = Tally([f.name for f in fs], (STANDING, UNCONSCIOUS, DEAD, FLED))
    for _ in range(n):
        tally.add(*skirmish(fs, len(scen.side_names), rng, max_rounds))
    return tally.result(scen.side_names)

if __name__ == "__main__":  # pragma: no cover
    import sys
    import time
    t0 = time.perf_counter()
    res = play(sys.argv[1] if len(sys.argv) > 1 else "scenarios/gods_and_monsters/yeti.yaml",
               int(sys.argv[2]) if len(sys.argv) > 2 else 10000)
    print(res, f"{res['n'] / (time.perf_counter() - t0):,.0f} skirmishes/s")
