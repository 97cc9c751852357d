"""The Lifeforce kernel's trace: event codes it writes and the text each row becomes.

Rows are (code, round, a, b, c, d, e, f) (sim/events.py). The formats read the
scenario's names, weapons and rule options; nothing here runs inside the kernel.
"""
from __future__ import annotations

from sim import battlefield as bf
from sim.rulesets.base import STANDING
from sim.rulesets.lifeforce import tables as T

(EV_ROUND, EV_ORDER, EV_POS, EV_PHASE, EV_SURPRISED, EV_CONTESTS, EV_DECLARE, EV_MOVE, EV_PREP, EV_AOO,
 EV_ROLL, EV_STUNTS, EV_DAMAGE, EV_DOWN, EV_DISARM, EV_THREATEN, EV_PRONE, EV_ENGAGE, EV_GCHECK, EV_GEND,
 EV_NO_CHARGE, EV_FLEE, EV_KEEP_READY, EV_RETARGET_PREP, EV_HPLEFT) = range(25)

# Why a declaration drops what was being prepared (EV_DECLARE's last value).
(WHY_NONE, WHY_FAMILY, WHY_TARGET_LEFT_REACH, WHY_NEW_TARGET, WHY_RULE, WHY_CONDITION, WHY_GRAPPLE,
 WHY_THREAT) = range(8)
WHY_TEXT = ("", "the family's choice", "its target left reach", "a new target", "a scripted rule",
            "a condition", "a grapple", "a threat")

HOW = {2: "runs", 1: "charges"}  # by action code: RUN, CHARGE
ATTACK_VERBS = ("attacks", "charges into", "strikes at", "dual-strikes")
TRIGGERS = ("moves", "shoots", "steps back")
ENDS = ("Neither contests: the grapple of {} ends.", "{} ends the grapple.")


def lines(rows, names, weapons, action_names, setup_rules, grid, side, positions_labels=None) -> list[str]:
    """The trace text of one skirmish from its event rows."""
    out: list[str] = []
    nm = lambda i: names[int(i)]
    die = setup_rules["attack_die"]
    order: list[str] = []
    pos: dict[int, tuple[int, int, bool]] = {}
    pending = (0, 0, 0, 2, -1, 0)

    def flush_round():
        if order:
            out.append("Turn order: " + ", ".join(order))
            order.clear()
        if pos:
            cells = [pos[i][:2] for i in range(len(names))]
            import numpy as np
            alive = np.array([pos[i][2] for i in range(len(names))])
            labels = [(n[0].upper() if side[i] == 0 else n[0].lower()) for i, n in enumerate(names)]
            drawing = bf.text_map(np.array(cells), labels, alive, grid)
            if drawing:
                out.append(drawing)
            pos.clear()

    for row in rows:
        code, rnd, a, b, c, d, e, f = (int(v) for v in row)
        if code != EV_ORDER and code != EV_POS:
            flush_round()
        if code == EV_ROUND:
            out.append(f"\n--- Round {rnd} ---")
        elif code == EV_ORDER:
            tag = " (Hastened)" if d > 0 else " (Slowed)" if d < 0 else ""
            order.append(f"{nm(a)} [Reaction {b}, hp {c}]{tag}")
        elif code == EV_POS:
            pos[a] = (b, c, d == STANDING)
        elif code == EV_PHASE:
            out.append(f" Phase {a + 1}")
        elif code == EV_SURPRISED:
            out.append(f"  {nm(a)} is surprised and takes no action.")
        elif code == EV_CONTESTS:
            out.append(f"  {nm(a)} contests the grapple and does nothing else.")
        elif code == EV_DECLARE:
            on = f" against {nm(c)}" if c >= 0 else ""
            dropped = f" (drops {action_names[d]} with {e} AP: {WHY_TEXT[f]})" if e > 0 else ""
            out.append(f"  {nm(a)} declares {action_names[b]}{on}{dropped}.")
        elif code == EV_RETARGET_PREP:
            out.append(f"  {nm(a)} turns its prepared {action_names[b]} ({d} AP) on {nm(c)}: its target fell.")
        elif code == EV_KEEP_READY:
            out.append(f"  {nm(a)} keeps its readied {action_names[b]}.")
        elif code == EV_MOVE:
            out.append(f"  {nm(a)} {HOW.get(b, 'moves')} from ({c}, {d}) to ({e}, {f}).")
        elif code == EV_PREP:
            out.append(f"  {nm(a)}: {action_names[b]} ({'done' if e else f'{c}/{d} AP'}).")
        elif code == EV_AOO:
            out.append(f"    {nm(a)} makes an Attack of Opportunity ({'readied' if c else 'Reaction'}) "
                       f"as {nm(b)} {TRIGGERS[d]}:")
        elif code == EV_NO_CHARGE:
            out.append(f"  {nm(a)}'s charge ends with no enemy in reach.")
        elif code == EV_ROLL:
            w, verb = divmod(c, 8)
            out.append(f"  {nm(a)} {ATTACK_VERBS[verb]} {nm(b)} with {weapons[w]}: d{die} {d} {e:+d} = {d + e} "
                       f"vs Touch {f}: {'HIT' if d + e > f else 'miss'}")
        elif code == EV_STUNTS:
            names_bought = [T.STUNT_NAMES[s] + (f" x{c}" if T.STUNT_NAMES[s] == "skirmish" and c > 1 else "")
                            for s in range(len(T.STUNTS)) if b >> s & 1]
            out[-1] += f", {a} stunt point(s) -> {', '.join(names_bought) or 'nothing'}"
        elif code == EV_DAMAGE:
            pending = (a, b, c, d, e, f)
        elif code == EV_HPLEFT:
            dice, sb, bonus, mult2, shield, dmg = pending
            made = f"damage {dice}" + (f" {sb:+d} strength" if sb else "") + (f" {bonus:+d} charge" if bonus else "")
            if mult2 != 2:
                made += f" x{mult2 / 2:g} critical"
            made += f", armour {c} - penetration {d}" if e else ", armour does not apply"
            if shield >= 0:
                made += f", Shield Block {shield}"
            out[-1] += f"; {made}: {dmg} damage (hp {b})"
        elif code == EV_DOWN:
            out.append(f"      {nm(a)} drops to {b} hit points: {'DEAD' if c else 'UNCONSCIOUS'}.")
        elif code == EV_DISARM:
            out.append(f"      Disarm: {nm(a)} rolls {b} vs {c}: {'drops the weapon' if d else 'keeps it'}.")
        elif code == EV_THREATEN:
            out.append(f"      Threaten: {b} vs Will {c}: {'THREATENED' if d else 'resisted'}.")
        elif code == EV_PRONE:
            out.append(f"      Knock Prone: {b} vs Reflex {c}: {'PRONE' if d else 'keeps its feet'}.")
        elif code == EV_ENGAGE:
            if e:
                out.append(f"  {nm(a)} tries to grapple {nm(b)}: {c} vs {d}: {'GRAPPLING' if f else 'fails'}.")
            else:
                out.append(f"  {nm(a)} cannot grapple {nm(b)} now.")
        elif code == EV_GCHECK:
            out.append(f"  Grappling check: {nm(a)} {c} vs {nm(b)} {d}: {nm(e)} dominant, {T.TRACK[f].upper()}.")
        elif code == EV_GEND:
            out.append("  " + ENDS[b].format(nm(a)))
        elif code == EV_FLEE:
            out.append(f"  {nm(a)} flees the fight.")
    flush_round()
    return out
