"""The plain-text verdict on top of a report: who is favoured and by how much, whether
the result is decisive, fights that run long, combatants who hardly matter.

Each function returns a list of sentences (one short paragraph each); the thresholds
are module constants so a designer can see what "hardly matters" means.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.english import sides_possessive
from sim.report.figures import pct
from sim.report.tables import RunTables, combatant_table, win_table
from sim.stats import Z95

# A combatant "hardly matters" when it deals less than this fraction of a fair share
# (1 / side size) of its side's damage. Only judged on sides of two or more.
HARDLY_MATTERS = 1 / 3
# A fight length tail is "long" when 1 fight in 100 lasts this many times the median.
LONG_TAIL = 3.0
# Half-width of the interval a designer usually wants on a win rate (for run-size advice).
TARGET_HALF_WIDTH = 0.01


def strength(rate: float) -> str:
    if rate >= 0.9:
        return "overwhelmingly favoured"
    if rate >= 0.7:
        return "strongly favoured"
    if rate >= 0.58:
        return "clearly favoured"
    if rate > 0.52:
        return "slightly favoured"
    return "level with the others"


def _value(v):
    """3.0 -> 3 (a row of mixed columns turns whole numbers into floats)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fights_needed(half_width: float = TARGET_HALF_WIDTH, p: float = 0.5) -> int:
    return int(np.ceil(Z95 ** 2 * p * (1 - p) / half_width ** 2))


def run_verdict(t: RunTables, wins: pd.DataFrame | None = None, table: pd.DataFrame | None = None) -> list[str]:
    wins = win_table(t) if wins is None else wins
    table = combatant_table(t) if table is None else table
    out: list[str] = []
    n = t.n
    if n == 0:
        return ["No fights were played."]
    sides = wins[wins["kind"] == "side"].sort_values("rate", ascending=False)
    lead, rest = sides.iloc[0], sides.iloc[1:]
    interval = f"95% interval {pct(lead['ci_lo'])} – {pct(lead['ci_hi'])}"
    if len(rest):
        second = rest.iloc[0]
        gap = 100 * (lead["rate"] - second["rate"])
        if lead["ci_lo"] > second["ci_hi"]:
            gap_text = f"{gap:.2f}" if 99 < gap < 100 else f"{gap:.1f}"
            out.append(f"{_cap(lead['outcome'])} is {strength(lead['rate'])}: it wins {pct(lead['rate'])} of "
                       f"{n:,} fights ({interval}), {gap_text} percentage points more than "
                       f"{second['outcome']} ({pct(second['rate'])}).")
        else:
            out.append(f"No side is clearly favoured: {lead['outcome']} wins {pct(lead['rate'])} ({interval}) "
                       f"and {second['outcome']} {pct(second['rate'])}; their intervals overlap.")
    else:
        out.append(f"{_cap(lead['outcome'])} wins {pct(lead['rate'])} of {n:,} fights ({interval}).")
    if lead["ci_lo"] > 0.5:
        out.append(f"Decisive: the whole interval for {lead['outcome']} lies above 50%.")
    elif lead["ci_hi"] < 0.5:
        out.append("No side wins as many as half the fights: the rest end in draws or run out of rounds.")
    else:
        out.append(f"Not decisive: the interval includes 50%, so {n:,} fights cannot tell this from an even "
                   f"fight. About {fights_needed():,} fights narrow a win rate near 50% to ±1 point.")
    other = wins.set_index("outcome")
    if other.loc["draw", "rate"] >= 0.01:
        out.append(f"{pct(other.loc['draw', 'rate'])} of fights end with every side down at once (a draw).")
    out.extend(length_verdict(t))
    out.extend(combatant_verdict(table))
    return out


def length_verdict(t: RunTables) -> list[str]:
    rounds = t.skirmishes["rounds"].to_numpy()
    med, p90, p99, longest = (float(np.percentile(rounds, q)) for q in (50, 90, 99, 100))
    out = [f"Fights last {med:.0f} rounds at the median; 9 in 10 are over by round {p90:.0f}; "
           f"the longest took {longest:.0f}."]
    unfinished = int((t.skirmishes["winner"].astype(str) == "unfinished").sum())
    if unfinished:
        limit = t.meta.get("max_rounds", "the round limit")
        out.append(f"Fights that run long: {unfinished:,} ({pct(unfinished / t.n)}) were still going after "
                   f"{limit} rounds and count as unfinished; look for a stalemate (nobody able to hurt "
                   "anybody) or raise run.max_rounds.")
    elif p99 >= LONG_TAIL * med and p99 >= med + 5:
        out.append(f"Fights that run long: 1 fight in 100 lasts {p99:.0f} rounds or more, over "
                   f"{LONG_TAIL:g} times the median.")
    return out


def combatant_verdict(table: pd.DataFrame) -> list[str]:
    out = []
    for _, c in table.iterrows():
        if c["side_size"] < 2:
            continue
        fair = 1 / c["side_size"]
        if c["attacks"] == 0:
            out.append(f"{_cap(c['combatant'])} never attacks in any fight.")
        elif np.isfinite(c["share_of_side_damage"]) and c["share_of_side_damage"] < HARDLY_MATTERS * fair:
            out.append(f"{_cap(c['combatant'])} hardly matters: it deals {pct(c['share_of_side_damage'])} of "
                       f"{sides_possessive(c['side'])} damage, where an equal share would be {pct(fair)}.")
    return out


# ------------------------------------------------------------------ analyses

def sweep_verdict(frame: pd.DataFrame, params, sides, target: float = 0.5) -> list[str]:
    from sim.report.analysis_figures import path_label
    side = sides[0]
    rate = frame[f"{side}_win_rate"].to_numpy(float)
    if not len(rate):
        return ["The sweep holds no variants."]
    label = " and ".join(path_label(p) for p in params)
    best = int(np.argmin(np.abs(rate - target)))
    row = frame.iloc[best]
    where = ", ".join(f"{path_label(p)} = {_value(row[p])}" for p in params)
    out = [f"Across {len(frame)} variants of {label}, {side} wins between {pct(rate.min())} and "
           f"{pct(rate.max())} of fights."]
    lo, hi = row[f"{side}_ci_lo"], row[f"{side}_ci_hi"]
    even = "within the interval" if lo <= target <= hi else "outside the interval"
    out.append(f"Closest to {pct(target)} for {side}: {where}, at {pct(rate[best])} "
               f"(95% interval {pct(lo)} – {pct(hi)}; {pct(target)} is {even}).")
    return out


def sensitivity_verdict(frame: pd.DataFrame, side: str | None = None) -> list[str]:
    from sim.report.analysis_figures import path_label
    if not len(frame):
        return ["The sensitivity table is empty."]
    side = side or str(frame["side"].iloc[0])
    d = frame[frame["side"].astype(str) == side]
    top = d.loc[d["delta"].abs().idxmax()]
    step = str(top["label"]) if "label" in d.columns else f"a step of {top['step']:+g}"
    out = [f"{_cap(path_label(top['stat']))} moves {sides_possessive(side)} win rate most: "
           f"{100 * top['delta']:+.1f} points for {step} "
           f"(95% interval {100 * top['ci_lo']:+.1f} to {100 * top['ci_hi']:+.1f})."]
    clear = d[(d["ci_lo"] > 0) | (d["ci_hi"] < 0)]["stat"].unique()
    flat = sorted(set(d["stat"].unique()) - set(clear))
    if flat:
        names = ", ".join(path_label(s) for s in flat[:6]) + (" and others" if len(flat) > 6 else "")
        out.append(f"{len(flat)} of {d['stat'].nunique()} stats make no clear difference at these steps "
                   f"(interval includes zero): {names}.")
    return out


def _row_means(long: pd.DataFrame | None, m: pd.DataFrame) -> pd.DataFrame | None:
    """Per row policy: mean win rate across the columns and a 95% interval for it, from
    the cells' intervals (treated as independent, which overstates the width for fights
    on common random numbers: "no clear best" errs towards caution)."""
    if long is None or not {"ci_lo", "ci_hi"} <= set(long.columns):
        return None
    se = (long["ci_hi"].astype(float) - long["ci_lo"].astype(float)) / (2 * Z95)
    g = long.assign(_var=se ** 2).groupby("row", sort=False)
    mean = g["win_rate"].mean()
    half = Z95 * np.sqrt(g["_var"].sum()) / g.size()
    return pd.DataFrame({"mean": mean, "lo": mean - half, "hi": mean + half}).reindex(m.index)


def tournament_verdict(matrix: pd.DataFrame, row_side: str = "the row side",
                       long: pd.DataFrame | None = None) -> list[str]:
    """Best and safest policy of the row side, named only when its interval clears the
    runner-up's; otherwise "no clear best"."""
    m = matrix.astype(float)
    if m.empty:
        return ["The tournament is empty."]
    mean, worst = m.mean(axis=1), m.min(axis=1)
    col_mean = m.mean(axis=0)
    ranked = _row_means(long, m)
    top = mean.idxmax()
    if len(m) < 2:
        best = f"Only one policy for {row_side}: {top} ({pct(mean.max())} of fights won on average)."
    elif (m.nunique(axis=0) == 1).all():
        best = (f"No clear best policy for {row_side}: every policy listed wins {pct(mean.max())} on average, "
                "the same against every opponent (here they play alike).")
    elif (mean == mean.max()).sum() > 1:
        tied = [str(x) for x in mean.index[mean == mean.max()]]
        best = (f"No clear best policy for {row_side} on average: {' and '.join(tied)} each win "
                f"{pct(mean.max())} across all opposing policies.")
    elif ranked is not None and ranked.loc[top, "lo"] <= ranked.drop(index=top)["hi"].max():
        rival = ranked.drop(index=top)["hi"].idxmax()
        best = (f"No clear best policy for {row_side}: {top} wins {pct(mean.max())} on average "
                f"[{pct(ranked.loc[top, 'lo'])} – {pct(ranked.loc[top, 'hi'])}] and {rival} "
                f"{pct(mean[rival])}; their intervals overlap.")
    else:
        best = (f"Best policy for {row_side} on average: {top} ({pct(mean.max())} of fights won "
                "across all opposing policies" + (", clear of the others' intervals)." if ranked is not None
                                                  else ")."))
    out = [best]
    if len(m) > 1 and worst.nunique() > 1:
        out.append(f"Safest policy for {row_side} (best worst case): {worst.idxmax()}, winning at least "
                   f"{pct(worst.max())} against every opponent.")
    if m.shape[1] > 1 and col_mean.nunique() > 1:
        out.append(f"Hardest opposing policy: {col_mean.idxmin()} (holds {row_side} to {pct(col_mean.min())} "
                   "on average).")
    return out
