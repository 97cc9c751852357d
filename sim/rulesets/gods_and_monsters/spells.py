"""Complex actions with an effect given in the scenario: spells, spirits and the like."""
from __future__ import annotations

import numpy as np

from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters.situations import FOREVER


def cast(setup, state, rows, casters, spell_of, spell_tgt, crow, spell_damage, injury_pen, t):
    """Spells resolve: the target rolls its save, else takes the damage and the condition."""
    sx = setup.sx
    n, C = casters.shape
    s = np.maximum(spell_of, 0)
    tg = np.maximum(spell_tgt, 0)
    score = sx.save_scores[tg, sx.spell_save[s]] - injury_pen[rows, tg]
    failed = casters & (crow[:, :, 3] > score)
    dmg = np.where(failed, spell_damage[rows, s], 0)
    taken = np.bincount((rows * C + tg)[casters], weights=dmg[casters], minlength=n * C).reshape(n, C)
    sleep = failed & sx.spell_sleep[s]
    if sleep.any():
        fell = np.bincount((rows * C + tg)[sleep], minlength=n * C).reshape(n, C) > 0
        state.asleep |= fell
        state.wake_round = np.where(fell, FOREVER, state.wake_round)
    rs, cs = np.nonzero(casters)
    np.subtract.at(state.spell_uses, (rs, s[rs, cs]), 1)
    state.taken += taken.astype(np.int32)
    state.dealt += dmg
    if t:
        p = t.pos
        for c in np.flatnonzero(casters[p]):
            save = S.SAVES[sx.spell_save[s[p, c]]]
            roll = "no save" if save == "none" else f"{save} roll {crow[p, c, 3]} against {score[p, c]}"
            effect = ", ".join((["falls asleep"] if sleep[p, c] else []) + ([f"takes {dmg[p, c]}"] if dmg[p, c] else []))
            t.line(f"{t.name(c)} casts {sx.spell_names[s[p, c]]} at {t.name(tg[p, c])}: {roll}: "
                   + ((effect or "no effect") if failed[p, c] else "resists") + ".")
    return taken.astype(np.int32), dmg.astype(np.int32)
