"""Where combatants stand when a fight starts.

Each side is drawn up in a formation (line, column, wedge, scattered) facing the next
side across `start_distance`; a combatant's explicit `position` overrides its
formation. With no `battlefield:` block the sides start in melee contact (front lines
one cell apart), so scenarios written before the battlefield keep their meaning.
"""
from __future__ import annotations

import numpy as np

from sim.battlefield import METRICS, Grid
from sim.errors import ScenarioError
from sim.schema import Field

FORMATIONS = ("line", "column", "wedge", "scattered")
SCATTER_DEPTH = 5  # cells deep: the zone a scattered side spreads over
MAX_GRID = 2000  # cells along either side of the battlefield

BATTLEFIELD_FIELDS = {
    "width": Field("int", None, "grid width in cells (default: just large enough for the sides)", min=1, max=MAX_GRID),
    "height": Field("int", None, "grid height in cells (default: just large enough)", min=1, max=MAX_GRID),
    "cell_size": Field("float", None, "the side of one cell in the ruleset's unit (Gods & Monsters and The Lens: "
                       "5 ft; Lifeforce: 1 m)", min=0.01, max=10000),
    "metric": Field("choice", "chebyshev", "how distance is counted: chebyshev (a diagonal step is one cell), "
                    "alternating (1-2-1: every second diagonal costs two), manhattan (no diagonals)",
                    choices=METRICS),
    "start_distance": Field("float", None, "distance between the sides' front lines at the start, in the ruleset's "
                            "unit (default: melee contact)", min=0, max=100000),
}


def _offsets_line(k: int, height: int) -> list[tuple[int, int]]:
    """(depth, lateral) per member: fill the front rank from the centre outward, then the next rank."""
    out = []
    for i in range(k):
        rank, j = divmod(i, height)
        lateral = (j + 1) // 2 * (1 if j % 2 else -1)
        out.append((rank, lateral))
    return out


def _rank_width(height: int) -> int:
    """Members per rank of a line. Ranks fill from the centre row `height // 2` outward,
    alternating below and above, so on an even height the last cell above the centre
    is off the grid: a full rank there holds one less."""
    return height if height % 2 else height - 1


def _wedge_fits(k: int, height: int) -> bool:
    # A wedge of k reaches k // 2 cells above the centre row and (k - 1) // 2 below.
    return height // 2 + k // 2 <= height - 1 and height // 2 >= (k - 1) // 2


def _default_height(formations: list, members: list) -> int:
    """Just large enough: a line of up to 40 abreast (deeper ranks beyond), a whole wedge,
    and room for every scattered member in its zone."""
    biggest = max(len(m) for m in members)
    height = max(7, min(biggest, 40) + 4)
    for formation, m in zip(formations, members):
        while formation == "wedge" and not _wedge_fits(len(m), height):
            height += 1
        if formation == "scattered":
            height = max(height, -(-len(m) // SCATTER_DEPTH))
    return height


def _offsets(formation: str, k: int, height: int) -> list[tuple[int, int]]:
    if formation == "column":
        return [(i, 0) for i in range(k)]
    if formation == "wedge":
        return [(0, 0)] + [((i + 1) // 2, (i + 1) // 2 * (1 if i % 2 else -1)) for i in range(1, k)]
    return _offsets_line(k, height)


class Layout:
    """Compiled starting positions of one scenario."""

    def __init__(self, scenario):
        ruleset = scenario.ruleset
        spec = scenario.battlefield_spec
        cell = spec["cell_size"] or getattr(ruleset, "cell_size", 5.0)
        unit = getattr(ruleset, "unit", "ft")
        probe = Grid(1, 1, cell, unit, spec["metric"])
        gap = max(1, probe.cells(spec["start_distance"])) if spec["start_distance"] else 1
        n_sides = len(scenario.side_names)
        members = [[i for i, c in enumerate(scenario.combatants) if c.side == s] for s in range(n_sides)]
        formations = scenario.formations
        height = spec["height"] or _default_height(formations, members)
        lateral_room = _rank_width(height)
        offsets = {s: _offsets(formations[s], len(members[s]), lateral_room) for s in range(n_sides)}
        depth = max(max((o[0] for o in offsets[s]), default=0) + 1 for s in range(n_sides))
        depth = max(depth, SCATTER_DEPTH if "scattered" in formations else 1)
        needed = (depth + 2) * 2 + gap * (n_sides - 1) + 1
        if needed > MAX_GRID:
            raise ScenarioError(
                f"the sides start {gap:,} cells apart ({spec['start_distance']:g} {unit} in cells of {cell:g} "
                f"{unit}), which with their ranks needs a battlefield {needed:,} cells long; it is at most "
                f"{MAX_GRID:,}. Shorten battlefield.start_distance or make battlefield.cell_size larger.",
                path="battlefield.start_distance")
        width = spec["width"] or needed
        # A wider field than needed is shared out evenly, so both sides have room to back away.
        margin = depth + 2 + max(0, (width - needed) // 2)
        self.grid = Grid(int(width), int(height), float(cell), unit, spec["metric"])
        cy = height // 2
        c = len(scenario.combatants)
        static = np.zeros((c, 2), dtype=np.int16)
        self.scatter_sides = [s for s in range(n_sides) if formations[s] == "scattered"]
        self.zones: dict[int, np.ndarray] = {}
        fronts = []
        for s in range(n_sides):
            front = margin + gap * s
            facing = 1 if s == 0 else -1  # side 0 faces the others; the others face back toward it
            fronts.append((front, facing))
            for i, (d, lat) in zip(members[s], offsets[s]):
                static[i] = (front - facing * d, cy + lat)
            if formations[s] == "scattered":
                xs = [front - facing * d for d in range(SCATTER_DEPTH)]
                self.zones[s] = np.array([(x, y) for x in xs for y in range(height)], dtype=np.int16)
        self.explicit = np.zeros(c, dtype=bool)
        for i, comb in enumerate(scenario.combatants):
            if comb.stats.get("position") is not None:
                static[i] = comb.stats["position"]
                self.explicit[i] = True
        self.members = members
        self.static = static
        self._check(scenario)

    def _check(self, scenario) -> None:
        g = self.grid
        for i, comb in enumerate(scenario.combatants):
            x, y = self.static[i]
            if not (0 <= x < g.width and 0 <= y < g.height):
                what = "its position" if self.explicit[i] else "its side's formation"
                raise ScenarioError(
                    f"{comb.name} would start at cell ({x}, {y}), outside the {g.width} x {g.height} grid "
                    f"({what}); enlarge battlefield.width/height, shorten start_distance, or move it.",
                    path="battlefield")
        for s in self.scatter_sides:
            who, zone = self._scatter(s)
            if len(who) > len(zone):
                raise ScenarioError(f"side {scenario.side_names[s]!r} scatters {len(who)} combatants over "
                                    f"{len(zone)} free cells ({SCATTER_DEPTH} deep); enlarge battlefield.height "
                                    "or use another formation.", path="battlefield")
        fixed = [i for i in range(len(self.static))
                 if self.explicit[i] or scenario.formations[scenario.combatants[i].side] != "scattered"]
        cells = {}
        for i in fixed:
            key = tuple(int(v) for v in self.static[i])
            if key in cells:
                a, b = scenario.combatants[cells[key]].name, scenario.combatants[i].name
                raise ScenarioError(f"{a} and {b} would both start in cell {key}; give one of them another "
                                    "`position`.", path="sides")
            cells[key] = i

    def _scatter(self, side: int) -> tuple[list[int], np.ndarray]:
        """The members a scattered side places at random, and the free cells of its zone."""
        who = [i for i in self.members[side] if not self.explicit[i]]
        taken = {tuple(int(v) for v in self.static[i]) for i in range(len(self.static)) if self.explicit[i]}
        zone = np.array([z for z in self.zones[side] if tuple(int(v) for v in z) not in taken], dtype=np.int16)
        return who, zone

    @classmethod
    def initial(cls, scenario, batch) -> np.ndarray:
        return cls(scenario).place(batch)

    def place(self, batch) -> np.ndarray:
        """(N, C, 2) starting cells; scattered sides draw their cells per skirmish."""
        n = batch.size
        pos = np.broadcast_to(self.static, (n,) + self.static.shape).copy()
        for s in self.scatter_sides:
            who, zone = self._scatter(s)
            # A random permutation per skirmish: argsort of uniforms, one draw for the batch.
            pick = np.argsort(batch.uniform(len(zone)), axis=1)[:, :len(who)]
            pos[:, who] = zone[pick]
        return pos
