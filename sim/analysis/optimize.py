"""The strongest play: each side's best response, searched over its policy family.

A balance figure holds only against the play behind it. `optimize` searches, for each
side in turn, the policy space its ruleset declares (sim.analysis.optimize_space) for
the play that wins most often against the other sides' current play, then lets the
next side answer that, until no side improves beyond its confidence interval or the
budget's number of best responses is spent (a local search for an equilibrium; in
games research, alternating best responses).

One best response is successive halving: the incumbent, every policy one field away
from it and a few drawn at random play `first` skirmishes each; the better half goes
on to twice as many, and so on. Every candidate plays the same skirmishes (keyed
randomness: skirmish k draws the same dice whatever the policy), so the ranking
compares paired fights. The winner replaces the incumbent only when it is better on
`confirm` fresh skirmishes by a paired 95% interval that excludes zero, which keeps
the luck of the search's own skirmishes (the winner's curse) out of the answer.

The figures reported ("as written", "strongest play found") are played on the
scenario's own seed and skirmishes 0..n-1, so "as written" is exactly `skirmish run`;
the search used other skirmishes (chunk numbers from SEARCH_CHUNK on).

Policies are searched per side: one policy block for all of a side's combatants,
written at `sides.<side>.policy`. What a file gives one combatant in its own policy
stays as written (a caster that holds back, a leader that leads); those fields are
the combatant's role, and searching every combatant apart would multiply the space
by the number of combatants. Scripted `rules:` stay as written.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, fields as dc_fields, replace

import numpy as np
import pandas as pd

from sim.analysis import optimize_space as sp
from sim.analysis.common import (_execute, _run_settings, _tasks, as_scenario, check_side, frame, paired_diff,
                                 provenance_columns, variant)
from sim.errors import ScenarioError
from sim.overrides import side_path
from sim.policy import policy_schema
from sim.progress import expect
from sim.runner import CHUNK_SIZE, chunk_sizes
from sim.stats import wilson

# Chunk numbers of the search's skirmishes and of each confirmation (one chunk a best
# response), far from the chunks 0.. the reported figures are played on.
SEARCH_CHUNK, CONFIRM_CHUNK, SIMPLIFY_CHUNK = 1 << 16, 1 << 17, (1 << 17) - 1


@dataclass(frozen=True)
class Budget:
    far: int = 12          # candidates drawn at random per best response, besides the one-field steps
    first: int = 200       # skirmishes per candidate on the first rung (doubling from the third)
    rungs: int = 7         # rungs of successive halving at most
    confirm: int = 4000    # fresh skirmishes on which a found improvement must hold
    responses: int = 8     # best responses in all, over every side


BUDGETS = {
    "quick": Budget(far=6, first=100, rungs=5, confirm=2000, responses=4),
    "normal": Budget(),
    "thorough": Budget(far=40, first=400, rungs=8, confirm=16000, responses=12),
}
LIMITS = {"far": (0, 1000), "first": (10, CHUNK_SIZE), "rungs": (1, 12), "confirm": (100, CHUNK_SIZE),
          "responses": (1, 100)}


def parse_budget(text) -> Budget:
    """`quick`, `normal`, `thorough`, or key=value pairs over normal: `responses=10,confirm=8000`."""
    if isinstance(text, Budget):
        return text
    if text is None or str(text).strip() == "":
        return BUDGETS["normal"]
    text = str(text).strip()
    if text in BUDGETS:
        return BUDGETS[text]
    names = [f.name for f in dc_fields(Budget)]
    out = BUDGETS["normal"]
    for item in text.split(","):
        name, _, value = item.partition("=")
        name = name.strip()
        if name in BUDGETS and not value:
            out = BUDGETS[name]
            continue
        lo, hi = LIMITS.get(name, (0, 0))
        if name not in names or not value.strip().isdigit() or not lo <= int(value) <= hi:
            raise ScenarioError(f"--budget '{text}': give quick, normal or thorough, or key=value pairs with "
                                f"whole numbers ({', '.join(f'{k} {a}..{b}' for k, (a, b) in LIMITS.items())}), "
                                "e.g. --budget responses=10,confirm=8000.")
        out = replace(out, **{name: int(value)})
    return out


def with_policies(scenario, policies: dict[str, dict]):
    """The scenario with each named side's policy block replaced (errors name its file)."""
    base = as_scenario(scenario)
    return variant(base, {side_path(side, "policy"): dict(p) for side, p in policies.items()})


class PolicySearch:
    """The search itself, over any evaluator of profiles of play ({side: policy}): a
    subclass says which sides there are, their written policies and policy fields
    (`sides`, `written`, `fields`), and provides the hooks `space(side)`,
    `playable(profile)`, `outcomes(profiles, blocks)` (per unit played, for each
    profile, on the blocks (chunk, size) given: the same blocks are the same dice) and
    `score(outcome, side)` (per unit, what the side wants more of)."""

    sides: list[str]
    written: dict[str, dict]
    fields: dict

    def __init__(self, progress):
        self.progress = progress
        self.asked = 0
        self.cycled = False  # a profile of play came back: the best responses go round in a circle

    def plain(self, side: str, policy: dict) -> str:
        """A policy by what it changes from the file (so `cover: false` written out is the default)."""
        return sp.key(sp.changes(self.written[side], policy, self.fields))

    def simplicity(self, side: str, policy: dict) -> int:
        return len(sp.changes(self.written[side], policy, self.fields))

    def candidates(self, profile: dict, side: str, budget: Budget, rng) -> list[dict]:
        inc = profile[side]
        dims = self.space(side)
        pool = [inc] + sp.neighbours(inc, dims, self.fields) + sp.random_policies(inc, dims, budget.far, rng,
                                                                                   self.fields)
        seen, out = set(), []
        for c in pool:
            k = sp.key(c)
            if k not in seen and (c is inc or self.playable({**profile, side: c})):
                seen.add(k)
                out.append(c)
        return out

    def best_response(self, profile: dict, side: str, budget: Budget, rng, index: int) -> dict:
        """Successive halving over the side's candidates, then the paired confirmation."""
        started = time.process_time()
        cands = self.candidates(profile, side, budget, rng)
        alive, blocks = list(range(len(cands))), []
        for r in range(budget.rungs):
            size = min(budget.first * (2 ** max(r - 1, 0)), CHUNK_SIZE)
            blocks.append((SEARCH_CHUNK + r, size))
            wins = self.outcomes([{**profile, side: cands[i]} for i in alive], blocks)
            score = {i: float(self.score(w, side).mean()) for i, w in zip(alive, wins)}
            alive.sort(key=lambda i: (-score[i], self.simplicity(side, cands[i]), i))
            if len(alive) == 1:
                break
            alive = alive[:max(1, math.ceil(len(alive) / 2))] if r < budget.rungs - 1 else alive[:1]
        best = cands[alive[0]]
        step = {"response": index + 1, "side": side, "candidates": len(cands),
                "skirmishes_per_finalist": sum(b[1] for b in blocks), "changed": False,
                "gain": 0.0, "gain_lo": 0.0, "gain_hi": 0.0}
        if alive[0] != 0:
            confirm = [(CONFIRM_CHUNK + index, budget.confirm)]
            old, new = self.outcomes([profile, {**profile, side: best}], confirm)
            d = paired_diff(self.score(old, side), self.score(new, side))
            step.update(gain=d[0], gain_lo=d[1], gain_hi=d[2], changed=bool(d[1] > 0))
        step["cpu_seconds"] = round(time.process_time() - started, 2)
        return {**step, "policy": best if step["changed"] else profile[side]}

    def alternate(self, sides: list[str], budget: Budget, rng, start: dict | None = None):
        """Best responses in turn from `start` (default the play as written) until none
        improves (converged) or the budget ends: (profile, history, converged)."""
        profile = {**self.written, **(start or {})}
        pending, history = list(sides), []
        seen = {side: [self.plain(side, profile[side])] for side in sides}
        while pending and len(history) < budget.responses:
            side = pending.pop(0)
            step = self.best_response(profile, side, budget, rng, len(history))
            history.append(step)
            if step["changed"]:
                profile[side] = step["policy"]
                # The others answer the new play; the side itself may improve again from there.
                pending = [x for x in pending if x != side] + [x for x in sides if x != side and x not in pending]
                pending.append(side)
                again = self.plain(side, profile[side])
                self.cycled = self.cycled or again in seen[side]
                seen[side].append(again)
        return profile, history, not pending

    def simplify(self, profile: dict, budget: Budget) -> dict:
        """Each found change put back as written where fresh skirmishes play exactly the
        same either way: a field the fight never reads (a reload rule for claws) should
        not be on a designer's list. Only identical outcomes count, so the tidy-up never
        changes the play found (a change merely not worse could be one another side's
        answer relies on)."""
        block = [(SIMPLIFY_CHUNK, budget.confirm)]
        for side in self.sides:
            for name in list(sp.changes(self.written[side], profile[side], self.fields)):
                back = {k: v for k, v in profile[side].items() if k != name}
                if name in self.written[side]:
                    back[name] = self.written[side][name]
                trial = {**profile, side: back}
                if not self.playable(trial):
                    continue
                now, then = self.outcomes([profile, trial], block)
                if np.array_equal(now, then):
                    profile = trial
        # A field the file does not write, found at its default, need not be written either.
        return {side: {k: v for k, v in p.items()
                       if k in self.written[side] or k not in self.fields
                       or v != sp.current_value(k, self.fields[k], {})}
                for side, p in profile.items()}


class _Search(PolicySearch):
    """The scenario's sides. Winner codes per (profile, chunk), played once and kept:
    every rung and every best response reuses what the same profile already played on
    the same chunk."""

    def __init__(self, base, seed: int, max_rounds: int, jobs: int, progress):
        super().__init__(progress)
        self.base, self.seed, self.max_rounds, self.jobs = base, seed, max_rounds, jobs
        self.sides = list(base.side_names)
        self.fields = policy_schema(base.ruleset.policy_fields)
        self.written = {s: sp.written_policy(base, s) for s in base.side_names}
        self.cache: dict[tuple[str, int], np.ndarray] = {}
        self.scen: dict[str, object] = {}

    def scenario(self, profile: dict):
        k = sp.key(profile)
        if k not in self.scen:
            try:
                self.scen[k] = with_policies(self.base, profile)
            except ScenarioError:  # a combination the ruleset refuses (a skirmisher without a bow)
                self.scen[k] = None
        return self.scen[k]

    def space(self, side: str) -> list:
        return sp.space(self.base, side)

    def playable(self, profile: dict) -> bool:
        return self.scenario(profile) is not None

    def score(self, outcome: np.ndarray, side: str) -> np.ndarray:
        return outcome == self.sides.index(side)

    def winners(self, profiles: list[dict], blocks: list[tuple[int, int]]) -> list[np.ndarray]:
        tasks, where = [], []
        for p in profiles:
            k = sp.key(p)
            for chunk, size in blocks:
                if (k, chunk) not in self.cache and (k, chunk) not in where:
                    tasks += _tasks(self.scenario(p), [size], chunk, self.seed, self.max_rounds, True)
                    where.append((k, chunk))
        self.asked += sum(t[3] for t in tasks)
        expect(self.progress, self.asked)
        for w, out in zip(where, _execute(tasks, self.jobs, self.progress)):
            self.cache[w] = np.asarray(out.winner)
        return [np.concatenate([self.cache[(sp.key(p), c)] for c, _ in blocks]) for p in profiles]

    outcomes = winners


def optimize(scenario, n: int | None = None, seed: int | None = None, jobs: int = 1, max_rounds: int | None = None,
             sides: list[str] | None = None, budget="normal", overrides: dict | None = None,
             start: dict | None = None, progress=None) -> pd.DataFrame:
    """Search each side's strongest play and report the balance as written beside it.

    `sides`: the sides whose play is searched (default all; the others keep their play
    as written). `budget`: a Budget, or "quick" / "normal" / "thorough" / "key=value,..."
    (see parse_budget). `n`: skirmishes for the reported figures (default
    min(run.skirmishes, 20000)). One row per side: its win rate as written, under the
    strongest play found, and with only its own play improved, each with its 95%
    interval; the paired shifts; the policy written and found (YAML to paste); and
    `play_explains`, the share of the side's as-written margin over its strongest
    opponent that the strongest play removes. `df.attrs["analysis"]` holds the search's
    history, whether it converged, the found policies and a verdict `message`.
    `start`: {side: policy} to search from instead of the play as written (a warm start,
    e.g. the base scenario's strongest play when searching a variant of it).
    """
    base = as_scenario(scenario, overrides)
    budget = parse_budget(budget)
    sides = list(sides or base.side_names)
    for side in sides:
        check_side(base, side, "--side")
    default_n = min(int(base.run["skirmishes"]), 20000)
    n, seed, max_rounds = _run_settings(base, default_n if n is None else n, seed, max_rounds)
    search = _Search(base, seed, max_rounds, jobs, progress)
    rng = np.random.default_rng([seed, 15])
    found, history, converged = search.alternate(sides, budget, rng, start)
    found = search.simplify(found, budget)
    searched = search.asked
    df = _table(search, found, history, converged, sides, budget, n)
    df.attrs["analysis"]["search_skirmishes"] = searched
    return df


def _profiles(search: _Search, found: dict) -> dict[str, dict]:
    names = search.base.side_names
    out = {"written": dict(search.written), "strongest": found}
    out.update({f"own:{s}": {**search.written, s: found[s]} for s in names})
    return out


def _rate(w: np.ndarray) -> tuple[float, float, float]:
    k = int(w.sum())
    lo, hi = wilson(k, len(w))
    return k / len(w), float(lo), float(hi)


def _margin(codes: np.ndarray, s: int, k: int) -> np.ndarray:
    """Per skirmish: 1 if side s won, -1 if its strongest opponent (as written) did."""
    rivals = [j for j in range(k) if j != s]
    best = max(rivals, key=lambda j: (codes == j).mean())
    return (codes == s).astype(float) - (codes == best).astype(float)


def _table(search: _Search, found, history, converged, sides, budget: Budget, n: int) -> pd.DataFrame:
    base = search.base
    profiles = _profiles(search, found)
    blocks = [(i, size) for i, size in enumerate(chunk_sizes(n))]
    codes = dict(zip(profiles, search.winners(list(profiles.values()), blocks)))
    strongest_scen = search.scenario(found)
    k = len(base.side_names)
    rows = []
    for s, side in enumerate(base.side_names):
        w, b, o = (codes[p] == s for p in ("written", "strongest", f"own:{side}"))
        row = {"side": side, "searched": side in sides, "skirmishes": n}
        for tag, arr in (("written", w), ("strongest", b), ("own_best", o)):
            row[f"{tag}.win_rate"], row[f"{tag}.win_lo"], row[f"{tag}.win_hi"] = _rate(arr)
        row["shift"], row["shift_lo"], row["shift_hi"] = paired_diff(w, b)
        row["own_gain"], row["own_gain_lo"], row["own_gain_hi"] = paired_diff(w, o)
        mw, mb = _margin(codes["written"], s, k), _margin(codes["strongest"], s, k)
        m, mlo, mhi = paired_diff(np.zeros_like(mw), mw)
        row["margin_written"], row["margin_strongest"] = m, float(mb.mean())
        # A share of a margin that is not clearly there would be noise divided by noise.
        row["play_explains"] = (m - row["margin_strongest"]) / m if (mlo > 0 or mhi < 0) else float("nan")
        row["policy_written"] = sp.yaml_text(search.written[side])
        row["policy_found"] = sp.yaml_text(found[side])
        row["changes"] = sp.yaml_text(sp.changes(search.written[side], found[side], search.fields))
        row.update(provenance_columns(base, strongest_scen, search.seed))
        rows.append(row)
    meta = {"command": "optimize", "sides": list(base.side_names), "searched": sides, "skirmishes": n,
            "budget": asdict(budget), "converged": converged, "cycled": search.cycled, "responses": len(history),
            "history": [{k2: v for k2, v in h.items() if k2 != "policy"} | {"policy": sp.yaml_text(h["policy"])}
                        for h in history],
            "policies": {s: found[s] for s in base.side_names}, "max_rounds": search.max_rounds}
    meta["message"] = verdict(rows, meta)
    return frame(rows, meta)


def verdict(rows: list[dict], meta: dict) -> str:
    """The answer in words: the balance as written, under the strongest play, and why."""
    def rate(r, tag):
        return f"{r[f'{tag}.win_rate']:.1%} [{r[f'{tag}.win_lo']:.1%} .. {r[f'{tag}.win_hi']:.1%}]"
    parts = []
    for r in rows:
        text = (f"{r['side']} win rate {rate(r, 'written')} as written, {rate(r, 'strongest')} under the "
                "strongest play found")
        text += (f" ({100 * r['shift']:+.1f} pts [{100 * r['shift_lo']:+.1f} .. {100 * r['shift_hi']:+.1f}], "
                 "paired)")
        parts.append(text)
    out = "; ".join(parts) + "."
    explains = [r["play_explains"] for r in rows if not math.isnan(r["play_explains"])]
    if len(rows) == 2 and explains:
        e = explains[0]
        if e > 1:
            out += (f" The strongest play reverses the as-written margin (play explains {e:.0%} of it: all of it, "
                    "and more).")
        elif e >= 0:
            out += f" Play explains {e:.0%} of the as-written margin between the sides."
        else:
            out += f" The strongest play widens the as-written margin by {-e:.0%}; play does not explain it."
    return out + search_ending(rows, meta)


def search_ending(rows: list[dict], meta: dict) -> str:
    """The verdict's last sentences, of a scenario's search or a day's: which sides' play
    changed, and whether the search settled."""
    changed = [r["side"] for r in rows if r["changes"] != "{}"]
    out = (" Found policies differ from the file for " + ", ".join(changed) + "." if changed
           else " No side found a play clearly better than the file's.")
    if meta["cycled"]:
        out += (" The best responses went round in a circle (a play came back after the others answered it): "
                "each side's best play depends on the other's, so no single strongest play exists and the "
                "figures are for the last play in the circle; the history lists every step.")
    elif not meta["converged"]:
        out += (f" The search stopped at its limit of {meta['budget']['responses']} best responses while a side "
                "was still improving: the strongest play may be stronger still (raise --budget responses=...).")
    return out


def policy_lines(records: list[dict]) -> list[str]:
    """Per side, the policy as written and the one found, to paste into the file."""
    lines = []
    for r in records:
        lines.append(f"{r['side']}: policy as written {r['policy_written']}")
        what = "searched" if r["searched"] else "not searched"
        lines.append(f"{' ' * len(r['side'])}  strongest found ({what}) {r['policy_found']}"
                     + (f"   changes: {r['changes']}" if r["changes"] != "{}" else "   (no change)"))
    return lines


def strongest_scenario(scenario, n=None, seed=None, jobs=1, max_rounds=None, budget="normal", overrides=None,
                       start=None, progress=None):
    """(the scenario with every side's found policy substituted, optimize's table): what
    `--play best` plays. The search runs on the scenario with `overrides` applied."""
    df = optimize(scenario, n=n or 2000, seed=seed, jobs=jobs, max_rounds=max_rounds, budget=budget,
                  overrides=overrides, start=start, progress=progress)
    base = as_scenario(scenario, overrides)
    return with_policies(base, df.attrs["analysis"]["policies"]), df
