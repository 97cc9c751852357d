"""Grappling: the contested check and the grapple track, as pure array functions.

Track: Grappling -> Held -> Pinned. The dominant grappler's win moves it one stage on;
the other's win only swaps who is dominant ("the grappling track does not reset").
"""
from __future__ import annotations

import numpy as np

from sim.rulesets.lifeforce.tables import GRAPPLING, PINNED


def keep_roll(rolls: np.ndarray, advantage: np.ndarray) -> np.ndarray:
    """rolls (..., 2); advantage > 0 keeps the better, < 0 the worse, 0 the first.

    docs/rules/lifeforce.md, Gaps and contradictions, 'Advantage and disadvantage'.
    """
    return np.where(advantage > 0, rolls.max(axis=-1), np.where(advantage < 0, rolls.min(axis=-1), rolls[..., 0]))


def net_advantage(advantage: np.ndarray, disadvantage: np.ndarray) -> np.ndarray:
    """Advantage and disadvantage cancel; more of either is still one roll twice."""
    return np.sign(advantage.astype(np.int8) - disadvantage.astype(np.int8))


def contest(total_a: np.ndarray, total_b: np.ndarray, retry_a=None, retry_b=None):
    """(a_wins, b_wins) of a contested check; ties stand unless retry totals are given."""
    a, b = total_a > total_b, total_b > total_a
    if retry_a is not None:
        tie = ~a & ~b
        a = a | (tie & (retry_a > retry_b))
        b = b | (tie & (retry_b > retry_a))
    return a, b


def transition(level: np.ndarray, a_dominant: np.ndarray, a_wins: np.ndarray, b_wins: np.ndarray):
    """New (level, a_dominant) after a grappling check between a and b.

    The dominant grappler's success progresses the track (Pinned stays Pinned); the
    other's success makes it dominant at the same stage; no winner changes nothing.
    """
    progress = (a_wins & a_dominant) | (b_wins & ~a_dominant)
    new_level = np.where(progress, np.minimum(level + 1, PINNED), level).astype(level.dtype)
    new_dom = np.where(a_wins, True, np.where(b_wins, False, a_dominant))
    return new_level, new_dom


def engage(total_initiator: np.ndarray, total_defender: np.ndarray, retry_i=None, retry_d=None):
    """Engaging succeeds when the initiator beats the defender ("you must beat them")."""
    won, _ = contest(total_initiator, total_defender, retry_i, retry_d)
    return won, np.where(won, GRAPPLING, 0).astype(np.int8)
