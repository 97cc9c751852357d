"""A day's outcome tables (per day, per fight, per member) and the figures read off them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.day.spec import Day, Fight
from sim.rulesets.base import DEAD, FINAL_STATES, STANDING
from sim.stats import mean_ci, wilson

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
HEALTH_BINS = (0.0, 0.25, 0.5, 0.75, 1.0)
HEALTH_LABELS = ("0-25%", "25-50%", "50-75%", "75-100%")


@dataclass
class DayResult:
    day: Day
    days: pd.DataFrame  # one row per day
    fights: pd.DataFrame  # one row per (day, fight)
    members: pd.DataFrame  # one row per (day, fight reached, member)
    fates: pd.DataFrame  # one row per (day, member)
    rests: pd.DataFrame  # one row per (day, night rest, member): the health roll
    meta: dict = field(default_factory=dict)

    def summary(self) -> dict:
        return summarize(self)

    def summary_text(self) -> str:
        from sim.day.text import summary_text
        return summary_text(self)

    def __repr__(self) -> str:
        s = self.summary()
        lo, hi = s["survival"]["ci95"]
        return (f"<DayResult {self.day.name!r}: {s['days']:,} days, the party survives "
                f"{s['survival']['rate']:.1%} [{lo:.1%}, {hi:.1%}]; .days .fights .members .fates .rests .meta>")


def _cat(codes, labels) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes), dtype=pd.CategoricalDtype(list(labels)))


def build_result(day: Day, chunks: list, meta: dict) -> DayResult:
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
    for table in (days, fights, members, fates, rests):
        table.attrs["provenance"] = meta
    return DayResult(day, days, fights, members, fates, rests, meta)


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
    rows = []
    F = len(fight_names)
    fight_of_step = np.full(len(day.steps) + 1, F, np.int64)  # -1 (lived) reads the last entry
    fight_of_step[[i for i, s in enumerate(day.steps) if isinstance(s, Fight)]] = np.arange(F)
    for mi, m in enumerate(day.members):
        end = np.concatenate([c.end_status[m] for c in chunks])
        died = np.concatenate([c.died_in[m] for c in chunks])
        died_fight = fight_of_step[died]
        rows.append(pd.DataFrame({"day": ids, "combatant": np.full(len(ids), mi), "end_state": end.astype(np.int8),
                                  "died_in": died_fight}))
    table = pd.concat(rows, ignore_index=True)
    table["combatant"] = _cat(table["combatant"], day.members)
    table["end_state"] = _cat(table["end_state"], FINAL_STATES)
    table["died_in"] = _cat(table["died_in"], fight_names + ["(lived)"])
    return table


def _rests(day: Day, chunks: list, ids: np.ndarray) -> pd.DataFrame:
    keys = list(chunks[0].rests)
    if not keys:
        return pd.DataFrame({"day": [], "rest": [], "combatant": [], "rested": [], "night_roll_succeeded": [],
                             "night_roll_mattered": []})
    parts = [pd.DataFrame({"day": ids, "rest": rest, "combatant": m,
                           **{k: np.concatenate([c.rests[(rest, m)][k] for c in chunks])
                              for k in ("rested", "night_roll_succeeded", "night_roll_mattered")}})
             for rest, m in keys]
    return pd.concat(parts, ignore_index=True)


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"rate": k / n if n else float("nan"), "ci95": [float(lo), float(hi)], "of": int(n)}


def summarize(result: DayResult) -> dict:
    d, f = result.days, result.fights
    n = len(d)
    mean, lo, hi = mean_ci(d["deaths"])
    out = {"day": result.day.name, "days": n,
           "survival": _rate(int(d["survived"].sum()), n),
           "nobody_dies": _rate(int((d["deaths"] == 0).sum()), n),
           "deaths": {"mean": mean, "ci95": [lo, hi]},
           "fights_won": {"mean": float(d["fights_won"].mean())},
           "fights": [], "members": [], "resources": resources(result).to_dict("records"),
           "provenance": result.meta}
    ended = d["ended_at"].value_counts()
    for name, g in f.groupby("fight", observed=False):
        reached, lost = int(g["reached"].sum()), int((g["reached"] & ~g["won"]).sum())
        rate = _rate(lost, reached)
        out["fights"].append({"name": str(name), "met": float(g["met"].mean()), "reached": float(g["reached"].mean()),
                              "lost": rate["rate"], "lost_ci95": rate["ci95"],
                              "days_ended_here": float(ended.get(name, 0) / n),
                              "rounds": float(g.loc[g["reached"], "rounds"].mean()) if reached else float("nan")})
    for name, g in result.fates.groupby("combatant", observed=False):
        states = g["end_state"].value_counts(normalize=True)
        died = g.loc[g["end_state"] == "dead", "died_in"].value_counts() / len(g)
        out["members"].append({"name": str(name), **{s: float(states.get(s, 0.0)) for s in FINAL_STATES[:3]},
                               "died_in": {str(k): float(v) for k, v in died.items() if v}})
    return out


def resources(result: DayResult) -> pd.DataFrame:
    """Each member's resources at each fight's entry and exit, over the days that reached
    it: mean and the 5/25/50/75/95% quantiles."""
    m = result.members
    names = result.day.rules_module.RESOURCES
    rows = []
    for (fight, who), g in m.groupby(["fight", "combatant"], observed=True, sort=False):
        for when in ("entry", "exit"):
            for r in names:
                v = g[f"{when}_{r}"].to_numpy()
                q = np.quantile(v, QUANTILES) if len(v) else [np.nan] * len(QUANTILES)
                rows.append({"fight": str(fight), "combatant": str(who), "when": when, "resource": r,
                             "mean": float(v.mean()) if len(v) else np.nan,
                             **{f"q{int(p * 100):02d}": float(x) for p, x in zip(QUANTILES, q)}})
    return pd.DataFrame(rows)


def state_value(result: DayResult) -> pd.DataFrame:
    """The party's chance to win each fight against its health at entry (its share of its
    full carried resources, the resource each ruleset calls its health), with intervals."""
    day, m = result.day, result.members
    health = day.rules_module.RESOURCES[0] if day.ruleset_name != "gods_and_monsters" else None
    full = {w: day.rules_module.full(day.stats[w]) for w in day.members}
    if health is None:  # verve and survival both take the blows
        top = m["combatant"].map({w: full[w]["verve"] + full[w]["survival"] for w in day.members}).astype(float)
        have = m["entry_verve"] + m["entry_survival"]
    else:
        top = m["combatant"].map({w: full[w][health] for w in day.members}).astype(float)
        have = m[f"entry_{health}"]
    share = pd.DataFrame({"day": m["day"], "fight": m["fight"], "have": have.clip(lower=0), "top": top})
    party = share.groupby(["day", "fight"], observed=True)[["have", "top"]].sum()
    party["health"] = (party["have"] / party["top"]).clip(0, 1)
    won = result.fights.set_index(["day", "fight"])["won"]
    party = party.join(won)
    party["bin"] = pd.cut(party["health"], HEALTH_BINS, include_lowest=True, labels=HEALTH_LABELS)
    rows = []
    for (fight, b), g in party.groupby(["fight", "bin"], observed=True):
        k, n = int(g["won"].sum()), len(g)
        lo, hi = wilson(k, n)
        rows.append({"fight": str(fight), "entry_health": str(b), "days": n, "won": k / n,
                     "ci95_low": float(lo), "ci95_high": float(hi)})
    return pd.DataFrame(rows)
