"""A beat's random draws, made in a fixed order and shape; dice totals are computed lazily.

Every draw is made for every row (the same stream whatever the state, common random
numbers), but most rows do not attack, cast or drink in a given beat: the dice's raw
uniforms are drawn exactly as `DiceTable.roll` draws them and turned into totals only
for the entries read. The arithmetic is `DiceTable.roll`'s, so totals are bit-identical.
"""
from __future__ import annotations

import numpy as np


class LazyDice:
    """Totals of a DiceTable's expressions, shape (rows, expressions), made when indexed.

    `d[rows]` keeps a subset of rows (still lazy); `d[rows, cols]` gives the totals.
    """

    def __init__(self, table, u: np.ndarray | None, n: int):
        self.table, self.u, self.n = table, u, n

    @classmethod
    def roll(cls, table, batch, n: int) -> "LazyDice":
        if table.max_count == 0:  # DiceTable.roll draws nothing then
            return cls(table, None, n)
        rows = batch.chunk_size if batch.crn else n
        u = batch.rng.random(size=(rows, len(table.dice), table.max_count), dtype=np.float32)
        if batch.crn and n != batch.chunk_size:
            u = u[batch.ids]
        return cls(table, u, n)

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            ids = np.arange(self.n)[idx]
            return LazyDice(self.table, None if self.u is None else self.u[idx], len(ids))
        r, c = idx
        tb = self.table
        if isinstance(c, (int, np.integer)) and not isinstance(r, (int, np.integer)):
            return self._column(r, int(c))
        shape = (self.n, len(tb.dice))
        total = np.broadcast_to(tb.bonus, shape)[r, c].astype(np.int32)
        if self.u is None:
            return total
        sides = np.broadcast_to(tb.sides, shape)[r, c]
        faces = (self.u[r, c] * sides[..., None]).astype(np.int16) + 1
        if tb.max_count > 1 or (tb.counts == 0).any():
            counts = np.broadcast_to(tb.counts, shape)[r, c]
            faces *= (np.arange(tb.max_count) < counts[..., None])
        return total + faces.sum(axis=-1, dtype=np.int32)

    def _column(self, r, c: int) -> np.ndarray:
        """d[r, c] for one expression c: its constants as scalars-filled arrays (same dtypes,
        so the same arithmetic) instead of broadcasting the whole table."""
        tb = self.table
        k = len(np.arange(self.n)[r]) if not isinstance(r, np.ndarray) or r.dtype == bool else len(r)
        total = np.full(k, tb.bonus[c], dtype=np.asarray(tb.bonus).dtype).astype(np.int32)
        if self.u is None:
            return total
        sides = np.full((k, 1), tb.sides[c], dtype=np.asarray(tb.sides).dtype)
        faces = (self.u[r, c] * sides).astype(np.int16) + 1
        if tb.max_count > 1 or (tb.counts == 0).any():
            faces *= (np.arange(tb.max_count) < np.asarray(tb.counts)[c])
        for j in range(tb.max_count):
            total += faces[:, j]
        return total


def beat_draws(setup, batch, n: int, C: int) -> dict:
    # A character's blow on a character is defended (and may be riposted) with this beat's
    # draws; against monsters only the attack roll's five uniforms are needed.
    pvp = setup.extra["pvp"]
    weapon = LazyDice.roll(setup.weapon_dice, batch, n)
    return {"u": batch.uniform(C, 20 if pvp else 5), "noise": batch.uniform(C, C), "weapon": weapon,
            "spell": LazyDice.roll(setup.spell_dice, batch, n), "item": LazyDice.roll(setup.item_dice, batch, n),
            "aux": {"weapon_damage": LazyDice.roll(setup.weapon_dice, batch, n) if pvp else weapon,
                    "noise8": batch.uniform(8) if pvp else None}}


class _Rows(dict):
    """The draws of a subset of rows, each entry copied out when first read."""

    def __init__(self, draws: dict, rows: np.ndarray):
        super().__init__()
        self._draws, self._rows = draws, rows

    def __missing__(self, key):
        v = self._draws[key]
        v = take(v, self._rows) if isinstance(v, dict) else None if v is None else v[self._rows]
        self[key] = v
        return v


def take(draws: dict, rows: np.ndarray) -> dict:
    """The draws of a subset of rows (read lazily: a beat reads few of them)."""
    return _Rows(draws, rows)
