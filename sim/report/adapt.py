"""Reading analysis tables in either of two spellings.

The figures use one plain layout (see sim.report.analysis_figures). The analysis
commands (sim.analysis: sweep, tune, sensitivity, tournament) write their own, richer
tables: `<side>.win_rate` / `.win_lo` / `.win_hi`, `<side>.delta[_lo/_hi]`,
`policy.<side>`, provenance columns and `attrs["analysis"]`. These functions turn
either into the plain layout, so a report takes whatever frame it is given.
"""
from __future__ import annotations

import json

import pandas as pd

PROVENANCE_COLUMNS = ("scenario", "scenario_file", "scenario_hash", "seed", "rule_options", "package_version",
                      "skirmishes")


def analysis_info(frame: pd.DataFrame) -> dict:
    info = frame.attrs.get("analysis")
    return dict(info) if isinstance(info, dict) else {}


def frame_kind(frame: pd.DataFrame) -> str | None:
    """'sweep', 'tune', 'sensitivity' or 'tournament', from attrs or from the columns."""
    command = analysis_info(frame).get("command")
    if command in ("sweep", "tune", "sensitivity", "tournament"):
        return command
    cols = set(map(str, frame.columns))
    if {"stat", "step", "side", "delta", "ci_lo", "ci_hi"} <= cols or any(c.endswith(".delta") for c in cols):
        return "sensitivity"
    if {"value", "role", "target"} <= cols:
        return "tune"
    if {"row", "col", "win_rate"} <= cols or any(c.startswith("policy.") for c in cols):
        return "tournament"
    if any(c.endswith("_win_rate") or c.endswith(".win_rate") for c in cols):
        return "sweep"
    return None


def _dotted_sides(frame: pd.DataFrame) -> list[str]:
    sides = analysis_info(frame).get("sides")
    if sides:
        return [s for s in sides if f"{s}.win_rate" in frame.columns]
    return [c[: -len(".win_rate")] for c in frame.columns if str(c).endswith(".win_rate")]


def plain_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Add `<side>_win_rate/_ci_lo/_ci_hi` beside `<side>.win_rate/.win_lo/.win_hi`."""
    out = frame.copy()
    out.attrs = dict(frame.attrs)
    for s in _dotted_sides(frame):
        out[f"{s}_win_rate"] = frame[f"{s}.win_rate"]
        out[f"{s}_ci_lo"] = frame.get(f"{s}.win_lo", frame[f"{s}.win_rate"])
        out[f"{s}_ci_hi"] = frame.get(f"{s}.win_hi", frame[f"{s}.win_rate"])
    return out


def sweep_layout(frame: pd.DataFrame, params=None, sides=None) -> tuple[pd.DataFrame, list[str], list[str]]:
    """(plain frame, varied columns, sides) of a sweep in either spelling."""
    from sim.report.analysis_figures import sweep_params, sweep_sides
    plain = plain_rates(frame)
    info = analysis_info(frame)
    if params is None and not frame.attrs.get("params") and info.get("vary"):
        params = list(info["vary"])
    if params is None and not frame.attrs.get("params"):
        params = [c for c in sweep_params(plain) if not _result_like(str(c))]
    params = sweep_params(plain, params)
    sides = list(sides) if sides is not None else (list(info.get("sides") or []) or sweep_sides(plain))
    sides = [s for s in sides if f"{s}_win_rate" in plain.columns]
    return plain, params, sides


def _result_like(col: str) -> bool:
    """Columns of the analysis tables that are results or provenance, not varied values."""
    if col in PROVENANCE_COLUMNS or col in ("variant_hash", "variant", "rank", "role", "status", "message"):
        return True
    tail = col.rsplit(".", 1)[-1]
    return col.count(".") >= 1 and "[" not in col and tail in (
        "win_rate", "win_lo", "win_hi", "down_rate", "down_lo", "down_hi", "damage_dealt", "hit_rate",
        "diff_base", "diff_base_lo", "diff_base_hi", "diff_prev", "diff_prev_lo", "diff_prev_hi") \
        or col.endswith(("_lo", "_hi", "_mean", "_p90"))


def sensitivity_layout(frame: pd.DataFrame) -> pd.DataFrame:
    """Long layout: stat, step, side, delta, ci_lo, ci_hi (side = whose win rate moved)."""
    if {"stat", "step", "side", "delta", "ci_lo", "ci_hi"} <= set(frame.columns):
        return frame
    sides = [c[: -len(".delta")] for c in frame.columns if str(c).endswith(".delta")]
    stat = frame["path"] if "path" in frame.columns else frame["stat"]
    step = pd.to_numeric(frame["step"].astype(str).str.replace("+", "", regex=False), errors="coerce")
    label = frame["label"] if "label" in frame.columns else frame["step"].astype(str)
    parts = [pd.DataFrame({"stat": stat.to_numpy(), "step": step.to_numpy(), "label": label.to_numpy(), "side": s,
                           "delta": frame[f"{s}.delta"].to_numpy(),
                           "ci_lo": frame.get(f"{s}.delta_lo", frame[f"{s}.delta"]).to_numpy(),
                           "ci_hi": frame.get(f"{s}.delta_hi", frame[f"{s}.delta"]).to_numpy()})
             for s in sides]
    out = pd.concat(parts, ignore_index=True)
    out.attrs = dict(frame.attrs)
    return out


def tournament_layout(frame: pd.DataFrame, row_side: str | None = None) -> pd.DataFrame:
    """Long layout: row, col, win_rate, ci_lo, ci_hi, with attrs naming the axes."""
    if {"row", "col", "win_rate"} <= set(frame.columns):
        return frame
    sides = [c[len("policy."):] for c in frame.columns if str(c).startswith("policy.")]
    if not sides:  # already a matrix
        return frame
    side = row_side or sides[0]
    others = [s for s in sides if s != side]
    col = (frame[[f"policy.{s}" for s in others]].astype(str).agg(" / ".join, axis=1) if others
           else pd.Series("-", index=frame.index))
    out = pd.DataFrame({"row": frame[f"policy.{side}"].astype(str).to_numpy(), "col": col.to_numpy(),
                        "win_rate": frame[f"{side}.win_rate"].to_numpy()})
    if f"{side}.win_lo" in frame.columns:
        out["ci_lo"], out["ci_hi"] = frame[f"{side}.win_lo"].to_numpy(), frame[f"{side}.win_hi"].to_numpy()
    out.attrs = dict(frame.attrs)
    out.attrs.update(row_label=f"{side} policy", col_label=" / ".join(others) + " policy", row_side=side)
    return out


def tune_layout(frame: pd.DataFrame) -> tuple[pd.DataFrame, str, str, float, object, str]:
    """(plain sweep-like frame over the values played, param, side, target, answer, message)."""
    info = analysis_info(frame)
    param = str(info.get("param") or frame["param"].iloc[0])
    side = str(info.get("side") or frame["target_side"].iloc[0])
    target = float(info.get("target", frame["target"].iloc[0]))
    answer = info.get("value")
    if answer is None and "role" in frame.columns:
        hit = frame.loc[frame["role"] == "answer", "value"]
        answer = hit.iloc[0] if len(hit) else None
    message = str(info.get("message") or (frame["message"].iloc[0] if "message" in frame.columns else ""))
    order = "position" if "position" in frame.columns else "value"  # dice sort by the ladder, not as text
    plain = plain_rates(frame).sort_values(order).rename(columns={"value": param})
    plain.attrs["params"] = [param]
    return plain, param, side, target, answer, message


def provenance_of(frame: pd.DataFrame, meta: dict | None = None) -> dict:
    """What the provenance block shows for an analysis table: the given meta and the
    table's attrs, completed by its provenance columns (one value when every row shares
    it, else the list of values)."""
    out = dict(frame.attrs.get("provenance", {}) or {})
    out.update({k: v for k, v in analysis_info(frame).items() if k not in ("specs",)})
    out.update({k: v for k, v in (meta or {}).items() if k not in ("specs",)})
    for col in PROVENANCE_COLUMNS[:-1]:
        if col in frame.columns and col not in out:
            values = list(dict.fromkeys(frame[col].astype(str)))
            value = values[0] if len(values) == 1 else values
            if col == "rule_options" and isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            out[col] = value
    if "skirmishes" in frame.columns:
        out["skirmishes"] = f"{int(frame['skirmishes'].sum()):,} in all ({len(frame)} variants)"
    return out


def titled(frame: pd.DataFrame, what: str) -> str:
    """A page title naming the scenario an analysis table came from, where it says: a
    page shared alone must say what it is about."""
    names = list(dict.fromkeys(frame["scenario"].astype(str))) if "scenario" in frame.columns else []
    return f"{names[0]} — {what}" if len(names) == 1 else what
