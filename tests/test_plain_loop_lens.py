"""The Lens engine against benchmarks/plain_loop_lens.py, an independent plain-Python loop.

Both play the same scenario file with the default rules; their win, down and flee rates
and mean rounds must agree within 4 standard errors of the difference (a false alarm is
about 1 in 15,000 per figure). The loop plays about 4,000 skirmishes per CPU-second.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

import sim
from benchmarks import plain_loop_lens

SCENARIO = Path("scenarios/lens/novice_party_vs_brute.yaml")
SIGMAS = 4


def agreement(path, n_engine: int, n_plain: int, seed: int) -> list[tuple[str, float, float, float]]:
    """(figure, engine, plain, z) for each side's win rate, each combatant's down and fled
    rates (where either run saw variation) and mean rounds."""
    plain = plain_loop_lens.play(path, n_plain, seed=seed)
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
    rounds = sk["rounds"]
    se = rounds.std() * np.sqrt(1 / n_e + 1 / n_p)
    rows.append(("mean rounds", rounds.mean(), plain["mean_rounds"], (rounds.mean() - plain["mean_rounds"]) / se))
    return rows


def assert_agree(rows) -> None:
    off = [(what, round(a, 4), round(b, 4), round(z, 2)) for what, a, b, z in rows if abs(z) > SIGMAS]
    assert not off, off


def test_engine_agrees_with_the_plain_lens_loop():
    """The shipped party against the ogre: focus targeting, hold_for_defence, Block/Dodge/Parry/Mitigate."""
    rows = agreement(SCENARIO, 60_000, 12_000, seed=3)
    assert {what for what, *_ in rows} >= {"party wins", "Fighter down", "Scout down", "Warden down", "mean rounds"}
    assert_agree(rows)


def test_engine_agrees_with_the_plain_lens_loop_on_a_variant(tmp_path):
    """A harder variant: Novice Dodges now succeed (Attack Rating 4), so defenders step to open
    squares and the ogre walks after them; an ogre with three attacks a round carrying STUNNING,
    DISARMING and HAMSTRINGING (conditions, re-arming, lost Momentum); Tags attached by policy,
    `timing: auto`, Mitigate removing tags, a bonus Momentum, an all_out Scout."""
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    party = data["sides"]["party"]
    party["policy"] = {"family": "hold_for_defence", "target": "focus", "tags": 1, "timing": "auto",
                       "mitigate": "tag"}
    fighter, scout, warden = party["combatants"]
    fighter["weapons"][0]["tags"] = ["SLASHING", "TRIPPING"]
    scout["bonus_momentum"] = 1
    scout["policy"] = {"family": "all_out", "target": "random"}
    ogre = data["sides"]["brute"]["combatants"][0]
    ogre.update(body=30, attack_rating=4, attacks_per_round=3, attacks=[
        {"name": "club", "damage": "2d6", "tags": ["CRUSHING", "STUNNING", "DISARMING"]},
        {"name": "kick", "damage": "1d4", "tags": ["HAMSTRINGING"]}])
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert_agree(agreement(path, 40_000, 8_000, seed=4))


@pytest.mark.parametrize("change, message", [
    ({"rules": {"surprise": "party_surprised"}}, "default rules only; surprise"),
    ({"policy": {"family": "support", "target": "focus"}}, "no spells, Assist or Interfere"),
    ({"policy": {"family": "hold_for_defence", "target": "weakest"}}, "random or focus targeting"),
])
def test_the_plain_lens_loop_refuses_what_it_does_not_play(tmp_path, change, message):
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    if "rules" in change:
        data["rules"] = change["rules"]
    else:
        data["sides"]["party"]["policy"] = change["policy"]
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        plain_loop_lens.play(path, 1)
