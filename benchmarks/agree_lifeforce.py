"""Agreement and speed of the Lifeforce kernel against the NumPy engine it replaces.

For every shipped scenario: win rates, mean rounds and per-combatant means (attacks,
hits, damage dealt, shield blocks) from both engines at the same n, with the difference
in standard errors, and skirmishes per CPU-second of each. Usage:
    python -m benchmarks.agree_lifeforce [n] [engine: numpy|kernel] [scenario ...] [path=value ...] [--fixed-stunts]
(path=value: overrides, e.g. rules.prepared_target=any, to hold a fix's change apart;
--fixed-stunts: sides that leave `stunts` to its default buy in the greedy order, which
is how the NumPy engine reads the default, instead of by expected worth.)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from sim.engine import run_chunk
from sim.runner import chunk_rng
from sim.scenario import load_scenario

SCENARIOS = sorted(Path("scenarios/lifeforce").glob("*.yaml"))
COLUMNS = ("attacks", "hits", "damage_dealt", "shield_blocks", "opportunity_attacks", "charges", "grapples_won")


def figures(scen, out) -> dict:
    """name -> (mean, standard error) of the figures the agreement table compares."""
    res = {}
    w = np.asarray(out.winner)
    for s, side in enumerate(scen.side_names):
        x = (w == s).astype(float)
        res[f"win {side}"] = (x.mean(), x.std() / np.sqrt(len(x)))
    r = np.asarray(out.rounds, dtype=float)
    res["rounds"] = (r.mean(), r.std() / np.sqrt(len(r)))
    names = scen.names()
    for col in COLUMNS:
        v = np.asarray(out.per_combatant[col], dtype=float)
        for i, nm in enumerate(names):
            if v[:, i].any():
                res[f"{nm}: {col}"] = (v[:, i].mean(), v[:, i].std() / np.sqrt(len(v)))
    return res


def play_numpy(scen, n, seed, max_rounds):
    from sim.rulesets.lifeforce import LEGACY
    setup = LEGACY.build(scen)
    return run_chunk(LEGACY, setup, chunk_rng(seed, 0), n, max_rounds)


def play_kernel(scen, n, seed, max_rounds):
    ruleset = scen.ruleset
    setup = ruleset.build(scen)
    ruleset.warm(setup)
    return ruleset.play(setup, seed, 0, n, max_rounds)


def fixed_stunt_overrides(path) -> dict:
    """`stunts: greedy` for every side whose policy buys by expected worth (the default,
    which the NumPy engine plays as greedy); a policy from a library keeps its own order."""
    scen = load_scenario(path)
    sides = {scen.side_names[c.side] for c in scen.combatants
             if c.policy.params["stunts"] == "expected" and not c.policy.params["stunt_order"]}
    return {f"sides.{side}.policy.stunts": "greedy" for side in sorted(sides)}


def measure(path, n, engine, overrides=None, fixed_stunts=False):
    overrides = dict(overrides or {})
    if fixed_stunts and engine == "kernel":
        overrides = {**fixed_stunt_overrides(path), **overrides}
    scen = load_scenario(path, overrides or None)
    seed, max_rounds = int(scen.run["seed"]), int(scen.run["max_rounds"])
    fn = play_numpy if engine == "numpy" else play_kernel
    if engine == "kernel":
        fn(scen, 10, seed, max_rounds)  # compile / load outside the timing
    c0 = time.process_time()
    out = fn(scen, n, seed, max_rounds)
    cpu = time.process_time() - c0
    return {"figures": {k: list(v) for k, v in figures(scen, out).items()}, "per_cpu_s": n / cpu}


def main(argv):
    fixed = "--fixed-stunts" in argv
    argv = [a for a in argv if a != "--fixed-stunts"]
    n = int(argv[0]) if argv else 20000
    engine = argv[1] if len(argv) > 1 else "kernel"
    import yaml
    overrides = {a.split("=", 1)[0]: yaml.safe_load(a.split("=", 1)[1]) for a in argv[2:] if "=" in a}
    paths = [Path(p) for p in argv[2:] if "=" not in p] or SCENARIOS
    result = {p.stem: measure(p, n, engine, overrides, fixed) for p in paths}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
