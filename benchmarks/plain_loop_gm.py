"""The baseline: Gods & Monsters core combat as a plain Python loop, one skirmish at a time.

This is the program one would write without the batch engine: `random` for the dice, a
loop over skirmishes, rounds, combatants and attacks. It plays the same rules as the
engine's defaults (simultaneous resolution, surprise with the first round lost, snapping
out, verve/survival/injuries, rolls to stay conscious, death when injuries exceed
Fortitude, all rolls penalised by injuries, flee_below / flee_after_bad_round morale,
random targeting) and reads the fighters from the same scenario file, so its win rates
must agree with the engine's within sampling error. It is both the speed yardstick of
docs/performance.md and an independent implementation the tests compare with.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from benchmarks.tally import Tally
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.engine import strength_bonus
from sim.scenario import load_scenario

STANDING, UNCONSCIOUS, DEAD, FLED = "standing", "unconscious", "dead", "fled"


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
    attacks: list  # (to-hit base, dice count, sides, bonus)
    flee_below: float
    flee_after_bad_round: bool


def fighters_from(scenario) -> list[Fighter]:
    rules = scenario.rules
    defaults = {k: f.default for k, f in S.RULE_OPTIONS.items()}
    supported = {"strength_damage_bonus", "verve_archetypes"}
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
            attacks=[(S.BASE_TARGET + st["combat"] + st["attack"] + e["attack"], e["damage"].count,
                      e["damage"].sides, e["damage"].bonus + extra) for e in entries],
            flee_below=c.policy.params["flee_below"], flee_after_bad_round=c.policy.params["flee_after_bad_round"],
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
                defense = fs[j].defense - (2 if surprised[j] and rnd > 1 else 0)
                if d20(rng) <= base - defense - penalty:
                    dmg = max(sum(rng.randint(1, sides) for _ in range(count)) + bonus, 0)
                    taken[j] += dmg
                    dealt[i] += dmg
        for j, f in enumerate(fs):
            if taken[j] == 0:
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
            inj[j] += left
            if status[j] != STANDING or not ((had_survival and surv[j] == 0) or left > 0):
                continue
            if inj[j] > f.fortitude:
                status[j] = DEAD
            elif d20(rng) > f.fortitude - inj[j] - (3 if surprised[j] else 0):
                status[j] = UNCONSCIOUS
        last_taken, last_dealt = taken, dealt
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
