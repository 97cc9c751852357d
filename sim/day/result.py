"""A day's outcome tables (per day, per fight, per member) and the figures read off them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.day.aggregate import HEALTH_LABELS, WHEN, DayAggregate, empty, hist_quantile
from sim.day.spec import Day, Fight
from sim.errors import ScenarioError
from sim.rulesets.base import DEAD, FINAL_STATES, STANDING
from sim.stats import Z95, wilson

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass
class DayResult:
    """A day played: its figures (`.aggregate`, read by `.summary()`) and, unless it was
    played summary-only, its outcome tables, in memory or in a run folder."""
    day: Day
    aggregate: DayAggregate
    meta: dict = field(default_factory=dict)
    tables: dict | None = None  # name -> DataFrame, when held in memory
    folder: object | None = None  # sim.rundir.RunFolder holding each chunk's tables
    summary_only: bool = False
    replayed: list = field(default_factory=list)  # (chunk, what was wrong) of a run folder's damaged chunks
    # The played chunks (sim.day.play.DayChunk, in order) until a table is first read:
    # a summary needs none of them, so a run that prints one builds none.
    chunks: list | None = field(default=None, repr=False)

    def summary(self) -> dict:
        return summarize(self.day, self.aggregate, self.meta)

    def summary_text(self) -> str:
        from sim.day.text import summary_text
        return summary_text(self)

    def table(self, name: str) -> pd.DataFrame:
        if self.tables is None and self.chunks:
            self.tables, self.chunks = build_tables(self.day, self.chunks, self.meta), None
        if self.tables is None or name not in self.tables:
            if self.summary_only or self.folder is None:
                raise ScenarioError("this day was played summary-only and keeps no outcome tables; play it "
                                    "without --summary-only (summary_only=False) to have them.")
            self.tables = self.tables or {}
            from sim.day.runs import table_from_folder
            self.tables[name] = table_from_folder(self.folder, name, self.aggregate.n, self.meta)
        return self.tables[name]

    days = property(lambda self: self.table("days"), doc="one row per day")
    fights = property(lambda self: self.table("fights"), doc="one row per (day, fight)")
    members = property(lambda self: self.table("members"), doc="one row per (day, fight reached, member)")
    fates = property(lambda self: self.table("fates"), doc="one row per (day, member)")
    rests = property(lambda self: self.table("rests"), doc="one row per (day, night rest, member)")

    def __repr__(self) -> str:
        s = self.summary()
        lo, hi = s["survival"]["ci95"]
        holds = ("figures only (summary-only)" if self.summary_only else
                 ".days .fights .members .fates .rests" + (f" (in {self.folder.path})" if self.folder else ""))
        return (f"<DayResult {self.day.name!r}: {s['days']:,} days, the party survives "
                f"{s['survival']['rate']:.1%} [{lo:.1%}, {hi:.1%}]; {holds}, .meta>")


def _cat(codes, labels) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes), dtype=pd.CategoricalDtype(list(labels)))


def build_result(day: Day, chunks: list, meta: dict) -> DayResult:
    agg = empty()
    for chunk in chunks:
        agg.merge(DayAggregate.from_chunk(day, chunk))
    return DayResult(day, agg, meta, chunks=list(chunks))


def build_tables(day: Day, chunks: list, meta: dict) -> dict:
    """The outcome tables of consecutive chunks of days."""
    cat = lambda get: np.concatenate([get(c) for c in chunks])  # noqa: E731
    n = sum(c.n for c in chunks)
    ids = np.arange(chunks[0].first, chunks[0].first + n, dtype=np.int64)
    fight_names = [f.name for f in day.fights]
    step_names = [s.name for s in day.steps]
    won = np.stack([cat(lambda c, f=f: c.fights[f]["won"]) for f in fight_names], axis=1)
    met = np.stack([cat(lambda c, f=f: c.fights[f]["met"]) for f in fight_names], axis=1)
    lost_at = cat(lambda c: c.lost_at)
    dead = np.stack([cat(lambda c, m=m: c.end_status[m]) == DEAD for m in day.members], axis=1)
    standing = np.stack([cat(lambda c, m=m: c.end_status[m]) == STANDING for m in day.members], axis=1)
    ended = np.where(lost_at >= 0, lost_at, len(step_names))
    days = pd.DataFrame({"day": ids, "survived": lost_at < 0, "ended_at": _cat(ended, step_names + ["end"]),
                         "fights_met": met.sum(axis=1), "fights_won": won.sum(axis=1),
                         "deaths": dead.sum(axis=1), "standing_at_end": standing.sum(axis=1)})
    F = len(fight_names)
    fights = pd.DataFrame({
        "day": np.repeat(ids, F), "fight": _cat(np.tile(np.arange(F), n), fight_names),
        **{k: np.stack([cat(lambda c, f=f, k=k: c.fights[f][k]) for f in fight_names], axis=1).reshape(-1)
           for k in ("met", "reached", "won", "rounds")}})
    fights["lost"] = fights["met"] & ~fights["won"]
    members = _members(day, chunks, ids)
    fates = _fates(day, chunks, ids, fight_names)
    rests = _rests(day, chunks, ids)
    tables = {"days": days, "fights": fights, "members": members, "fates": fates, "rests": rests}
    for table in tables.values():
        table.attrs["provenance"] = meta
    return tables


def _members(day: Day, chunks: list, ids: np.ndarray) -> pd.DataFrame:
    """Rows in (day, fight, member) order, each written straight to its place: a day's
    rows start after every earlier day's (members x fights reached), and within the day
    a fight's after those of the fights it reached before."""
    M = len(day.members)
    reached = np.stack([np.concatenate([c.fights[f.name]["reached"] for c in chunks]) for f in day.fights], axis=1)
    before = np.cumsum(reached, axis=1) - reached  # fights reached earlier the same day
    first_row = M * (np.cumsum(reached.sum(axis=1)) - reached.sum(axis=1))
    total = int(M * reached.sum())
    keys = list(chunks[0].members[(day.fights[0].name, day.members[0])])
    cols = {"day": np.empty(total, np.int64), "fight": np.empty(total, np.int64),
            "combatant": np.empty(total, np.int64)}
    for fi, f in enumerate(day.fights):
        rows = np.flatnonzero(reached[:, fi])
        for mi, m in enumerate(day.members):
            at = first_row[rows] + M * before[rows, fi] + mi
            cols["day"][at], cols["fight"][at], cols["combatant"][at] = ids[rows], fi, mi
            for k in keys:
                v = np.concatenate([c.members[(f.name, m)][k] for c in chunks])[rows]
                if k not in cols:
                    cols[k] = np.empty(total, v.dtype)
                cols[k][at] = v
    table = pd.DataFrame(cols)
    table["fight"] = _cat(table["fight"], [f.name for f in day.fights])
    table["combatant"] = _cat(table["combatant"], day.members)
    for key in ("entry_state", "exit_state"):
        table[key] = _cat(table[key].astype(np.int8), FINAL_STATES)
    return table


def _fates(day: Day, chunks: list, ids: np.ndarray, fight_names: list) -> pd.DataFrame:
    """Rows in (day, member) order, as every table is day-major: the tables of a run
    folder's chunks, put one after the other, are the whole run's."""
    F, M = len(fight_names), len(day.members)
    fight_of_step = np.full(len(day.steps) + 1, F, np.int64)  # -1 (lived) reads the last entry
    fight_of_step[[i for i, s in enumerate(day.steps) if isinstance(s, Fight)]] = np.arange(F)
    end = np.stack([np.concatenate([c.end_status[m] for c in chunks]) for m in day.members], axis=1)
    died = np.stack([np.concatenate([c.died_in[m] for c in chunks]) for m in day.members], axis=1)
    return pd.DataFrame({"day": np.repeat(ids, M), "combatant": _cat(np.tile(np.arange(M), len(ids)), day.members),
                         "end_state": _cat(end.reshape(-1).astype(np.int8), FINAL_STATES),
                         "died_in": _cat(fight_of_step[died.reshape(-1)], fight_names + ["(lived)"])})


def _rests(day: Day, chunks: list, ids: np.ndarray) -> pd.DataFrame:
    """Rows in (day, night rest, member) order."""
    keys = list(chunks[0].rests)
    K = len(keys)
    if not keys:
        return pd.DataFrame({"day": [], "rest": [], "combatant": [], "rested": [], "night_roll_succeeded": [],
                             "night_roll_mattered": []})
    cols = {k: np.stack([np.concatenate([c.rests[key][k] for c in chunks]) for key in keys], axis=1).reshape(-1)
            for k in ("rested", "night_roll_succeeded", "night_roll_mattered")}
    names = list(dict.fromkeys(r for r, _ in keys))
    rest_of = np.array([names.index(r) for r, _ in keys])
    member_of = np.array([day.members.index(m) for _, m in keys])
    return pd.DataFrame({"day": np.repeat(ids, K), "rest": _cat(np.tile(rest_of, len(ids)), names),
                         "combatant": _cat(np.tile(member_of, len(ids)), day.members), **cols})


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else float("nan"), "ci95": [float(lo), float(hi)], "of": int(n)}


def summarize(day: Day, agg: DayAggregate, meta: dict) -> dict:
    n, c = agg.n, agg.counts
    survived, nobody_dies, deaths, deaths_squared = (int(x) for x in c["days"])
    mean = deaths / n
    se = np.sqrt(max(deaths_squared - n * mean * mean, 0) / (n - 1) / n) if n > 1 else 0.0
    out = {"day": day.name, "days": n, "survival": _rate(survived, n), "nobody_dies": _rate(nobody_dies, n),
           "deaths": {"mean": mean, "ci95": [mean - Z95 * se, mean + Z95 * se]},
           "fights_won": {"mean": float(c["fight"][:, 4].sum() / n)},
           "fights": [], "members": [], "resources": resources(day, agg).to_dict("records"), "provenance": meta}
    step_of = {s.name: i for i, s in enumerate(day.steps)}
    for fi, f in enumerate(day.fights):
        met, reached, lost, rounds, _ = (int(x) for x in c["fight"][fi])
        rate = _rate(lost, reached)
        out["fights"].append({"name": f.name, "met": met / n, "reached": reached / n, "lost": rate["rate"],
                              "lost_ci95": rate["ci95"], "days_ended_here": float(c["ended"][step_of[f.name]] / n),
                              "rounds": rounds / reached if reached else float("nan")})
    places = [f.name for f in day.fights] + ["(lived)"]
    for mi, m in enumerate(day.members):
        states = c["end_state"][mi] / n
        out["members"].append({"name": m, **{s: float(states[k]) for k, s in enumerate(FINAL_STATES[:3])},
                               "died_in": {places[k]: float(v / n) for k, v in enumerate(c["died_in"][mi]) if v}})
    return out


def resources(day: Day, agg: DayAggregate) -> pd.DataFrame:
    """Each member's resources at each fight's entry and exit, over the days that reached
    it: mean and the 5/25/50/75/95% quantiles (exact, from the value histograms)."""
    rows = []
    for f in day.fights:
        for who in day.members:
            for when in WHEN:
                for r in day.member_resources(who):
                    values, counts = agg.hist(f.name, who, when, r)
                    if not counts.sum():
                        continue
                    rows.append({"fight": f.name, "combatant": who, "when": when, "resource": r,
                                 "mean": float((values * counts).sum() / counts.sum()),
                                 **{f"q{int(p * 100):02d}": hist_quantile(values, counts, p) for p in QUANTILES}})
    return pd.DataFrame(rows, columns=["fight", "combatant", "when", "resource", "mean",
                                       *(f"q{int(p * 100):02d}" for p in QUANTILES)])


def state_value(result: DayResult) -> pd.DataFrame:
    """The party's chance to win each fight against its health at entry (its share of its
    full health, sim.day.aggregate.health_resources), with intervals."""
    rows = []
    for fi, f in enumerate(result.day.fights):
        for b, label in enumerate(HEALTH_LABELS):
            n, k = (int(x) for x in result.aggregate.counts["value"][fi, b])
            if n:
                lo, hi = wilson(k, n)
                rows.append({"fight": f.name, "entry_health": label, "days": n, "won": k / n,
                             "ci95_low": float(lo), "ci95_high": float(hi)})
    return pd.DataFrame(rows, columns=["fight", "entry_health", "days", "won", "ci95_low", "ci95_high"])
