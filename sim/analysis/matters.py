"""Who matters: each combatant benched in turn, and how its side's win rate changes
(`skirmish matters FILE`, sim.analysis.matters.matters).

Benched in place: the combatant starts the fight dead (every ruleset's `start` takes a
state per combatant), so it is present but never acts and is never a target, and every
other combatant keeps its place and its dice (they are keyed by the skirmish, the round
and the combatant's position, not by what happened before). Each benched fight is
therefore skirmish k of the same run as the fight with everyone, and the change is
paired skirmish by skirmish.

With a baseline (`--baseline NAME`: a stat block of the scenario, or of its library or
bestiary), each combatant is also replaced in place by that stat block under its own
name: what it is worth against an ordinary stand-in. A copy of a block with `count` is
not replaced (the stand-in would take every copy).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.common import _run_settings, as_scenario, frame, paired_diff, provenance_columns
from sim.errors import ScenarioError
from sim.rulesets.base import DEAD
from sim.runner import chunk_sizes
from sim.stats import wilson


def benched_start(scen, setup, n: int, benched: int | None) -> dict | None:
    """play()'s `start` for n skirmishes with combatant `benched` out (None: nobody)."""
    if benched is None:
        return None
    from sim.day.spec import day_rules_module
    mod = day_rules_module(scen.ruleset_name)
    res = {k: np.full(n, v, np.int64) for k, v in mod.full(scen.combatants[benched].stats).items()}
    return mod.start(setup, n, len(scen.combatants), {benched: (res, np.full(n, DEAD, np.int64))})


def baseline_block(scen, name: str) -> dict:
    """The stat block called `name`: a combatant block of the scenario (its `count` left
    out), else a `use:` entry of the scenario file's library or bestiary."""
    import copy
    from pathlib import Path
    for side in scen.data["sides"].values():
        for block in side.get("combatants") or []:
            if isinstance(block, dict) and block.get("name") == name:
                return {k: copy.deepcopy(v) for k, v in block.items() if k != "count"}
    from sim.library import resolve
    from sim.scenario import read_scenario_file
    try:
        raw, _ = read_scenario_file(scen.source)
        base = Path(scen.source).resolve().parent
    except (OSError, ScenarioError):
        raw, base = {}, Path.cwd()
    doc = {"ruleset": scen.ruleset_name, **{k: raw[k] for k in ("include", "bestiary") if raw.get(k) is not None},
           "sides": {"x": {"combatants": [{"use": name}]}}}
    try:
        return resolve(doc, base, scen.source)["sides"]["x"]["combatants"][0]
    except ScenarioError:
        names = [b.get("name") for s in scen.data["sides"].values() for b in s.get("combatants") or []]
        raise ScenarioError(f"--baseline {name!r} names no stat block of the scenario ({', '.join(map(str, names))}) "
                            "nor of its library or bestiary; name one of them.", file=scen.source) from None


def _block_of(scen, c: int) -> tuple[str, int, int]:
    """(side name, block index, the block's count) of combatant c."""
    k = 0
    for side, body in scen.data["sides"].items():
        for i, block in enumerate(body["combatants"]):
            count = int(block.get("count", 1) or 1)
            if k <= c < k + count:
                return side, i, count
            k += count
    raise IndexError(c)


def _replaced(scen, c: int, block: dict):
    """The scenario with combatant c's block replaced by `block` under c's name, or None
    when c is one copy of a counted block."""
    from sim.overrides import set_path, side_path
    from sim.scenario import load_scenario
    side, i, count = _block_of(scen, c)
    if count != 1:
        return None
    data = set_path(scen.data, side_path(side, f"combatants[{i}]"), {**block, "name": scen.combatants[c].name})
    return load_scenario(data)


def _winners(scen, setup, seed: int, n: int, max_rounds: int, benched: int | None, jobs: int, progress) -> np.ndarray:
    from sim.threads import threaded
    sizes = chunk_sizes(n)
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)

    def chunk(first: int, size: int) -> np.ndarray:
        out = scen.ruleset.play(setup, seed, first, size, max_rounds, benched_start(scen, setup, size, benched))
        return np.asarray(out.winner)

    parts = []
    for _, w in threaded(chunk, list(zip(firsts.tolist(), sizes)), jobs, ordered=True):
        parts.append(w)
        if progress is not None:
            progress(len(w))
    return np.concatenate(parts)


def matters(scenario, n: int | None = 20000, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
            overrides: dict | None = None, baseline: str | None = None, progress=None) -> pd.DataFrame:
    """One row per combatant: its side's win rate with it benched (95% interval), the
    paired change against the fight with everyone (points, 95% interval), the other
    sides' changes, ranked by the size of the change to its own side. With `baseline`,
    also its own side's paired change when the baseline stat block stands in for it
    (`baseline.delta`, `_lo`, `_hi`; empty for a copy of a counted block)."""
    scen = as_scenario(scenario, overrides)
    stand_in = baseline_block(scen, baseline) if baseline else None
    n, seed, max_rounds = _run_settings(scen, n, seed, max_rounds)
    setup = scen.ruleset.build(scen)
    scen.ruleset.warm(setup)
    sides = scen.side_names
    base = _winners(scen, setup, seed, n, max_rounds, None, jobs, progress)
    rows = []
    for c, who in enumerate(scen.combatants):
        w = _winners(scen, setup, seed, n, max_rounds, c, jobs, progress)
        own = sides[who.side]
        row = {"combatant": who.name, "side": own, "skirmishes": n}
        for s, name in enumerate(sides):
            won = (w == s).astype(float)
            lo, hi = wilson(int(won.sum()), n)
            row[f"{name}.base_rate"] = float((base == s).mean())
            row[f"{name}.win_rate"] = float(won.mean())
            row[f"{name}.win_lo"], row[f"{name}.win_hi"] = float(lo), float(hi)
            row[f"{name}.delta"], row[f"{name}.delta_lo"], row[f"{name}.delta_hi"] = paired_diff(
                (base == s).astype(float), won)
        row["own_delta"] = row[f"{own}.delta"]
        row["significant"] = bool(row[f"{own}.delta_lo"] > 0 or row[f"{own}.delta_hi"] < 0)
        if stand_in is not None:
            row.update(_baseline_columns(scen, c, stand_in, base, seed, n, max_rounds, jobs, progress))
        row.update(provenance_columns(scen, scen, seed))
        rows.append(row)
    df = frame(rows, {"command": "matters", "skirmishes": n, "sides": list(sides)})
    df = df.loc[df["own_delta"].abs().sort_values(ascending=False, kind="stable").index].reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    df.attrs["analysis"] = {"command": "matters", "skirmishes": n, "sides": list(sides), "seed": seed,
                            "scenario": scen.name, "baseline": baseline}
    return df


def _baseline_columns(scen, c: int, block: dict, base: np.ndarray, seed: int, n: int, max_rounds: int, jobs: int,
                      progress) -> dict:
    other = _replaced(scen, c, block)
    if other is None:
        return {"baseline.win_rate": float("nan"), "baseline.delta": float("nan"), "baseline.delta_lo": float("nan"),
                "baseline.delta_hi": float("nan")}
    setup = other.ruleset.build(other)
    w = _winners(other, setup, seed, n, max_rounds, None, jobs, progress)
    s = scen.combatants[c].side
    d = paired_diff((base == s).astype(float), (w == s).astype(float))
    return {"baseline.win_rate": float((w == s).mean()), "baseline.delta": d[0], "baseline.delta_lo": d[1],
            "baseline.delta_hi": d[2]}


def matters_text(df: pd.DataFrame) -> str:
    meta = df.attrs["analysis"]
    lines = [f"{meta['scenario']}: each combatant benched in turn (present, never acting, never a target), "
             f"{meta['skirmishes']:,} skirmishes each on the same dice; its side's win rate without it, and the "
             "change, in points with paired 95% intervals:", ""]
    for r in df.to_dict("records"):
        side = r["side"]
        sentence = (f"the {side} without {r['combatant']}: {100 * r['own_delta']:+.1f} points "
                    f"[{100 * r[side + '.delta_lo']:+.1f}, {100 * r[side + '.delta_hi']:+.1f}] "
                    f"({100 * r[side + '.base_rate']:.1f}% -> {100 * r[side + '.win_rate']:.1f}%)")
        lines.append(f"  {r['rank']:>3}. {sentence}" + ("" if r["significant"] else "  (no clear change)"))
        if meta.get("baseline"):
            lines.append(f"       with {meta['baseline']} in its place: " + (
                "(one copy of a counted block: not replaced)" if r["baseline.delta"] != r["baseline.delta"] else
                f"{100 * r['baseline.delta']:+.1f} points [{100 * r['baseline.delta_lo']:+.1f}, "
                f"{100 * r['baseline.delta_hi']:+.1f}]"))
    return "\n".join(lines)


__all__ = ["benched_start", "matters", "matters_text"]
