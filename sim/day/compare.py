"""Two day files side by side, paired per day: `skirmish compare A.yaml B.yaml` when both
are day files, or `sim.day.compare.compare_days(a, b)`.

Both are played with A's seed and days (unless given), so day k of A and day k of B
key every fight of the same name with the same dice: a change to one fight, a rest or a
day rule shows as the difference it makes, not as the luck of the dice.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.compare import COLUMNS, _difference, _estimate
from sim.analysis.common import frame


def is_day_file(path) -> bool:
    """Whether the YAML file at `path` is a day (it has `steps:`), read leniently: a file
    that does not parse is left to the scenario loader's messages."""
    from sim.errors import ScenarioError
    from sim.yamlload import load_text, read_file
    # Through the loader's own reading: a pipe, a device, a file past the size limit or a
    # bomb of aliases is refused there, where a plain read hung or filled the memory.
    try:
        data, _ = load_text(read_file(path), file=str(path))
    except (ScenarioError, OSError, RecursionError, ValueError):
        return False
    return isinstance(data, dict) and "steps" in data and "party" in data


def per_day(result) -> dict[str, tuple[str, str, np.ndarray]]:
    """key -> (figure, kind, one value per day in day order)."""
    d = result.days.sort_values("day")
    out = {"day.survival": ("survives the day", "rate", d["survived"].to_numpy(float)),
           "day.nobody_dies": ("nobody dies", "rate", (d["deaths"] == 0).to_numpy(float)),
           "day.deaths": ("deaths per day", "mean", d["deaths"].to_numpy(float)),
           "day.fights_won": ("fights won per day", "mean", d["fights_won"].to_numpy(float))}
    f = result.fights.sort_values(["fight", "day"], kind="stable")
    for name, g in f.groupby("fight", observed=True, sort=False):
        out[f"fight.{name}.lost"] = (f"{name}: lost (share of all days)", "rate", g["lost"].to_numpy(float))
    fates = result.fates.sort_values(["combatant", "day"], kind="stable")
    for name, g in fates.groupby("combatant", observed=True, sort=False):
        out[f"{name}.dead"] = (f"{name} dies", "rate", (g["end_state"] == "dead").to_numpy(float))
    return out


def compare_day_results(a, b, labels=None) -> pd.DataFrame:
    """The comparison table of two finished days (sim.day.result.DayResult)."""
    la, lb = labels or ((a.day.name, b.day.name) if a.day.name != b.day.name else
                        (f"{a.day.name} ({Path(a.day.source).name})", f"{b.day.name} ({Path(b.day.source).name})"))
    xa, xb = per_day(a), per_day(b)
    ids_a, ids_b = (np.sort(r.days["day"].to_numpy()) for r in (a, b))
    paired = np.array_equal(ids_a, ids_b) and int(a.day.run["seed"]) == int(b.day.run["seed"])
    rows = []
    for key in dict.fromkeys(list(xa) + list(xb)):
        figure, kind, _ = xa.get(key) or xb[key]
        va, vb = (x[key][2] if key in x else None for x in (xa, xb))
        row = {"figure": figure, "key": key, "kind": kind, "paired": paired}
        row["a"], row["a_lo"], row["a_hi"] = _estimate(va, kind)
        row["b"], row["b_lo"], row["b_hi"] = _estimate(vb, kind)
        row["diff"], row["diff_lo"], row["diff_hi"] = _difference(va, vb, paired)
        rows.append(row)
    meta = {"command": "compare", "what": "days", "labels": [la, lb], "days": [len(ids_a), len(ids_b)],
            "paired": paired, "a": a.meta, "b": b.meta}
    df = frame(rows, meta)[COLUMNS]
    df.attrs["analysis"] = meta
    return df


def compare_days(a, b, days: int | None = None, seed: int | None = None, jobs: int = 1, progress=None):
    """Play day files A and B on the same days (A's seed and days unless given) and return
    one row per figure: A, B with 95% intervals and B - A with its paired interval."""
    import sim.day
    day_a = sim.day.load_day(a, days=days, seed=seed)
    day_b = sim.day.load_day(b, days=int(day_a.run["days"]), seed=int(day_a.run["seed"]))
    return compare_day_results(sim.day.run(day_a, jobs=jobs, progress=progress),
                               sim.day.run(day_b, jobs=jobs, progress=progress))


__all__ = ["compare_days", "compare_day_results", "is_day_file", "per_day"]
