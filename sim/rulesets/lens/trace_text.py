"""The Lens kernel's trace events as text: one format per event code (kcore.E_*)."""
from __future__ import annotations

from sim.rulesets.lens import kcore as E
from sim.rulesets.lens import tables as T

BRACKETS = ("Confused", "Off-Balance", "Prepared", "Fluid")
STATES = {0: "OUT (went zero)", 1: "OUT (went zero)", 2: "DEAD"}


def _conds(bits: int) -> str:
    return ", ".join(n for k, n in enumerate(T.CONDITIONS) if bits >> k & 1)


def _faces(setup, who, ability, packed, helpers) -> str:
    talent, rest = packed % 100, packed // 100
    d1, d2, kept = rest % 100, rest // 100 % 100, packed // 1000000
    training = setup.training[who, ability]
    text = f"talent {talent}"
    if training:
        third = setup.tool[who, ability] if setup.rules["challenge"] == "tool_die" else training
        text += f", training {d1}" + (f" and {d2}" if third else "") if setup.rules["challenge"] != "tool_die" \
            else f", training {d1}, tool {d2}"
    if helpers // 10000:
        fa, fi = helpers % 100, helpers // 100 % 100
        helped = ([f"assist {fa}"] if helpers // 10000 % 2 else []) + ([f"interfere {fi}"] if helpers // 20000 else [])
        text += f" ({' and '.join(helped)}: talent counts {kept})"
    return text


def lines(setup, rows, lost: int) -> list[str]:
    def name(c):
        return setup.names[int(c)]

    out = []
    tags = setup.tags
    for code, _round, a, b, c, d, e, f in rows.tolist():
        if code == E.E_ROUND:
            out.append(f"\n--- Round {a} ---")
        elif code == E.E_START:
            out.append(f"Start: {name(a)} at ({b}, {c}).")
        elif code == E.E_INIT:
            out.append(f"Initiative: {name(a)} -> {T.OUTCOMES[b].upper()}, {BRACKETS[b]}.")
        elif code == E.E_SURPRISE:
            out.append("Surprise: " + ("the first side" if a == 1 else "every side but the first")
                       + " loses the first round's actions (reactions still allowed).")
        elif code == E.E_MOMENTUM:
            notes = [w for w, on in (("bracket", c in (0, 3)), ("goes first, -1", e), (f"conditions -{f}", f)) if on]
            out.append(f"{name(a)} ({BRACKETS[c]}, acts {'before' if d else 'after'} the opponents): {b} Momentum"
                       + (f" ({'; '.join(notes)})" if notes else "") + ".")
        elif code == E.E_FOCUS:
            out.append(f"  Side {setup.extra['scenario'].side_names[a]} focuses on {name(b)}.")
        elif code == E.E_ROLL:
            out.append(f"    {name(a)} rolls {setup.abilities[b]}: {_faces(setup, a, b, e, f)} against TN {c}: "
                       f"{d} effort{'s' if d != 1 else ''}, {T.OUTCOMES[d].capitalize()}.")
        elif code == E.E_ATTACK:
            out.append(f"  {name(a)} attacks {name(b)} with {setup.weapon_name[a]} ({setup.weapon_dice.dice[a]}, "
                       f"{tags.describe(c)}; TN {d}, Momentum {e} left)")
        elif code == E.E_CAST:
            out.append(f"  {name(a)} casts {setup.spell_name[a]} at {name(b)} ({setup.abilities[c]} vs Abjuration {d}, "
                       f"Momentum {e} left)")
        elif code == E.E_CONNECT:
            note = {0: "misses; the turn ends" if e else "misses",
                    1: {0: "misses", 1: "hits for 1 more Momentum", 2: "hits, 1 Momentum owed"}[d],
                    2: "connects", 3: "connects with an extra tag"}[b]
            out.append(f"    {T.OUTCOMES[b].upper()}: {note}.")
        elif code == E.E_NO_CHANCE:
            out.append(f"  {name(a)} does not {'cast' if b else 'attack'}: no enemy in reach can be hit at all.")
        elif code == E.E_MON_ATTACK:
            out.append(f"  {name(a)} attacks {name(b)} with {setup.slot_name[c]} ({setup.slot_dice.dice[c]}, "
                       f"{tags.describe(int(setup.slot_mask[c]))}; rolls {d}).")
        elif code == E.E_DEFEND:
            if b < 0:
                out.append(f"    {name(a)} does not defend.")
            else:
                costly = " (takes the costly branch)" if e & 1 else ""
                res = " -> attack nullified" if e & 2 else f" -> {f} damage" + (" (mitigate stacked)" if e & 4 else "")
                out.append(f"    {name(a)} defends with {T.DEFENCES[b].upper()} (TN {c}): {T.OUTCOMES[d].upper()}"
                           f"{costly}{res}.")
        elif code == E.E_SOAK:
            out.append(f"    Armor Rating {b} takes {c} down to {d}.")
        elif code == E.E_HARM:
            line = f"    {name(a)} takes {b}: Body {c}/{d}" + (f", Void {e}" if e else "")
            out.append(line + (f" -> {STATES[f]}" if f >= 0 else "") + ".")
        elif code == E.E_COND:
            out.append(f"    {name(a)} gains {_conds(b)}{' from the tags' if c == 0 else ''}.")
        elif code == E.E_RIPOSTE:
            out.append(f"    {name(a)} ripostes: {T.OUTCOMES[b].upper()}.")
        elif code == E.E_MOVE:
            out.append(f"  {name(a)} moves ({b}, {c}) -> ({d}, {e}) ({f} cells).")
        elif code == E.E_HELP:
            out.append(f"    {name(a)} {'assists' if b == 0 else 'interferes'} (Talent d{c}).")
        elif code == E.E_FORM:
            out.append(f"  {name(a)} forms {setup.spell_name[a]} (Source vs complexity {c}): "
                       f"{'formed' if b else 'not formed'}.")
        elif code == E.E_USE:
            cost = f % 100
            out.append(f"  {name(a)} uses {setup.item_name[a]} ({b} Momentum): "
                       + (f"Body +{d} -> {e}." if c else f"{f // 100}/{cost} done."))
        elif code == E.E_REARM:
            out.append(f"  {name(a)} re-arms (Use, 1 Momentum).")
        elif code == E.E_PHASE:
            out.append("  (the opponents act)" if a == 0 else "  (characters acting after the opponents)")
        elif code == E.E_END:
            out.append(f"End of round: {name(a)} had {b} Momentum, spent {c}, left {d}"
                       + (f" -> Recovery +{e} Body ({f}/{setup.body[a]})" if e else "") + ".")
        elif code == E.E_STALL:
            out.append(f"Stopped after round {a}: nothing had changed for 500 rounds.")
    if lost:
        out.append(f"(... {lost} more events not shown)")
    return out
