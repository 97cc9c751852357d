"""Kept for benchmarks/plain_loop_gm.py, which imports `strength_bonus` from here; the
rules live in tables.py and the kernel modules (round.py and what it calls)."""
from sim.rulesets.gods_and_monsters.tables import strength_bonus  # noqa: F401
