"""A day's summary in words and figures, for the terminal."""
from __future__ import annotations

from sim.day.result import state_value


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _ci(ci) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def summary_text(result) -> str:
    s = result.summary()
    day = result.day
    lines = [f"{day.name} ({day.ruleset_name}): {s['days']:,} days, seed {day.run['seed']}, "
             f"stop when {day.stop_when.replace('_', ' ')}",
             f"  the party survives the day  {_pct(s['survival']['rate'])} {_ci(s['survival']['ci95'])}",
             f"  nobody dies                 {_pct(s['nobody_dies']['rate'])} {_ci(s['nobody_dies']['ci95'])}",
             f"  deaths per day              {s['deaths']['mean']:.3f} [{max(s['deaths']['ci95'][0], 0):.3f}, "
             f"{s['deaths']['ci95'][1]:.3f}]", "",
             "  fight                 met  reached  lost if reached      ends the day  rounds  (seed)"]
    seeds = {f.name: f.seed for f in day.fights}
    for f in s["fights"]:
        lines.append(f"  {f['name'][:20]:<20} {_pct(f['met'])} {_pct(f['reached'])}  {_pct(f['lost'])} "
                     f"{_ci(f['lost_ci95']):<14} {_pct(f['days_ended_here'])}  {f['rounds']:6.2f}  "
                     f"({seeds[f['name']]})")
    lines += ["", "  at the end of the day      standing  down    dead   died in"]
    for m in s["members"]:
        ranked = sorted(m["died_in"].items(), key=lambda kv: -kv[1])
        died = ", ".join(f"{k} {100 * v:.{1 if v >= 0.001 else 2}f}%" for k, v in ranked)
        lines.append(f"  {m['name'][:25]:<25} {_pct(m['standing'])} {_pct(m['unconscious'])} {_pct(m['dead'])}   "
                     f"{died or '-'}")
    value = state_value(result)
    if len(value):
        lines += ["", "  win chance by the party's health at entry (share of its full resources)"]
        for fight, g in value.groupby("fight", sort=False):
            cells = ", ".join(f"{r.entry_health} {100 * r.won:.0f}% ({r.days:,})" for r in g.itertuples())
            lines.append(f"  {fight[:20]:<20} {cells}")
    lines += ["", "  Day k plays skirmish k of each fight with the seed shown (`skirmish trace FIGHT --seed S -k K`"
              " replays a fight the party entered fresh)."]
    return "\n".join(lines)
