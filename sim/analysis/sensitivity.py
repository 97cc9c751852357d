"""Stat weights: one step up and one step down of every numeric stat, on common random
numbers, ranked by how much they move the win rates.

Which stats exist comes from the ruleset's declared `combatant_fields`: every `int`
field of the stat block, every `int` field of records in its lists (a weapon's attack
bonus), and every `dice` field (a weapon's damage) stepped along the die ladder
d2-d4-d6-d8-d10-d12-d20 (or +-1 for a plain number), but those a ruleset declares
`stat=False` (counts that set how a thing works, such as the actions a weapon's use
takes). Nothing here knows a ruleset.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from sim.analysis.common import (as_scenario, frame, paired_diff, play_variants, provenance_columns, variant,
                                 win_matrix)
from sim.analysis.optimize_play import best_base, check_play
from sim.dice import Dice, parse_dice
from sim.errors import ScenarioError, closest
from sim.overrides import pick_segment, side_path
from sim.schema import REQUIRED, Field

DIE_LADDER = (2, 4, 6, 8, 10, 12, 20)


def dice_step(d: Dice, step: int) -> Dice | None:
    """The next die size up or down (d6 -> d8 / d4); a plain number moves by one."""
    if d.count == 0:
        return Dice(0, 0, d.bonus + step)
    if d.sides in DIE_LADDER:
        i = DIE_LADDER.index(d.sides) + step
        return Dice(d.count, DIE_LADDER[i], d.bonus) if 0 <= i < len(DIE_LADDER) else None
    # An off-ladder die moves to the nearest ladder size in that direction.
    bigger = [s for s in DIE_LADDER if (s > d.sides if step > 0 else s < d.sides)]
    if not bigger:
        return None
    return Dice(d.count, bigger[0] if step > 0 else bigger[-1], d.bonus)


def _int_step(value, spec: Field, step: int):
    new = value + step
    if (spec.min is not None and new < spec.min) or (spec.max is not None and new > spec.max):
        return None
    return new


def stat_steps(scen, side: str, index: int, raw: dict) -> list[tuple[str, str, object, object, int]]:
    """(stat label, path, old value, new value, step) for every numeric stat of one stat block."""
    fields = scen.ruleset.combatant_fields
    prefix = side_path(side, "combatants" + pick_segment(raw["name"]))
    out = []
    for name, spec in fields.items():
        if not spec.stat:
            continue
        value = raw.get(name, None if spec.default is REQUIRED else spec.default)
        if spec.kind == "int" and isinstance(value, int) and not isinstance(value, bool):
            for step in (1, -1):
                new = _int_step(value, spec, step)
                if new is not None:
                    out.append((name, f"{prefix}.{name}", value, new, step))
        elif spec.kind == "dice" and value is not None:
            d = parse_dice(value)
            for step in (1, -1):
                new = dice_step(d, step)
                if new is not None:
                    out.append((name, f"{prefix}.{name}", str(d), str(new), step))
        elif spec.kind == "list" and spec.item is not None and spec.item.kind == "record" and value:
            for i, entry in enumerate(value):
                if not isinstance(entry, dict):
                    continue
                label = f"{name}[{i}]" + (f" ({entry['name']})" if "name" in entry else "")
                for sub, sspec in spec.item.fields.items():
                    if not sspec.stat:
                        continue
                    sval = entry.get(sub, None if sspec.default is REQUIRED else sspec.default)
                    path = f"{prefix}.{name}[{i}].{sub}"
                    if sspec.kind == "int" and isinstance(sval, int) and not isinstance(sval, bool):
                        for step in (1, -1):
                            new = _int_step(sval, sspec, step)
                            if new is not None:
                                out.append((f"{label}.{sub}", path, sval, new, step))
                    elif sspec.kind == "dice" and sval is not None:
                        d = parse_dice(sval)
                        for step in (1, -1):
                            new = dice_step(d, step)
                            if new is not None:
                                out.append((f"{label}.{sub}", path, str(d), str(new), step))
    return out


# How far a whole-number stat is stepped looking for a value the rules read differently.
MAX_STEPS = 100


def rules_input(scen) -> str:
    """A digest of everything the compiled rules are given for a scenario (the arrays and
    numbers its ruleset's `build` makes): equal digests play identical fights."""
    from sim.scenario import Scenario
    h = hashlib.blake2b(digest_size=16)
    seen: set[int] = set()

    def walk(x, depth=0):
        # The scenario itself rides along in some setups; its text differs with every
        # variant, so it is left out: only what the rules were given counts.
        if depth > 8 or id(x) in seen or isinstance(x, Scenario):
            return
        if isinstance(x, np.ndarray):
            h.update(str((x.dtype, x.shape)).encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, (bool, int, float, np.number, str, type(None))):
            h.update(repr(x).encode())
        elif isinstance(x, dict):
            for k in sorted(x, key=str):
                h.update(str(k).encode())
                walk(x[k], depth + 1)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v, depth + 1)
        elif hasattr(x, "__dict__"):
            seen.add(id(x))
            for k, v in sorted(vars(x).items()):
                h.update(k.encode())
                walk(v, depth + 1)
    walk(scen.ruleset.build(scen))
    return h.hexdigest()


def one_sided(name: str, steps: list[tuple]) -> list[dict]:
    """The steps stat_steps left out because the value is at its field's limit (or at an
    end of the die ladder): a stat stepped one way only, with the reason."""
    ways: dict[str, dict[int, tuple]] = {}
    for stat, _, old, _, step in steps:
        ways.setdefault(stat, {})[step] = old
    out = []
    for stat, got in ways.items():
        if len(got) == 1:
            (step, old), = got.items()
            limit = "the die ladder's end" if isinstance(old, str) else "the field's limit"
            out.append({"combatant": name, "stat": stat, "step": "-1" if step > 0 else "+1",
                        "reason": f"{old} is at {limit}"})
    return out


def next_read_step(base, base_input: str, path: str, old, new, step: int):
    """(new value, variant, kind) for the first value from `new` on, in the step's
    direction, that the combatant's kind accepts and the rules read differently from the
    base; None when there is none. kind: "dice", "next" (a value skipped over) or "one"."""
    dice = isinstance(old, str)
    value = new
    for tries in range(MAX_STEPS if not dice else len(DIE_LADDER)):
        try:
            scen = variant(base, {path: value})
        except ScenarioError:
            return None  # the kind, or the field's range, refuses it: not a stat to step
        if dice:
            return value, scen, "dice" if parse_dice(old).count else "one"
        if rules_input(scen) != base_input:
            return value, scen, "next" if tries else "one"
        value = value + step
    return None


def step_label(old, new, kind: str) -> str:
    if kind == "dice":
        return f"{old} -> {new} (dice step)"
    if kind == "next":
        return f"{old} -> {new} (next step the rules read)"
    return f"{old} -> {new}"


def stat_blocks(scen, combatants: list[str] | None = None) -> list[tuple[str, int, dict]]:
    """(side, position, raw stat block) of the named combatants (all when None). A block with
    `count` copies is one entry: changing its stats changes every copy."""
    blocks = []
    for side, body in scen.data["sides"].items():
        for i, raw in enumerate(body["combatants"]):
            blocks.append((side, i, raw))
    if combatants:
        names = [b[2]["name"] for b in blocks]
        for c in combatants:
            if c not in names:
                raise ScenarioError(f"--combatant: no combatant named '{c}'.{closest(c, names)} "
                                    f"Combatants: {', '.join(names)}.", file=scen.source)
        blocks = [b for b in blocks if b[2]["name"] in combatants]
    return blocks


FIGHT_METRICS = ("win_rate", "any_death", "any_down", "deaths.mean")


def parse_metric(scen, text: str) -> tuple[str | None, str]:
    """`rounds.mean`, or SIDE.win_rate / any_death / any_down / deaths.mean: (side, measure)."""
    if text == "rounds.mean":
        return None, text
    for side in sorted(scen.side_names, key=len, reverse=True):
        if text.startswith(side + ".") and text[len(side) + 1:] in FIGHT_METRICS:
            return side, text[len(side) + 1:]
    wanted = ["rounds.mean", *(f"{s}.{m}" for s in scen.side_names for m in FIGHT_METRICS)]
    raise ScenarioError(f"--metric {text!r} is not a figure of a fight.{closest(text, wanted)} Give rounds.mean or "
                        f"SIDE.{'/'.join(FIGHT_METRICS)} for a side of {', '.join(scen.side_names)} (shares of "
                        "fights, deaths per fight, rounds per fight).", file=scen.source)


def per_fight(result, side: str | None, measure: str) -> np.ndarray:
    """One value per fight of the metric, in skirmish order."""
    from sim.analysis.balance_targets import Fights
    f = Fights.of(result)
    if measure == "rounds.mean":
        return f.rounds
    s = f.sides.index(side)
    return {"win_rate": (f.winner == s).astype(float), "any_death": (f.dead[:, s] > 0).astype(float),
            "any_down": (f.down[:, s] > 0).astype(float), "deaths.mean": f.dead[:, s].astype(float)}[measure]


def sensitivity(scenario, combatants: list[str] | None = None, n: int | None = 20000, seed: int | None = None,
                jobs: int = 1, max_rounds: int | None = None, overrides: dict | None = None,
                play: str = "as-written", progress=None, metric: str | None = None) -> pd.DataFrame:
    """For every numeric stat of the chosen combatants (default: all), the paired change in
    each side's win rate when it goes one step up and one step down.

    A step is the next value the rules read differently (`next_read_step`): a stat the
    rules read in bands (Strength Benefit = floor(Str/10)) steps to the next band, and a
    die steps along the die ladder. A field the combatant's kind does not accept (a
    character-only field on a monster) is not stepped. One row per (combatant, stat,
    step): old and new value, `label` ("d8 -> d10 (dice step)"), `<side>.win_rate` of the
    variant, `<side>.delta` with `_lo/_hi` (paired 95% interval), and `rank` (1 = the
    largest absolute change in the combatant's own side's win rate). Sorted by rank.
    `play="best"`: every step under the base's strongest play (sim.analysis.optimize_play).
    `metric` (rounds.mean, SIDE.win_rate, SIDE.any_death, SIDE.any_down, SIDE.deaths.mean)
    adds its value and paired change per row (`metric.*`) and ranks by that change.
    """
    base = as_scenario(scenario, overrides)
    measured = parse_metric(base, metric) if metric else None
    best_policies = None
    if check_play(play):
        base, best_policies = best_base(base, seed, jobs, max_rounds, progress=progress)
    changes, scens, unstepped = [], [], []
    base_input = rules_input(base)
    for side, _, raw in stat_blocks(base, combatants):
        steps = stat_steps(base, side, 0, raw)
        unstepped += one_sided(raw["name"], steps)
        for stat, path, old, new, step in steps:
            found = next_read_step(base, base_input, path, old, new, step)
            if found is None:
                unstepped.append({"combatant": raw["name"], "stat": stat, "step": "+1" if step > 0 else "-1",
                                  "reason": f"no value past {old} within {MAX_STEPS} steps plays differently, or "
                                            "the combatant's kind takes none"})
                continue
            new, scen, kind = found
            changes.append((raw["name"], side, stat, path, old, new, step, step_label(old, new, kind)))
            scens.append(scen)
    if not changes:
        raise ScenarioError("the chosen combatants have no numeric stats to vary.", file=base.source)
    variants = [base] + scens
    reduce = win_matrix if measured is None else (lambda r: (win_matrix(r), per_fight(r, *measured)))
    played = play_variants(variants, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, crn=True,
                           reduce=reduce, progress=progress)
    wins = played.results if measured is None else [w for w, _ in played.results]
    values = None if measured is None else [v for _, v in played.results]
    sides = base.side_names
    rows = []
    for k, ((name, side, stat, path, old, new, step, label), scen, w) in enumerate(zip(changes, variants[1:],
                                                                                        wins[1:]), 1):
        row = {"combatant": name, "side": side, "stat": stat, "path": path, "step": "+1" if step > 0 else "-1",
               "old": str(old), "new": str(new), "label": label, "skirmishes": len(w)}
        for s, sname in enumerate(sides):
            row[f"{sname}.base_rate"] = float(wins[0][:, s].mean())
            row[f"{sname}.win_rate"] = float(w[:, s].mean())
            row[f"{sname}.delta"], row[f"{sname}.delta_lo"], row[f"{sname}.delta_hi"] = paired_diff(
                wins[0][:, s], w[:, s])
        row["own_delta"] = row[f"{side}.delta"]
        row["significant"] = bool(row[f"{side}.delta_lo"] > 0 or row[f"{side}.delta_hi"] < 0)
        if values is not None:
            d = paired_diff(values[0], values[k])
            row.update({"metric": metric, "metric.base": float(values[0].mean()), "metric.value": float(
                values[k].mean()), "metric.delta": d[0], "metric.delta_lo": d[1], "metric.delta_hi": d[2]})
            row["significant"] = bool(d[1] > 0 or d[2] < 0)
        row.update(provenance_columns(base, scen, played.seed))
        rows.append(row)
    df = frame(rows, {"command": "sensitivity", "skirmishes": played.skirmishes,
                      "combatants": combatants or "all"})
    order = df["own_delta" if values is None else "metric.delta"].abs().sort_values(ascending=False,
                                                                                  kind="stable").index
    df = df.loc[order].reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    df.attrs["analysis"] = {"command": "sensitivity", "skirmishes": played.skirmishes,
                            "combatants": combatants or "all", "play": play, "unstepped": unstepped,
                            **({"metric": metric} if metric else {}),
                            **({"play_policies": best_policies} if best_policies else {})}
    return df
