"""A day's figures as counts: each chunk of days folded into integers that merge exactly.

Every figure of a day's summary (survival, deaths, per fight, each member's fate, the
resource quantiles, win chance by entry health) is read off a DayAggregate, whether
the outcome tables are kept or not (`--summary-only`), so the two ways of running give
the same summary, and a resumed run folder the uninterrupted run's. Resources are kept
as exact histograms of their integer values, so their quantiles are those of the
tables.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

import numpy as np

from sim.day.spec import Day, Fight
from sim.rulesets.base import DEAD, FINAL_STATES

HEALTH_EDGES = (0.25, 0.5, 0.75)  # the right-closed bins 0-25%, 25-50%, 50-75%, 75-100%
HEALTH_LABELS = ("0-25%", "25-50%", "50-75%", "75-100%")
WHEN = ("entry", "exit")


@dataclass
class DayAggregate:
    n: int
    counts: dict  # name -> int64 array of fixed shape for the day (see `from_chunk`)
    hists: dict = field(default_factory=dict)  # "fight|member|when|resource" -> (values, counts)

    @classmethod
    def from_chunk(cls, day: Day, chunk) -> "DayAggregate":
        F, M, S = len(day.fights), len(day.members), len(day.steps)
        resources = day.resources
        end = np.stack([chunk.end_status[m] for m in day.members])  # (M, n)
        deaths = (end == DEAD).sum(axis=0)
        ended = np.where(chunk.lost_at >= 0, chunk.lost_at, S)
        fight_of_step = np.full(S + 1, F, np.int64)
        fight_of_step[[i for i, s in enumerate(day.steps) if isinstance(s, Fight)]] = np.arange(F)
        died_in = np.zeros((M, F + 1), np.int64)
        for mi, m in enumerate(day.members):
            died_in[mi] = np.bincount(fight_of_step[chunk.died_in[m][end[mi] == DEAD]], minlength=F + 1)
        c = {"days": np.array([(chunk.lost_at < 0).sum(), (deaths == 0).sum(), deaths.sum(),
                               (deaths.astype(np.int64) ** 2).sum()], np.int64),
             "ended": np.bincount(ended, minlength=S + 1).astype(np.int64),
             "fight": np.zeros((F, 5), np.int64),  # met, reached, lost if reached, rounds, won
             "end_state": np.stack([np.bincount(e, minlength=len(FINAL_STATES)) for e in end]).astype(np.int64),
             "died_in": died_in, "value": np.zeros((F, len(HEALTH_LABELS), 2), np.int64)}
        hists = {}
        for fi, f in enumerate(day.fights):
            got = chunk.fights[f.name]
            reached, won = got["reached"], got["won"]
            c["fight"][fi] = [got["met"].sum(), reached.sum(), (reached & ~won).sum(), got["rounds"][reached].sum(),
                              won.sum()]
            bins = np.searchsorted(HEALTH_EDGES, entry_health(day, chunk, f)[reached], side="left")
            c["value"][fi, :, 0] = np.bincount(bins, minlength=len(HEALTH_LABELS))
            c["value"][fi, :, 1] = np.bincount(bins, weights=won[reached], minlength=len(HEALTH_LABELS))
            for m in day.members:
                record = chunk.members[(f.name, m)]
                for when in WHEN:
                    for r in resources:
                        hists[_key(f.name, m, when, r)] = _histogram(record[f"{when}_{r}"][reached])
        return cls(chunk.n, c, hists)

    def merge(self, other: "DayAggregate") -> "DayAggregate":
        """Add `other` into this aggregate (in place) and return it; order-free and exact."""
        if self.n == 0 and not self.counts:
            self.counts = {k: v.copy() for k, v in other.counts.items()}
            self.hists = dict(other.hists)
        else:
            for k, v in other.counts.items():
                self.counts[k] = self.counts[k] + v
            for k, (values, counts) in other.hists.items():
                self.hists[k] = _merge_hist(self.hists.get(k), values, counts)
        self.n += other.n
        return self

    def to_bytes(self) -> bytes:
        keys = sorted(self.hists)
        arrays = {f"c_{k}": v for k, v in self.counts.items()}
        for i, k in enumerate(keys):
            arrays[f"hv{i}"], arrays[f"hc{i}"] = self.hists[k]
        arrays["meta"] = np.frombuffer(json.dumps({"n": self.n, "hists": keys}).encode(), np.uint8)
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "DayAggregate":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            counts = {k[2:]: z[k].astype(np.int64) for k in z.files if k.startswith("c_")}
            hists = {k: (z[f"hv{i}"].astype(np.int64), z[f"hc{i}"].astype(np.int64))
                     for i, k in enumerate(meta["hists"])}
        return cls(int(meta["n"]), counts, hists)

    def hist(self, fight: str, member: str, when: str, resource: str) -> tuple[np.ndarray, np.ndarray]:
        return self.hists.get(_key(fight, member, when, resource), (np.zeros(0, np.int64), np.zeros(0, np.int64)))


def empty() -> DayAggregate:
    return DayAggregate(0, {}, {})


def _key(fight: str, member: str, when: str, resource: str) -> str:
    return json.dumps([fight, member, when, resource])


def _histogram(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values present, their counts), ascending: what np.unique gives, by a bincount
    over the range, which is small for every carried resource (no sort)."""
    if not len(values):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * len(values) + 1024:
        v, k = np.unique(values.astype(np.int64), return_counts=True)
        return v, k.astype(np.int64)
    counts = np.bincount(values.astype(np.int64) - low, minlength=high - low + 1)
    present = np.flatnonzero(counts)
    return present.astype(np.int64) + low, counts[present].astype(np.int64)


def _merge_hist(old, values, counts):
    if old is None:
        return values, counts
    v, inverse = np.unique(np.concatenate([old[0], values]), return_inverse=True)
    return v, np.bincount(inverse, weights=np.concatenate([old[1], counts]), minlength=len(v)).astype(np.int64)


def hist_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """np.quantile (linear interpolation) of the values the histogram counts."""
    n = int(counts.sum())
    if n == 0:
        return float("nan")
    pos = q * (n - 1)
    lo = int(np.floor(pos))
    cum = np.cumsum(counts)
    below, above = (int(values[np.searchsorted(cum, i, side="right")]) for i in (lo, min(lo + 1, n - 1)))
    return float(below + (above - below) * (pos - lo))


def health_resources(day: Day) -> tuple[str, ...]:
    """The resources that make a member's health: the ruleset's HEALTH (Gods & Monsters:
    verve and survival both take the blows), else its first resource (Body, hit points)."""
    return getattr(day.rules_module, "HEALTH", day.rules_module.RESOURCES[:1])


def entry_health(day: Day, chunk, fight: Fight) -> np.ndarray:
    """Per day, the party's share of its full health at the fight's entry, 0..1."""
    names = health_resources(day)
    have = np.zeros(chunk.n)
    top = 0
    for m in day.members:
        full = day.rules_module.full(day.stats[m])
        record = chunk.members[(fight.name, m)]
        have += np.clip(sum(record[f"entry_{r}"] for r in names), 0, None)
        top += sum(full[r] for r in names)
    return np.clip(have / top, 0, 1) if top else np.ones(chunk.n)


__all__ = ["DayAggregate", "HEALTH_LABELS", "empty", "entry_health", "hist_quantile"]
