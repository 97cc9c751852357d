"""`--play best` for the other analyses: what "under the strongest play" means for each.

- sensitivity: the strongest play is searched once, for the base scenario, and every
  stat step is played with it. A step is small, and at a best response a small change
  moves the best value only through the change itself to first order (the envelope
  theorem: re-optimising adds a second-order term), so re-searching per step would
  buy noise at tens of times the cost. Variants stay paired.
- sweep: the base's strongest play is searched (normal budget), then re-searched for
  every variant from there with the quick budget: a sweep spans ranges (defense 0..6)
  over which the best play does change, and a variant warm-started from the base's
  play needs only a few best responses.
- tune: a fixed point. The play is searched for the base, the value tuned under it,
  the play re-searched at the value found (quick, warm-started); if that changes the
  play, the value is tuned again under the new play (at most TUNE_ROUNDS times).
- tournament: the side's searched policy joins its entrants as `best`.
"""
from __future__ import annotations

from sim.analysis.common import as_scenario, variant
from sim.errors import ScenarioError

PLAYS = ("as-written", "best")
TUNE_ROUNDS = 3
# Skirmishes for the search's own check figures (the analysis plays the real ones).
CHECK_N = 2000
# The search for a scenario as given, and the warm-started re-search of a variant of it.
BASE_BUDGET, VARIANT_BUDGET = "normal", "quick"


def check_play(play: str) -> bool:
    """True for `best`; bad input for anything but the two plays."""
    if play not in PLAYS:
        raise ScenarioError(f"--play '{play}': choose as-written (the policies in the file) or best (the "
                            "strongest play `skirmish optimize` finds).")
    return play == "best"


def found_policies(base, seed=None, jobs=1, max_rounds=None, budget=None, start=None, progress=None) -> dict:
    """{side: policy} of the strongest play found for `base` (a Scenario)."""
    from sim.analysis.optimize import optimize
    df = optimize(base, n=CHECK_N, seed=seed, jobs=jobs, max_rounds=max_rounds, budget=budget or BASE_BUDGET,
                  start=start,
                  progress=progress)
    return df.attrs["analysis"]["policies"]


def best_base(base, seed=None, jobs=1, max_rounds=None, budget=None, progress=None):
    """(base with the strongest play found substituted, the policies)."""
    from sim.analysis.optimize import with_policies
    policies = found_policies(base, seed, jobs, max_rounds, budget, progress=progress)
    return with_policies(base, policies), policies


def best_variants(base, variants: list, seed=None, jobs=1, max_rounds=None, progress=None) -> tuple[list, list]:
    """Each variant with its own strongest play, warm-started from the base's.
    Returns (variants, their policies)."""
    from sim.analysis.optimize import with_policies
    start = found_policies(base, seed, jobs, max_rounds, progress=progress)
    out, policies = [], []
    for v in variants:
        found = found_policies(v, seed, jobs, max_rounds, VARIANT_BUDGET, start=start, progress=progress)
        out.append(with_policies(v, found))
        policies.append(found)
    return out, policies


def best_entrants(base, sides: list[str], seed=None, jobs=1, max_rounds=None, progress=None) -> dict:
    """{side: ("best", policy)} for the tournament's listed sides."""
    found = found_policies(base, seed, jobs, max_rounds, progress=progress)
    return {s: ("best", found[s]) for s in sides}


def tune_best(tune_fn, scenario, param, side, target, lo=None, hi=None, overrides=None, seed=None, jobs=1,
              max_rounds=None, progress=None, **kw):
    """`tune` under the strongest play, as a fixed point of tuning and searching."""
    from sim.analysis.optimize import with_policies
    base = as_scenario(scenario, overrides)
    policies = found_policies(base, seed, jobs, max_rounds, progress=progress)
    rounds = []
    for _ in range(TUNE_ROUNDS):
        df = tune_fn(with_policies(base, policies), param, side, target, lo, hi, seed=seed, jobs=jobs,
                     max_rounds=max_rounds, progress=progress, **kw)
        answer = df.attrs["analysis"]["value"]
        rounds.append({"value": answer, "policies": policies})
        again = found_policies(variant(base, {param: answer}), seed, jobs, max_rounds, VARIANT_BUDGET, start=policies,
                               progress=progress)
        if again == policies:
            break
        policies = again
    settled = rounds[-1]["policies"] == policies
    df.attrs["analysis"].update(play="best", play_policies=policies, play_settled=settled, play_rounds=rounds)
    if not settled:
        df.attrs["analysis"]["message"] += (f" The strongest play still changed after {TUNE_ROUNDS} rounds of "
                                            "tuning and searching; the value holds for the last play found.")
    return df
