"""Blow-by-blow logs of one skirmish, written by the same step code the batches run.

Rulesets write lines only when `batch.trace` is not None, which is the case only while
the traced skirmish is among the active rows, so batches without a tracer pay one
attribute check per event site.
"""
from __future__ import annotations

import numpy as np


class Tracer:
    def __init__(self, row: int, names: list[str]):
        self.row = row  # the traced skirmish's index inside its chunk
        self.names = list(names)
        self.pos: int | None = None  # its position among the active rows, or None once finished
        self.lines: list[str] = []

    def locate(self, ids: np.ndarray) -> None:
        i = int(np.searchsorted(ids, self.row))
        self.pos = i if i < len(ids) and ids[i] == self.row else None

    def line(self, text: str) -> None:
        self.lines.append(text)

    def name(self, c: int) -> str:
        return self.names[int(c)]

    def text(self) -> str:
        return "\n".join(self.lines)
