"""Summary-only runs: each chunk folded into counts, sums and histograms.

An `Aggregate` holds integers only (counts, sums, histograms), so merging is exact
and order-free: the same chunks give the same aggregate whatever order they arrive
in, and a resumed run equals an uninterrupted one bit for bit. Its size does not
grow with the number of skirmishes, which is what lets 10^8 skirmishes run in
constant memory. The summary it gives has the keys of `RunResult.summary()`; the
rounds percentiles are computed exactly from the rounds histogram.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from sim.rulesets.base import DRAW, FINAL_STATES, UNFINISHED, Outcome

SUM_COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken")
HIST_COLUMNS = ("damage_dealt", "damage_taken")
# Damage histograms are exact for 0..DAMAGE_BINS-2; the last bin counts everything
# above. A fixed width keeps an aggregate small even with a thousand combatants.
DAMAGE_BINS = 256


@dataclass
class Aggregate:
    n: int
    winners: np.ndarray  # (sides + 2,) counts: each side, then draw, then unfinished
    rounds_hist: np.ndarray  # (max rounds seen + 1,) counts of skirmishes by length
    sums: dict  # column -> (C,) int64 sums over skirmishes
    states: np.ndarray  # (C, len(FINAL_STATES)) counts of final states
    damage_hist: dict  # column -> (C, DAMAGE_BINS) counts
    stalled: int = 0  # skirmishes stopped by the engine's stall check
    # The ruleset's own per-combatant columns (blocks, stunts bought, Momentum ...): sums
    # and the largest value of one skirmish, column -> (C,) int64. The ruleset-column
    # means and the inert list (sim/inert.py) come from these, in memory and summary-only alike.
    extra_sums: dict = field(default_factory=dict)
    extra_max: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, n_sides: int, n_combatants: int) -> "Aggregate":
        c = n_combatants
        return cls(0, np.zeros(n_sides + 2, np.int64), np.zeros(1, np.int64),
                   {k: np.zeros(c, np.int64) for k in SUM_COLUMNS},
                   np.zeros((c, len(FINAL_STATES)), np.int64),
                   {k: np.zeros((c, DAMAGE_BINS), np.int64) for k in HIST_COLUMNS})

    def merge(self, other: "Aggregate") -> "Aggregate":
        """Add `other` into this aggregate (in place) and return it."""
        self.n += other.n
        self.stalled += other.stalled
        self.winners += other.winners
        self.rounds_hist = _add_padded(self.rounds_hist, other.rounds_hist)
        for k in SUM_COLUMNS:
            self.sums[k] += other.sums[k]
        self.states += other.states
        for k in HIST_COLUMNS:
            self.damage_hist[k] += other.damage_hist[k]
        for k, v in other.extra_sums.items():
            self.extra_sums[k] = self.extra_sums[k] + v if k in self.extra_sums else v.copy()
        for k, v in other.extra_max.items():
            self.extra_max[k] = np.maximum(self.extra_max[k], v) if k in self.extra_max else v.copy()
        return self

    def to_bytes(self) -> bytes:
        arrays = {"n": np.array([self.n, self.stalled], np.int64), "winners": self.winners,
                  "rounds_hist": self.rounds_hist, "states": self.states}
        arrays.update({f"sum_{k}": v for k, v in self.sums.items()})
        arrays.update({f"hist_{k}": v for k, v in self.damage_hist.items()})
        arrays.update({f"xsum_{k}": v for k, v in self.extra_sums.items()})
        arrays.update({f"xmax_{k}": v for k, v in self.extra_max.items()})
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "Aggregate":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            extra = {p: {k[len(p) + 1:]: z[k] for k in z.files if k.startswith(p + "_")} for p in ("xsum", "xmax")}
            return cls(int(z["n"][0]), z["winners"], z["rounds_hist"],
                       {k: z[f"sum_{k}"] for k in SUM_COLUMNS}, z["states"],
                       {k: z[f"hist_{k}"] for k in HIST_COLUMNS}, int(z["n"][1]), extra["xsum"], extra["xmax"])

    def rounds_percentile(self, q: float) -> float:
        """Exactly `np.percentile(rounds, q)` (linear interpolation) from the histogram."""
        if self.n == 0:
            return float("nan")
        pos = q / 100 * (self.n - 1)
        lo = int(np.floor(pos))
        frac = pos - lo
        cum = np.cumsum(self.rounds_hist)
        # The k-th smallest value (0-based) is the first length whose running count passes k.
        at = lambda k: int(np.searchsorted(cum, k, side="right"))
        a = at(lo)
        b = at(min(lo + 1, self.n - 1))
        # numpy's own lerp, so the figure matches np.percentile to the last bit
        diff = b - a
        return float(b - diff * (1 - frac)) if frac >= 0.5 else float(a + diff * frac)


def _add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(b) > len(a):
        a, b = b.copy(), a
    a[: len(b)] += b
    return a


def _column_sums(a: np.ndarray) -> np.ndarray:
    """a.sum(axis=0) as int64, a column at a time: NumPy reduces a tall (skirmishes,
    combatants) array along axis 0 about 12 times slower than it sums each column, and
    summary-only runs of a fast kernel spent nearly as long folding as playing."""
    return np.array([a[:, j].sum(dtype=np.int64) for j in range(a.shape[1])], dtype=np.int64)


def _column_maxima(a: np.ndarray) -> np.ndarray:
    if len(a) == 0:
        return np.zeros(a.shape[1], dtype=np.int64)
    return np.array([a[:, j].max() for j in range(a.shape[1])], dtype=np.int64)


def aggregate_outcome(outcome: Outcome, n_sides: int) -> Aggregate:
    """Fold one chunk's outcome into an Aggregate."""
    winner = np.asarray(outcome.winner)
    n = len(winner)
    codes = np.where(winner == DRAW, n_sides, np.where(winner == UNFINISHED, n_sides + 1, winner))
    winners = np.bincount(codes.astype(np.int64), minlength=n_sides + 2).astype(np.int64)
    rounds_hist = np.bincount(np.asarray(outcome.rounds, dtype=np.int64)).astype(np.int64)
    per = outcome.per_combatant
    c = per["final_state"].shape[1]
    sums = {k: _column_sums(per[k]) for k in SUM_COLUMNS}
    st = per["final_state"].astype(np.int64)
    k_states = len(FINAL_STATES)
    states = np.bincount((np.arange(c)[None, :] * k_states + st).ravel(),
                         minlength=c * k_states).reshape(c, k_states).astype(np.int64)
    hist = {}
    for k in HIST_COLUMNS:
        v = np.clip(per[k].astype(np.int64), 0, DAMAGE_BINS - 1)
        hist[k] = np.bincount((np.arange(c)[None, :] * DAMAGE_BINS + v).ravel(),
                              minlength=c * DAMAGE_BINS).reshape(c, DAMAGE_BINS).astype(np.int64)
    extra = [k for k in per if k not in SUM_COLUMNS and k not in ("final_state", "down_round")]
    xsum = {k: _column_sums(per[k]) for k in extra}
    xmax = {k: _column_maxima(per[k]) for k in extra}
    return Aggregate(n, winners, rounds_hist, sums, states, hist, int(getattr(outcome, "stalled", 0)), xsum, xmax)


# Rows folded at a time by aggregate_in_blocks: a block's temporaries are reused from
# block to block, where one pass over a million-row table made each of them fresh memory
# (first-touch page faults were 0.26 of the 0.37 CPU-s of summarising 1,000,000 Yetis).
FOLD_ROWS = 65536


def aggregate_in_blocks(outcome: Outcome, n_sides: int, n_combatants: int) -> Aggregate:
    """aggregate_outcome of a whole run's outcome, folded FOLD_ROWS rows at a time (the
    same integers: every figure is a sum, a count or a maximum)."""
    total = Aggregate.empty(n_sides, n_combatants)
    for start in range(0, len(outcome.winner), FOLD_ROWS):
        rows = slice(start, start + FOLD_ROWS)
        block = Outcome(outcome.winner[rows], outcome.rounds[rows],
                        {k: v[rows] for k, v in outcome.per_combatant.items()})
        total.merge(aggregate_outcome(block, n_sides))
    total.stalled = int(getattr(outcome, "stalled", 0))
    return total


def merge_all(aggs, n_sides: int, n_combatants: int) -> Aggregate:
    total = Aggregate.empty(n_sides, n_combatants)
    for a in aggs:
        total.merge(a)
    return total


def summarize_aggregate(agg: Aggregate, scen, meta: dict) -> dict:
    """The summary dict of `sim.summary.summarize`, from an aggregate instead of tables."""
    from sim.summary import _rate
    n = agg.n
    sides = {}
    for s, side in enumerate(scen.side_names):
        r = _rate(int(agg.winners[s]), n)
        sides[side] = {"win_rate": r["rate"], "ci95": r["ci95"]}
    draws = _rate(int(agg.winners[len(scen.side_names)]), n)
    unfinished = _rate(int(agg.winners[len(scen.side_names) + 1]), n)
    lengths = np.arange(len(agg.rounds_hist))
    dead, fled = (FINAL_STATES.index(x) for x in ("dead", "fled"))
    combatants = []
    for i, c in enumerate(scen.combatants):
        mean = {k: float(agg.sums[k][i] / n) if n else float("nan") for k in SUM_COLUMNS}
        # "down" is one thing everywhere (summary, reports, analyses): out of the fight by
        # wounds, dead or unconscious. Fled combatants left on their feet and count apart.
        down = int(agg.states[i, dead] + agg.states[i, FINAL_STATES.index("unconscious")])
        combatants.append({
            "name": c.name,
            "side": scen.side_names[c.side],
            "attacks": mean["attacks"],
            "hits": mean["hits"],
            "hit_rate": float(mean["hits"] / mean["attacks"]) if mean["attacks"] > 0 else None,
            "damage_dealt": mean["damage_dealt"],
            "damage_taken": mean["damage_taken"],
            "down_rate": down / n if n else float("nan"),
            "down_ci95": _rate(down, n)["ci95"],
            "fallen_rate": down / n if n else float("nan"),  # the old name of down_rate, kept for readers of --json
            "dead_rate": int(agg.states[i, dead]) / n if n else float("nan"),
            "fled_rate": int(agg.states[i, fled]) / n if n else float("nan"),
        })
    return {
        "scenario": scen.name,
        "ruleset": scen.ruleset_name,
        "skirmishes": n,
        "seed": meta.get("seed"),
        "sides": sides,
        "draw_rate": draws["rate"],
        "draw_ci95": draws["ci95"],
        "unfinished_rate": unfinished["rate"],
        "unfinished_ci95": unfinished["ci95"],
        "rounds": {
            "mean": float((lengths * agg.rounds_hist).sum() / n) if n else float("nan"),
            "p50": agg.rounds_percentile(50),
            "p90": agg.rounds_percentile(90),
            "max": int(np.flatnonzero(agg.rounds_hist).max()) if n else 0,
        },
        "combatants": combatants,
        **ruleset_figures(agg, scen),
        "provenance": meta,
    }


def ruleset_figures(agg: Aggregate, scen) -> dict:
    """The ruleset's own columns as per-combatant means, and what had no effect (sim/inert.py)."""
    from sim.inert import Totals, gather, ruleset_means
    totals = Totals(agg.n, {**agg.sums, **agg.extra_sums}, agg.extra_max)
    return {"ruleset_columns": ruleset_means(scen, totals), "inert": gather(scen, totals)}
