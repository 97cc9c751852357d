"""The engine against a plain per-skirmish loop of the same rules: each figure's z-score."""
from __future__ import annotations

import numpy as np

import sim

SIGMAS = 4


def agreement(plain_loop, path, n_engine: int, n_plain: int, seed: int) -> list[tuple[str, float, float, float]]:
    """(figure, engine, plain, z) for each side's win rate, each combatant's down and fled
    rates (where either run saw variation) and mean rounds; `plain_loop` is a
    benchmarks/plain_loop_*.py module."""
    plain = plain_loop.play(path, n_plain, seed=seed)
    r = sim.run(path, n=n_engine, seed=seed)
    sk, cb = r.skirmishes, r.combatants
    n_e, n_p = len(sk), plain["n"]
    pairs = [(f"{side} wins", int((sk["winner"] == side).sum()), plain["wins"].get(side, 0))
             for side in sorted(set(sk["winner"].astype(str)) | set(plain["wins"]))]
    for name, states in plain["states"].items():
        mine = cb[cb["combatant"] == name]["final_state"]
        pairs.append((f"{name} down", int((mine != "standing").sum()), n_p - states["standing"]))
        pairs.append((f"{name} fled", int((mine == "fled").sum()), states["fled"]))
    rows = []
    for what, k_e, k_p in pairs:
        pooled = (k_e + k_p) / (n_e + n_p)
        if min(k_e + k_p, n_e + n_p - k_e - k_p) < 20:
            continue  # (nearly) no variation: a rate of ~0 or ~1 says nothing
        se = np.sqrt(pooled * (1 - pooled) * (1 / n_e + 1 / n_p))
        rows.append((what, k_e / n_e, k_p / n_p, (k_e / n_e - k_p / n_p) / se))
    rounds = sk["rounds"].to_numpy()
    se = rounds.std(ddof=1) * np.sqrt(1 / n_e + 1 / n_p)
    rows.append(("mean rounds", rounds.mean(), plain["mean_rounds"], (rounds.mean() - plain["mean_rounds"]) / se))
    return rows


def assert_agree(rows) -> None:
    off = [(what, round(a, 4), round(b, 4), round(z, 2)) for what, a, b, z in rows if abs(z) > SIGMAS]
    assert not off, off
