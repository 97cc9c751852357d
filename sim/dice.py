"""Dice expressions (`d8`, `2d6+1`, `d4-1`, `3`) and vectorised rolling.

A dice expression is data: a `Dice(count, sides, bonus)` triple. Rolling many
expressions at once (one per combatant or per attack slot) goes through
`roll_dice_table`, which draws the dice of the largest expression for every row and
masks the extra dice, so a batch of mixed weapons costs one draw.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_DICE_RE = re.compile(r"^\s*(?:(\d*)\s*[dD]\s*(\d+))?\s*(?:([+-])\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Dice:
    count: int = 0
    sides: int = 0
    bonus: int = 0

    @property
    def mean(self) -> float:
        return self.count * (self.sides + 1) / 2 + self.bonus

    @property
    def minimum(self) -> int:
        return self.count + self.bonus

    @property
    def maximum(self) -> int:
        return self.count * self.sides + self.bonus

    def __str__(self) -> str:
        core = f"{self.count if self.count != 1 else ''}d{self.sides}" if self.count else ""
        if self.bonus or not core:
            sign = "+" if self.bonus >= 0 and core else ""
            core += f"{sign}{self.bonus}"
        return core

    def distribution(self) -> dict[int, float]:
        """Exact probability of each total, for tests and analysis."""
        dist = {0: 1.0}
        for _ in range(self.count):
            nxt: dict[int, float] = {}
            for total, p in dist.items():
                for face in range(1, self.sides + 1):
                    nxt[total + face] = nxt.get(total + face, 0.0) + p / self.sides
            dist = nxt
        return {t + self.bonus: p for t, p in dist.items()}


MAX_DICE = 100
MAX_SIDES = 1000
# Totals are int32 arrays and damage adds up over many rounds, so a bonus of 10**12 must be
# refused with a message, not overflow; a million per roll is far past any rule book.
MAX_TOTAL = 1_000_000


def parse_dice(text) -> Dice:
    """Parse a dice expression; raises ValueError with what is allowed."""
    if isinstance(text, bool):
        raise ValueError("expected a dice expression such as 'd8', '2d6+1' or 'd4-1', got a true/false value")
    if isinstance(text, int):
        if abs(text) > MAX_TOTAL:
            raise ValueError(f"{text} is out of range; a dice expression's total must stay within "
                             f"-{MAX_TOTAL}..{MAX_TOTAL}")
        return Dice(0, 0, int(text))
    if not isinstance(text, str):
        raise ValueError(f"expected a dice expression such as 'd8', '2d6+1' or 'd4-1', got {type(text).__name__}")
    if re.fullmatch(r"\s*[+-]?\s*\d+\s*", text):
        return Dice(0, 0, int(text.replace(" ", "")))
    m = _DICE_RE.match(text)
    if not m or not text.strip() or (m.group(2) is None and m.group(4) is None):
        raise ValueError(f"'{text}' is not a dice expression; write it like 'd8', '2d6+1', 'd4-1' or a plain number")
    count_s, sides_s, sign, bonus_s = m.groups()
    count = (int(count_s) if count_s else 1) if sides_s else 0
    sides = int(sides_s) if sides_s else 0
    bonus = int(bonus_s or 0) * (-1 if sign == "-" else 1)
    if sides_s is not None and sides < 1:
        raise ValueError(f"'{text}': a die needs at least 1 side")
    if count > MAX_DICE or sides > MAX_SIDES:
        raise ValueError(f"'{text}': at most {MAX_DICE} dice of at most {MAX_SIDES} sides")
    if sides_s is not None and count < 1:
        raise ValueError(f"'{text}': roll at least one die")
    if count * sides + abs(bonus) > MAX_TOTAL:
        raise ValueError(f"'{text}': totals must stay within -{MAX_TOTAL}..{MAX_TOTAL}; use fewer or smaller "
                         "dice or a smaller bonus")
    return Dice(count, sides, bonus)


def roll(rng: np.random.Generator, sides, size) -> np.ndarray:
    """Uniform integers 1..sides (sides may be an array broadcast to `size`)."""
    if np.isscalar(sides):
        return rng.integers(1, int(sides) + 1, size=size, dtype=np.int16)
    u = rng.random(size=size, dtype=np.float32)
    return (u * np.asarray(sides, dtype=np.float32)).astype(np.int16) + 1


class DiceTable:
    """Many dice expressions as arrays, rolled together.

    `counts`, `sides`, `bonus` have one entry per row (e.g. per attack slot). Rows with
    count 0 roll only their bonus.
    """

    def __init__(self, dice: list[Dice]):
        self.dice = list(dice)
        # int32 totals: the largest expression allowed (100d1000) overflows int16.
        self.counts = np.array([d.count for d in dice], dtype=np.int16)
        self.sides = np.array([d.sides for d in dice], dtype=np.float32)
        self.bonus = np.array([d.bonus for d in dice], dtype=np.int32)
        self.max_count = int(self.counts.max()) if len(dice) else 0

    def roll(self, rng: np.random.Generator, batch: int) -> np.ndarray:
        """Totals of shape (batch, rows)."""
        rows = len(self.dice)
        total = np.broadcast_to(self.bonus, (batch, rows)).astype(np.int32)
        if self.max_count == 0:
            return total
        u = rng.random(size=(batch, rows, self.max_count), dtype=np.float32)
        if self.max_count == 1 and (self.counts == 1).all():
            # One die per row (the common weapon): no masking, no sum over a length-1 axis.
            return total + ((u[:, :, 0] * self.sides[None, :]).astype(np.int16) + 1)
        faces = (u * self.sides[None, :, None]).astype(np.int16) + 1
        if self.max_count > 1 or (self.counts == 0).any():
            faces *= (np.arange(self.max_count)[None, None, :] < self.counts[None, :, None])
        return total + faces.sum(axis=2, dtype=np.int32)
