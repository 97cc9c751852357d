"""Replaying one skirmish of a run, blow by blow.

The trace plays the whole chunk the skirmish belongs to, with the same seed and the
same array code as the batch run, and records lines for that one row. So skirmish k
of `trace` is exactly skirmish k of `run` with the same seed and count.
"""
from __future__ import annotations


# The imports are inside: `sim/__init__.py` binds this function eagerly (a lazy name would
# be overwritten by this module, which shares it), and start-up should not pay for them.
def trace(scenario, seed: int | None = None, skirmish: int = 0, n: int | None = None,
          max_rounds: int | None = None, overrides: dict | None = None, won_by: str | None = None) -> str:
    """The blow-by-blow log of skirmish `skirmish` of a run of `n` skirmishes with `seed`.

    `won_by` (a side's name, `draw` or `unfinished`): the first skirmish from `skirmish` on
    that ended so, which is what a designer asks for after reading a win rate.
    """
    from sim.engine import run_chunk
    from sim.rulesets.base import DRAW, FINAL_STATES, UNFINISHED
    from sim.runner import CHUNK_SIZE, chunk_rng, chunk_sizes
    from sim.scenario import Scenario, load_scenario
    from sim.tracing import Tracer
    scen = scenario if isinstance(scenario, Scenario) else load_scenario(scenario, overrides)
    seed = int(scen.run["seed"] if seed is None else seed)
    n = int(scen.run["skirmishes"] if n is None else n)
    max_rounds = int(scen.run["max_rounds"] if max_rounds is None else max_rounds)
    if not 0 <= skirmish < n:
        raise ValueError(f"skirmish {skirmish} is outside the run of {n} skirmishes (0..{n - 1})")
    ruleset = scen.ruleset
    setup = ruleset.build(scen)
    if won_by is not None:
        skirmish = first_ending(scen, setup, seed, skirmish, n, max_rounds, won_by)
    header = [f"{scen.name}: skirmish {skirmish} of {n} with seed {seed} ({ruleset.title})"]
    for c in scen.combatants:
        header.append(f"  {c.name} ({scen.side_names[c.side]})")
    if getattr(ruleset, "compiled", False):
        # Keyed randomness: skirmish k is played alone and is still skirmish k of the batch.
        ruleset.warm(setup)
        out, lines = ruleset.trace(setup, seed, skirmish, max_rounds)
        body, row = "\n".join(lines), 0
    else:
        chunk, row = divmod(skirmish, CHUNK_SIZE)
        size = chunk_sizes(n)[chunk]
        tracer = Tracer(row, scen.names())
        out = run_chunk(ruleset, setup, chunk_rng(seed, chunk), size, max_rounds, tracer=tracer)
        body = tracer.text()
    w = int(out.winner[row])
    verdict = {DRAW: "a draw: every side fell", UNFINISHED: "unfinished"}.get(
        w, f"{scen.side_names[w] if w >= 0 else ''} wins")
    footer = [f"\nResult after {int(out.rounds[row])} rounds: {verdict}."]
    for i, c in enumerate(scen.combatants):
        state = FINAL_STATES[int(out.per_combatant['final_state'][row, i])]
        footer.append(f"  {c.name}: {state}, dealt {int(out.per_combatant['damage_dealt'][row, i])}, "
                      f"took {int(out.per_combatant['damage_taken'][row, i])}")
    return "\n".join(header) + "\n" + body + "\n" + "\n".join(footer)


SEARCH_BLOCK = 4096


def first_ending(scen, setup, seed: int, skirmish: int, n: int, max_rounds: int, won_by: str) -> int:
    """The first skirmish from `skirmish` on (below `n`) that ended as `won_by` says."""
    from sim.errors import closest
    from sim.rulesets.base import DRAW, UNFINISHED
    endings = {name: i for i, name in enumerate(scen.side_names)} | {"draw": DRAW, "unfinished": UNFINISHED}
    if won_by not in endings:
        raise ValueError(f"--won-by '{won_by}' is not a side of {scen.name}.{closest(won_by, list(endings))} "
                         f"Give one of: {', '.join(endings)}")
    ruleset, wanted = scen.ruleset, endings[won_by]
    if not getattr(ruleset, "compiled", False):
        raise ValueError(f"--won-by needs a compiled ruleset; {ruleset.title} is not")
    ruleset.warm(setup)
    for first in range(skirmish, n, SEARCH_BLOCK):
        size = min(SEARCH_BLOCK, n - first)
        # Keyed randomness: a block played alone holds the batch's very skirmishes.
        hits = (ruleset.play(setup, seed, first, size, max_rounds).winner == wanted).nonzero()[0]
        if hits.size:
            return first + int(hits[0])
    raise ValueError(f"no skirmish from {skirmish} to {n - 1} ended with '{won_by}' (seed {seed}); "
                     f"try another --seed, a larger -n, or a lower --skirmish")
