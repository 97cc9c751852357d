"""Sweeps: the full grid of variants of a scenario, one row per variant, with every
summary figure, its interval, and paired differences to the baseline and to the
neighbouring variant (common random numbers)."""
from __future__ import annotations

import itertools
import json
import math

import pandas as pd

from sim.analysis.common import (as_scenario, frame, paired_diff, play_variants, provenance_columns,
                                 rate_columns, variant, win_matrix)
from sim.analysis.optimize_play import best_variants, check_play
from sim.errors import ScenarioError
from sim.overrides import get_path, parse_values
from sim.schema import Field, validate_record

# The optional `sweep:` block of a scenario file.
SWEEP_FIELDS = {
    "vary": Field("mapping", doc="path: values, e.g. `sides.yeti.combatants[Yeti].defense: 0..6` or "
                  "`sides.party.combatants[Sam Stevens].weapons[0].damage: [d6, d8, d10]`"),
}

MAX_VARIANTS = 2000


def sweep_spec(scen) -> dict[str, list]:
    """The `sweep:` block of a scenario as {path: [values]}, validated."""
    raw = scen.data.get("sweep")
    if raw is None:
        raise ScenarioError("has no `sweep:` block; add one (sweep: {vary: {PATH: 0..6}}) or pass --vary "
                            "PATH=VALUES.", file=scen.source)
    try:
        block = validate_record(raw, SWEEP_FIELDS, "sweep")
        return {str(p): parse_values(v, f"sweep.vary.{p}") for p, v in block["vary"].items()}
    except ScenarioError as e:
        raise e.located(scen.source) from None


def cell(value):
    """A sweep value as it goes into a table column (numbers stay numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value if isinstance(value, str) else json.dumps(value, default=str)
    return value


def grid(vary: dict[str, list]) -> list[dict]:
    paths = list(vary)
    count = math.prod(len(vary[p]) for p in paths)  # before building them: a big grid would not fit
    if count > MAX_VARIANTS:
        raise ScenarioError(f"the sweep has {count} variants; keep it under {MAX_VARIANTS} "
                            "(fewer values, or sweep one path at a time).")
    return [dict(zip(paths, c)) for c in itertools.product(*(vary[p] for p in paths))]


def sweep(scenario, vary: dict | None = None, n: int | None = None, seed: int | None = None, jobs: int = 1,
          max_rounds: int | None = None, overrides: dict | None = None, precision: float | None = None,
          max_skirmishes: int | None = None, crn: bool = True, play: str = "as-written",
          progress=None) -> pd.DataFrame:
    """Run every combination of `vary` ({path: values or "0..6" or "d6,d8"}; default: the
    scenario's `sweep:` block) on the same skirmishes.

    One row per variant: the varied values (a column per path), every summary figure
    with its 95% interval (`<side>.win_rate/.win_lo/.win_hi`, draws, unfinished, rounds,
    per-combatant down rate), paired differences of each side's win rate to the first
    variant (`<side>.diff_base[_lo/_hi]`) and to the previous value of the last varied
    path (`<side>.diff_prev[_lo/_hi]`), and the provenance columns. `progress`: see sim.progress.
    `play="best"`: each variant under its own strongest play (sim.analysis.optimize_play).
    """
    base = as_scenario(scenario, overrides)
    if vary is None:
        vary = sweep_spec(base)
    else:
        vary = {str(p): parse_values(v, p) for p, v in vary.items()}
    if not vary:
        raise ScenarioError("nothing to vary; pass --vary PATH=VALUES or add a sweep: block.", file=base.source)
    for p in vary:  # a typo in a path should fail before anything is played
        try:
            get_path(base.data, p)
        except ScenarioError as e:
            if "no field" not in e.message:  # missing mapping keys (options at default) may be created
                raise e.located(base.source) from None
        except (KeyError, TypeError):
            pass
    points = grid(vary)
    variants = [variant(base, point) for point in points]
    found = None
    if check_play(play):
        variants, found = best_variants(base, variants, seed, jobs, max_rounds, progress)
    played = play_variants(variants, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, crn=crn,
                           precision=precision, max_skirmishes=max_skirmishes,
                           reduce=lambda r: (rate_columns(r), win_matrix(r)), progress=progress)
    sides = base.side_names
    wins = [w for _, w in played.results]
    paths = list(vary)
    rows = []
    for i, (point, scen, (figures, _)) in enumerate(zip(points, variants, played.results)):
        row = {"variant": i, **{p: cell(v) for p, v in point.items()}}
        row.update(figures)
        prev = _previous(points, i, paths)
        for s, side in enumerate(sides):
            for tag, j in (("base", 0), ("prev", prev)):
                if j is None or j == i and tag == "prev":
                    d = (float("nan"),) * 3
                else:
                    d = paired_diff(wins[j][:, s], wins[i][:, s])
                row[f"{side}.diff_{tag}"], row[f"{side}.diff_{tag}_lo"], row[f"{side}.diff_{tag}_hi"] = d
        row.update(provenance_columns(base, scen, played.seed))
        rows.append(row)
    return frame(rows, {"command": "sweep", "sides": list(sides),
                        "vary": {p: [cell(v) for v in vs] for p, vs in vary.items()},
                        "skirmishes": played.skirmishes, "crn": crn, "steps": played.steps, "play": play,
                        **({"play_policies": found} if found else {})})


def _previous(points: list[dict], i: int, paths: list[str]) -> int | None:
    """The variant one value back along the last varied path, other paths equal."""
    if i == 0:
        return None
    last = paths[-1]
    prev = points[i - 1]
    same = all(prev[p] == points[i][p] for p in paths[:-1])
    return i - 1 if same and prev[last] != points[i][last] else None
