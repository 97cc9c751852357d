"""Balance analysis: comparative questions answered with confidence intervals.

Every function returns a pandas DataFrame (tune/sweep/sensitivity/tournament) or a
RunResult (run_adaptive), carrying the provenance columns scenario_hash, seed,
rule_options and package_version. The `skirmish` commands sweep, tune, sensitivity,
tournament, matters, balance and odds are thin wrappers over these (sim/cli_analysis.py).
"""
from sim.analysis.adaptive import run_adaptive, widest_half_width
from sim.analysis.balance import balance
from sim.analysis.compare import compare, compare_results
from sim.analysis.matters import matters
from sim.analysis.odds import odds
from sim.analysis.common import PROVENANCE_COLUMNS, paired_diff, play_variants, win_matrix
from sim.analysis.optimize import optimize, strongest_scenario, with_policies
from sim.analysis.sensitivity import sensitivity
from sim.analysis.sweep import sweep
from sim.analysis.tournament import best_responses, matrix, tournament, verdicts
from sim.analysis.tune import tune

__all__ = ["compare", "compare_results", "run_adaptive", "widest_half_width", "PROVENANCE_COLUMNS", "paired_diff",
           "play_variants", "win_matrix", "sensitivity", "sweep", "tournament", "matrix", "best_responses", "verdicts",
           "tune", "optimize", "strongest_scenario", "with_policies", "matters", "balance", "odds"]
