"""Who matters: each combatant benched in turn, and how its side's win rate changes
(`skirmish matters FILE`, sim.analysis.matters.matters).

Benched in place: the combatant starts the fight dead (every ruleset's `start` takes a
state per combatant), so it is present but never acts and is never a target, and every
other combatant keeps its place and its dice (they are keyed by the skirmish, the round
and the combatant's position, not by what happened before). Each benched fight is
therefore skirmish k of the same run as the fight with everyone, and the change is
paired skirmish by skirmish.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.analysis.common import _run_settings, as_scenario, frame, paired_diff, provenance_columns
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
            overrides: dict | None = None, progress=None) -> pd.DataFrame:
    """One row per combatant: its side's win rate with it benched (95% interval), the
    paired change against the fight with everyone (points, 95% interval), the other
    sides' changes, ranked by the size of the change to its own side."""
    scen = as_scenario(scenario, overrides)
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
        row.update(provenance_columns(scen, scen, seed))
        rows.append(row)
    df = frame(rows, {"command": "matters", "skirmishes": n, "sides": list(sides)})
    df = df.loc[df["own_delta"].abs().sort_values(ascending=False, kind="stable").index].reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    df.attrs["analysis"] = {"command": "matters", "skirmishes": n, "sides": list(sides), "seed": seed,
                            "scenario": scen.name}
    return df


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
    return "\n".join(lines)


__all__ = ["benched_start", "matters", "matters_text"]
