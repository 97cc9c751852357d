"""The gap to the strongest play: how far each side's default play is from its best response.

    python benchmarks/play_gap.py                                  # every shipped scenario, quick budget
    python benchmarks/play_gap.py scenarios/lens/greatsword_vs_dagger.yaml --budget normal -n 8000
    python benchmarks/play_gap.py --json gap.json --write          # and its section of docs/analysis.md
    python benchmarks/play_gap.py --from-json gap.json --write     # the section again, from a saved run

Each scenario (scenarios/*/*.yaml, or the files named) is played with every policy
removed: the side policies, each combatant's own policy and the scripted `rules:` inside
them, and any `policies:` a file defines, so every side plays its ruleset's default.
Then `optimize` searches each side alone (its own best response, every other side at
the default) and the row gives the default's win rate, the best response's, and the
paired gain between them on the same -n skirmishes (95% intervals: Wilson for the rates,
paired for the gain), whether the search converged (its last best response found no
improvement) within the budget, the CPU seconds of the search and the policy found as
the fields it changes. One process, -j 1 by default: the figures are CPU seconds of a
shared two-core machine.

--write replaces the section "The gap to the strongest play" of docs/analysis.md: the
hand-written text between its heading and the MARK line stays, above the measured part.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from sim.scenario import Scenario  # noqa: E402

from benchmarks.doc_section import replace_section  # noqa: E402

TITLE = "## The gap to the strongest play"
AIM = 3.0  # points: the default play should be within this of each side's best response
DOC = ROOT / "docs" / "analysis.md"
# What the section's hand-written text above the table ends with.
MARK = "<!-- written by benchmarks/play_gap.py below: a --write replaces it -->"
LABELS = {"gods_and_monsters": "G&M", "lens": "Lens", "lifeforce": "Lifeforce"}


def shipped() -> list[Path]:
    return sorted((ROOT / "scenarios").glob("*/*.yaml"))


def strip_policies(data: dict) -> dict:
    """A copy of a scenario dict with every policy removed (side and combatant policies,
    scripted rules with them, and the `policies:` definitions); all else as it was."""
    out = copy.deepcopy(data)
    out.pop("policies", None)
    for side in (out.get("sides") or {}).values():
        if not isinstance(side, dict):
            continue
        side.pop("policy", None)
        for c in side.get("combatants") or []:
            if isinstance(c, dict):
                c.pop("policy", None)
    return out


def default_play(path_or_scenario):
    """The scenario (a path, or one loaded from its file: includes and `use:` resolved)
    with every policy removed, still naming its file."""
    import sim
    written = path_or_scenario if isinstance(path_or_scenario, Scenario) else sim.load_scenario(path_or_scenario)
    scen = sim.load_scenario(strip_policies(written.data))
    scen.source = str(written.source)
    return scen


def side_gap(scen, side: str, n: int, budget, seed=None, jobs: int = 1, max_rounds=None, progress=None) -> dict:
    """One side's own best response against the default play of the others: a row."""
    from sim.analysis.optimize import optimize
    t0 = time.process_time()
    df = optimize(scen, n=n, seed=seed, jobs=jobs, max_rounds=max_rounds, sides=[side], budget=budget,
                  progress=progress)
    cpu = time.process_time() - t0
    meta = df.attrs["analysis"]
    r = df[df["side"] == side].iloc[0]
    row = {"ruleset": scen.ruleset_name, "scenario_stem": Path(str(scen.source)).stem, "side": side,
           "skirmishes": int(r["skirmishes"])}
    for tag, col in (("default", "written"), ("best", "own_best")):
        for stat in ("win_rate", "win_lo", "win_hi"):
            row[f"{tag}.{stat}"] = float(r[f"{col}.{stat}"])
    row.update(gain=float(r["own_gain"]), gain_lo=float(r["own_gain_lo"]), gain_hi=float(r["own_gain_hi"]),
               converged=bool(meta["converged"]), cycled=bool(meta["cycled"]), responses=int(meta["responses"]),
               search_skirmishes=int(meta["search_skirmishes"]), cpu_seconds=round(cpu, 2),
               changes=r["changes"], policy_found=r["policy_found"])
    prov = ("scenario", "scenario_file", "scenario_hash", "variant_hash", "seed", "rule_options", "package_version")
    row.update({k: r[k] for k in prov})
    return row


def play_gap(paths, n: int = 4000, budget="quick", seed=None, jobs: int = 1, max_rounds=None,
             bar=None, log=None) -> pd.DataFrame:
    """One row per (scenario, side) of `paths`; `log(text)` hears a line per scenario and
    `bar(label)` is a context manager giving each search its progress callback (or None)."""
    import sim
    from sim.analysis.optimize import parse_budget
    budget = parse_budget(budget)
    bar = bar or (lambda label: nullcontext())
    rows = []
    for i, path in enumerate(paths):
        written = sim.load_scenario(path)
        scen = default_play(written)
        got = []
        for s in scen.side_names:
            # A bar per search: each search announces its own total as it goes.
            with bar(f"{Path(path).stem} {s}") as progress:
                got.append(side_gap(scen, s, n, budget, seed, jobs, max_rounds, progress))
            # scenario_hash is the stripped scenario's, the one played; this names the file's version.
            got[-1]["file_hash"] = written.hash
        rows += got
        if log:
            log(f"[{i + 1}/{len(paths)}] {scen.ruleset_name}/{Path(path).stem}: " + "; ".join(
                f"{g['side']} {100 * g['gain']:+.1f} pts{'' if g['converged'] else ' (not converged)'}"
                for g in got) + f" ({sum(g['cpu_seconds'] for g in got):.0f} CPU-s)")
    df = pd.DataFrame(rows)
    df.attrs["analysis"] = {"command": "play_gap", "skirmishes": n, "budget": budget.__dict__, "jobs": jobs,
                            "aim_points": AIM}
    return df


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _rate(r, tag: str) -> str:
    return f"{100 * r[f'{tag}.win_rate']:.1f}% [{100 * r[f'{tag}.win_lo']:.1f}, {100 * r[f'{tag}.win_hi']:.1f}]"


def over_aim(df: pd.DataFrame) -> pd.DataFrame:
    """The sides whose best response gains more than the aim (the figure; the interval is in the table)."""
    return df[100 * df["gain"] > AIM]


def kept_above(page: Path = DOC) -> list[str]:
    """The hand-written lines between the section's heading and MARK on the page, which
    a --write keeps above the table (doc_section keeps only what follows its KEEP line)."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    start = text.find(TITLE + "\n")
    end = text.find(MARK, start) if start >= 0 else -1
    if end < 0:
        return []
    return text[start + len(TITLE) + 1:end].strip("\n").splitlines() + [""]


def section(df: pd.DataFrame, page: Path = DOC) -> str:
    meta = df.attrs["analysis"]
    b = meta["budget"]
    over = over_aim(df)
    named = ", ".join(f"{LABELS.get(r.ruleset, r.ruleset)} {r.scenario_stem} {r.side} "
                      f"({_pts(r.gain)} [{_pts(r.gain_lo)}, {_pts(r.gain_hi)}])"
                      for r in over.sort_values("gain", ascending=False).itertuples())
    lines = [TITLE, "", *kept_above(page), MARK, "",
             f"Measured by `benchmarks/play_gap.py` (-n {meta['skirmishes']}, budget responses={b['responses']}, "
             f"far={b['far']}, first={b['first']}, rungs={b['rungs']}, confirm={b['confirm']}, -j {meta['jobs']}): "
             "win rates with their 95% Wilson intervals, the gain with its paired 95% interval.",
             "",
             (f"Sides that gain more than {AIM:.0f} points ({len(over)} of {len(df)}): {named}." if len(over)
              else f"No side gains more than {AIM:.0f} points."),
             "",
             "| ruleset | scenario | side | default | best | gain, pts | converged | CPU-s | policy found |",
             "|---|---|---|---:|---:|---:|:-:|---:|---|"]
    for r in df.to_dict("records"):
        change = r["changes"] if r["changes"] != "{}" else "(the default)"
        lines.append(f"| {LABELS.get(r['ruleset'], r['ruleset'])} | {r['scenario_stem']} | {r['side']} | "
                     f"{_rate(r, 'default')} | {_rate(r, 'best')} | {_pts(r['gain'])} "
                     f"[{_pts(r['gain_lo'])}, {_pts(r['gain_hi'])}] | {'yes' if r['converged'] else 'no'} | "
                     f"{r['cpu_seconds']:.1f} | `{change}` |")
    total = df["cpu_seconds"].sum()
    lines += ["", f"{len(df)} sides of {df['scenario_stem'].nunique()} scenarios, {total / 60:.1f} CPU-minutes in all."]
    return "\n".join(lines) + "\n"


def to_json(df: pd.DataFrame) -> str:
    def clean(v):
        return None if isinstance(v, float) and math.isnan(v) else v
    rows = [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]
    return json.dumps({"analysis": df.attrs["analysis"], "rows": rows}, indent=1, default=str) + "\n"


def from_json(path: Path) -> pd.DataFrame:
    """The frame a --json run wrote."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    df = pd.DataFrame(doc["rows"])
    df.attrs["analysis"] = doc["analysis"]
    return df


def main() -> None:
    from sim.errors import ScenarioError
    from sim.progress import progress_bar
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*", type=Path, help="scenario files (default every shipped one)")
    ap.add_argument("-n", type=int, default=4000, help="skirmishes for each reported figure")
    ap.add_argument("--budget", default="quick", help="quick, normal, thorough, or key=value pairs (as optimize)")
    ap.add_argument("--seed", type=int, default=None, help="default: each scenario's own")
    ap.add_argument("--max-rounds", type=int, default=None)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="write the rows and settings here")
    ap.add_argument("--from-json", type=Path, default=None,
                    help="print (and --write) a saved --json run's table, playing nothing")
    ap.add_argument("--write", action="store_true", help="replace this section of docs/analysis.md")
    a = ap.parse_args()
    if a.from_json:
        if not a.from_json.is_file():
            ap.error(f"--from-json {a.from_json}: no such file; give the file a --json run wrote")
        return _finish(from_json(a.from_json), None, a.write)
    paths = a.scenarios or shipped()
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        ap.error(f"no scenario file {', '.join(missing)}; name .yaml files, or none for every shipped scenario")
    if a.n < 100:
        ap.error(f"-n {a.n}: give at least 100 skirmishes, or the intervals say nothing")
    try:
        df = play_gap(paths, a.n, a.budget, a.seed, a.jobs, a.max_rounds,
                      bar=lambda label: progress_bar(None, desc=label),
                      log=lambda t: print(t, file=sys.stderr, flush=True))
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    _finish(df, a.json, a.write)


def _finish(df: pd.DataFrame, json_out: Path | None, write: bool) -> None:
    from sim.io import atomic_write_text
    text = section(df)
    print(text)
    if json_out:
        atomic_write_text(json_out, to_json(df))
    if write:
        replace_section(text, DOC)


if __name__ == "__main__":
    main()
