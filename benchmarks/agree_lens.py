"""The compiled Lens against the old NumPy engine on every shipped scenario, same policies.

`fixes=0` plays the kernel with the rule fixes off: every figure must agree within
sampling error (the port); a bitmask of ktables.FIX_* turns fixes on one by one
(127: all of them), which says which fix explains which change. Prints one row per
(scenario, figure): old, kernel, difference in standard errors.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from sim.engine import run_chunk
from sim.runner import chunk_rng
from sim.rulesets.lens import play as KP
from sim.scenario import load_scenario

SCENARIOS = sorted(Path("scenarios/lens").glob("*.yaml"))


def figures(scen, out):
    rows = {}
    w = np.asarray(out.winner)
    for s, name in enumerate(scen.side_names):
        rows[f"{name} wins"] = ("p", (w == s).astype(float))
    rows["mean rounds"] = ("m", np.asarray(out.rounds, float))
    fs = np.asarray(out.per_combatant["final_state"])
    for i, c in enumerate(scen.combatants):
        rows[f"{c.name} down"] = ("p", (fs[:, i] != 0).astype(float))
    return rows


def compare(path, n: int, fixes: int, seed: int = 1):
    scen = load_scenario(path)
    rs = scen.ruleset
    setup = rs.build(scen)
    t0 = time.process_time()
    old = run_chunk(rs, setup, chunk_rng(seed, 0), n, scen.run["max_rounds"])
    t_old = time.process_time() - t0
    setup2 = rs.build(scen)
    setup2.extra["fixes"] = fixes
    KP.play(setup2, seed, 0, 10, 5)
    t0 = time.process_time()
    new = KP.play(setup2, seed, 0, n, scen.run["max_rounds"])
    t_new = time.process_time() - t0
    a, b = figures(scen, old), figures(scen, new)
    out = []
    for key in a:
        x, y = a[key][1], b[key][1]
        se = np.sqrt(x.var() / len(x) + y.var() / len(y))
        z = (y.mean() - x.mean()) / se if se > 0 else 0.0
        out.append((key, x.mean(), y.mean(), z))
    return out, n / t_old, n / t_new


if __name__ == "__main__":  # pragma: no cover
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    fixes = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if len(sys.argv) > 3:  # attribution: old engine against each fix alone, |z| of the largest change
        from sim.rulesets.lens import ktables as KT
        names = [k for k in dir(KT) if k.startswith("FIX_") and k != "FIX_ALL"]
        for path in SCENARIOS:
            cells = []
            for name in sorted(names, key=lambda k: getattr(KT, k)):
                rows, _, _ = compare(path, n, getattr(KT, name))
                worst = max(rows, key=lambda r: abs(r[3]))
                cells.append(f"{name[4:].lower()} {worst[0]} {worst[3]:+.1f}")
            print(f"{path.stem}: " + "; ".join(cells), flush=True)
        sys.exit(0)
    for path in SCENARIOS:
        rows, v_old, v_new = compare(path, n, fixes)
        print(f"## {path.stem}: old {v_old:,.0f}/CPU-s, kernel {v_new:,.0f}/CPU-s, x{v_new / v_old:.1f}")
        for key, x, y, z in rows:
            flag = " <--" if abs(z) > 4 else ""
            print(f"  {key:40s} {x:8.4f} {y:8.4f} {z:+6.1f}{flag}")
