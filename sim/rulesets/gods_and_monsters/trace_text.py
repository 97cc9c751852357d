"""The blow-by-blow text of a traced skirmish, from the rows of the kernel's event buffer."""
from __future__ import annotations

import numpy as np

from sim import battlefield as bf
from sim.rulesets.gods_and_monsters import schema as S
from sim.rulesets.gods_and_monsters import tables as T
from sim.rulesets.gods_and_monsters.attacks import (
    EV_RIDER, R_CARRIED, R_EXTRA_HIT, R_EXTRA_MISS, R_KILL, R_KNOCKED, R_ROLLS_WITH)

KIND_NAMES = {T.K_CALLED: "makes a called shot at", T.K_KO: "tries a knockout blow at",
              T.K_KILL: "tries a killing blow at", T.K_GRAB: "tries to grab"}
RIDERS = {
    R_KNOCKED: lambda v: f", a knockout: {v} to injuries",
    R_ROLLS_WITH: lambda v: ", the target rolls with the blow",
    R_KILL: lambda v: f", {v} of it to injuries",
    R_CARRIED: lambda v: f", its carried effect adds {v}",
    R_EXTRA_HIT: lambda v: f"; extra attack HITS for {v}",
    R_EXTRA_MISS: lambda v: "; extra attack misses",
}


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _why(setup, c: int, why: int, ct) -> str:
    """Why a combatant flees or withdraws, in the words of its policy."""
    health = None
    if why in (T.WHY_HEALTH, T.WHY_WITHDRAW_HEALTH):
        return {T.WHY_HEALTH: f" (health below flee_below {_pct(setup.cf[T.F_FLEE_BELOW, c])})",
                T.WHY_WITHDRAW_HEALTH: f" (health below withdraw_below {_pct(setup.cf[T.F_WITHDRAW_BELOW, c])})"}[why]
    if why == T.WHY_BAD_ROUND:
        return " (a bad round: it took damage and dealt none, flee_after_bad_round)"
    if why == T.WHY_ROUT:
        return f" (its side is routed: fewer than rout_below {_pct(setup.cf[T.F_ROUT_BELOW, c])} still fight)"
    if why >= T.WHY_SCRIPT:
        k = why - T.WHY_SCRIPT
        return f" (its rule {k + 1}: if {setup.rule_texts[c][k]})"
    return health or ""


def lines(setup, rows: np.ndarray) -> list[str]:
    name = lambda c: setup.names[int(c)]  # noqa: E731
    out: list[str] = []
    pos: dict[int, tuple] = {}
    for row in rows:
        code, rnd, a, b, c, d, e, f = (int(x) for x in row)
        if code == T.EV_SURPRISE:
            out.append(f"Surprise: {name(a)} ({setup.awareness[a]}) rolls {b} against Perception {c}: "
                       f"{'SURPRISED' if d else 'not surprised'}.")
        elif code == T.EV_SLEEPS:
            out.append(f"{name(a)} is asleep (carried in): an immobile target until something wakes it." if b
                       else f"{name(a)} sleeps through the first round: an immobile target.")
        elif code == T.EV_POS:
            pos[a] = (b, c, d)
        elif code == T.EV_MAP:
            if rnd == 0:
                g = setup.grid
                out.append(f"Starting positions (x, y), 1 cell = {g.cell_size:g} {g.unit}: " + ", ".join(
                    f"{name(i)} ({x}, {y})" for i, (x, y, _) in sorted(pos.items())))
            p = np.array([pos[i][:2] for i in sorted(pos)], dtype=np.int64)
            alive = np.array([bool(pos[i][2]) for i in sorted(pos)])
            labels = [n[0].upper() if setup.ct[T.C_SIDE, i] == 0 else n[0].lower() for i, n in enumerate(setup.names)]
            drawing = bf.text_map(p, labels, alive, setup.grid)
            if drawing:
                out.append(drawing)
        elif code == T.EV_ROUND:
            out.append(f"\n--- Round {rnd} ---")
        elif code == T.EV_SNAP:
            out.append(f"{name(a)} tries to snap out of surprise: rolls {b} against {c}: "
                       f"{'snaps out' if d else 'still surprised (-2 defense, -3 to rolls)'}.")
        elif code in (T.EV_WAKE,):
            out.append(f"{name(a)} wakes up.")
        elif code == T.EV_WAKES_HIT:
            out.append(f"  {name(a)} wakes up.")
        elif code == T.EV_FLEE:
            out.append(f"{name(a)} flees the fight{_why(setup, a, b, setup.ct)}.")
        elif code == T.EV_WITHDRAW:
            out.append(f"{name(a)} withdraws from the fight{_why(setup, a, b, setup.ct)}.")
        elif code == T.EV_LOST_ROUND:
            out.append(f"{name(a)} is surprised and cannot act this round.")
        elif code == T.EV_DRAW:
            out.append(f"{name(a)} draws a weapon" + (
                f" and tries to attack at once: Evasion roll {c} against {d}: "
                + ("fumbles, acts as if surprised" if e else "attacks") if b else ", which takes the round") + ".")
        elif code == T.EV_MOVE:
            out.append(f"{name(a)} moves to ({b}, {c}).")
        elif code == T.EV_LEAD:
            out.append(f"{name(a)} leads: Perception roll {b} against {c}: "
                       + ("companions take the warriors' cover bonus" if d else "no one follows") + ".")
        elif code == T.EV_ATTACK:
            out.append(_attack(setup, name, a, b, c, d, e, f))
        elif code == EV_RIDER:
            out[-1] = out[-1][:-1] + RIDERS[a](c) + "."
        elif code == T.EV_TAKES:
            out.append(f"  {name(a)} takes {b}: verve {c}, survival {d}, injuries {e}.")
        elif code == T.EV_DIES:
            out.append(f"  {name(a)} dies ({b} injuries).")
        elif code == T.EV_CONSCIOUS:
            out.append(f"  {name(a)} rolls to stay conscious: {b} against {c}: "
                       f"{'falls UNCONSCIOUS' if d else 'stays conscious'}.")
        elif code == T.EV_STRAY:
            out.append(f"  A stray missile from {name(a)} strikes {name(b)} for {c}.")
        elif code == T.EV_DISRUPT_ROLL:
            out.append(f"  {name(a)} rolls Evasion {b} against {c} to keep to its action: "
                       + ("disrupted." if d else "carries on."))
        elif code == T.EV_FALLS_FIRST:
            out.append(f"  {name(a)} " + ("falls before it can act (lost the Agility contest)." if b
                                            else "still acts this round."))
        elif code == T.EV_SPELL:
            save = S.SAVES[setup.sp[T.P_SAVE, c]]
            r, score = divmod(d, 1000)
            roll = "no save" if save == "none" else f"{save} roll {r} against {score - 500}"
            effect = ", ".join((["falls asleep"] if setup.sp[T.P_SLEEP, c] else []) + ([f"takes {f}"] if f else []))
            out.append(f"{name(a)} casts {setup.spell_names[c]} at {name(b)}: {roll}: "
                       + ((effect or "no effect") if e else "resists") + ".")
        elif code == T.EV_SPELL_DISRUPTED:
            out.append(f"  {name(a)}'s spell is disrupted (nothing is used up).")
        elif code == T.EV_LOAD:
            out.append(f"{name(a)} loads the {setup.slot_name[b]}"
                       + (" (disrupted)" if c else f": {d} of {e} actions done") + ".")
        elif code == T.EV_GRAB:
            out.append(f"  {name(b)} rolls Evasion {c} against {d}: "
                       + (f"{name(a)} has hold of it." if e else "slips the grab."))
        elif code == T.EV_STRAIN:
            (tr, ts), (hr, hs) = divmod(c, 100), divmod(d, 100)
            out.append(f"{name(a)} strains against {name(b)}'s hold (Fortitude {tr} against {ts - 50}, holder "
                       f"{hr} against {hs - 50}): " + ("breaks free and strikes back." if e == 1 else
                                                       "is immobilized." if e == 2 else "neither gives way."))
        elif code == T.EV_TIED:
            out.append(f"{name(a)} is tied up.")
        elif code == T.EV_AIM:
            out.append(f"{name(a)} takes aim at {name(b)}." if c else f"{name(a)} tries to take aim, but someone "
                       "is moving.")
        elif code == T.EV_STALLED:
            from sim.engine import stall_message
            out.append(stall_message(1, a))
        elif code == T.EV_UNFINISHED:
            out.append(f"The fight is still going after {a} rounds: counted as unfinished.")
    return out


def _attack(setup, name, a, t, need, roll, dealt, kind_level) -> str:
    kind, level = divmod(kind_level, 8)
    owner = int(setup.st[T.S_OWNER, a])
    how = "attacks" if kind == T.NORMAL else KIND_NAMES[kind]
    weapon = "" if kind == T.K_GRAB else f" with {setup.slot_name[a]}"
    extras = f" ({S.NOT_DEFENDING[level]} target)" if level else ""
    if dealt < 0:
        verdict = "miss"
    elif kind == T.K_GRAB:
        verdict = "HIT (no damage)"
    else:
        verdict = f"HIT for {dealt}" + (f" ({setup.slot_dice[a]})" if kind == T.NORMAL and not level else "")
    return f"{name(owner)} {how} {name(t)}{weapon}{extras}: needs {need} or lower, rolls {roll}: {verdict}."
