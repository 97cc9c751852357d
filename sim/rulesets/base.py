"""The surface every ruleset implements; the core knows nothing else about rules.

A ruleset is a module-level object with:
  - `name`, `title`, `cell_size` (text), `rule_options` (Field per option),
    `combatant_fields` (the stat-block schema), `policy_fields` (family parameters),
    `actions` (what scripted policies may choose), `observations` (what they may test),
    using the shared names of sim/vocabulary.py for the shared ideas;
  - `observation_aliases`, `action_aliases`: old names, read as the names they became;
  - `target_modes`: the sim.policy.TARGET_MODES it plays (choose_targets, keep_focus);
    a policy asking for another is refused at load time, never played as random;
  - `build(scenario) -> setup`: compile the validated scenario into static arrays;
  - `init(setup, batch) -> state`: a `BatchState` for `batch.size` skirmishes;
  - `step(setup, state, batch)`: play one round in place;
  - `is_over(setup, state) -> bool[n]`;
  - `outcome(setup, state) -> Outcome` for the rows it is given;
  - optionally `row_bytes(setup) -> int`, the peak memory of one skirmish's round, so
    the engine plays huge scenarios in slices of bounded memory.
Rulesets never import the CLI or the report code.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Protocol

import numpy as np

from sim.schema import Field

# Final states shared by all rulesets so outcome tables read the same everywhere.
STANDING, UNCONSCIOUS, DEAD, FLED = 0, 1, 2, 3
FINAL_STATES = ("standing", "unconscious", "dead", "fled")

# Winner codes beside side indices.
DRAW, UNFINISHED = -1, -2


class BatchState:
    """Arrays whose first axis is the skirmish; `take` keeps a subset of rows.

    Rulesets subclass it as a dataclass. Attributes named in `per_batch` are not
    indexed (e.g. the round counter shared by all rows).
    """
    per_batch: tuple[str, ...] = ("round",)
    # Optional `counters`: array fields that change every round even when nothing happens
    # (default: attacks, rounds). The engine's stall check ignores them (sim/engine.py).

    def take(self, keep: np.ndarray) -> None:
        # A boolean mask becomes row numbers once: indexing a dozen arrays by the same
        # mask would otherwise find its true entries a dozen times.
        keep = np.asarray(keep)
        if keep.dtype == bool:
            keep = np.flatnonzero(keep)
        for f in fields(self):
            if f.name in self.per_batch:
                continue
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                setattr(self, f.name, value.take(keep, axis=0))


@dataclass
class Outcome:
    """Results for the rows of a state: what the outcome tables are made of."""
    winner: np.ndarray  # (n,) side index, DRAW or UNFINISHED
    rounds: np.ndarray  # (n,)
    per_combatant: dict[str, np.ndarray]  # name -> (n, C) arrays; must include the standard columns


STANDARD_COMBATANT_COLUMNS = ("attacks", "hits", "damage_dealt", "damage_taken", "final_state", "down_round")


class Ruleset(Protocol):
    name: str
    title: str
    rule_options: dict[str, Field]
    combatant_fields: dict[str, Field]
    policy_fields: dict[str, Field]
    actions: tuple[str, ...]
    observations: dict[str, str]

    def build(self, scenario): ...
    def init(self, setup, batch): ...
    def step(self, setup, state, batch) -> None: ...
    def is_over(self, setup, state) -> np.ndarray: ...
    def outcome(self, setup, state) -> Outcome: ...
