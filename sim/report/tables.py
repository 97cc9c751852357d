"""Outcome tables in, the small frames the figures and the verdict draw from out.

Everything here reads only the standard columns every ruleset writes (skirmishes:
winner, rounds; combatants: combatant, side, attacks, hits, damage_dealt, damage_taken,
final_state, down_round), so reports work for any ruleset without knowing its rules.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import ScenarioError
from sim.stats import wilson

NOT_SIDES = ("draw", "unfinished")
FINAL_STATES = ("standing", "unconscious", "dead", "fled")
SKIRMISH_COLUMNS = ("winner", "rounds")
COMBATANT_COLUMNS = ("combatant", "side", "attacks", "hits", "damage_dealt", "damage_taken",
                     "final_state", "down_round")


@dataclass
class RunTables:
    """The two outcome tables of one run plus its provenance, however they arrived."""
    skirmishes: pd.DataFrame
    combatants: pd.DataFrame
    meta: dict = field(default_factory=dict)
    label: str = ""
    scenario: object = None  # the Scenario played, when known (sim.report.designs shows it)

    def __post_init__(self):
        missing = [c for c in SKIRMISH_COLUMNS if c not in self.skirmishes.columns]
        missing += [c for c in COMBATANT_COLUMNS if c not in self.combatants.columns]
        if missing:
            raise ScenarioError(f"the outcome tables lack the column(s) {', '.join(missing)}; "
                                "give tables written by `skirmish run --out`.", file=self.label or None)
        if not self.label:
            self.label = str(self.meta.get("scenario") or "results")

    @classmethod
    def from_result(cls, result, label: str | None = None) -> "RunTables":
        """From a RunResult (or anything with .skirmishes, .combatants, .meta)."""
        meta = dict(getattr(result, "meta", {}) or {})
        return cls(result.skirmishes, result.combatants, meta, label or str(meta.get("scenario", "")),
                   getattr(result, "scenario", None))

    @property
    def n(self) -> int:
        return len(self.skirmishes)

    @property
    def sides(self) -> list[str]:
        side = self.combatants["side"]
        if isinstance(side.dtype, pd.CategoricalDtype):
            return [str(s) for s in side.cat.categories]
        return [str(s) for s in pd.unique(side)]

    @property
    def names(self) -> list[str]:
        """Combatants in scenario order (sides in order, then as listed)."""
        col = self.combatants["combatant"]
        if isinstance(col.dtype, pd.CategoricalDtype):
            return [str(s) for s in col.cat.categories]
        return [str(s) for s in pd.unique(col)]

    @property
    def side_of(self) -> dict[str, str]:
        first = self.combatants.drop_duplicates("combatant")
        return {str(c): str(s) for c, s in zip(first["combatant"], first["side"])}


def win_table(t: RunTables) -> pd.DataFrame:
    """One row per outcome (each side, draw, unfinished): wins, rate and 95% interval."""
    counts = t.skirmishes["winner"].astype(str).value_counts()
    outcomes = t.sides + list(NOT_SIDES)
    k = np.array([int(counts.get(o, 0)) for o in outcomes])
    lo, hi = wilson(k, t.n)
    return pd.DataFrame({
        "outcome": outcomes,
        "kind": ["side"] * len(t.sides) + list(NOT_SIDES),
        "wins": k, "skirmishes": t.n,
        "rate": k / t.n if t.n else np.full(len(k), np.nan),
        "ci_lo": lo, "ci_hi": hi,
    })


def combatant_table(t: RunTables) -> pd.DataFrame:
    """Per combatant: means per fight, hit rate and down rate with 95% intervals,
    how fights end for them, and their share of their side's damage."""
    cb = t.combatants.assign(combatant=t.combatants["combatant"].astype(str),
                             final_state=t.combatants["final_state"].astype(str))
    g = cb.groupby("combatant", sort=False)
    sums = g[["attacks", "hits", "damage_dealt", "damage_taken"]].sum().reindex(t.names)
    states = pd.crosstab(cb["combatant"], cb["final_state"]).reindex(index=t.names, columns=FINAL_STATES,
                                                                      fill_value=0)
    n = max(t.n, 1)
    out = pd.DataFrame({"combatant": t.names, "side": [t.side_of[c] for c in t.names]})
    for col in ("attacks", "hits", "damage_dealt", "damage_taken"):
        out[col] = sums[col].to_numpy(float) / n
    attacks, hits = sums["attacks"].to_numpy(float), sums["hits"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["hit_rate"] = np.where(attacks > 0, hits / attacks, np.nan)
    lo, hi = wilson(hits, attacks)
    out["hit_ci_lo"] = np.where(attacks > 0, lo, np.nan)
    out["hit_ci_hi"] = np.where(attacks > 0, hi, np.nan)
    for s in FINAL_STATES:
        out[f"{s}_rate"] = states[s].to_numpy(float) / n
    # Down = dead or unconscious, as in the run summary; fled is its own column.
    down = states["dead"].to_numpy() + states["unconscious"].to_numpy()
    out["down_rate"] = down / n
    lo, hi = wilson(down, n)
    out["down_ci_lo"], out["down_ci_hi"] = lo, hi
    side_damage = out.groupby("side")["damage_dealt"].transform("sum")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share_of_side_damage"] = np.where(side_damage > 0, out["damage_dealt"] / side_damage, np.nan)
    out["side_size"] = out.groupby("side")["combatant"].transform("size")
    return out


def survival_table(t: RunTables, last_round: int | None = None) -> pd.DataFrame:
    """Share of each side's combatants still standing at the end of each round.

    A combatant is out from its `down_round` on (dead, unconscious or fled); one never
    downed stays standing after its fight ends, so the curves level off where fights stop.
    Round 0 is the start of the fight (everyone standing).
    """
    cb = t.combatants
    down = cb["down_round"].astype("Float64").fillna(np.inf).to_numpy(float)
    rounds = t.skirmishes["rounds"].to_numpy()
    if last_round is None:
        last_round = int(np.ceil(np.quantile(rounds, 0.995))) if len(rounds) else 1
    last_round = max(int(last_round), 1)
    side = cb["side"].astype(str).to_numpy()
    frames = []
    r = np.arange(0, last_round + 1)
    for s in t.sides:
        d = down[side == s]
        d = d[np.isfinite(d)].astype(np.int64)
        total = int((side == s).sum())
        fallen = np.bincount(np.clip(d, 0, last_round + 1), minlength=last_round + 2)[: last_round + 1]
        standing = 1 - np.cumsum(fallen) / max(total, 1)
        frames.append(pd.DataFrame({"side": s, "round": r, "standing": standing}))
    return pd.concat(frames, ignore_index=True)


def length_table(t: RunTables) -> pd.DataFrame:
    """Fights by length (rows) and outcome (columns), as shares of all fights."""
    sk = t.skirmishes
    tab = pd.crosstab(sk["rounds"], sk["winner"].astype(str))
    tab = tab.reindex(columns=[c for c in t.sides + list(NOT_SIDES)], fill_value=0)
    return tab / max(t.n, 1)


# ---------------------------------------------------------------- reading results

def _read_meta_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _pair_for(path: Path) -> tuple[Path, Path, str] | None:
    """The (skirmishes, combatants, format) files a results path names, if they exist."""
    name = path.name
    for fmt in ("parquet", "csv"):
        for part in ("skirmishes", "combatants"):
            suffix = f".{part}.{fmt}"
            if name.endswith(suffix):
                stem = path.with_name(name[: -len(suffix)])
                return _existing(stem, fmt)
    if path.suffix.lower() in (".parquet", ".csv"):
        return _existing(path.with_suffix(""), path.suffix.lower()[1:])
    for fmt in ("parquet", "csv"):
        found = _existing(path, fmt)
        if found:
            return found
    return None


def _existing(stem: Path, fmt: str):
    # `--out X.parquet` writes X.parquet (skirmishes) beside X.combatants.parquet; runs
    # written before that named the skirmish table X.skirmishes.parquet.
    cb = stem.with_name(f"{stem.name}.combatants.{fmt}")
    for sk in (stem.with_name(f"{stem.name}.{fmt}"), stem.with_name(f"{stem.name}.skirmishes.{fmt}")):
        if sk.exists() and cb.exists():
            return sk, cb, fmt
    return None


def load_tables(path) -> list[RunTables]:
    """Read outcome tables written by `skirmish run --out X.parquet` (or X.csv).

    `path` may be the base path given to --out, either of the two table files, or a
    folder holding several runs (`--out DIR` with several scenarios).
    """
    path = Path(path)
    if path.is_dir():
        stems = sorted({p.name[: -len(f".combatants.{fmt}")] for fmt in ("parquet", "csv")
                        for p in path.glob(f"*.combatants.{fmt}")})
        if not stems:
            raise ScenarioError("holds no outcome tables (*.combatants.parquet beside *.parquet); write them with "
                                "`skirmish run SCENARIO --out DIR/NAME.parquet`.", file=str(path))
        return [t for s in stems for t in load_tables(path / s)]
    found = _pair_for(path)
    if not found:
        raise ScenarioError("no outcome tables found there; give the path passed to `skirmish run --out` "
                            "(e.g. out/yeti.parquet) or one of the files it wrote "
                            "(out/yeti.parquet, out/yeti.combatants.parquet).", file=str(path))
    sk_path, cb_path, fmt = found
    if fmt == "parquet":
        from sim.io import read_meta
        sk, cb = pd.read_parquet(sk_path), pd.read_parquet(cb_path)
        meta = read_meta(sk_path) or read_meta(cb_path)
    else:
        sk, cb = pd.read_csv(sk_path), pd.read_csv(cb_path)
        meta = _read_meta_json(cb_path.with_name(cb_path.name.replace(".combatants.csv", ".meta.json")))
        cb["down_round"] = cb["down_round"].astype("Int32")
    label = str(meta.get("scenario") or sk_path.name.split(".")[0])
    return [RunTables(sk, cb, meta, label)]
