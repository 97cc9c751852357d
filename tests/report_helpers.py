"""Hand-made outcome tables and analysis frames for the report tests."""
from __future__ import annotations

import numpy as np
import pandas as pd

from sim.report.tables import RunTables
from sim.stats import wilson

HORDE = """
name: Goblin horde against the Yeti
ruleset: gods_and_monsters
sides:
  goblin warband of the northern passes:
    policy: {target: weakest}
    combatants:
      - {name: Goblin skirmisher with a very long name, count: 11, level: 1, survival: 4, perception: 5,
         willpower: 4, fortitude: 5, combat: 1, attack: 0, defense: 2, awareness: aware,
         attacks: [{name: spear, damage: d6}]}
  yeti:
    policy: {target: random}
    combatants:
      - {name: Yeti, level: 4, survival: 20, perception: 6, willpower: 6, fortitude: 6, combat: 4,
         attack: 0, defense: 3, awareness: aware, attacks: [{name: claw, damage: d6}, {name: claw, damage: d6}]}
run: {skirmishes: 1500, seed: 7, max_rounds: 100}
"""


def hand_tables(winners, rounds, rows, sides=("red", "blue"), names=None, meta=None) -> RunTables:
    """`rows`: one dict per (skirmish, combatant) with combatant, side and any of the
    standard columns; missing numbers default to 0, final_state to standing."""
    sk = pd.DataFrame({
        "skirmish": np.arange(len(winners)),
        "winner": pd.Categorical(winners, categories=list(sides) + ["draw", "unfinished"]),
        "rounds": np.asarray(rounds, dtype=np.int32),
    })
    cb = pd.DataFrame(rows)
    for col in ("attacks", "hits", "damage_dealt", "damage_taken"):
        cb[col] = cb[col].fillna(0).astype(int) if col in cb else 0
    cb["final_state"] = cb["final_state"].fillna("standing") if "final_state" in cb else "standing"
    if "down_round" not in cb:
        cb["down_round"] = pd.NA
    names = names or list(dict.fromkeys(cb["combatant"]))
    cb["combatant"] = pd.Categorical(cb["combatant"], categories=names)
    cb["side"] = pd.Categorical(cb["side"], categories=list(sides))
    cb["final_state"] = pd.Categorical(cb["final_state"], categories=["standing", "unconscious", "dead", "fled"])
    cb["down_round"] = pd.array(cb["down_round"], dtype="Int32")
    return RunTables(sk, cb, meta or {"scenario": "hand made", "ruleset": "test", "seed": 1,
                                      "skirmishes": len(winners), "max_rounds": 100})


def sweep_frame(values=range(0, 7), n=2000, seed=1, param="sides.yeti.combatants[Yeti].defense"):
    rng = np.random.default_rng(seed)
    x = np.asarray(list(values))
    pos = np.arange(len(x))
    p = 1 / (1 + np.exp(pos - pos.mean()))
    k = rng.binomial(n, p)
    d = pd.DataFrame({param: x})
    for side, kk in (("party", k), ("yeti", n - k)):
        lo, hi = wilson(kk, n)
        d[f"{side}_win_rate"], d[f"{side}_ci_lo"], d[f"{side}_ci_hi"] = kk / n, lo, hi
    d["skirmishes"] = n
    return d


def sweep2_frame(n=2000, seed=2):
    rng = np.random.default_rng(seed)
    a = "sides.yeti.combatants[Yeti].defense"
    b = "sides.yeti.combatants[Yeti].survival"
    d = pd.DataFrame([(x, y) for x in range(0, 6) for y in (12, 16, 20, 24)], columns=[a, b])
    p = 1 / (1 + np.exp(d[a] - 3 + (d[b] - 18) / 4))
    k = rng.binomial(n, p)
    for side, kk in (("party", k), ("yeti", n - k)):
        lo, hi = wilson(kk, n)
        d[f"{side}_win_rate"], d[f"{side}_ci_lo"], d[f"{side}_ci_hi"] = kk / n, lo, hi
    return d


def sensitivity_frame(stats=12):
    rows = []
    for i in range(stats):
        stat = f"sides.yeti.combatants[Yeti].stat_number_{i}" if i else "rules.resolution"
        for step in (1, -1):
            delta = 0.2 / (i + 1) * step * (-1) ** i
            for side, sign in (("party", 1), ("yeti", -1)):
                rows.append((stat, step, side, sign * delta, sign * delta - 0.012, sign * delta + 0.012))
    return pd.DataFrame(rows, columns=["stat", "step", "side", "delta", "ci_lo", "ci_hi"])


def tournament_frame(k=12, seed=3):
    rng = np.random.default_rng(seed)
    rows = [(f"party policy {i}", f"yeti policy {j}", rng.uniform()) for i in range(k) for j in range(k)]
    d = pd.DataFrame(rows, columns=["row", "col", "win_rate"])
    d["ci_lo"], d["ci_hi"] = d["win_rate"] - 0.02, d["win_rate"] + 0.02
    d.attrs.update(row_label="party policy", col_label="yeti policy", row_side="party")
    return d


# ---- the spelling of sim.analysis (dotted columns, provenance columns, attrs["analysis"])

PROV = {"scenario_hash": "feedbeef12345678", "variant_hash": "x", "seed": 2026,
        "rule_options": '{"resolution": "simultaneous"}', "package_version": "0.1.0"}


def dotted_sweep_frame():
    plain = sweep_frame(values=range(3, 9))
    p = "sides.yeti.combatants[Yeti].defense"
    d = pd.DataFrame({"variant": range(len(plain)), p: plain[p]})
    for s in ("party", "yeti"):
        d[f"{s}.win_rate"], d[f"{s}.win_lo"], d[f"{s}.win_hi"] = (
            plain[f"{s}_{k}"] for k in ("win_rate", "ci_lo", "ci_hi"))
        d[f"{s}.diff_base"], d[f"{s}.diff_base_lo"], d[f"{s}.diff_base_hi"] = 0.0, -0.01, 0.01
    d["skirmishes"] = 2000
    d["draw_rate"], d["rounds_mean"], d["rounds_lo"], d["rounds_hi"] = 0.01, 4.0, 3.9, 4.1
    d["Yeti.down_rate"], d["Yeti.down_lo"], d["Yeti.down_hi"] = 0.5, 0.45, 0.55
    for k, v in PROV.items():
        d[k] = v
    d.attrs["analysis"] = {"command": "sweep", "sides": ["party", "yeti"], "vary": {p: list(range(3, 9))}}
    return d


def dotted_sensitivity_frame():
    rows = []
    for i, stat in enumerate(["defense", "survival", "combat"]):
        for step in ("+1", "-1"):
            sign = 1 if step == "+1" else -1
            row = {"rank": 0, "combatant": "Yeti", "side": "yeti", "stat": stat,
                   "path": f"sides.yeti.combatants[Yeti].{stat}", "step": step, "old": "3", "new": "4",
                   "skirmishes": 2000}
            delta = sign * 0.1 / (i + 1)
            for s, f in (("party", -1), ("yeti", 1)):
                row[f"{s}.base_rate"], row[f"{s}.win_rate"] = 0.5, 0.5 + f * delta
                row[f"{s}.delta"], row[f"{s}.delta_lo"], row[f"{s}.delta_hi"] = (
                    f * delta, f * delta - 0.01, f * delta + 0.01)
            rows.append({**row, **PROV})
    d = pd.DataFrame(rows)
    d.attrs["analysis"] = {"command": "sensitivity", "skirmishes": 2000, "combatants": "all"}
    return d


def dotted_tournament_frame():
    rows = []
    for i, a in enumerate(["random", "weakest", "strongest"]):
        for j, b in enumerate(["random", "focus"]):
            r = 0.3 + 0.1 * i + 0.2 * j
            rows.append({"policy.party": a, "policy.yeti": b, "skirmishes": 1000,
                         "party.win_rate": r, "party.win_lo": r - 0.03, "party.win_hi": r + 0.03,
                         "yeti.win_rate": 1 - r, "yeti.win_lo": 0.97 - r, "yeti.win_hi": 1.03 - r,
                         "draw_rate": 0.0, **PROV})
    d = pd.DataFrame(rows)
    d.attrs["analysis"] = {"command": "tournament", "sides": ["party", "yeti"]}
    return d


def dotted_tune_frame():
    p = "sides.yeti.combatants[Yeti].defense"
    values = [3, 8, 9, 10, 13]
    rates = [0.98, 0.61, 0.46, 0.28, 0.01]
    rows = []
    for v, r in zip(values, rates):
        rows.append({"value": v, "role": {9: "answer", 8: "below", 10: "above"}.get(v, "probe"), "skirmishes": 2000,
                     "party.win_rate": r, "party.win_lo": max(r - 0.02, 0), "party.win_hi": min(r + 0.02, 1),
                     "yeti.win_rate": 1 - r, "yeti.win_lo": max(0.98 - r, 0), "yeti.win_hi": min(1.02 - r, 1),
                     "param": p, "target_side": "party", "target": 0.5, "status": "found",
                     "message": f"{p} = 9 gives party a win rate of 46.0% (target 50.0%).", **PROV})
    d = pd.DataFrame(rows)
    d.attrs["analysis"] = {"command": "tune", "param": p, "side": "party", "target": 0.5, "value": 9,
                           "message": rows[0]["message"]}
    return d


def stable_text(page) -> str:
    """A page's text as a shipped copy must match it: the pictures' pixels (the installed
    matplotlib's) left out, and of its replay recipe the versions (a hash of the sources
    moves with any edit) and the folder the page was written to."""
    import json
    import re
    from pathlib import Path

    from sim.recipe import recipe_span, with_recipe
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:image/png;base64,...", Path(page).read_text())
    span = recipe_span(text)
    if span is None:
        return text
    recipe = json.loads(text[span[0]:span[1]])
    recipe.pop("versions", None)
    argv = recipe["argv"]
    if "--report" in argv:
        argv[argv.index("--report") + 1] = "DIR"
    return with_recipe(text, recipe)
