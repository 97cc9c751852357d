"""What every plain loop counts: winners, rounds and each combatant's final state."""
from __future__ import annotations


class Tally:
    def __init__(self, names: list[str], final_states: tuple[str, ...]):
        self.names = names
        self.wins: dict[int, int] = {}
        self.rounds_total = 0
        self.n = 0
        self.states = [{s: 0 for s in final_states} for _ in names]

    def add(self, winner: int, rounds: int, status: list[str]) -> None:
        """One skirmish: winner is a side index, -1 for a draw, -2 when unfinished."""
        self.n += 1
        self.wins[winner] = self.wins.get(winner, 0) + 1
        self.rounds_total += rounds
        for i, s in enumerate(status):
            self.states[i][s] += 1

    def result(self, side_names: list[str]) -> dict:
        labels = {**dict(enumerate(side_names)), -1: "draw", -2: "unfinished"}
        return {
            "n": self.n,
            "wins": {labels[k]: v for k, v in self.wins.items()},
            "mean_rounds": self.rounds_total / self.n,
            "states": dict(zip(self.names, self.states)),
        }
