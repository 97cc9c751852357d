"""The Lens: a shield never used for a Block, a defence never chosen, a tag never
applied (sim/inert.py), read from the outcome columns `defended_<defence>` (how often
the combatant chose that defence), `defences_used` (their sum) and `tags_applied`
(conditions its blows applied through tags). Defences and Tag actions are the
characters' (monsters never roll), so only characters are judged on them.
"""
from __future__ import annotations

from sim.inert import blocks, item, total
from sim.rulesets.lens import schema
from sim.rulesets.lens import tables as T


def _play(c) -> dict:
    """The policy's parameters with the family's presets filled in where not written."""
    p = c.policy.params
    preset = schema.FAMILY_DEFAULTS[p["family"]]
    return {**p, **{k: v for k, v in preset.items() if p.get(k) is None}}


def _never_defends(c) -> str | None:
    """Why the policy never defends, or None when it may."""
    if _play(c)["defend"] != "never":
        return None
    if c.policy.params.get("defend") is None:
        return f"the {c.policy.params['family']} policy never defends"
    return "its policy says defend: never"


def _enemy_attacks(scenario, c) -> list[tuple[bool, bool]]:
    """(magical, missile) of every attack its enemies can make."""
    out = []
    for e in scenario.combatants:
        if e.side == c.side:
            continue
        s = e.stats
        out += [(bool(a["magical"]), bool(a["missile"])) for a in s["attacks"]]
        out += [(False, bool(w["missile"])) for w in s["weapons"]]
        out += [(True, False) for _ in s["spells"]]
    return out


def _defence_reason(scenario, c, defence: str, used: int) -> str:
    if defence not in _play(c)["defences"]:
        return f"its policy's defences leave out {defence}"
    attacks = _enemy_attacks(scenario, c)
    if defence == "abjure" and not any(magical for magical, _ in attacks):
        return "no enemy attack is magical, and Abjure answers only magic"
    if defence == "parry" and attacks and all(missile for _, missile in attacks):
        return "every enemy attack is a missile, which cannot be parried"
    never = _never_defends(c)
    if never and T.ACTIVE[T.DEFENCES.index(defence)]:  # "defend" rules the active defences only
        return never
    how = f"it defended {used:,} times in all, with other defences" if used else "it never defended"
    return f"it was never the defence chosen against the attacks it faced ({how})"


def _shield(scenario, table, label, idx, c) -> list[dict]:
    shield = c.stats["shield"]
    if not shield:
        return []
    if "defended_block" in table.columns:
        if total(scenario, table, "defended_block", idx):
            return []
    elif total(scenario, table, "defences_used", idx):
        return []  # without the per-defence counts a Block cannot be ruled out
    used = total(scenario, table, "defences_used", idx)
    return [item(label, f"shield ({shield}) never used for a Block", _defence_reason(scenario, c, "block", used))]


def _defences(scenario, table, label, idx, c) -> list[dict]:
    if not all(f"defended_{d}" in table.columns for d in T.DEFENCES):
        return []
    used = total(scenario, table, "defences_used", idx)
    by_reason: dict[str, list[str]] = {}
    for d in T.DEFENCES:
        if d == "block" or total(scenario, table, f"defended_{d}", idx):
            continue  # Block is the shield's item; without a shield there is no Block to miss
        by_reason.setdefault(_defence_reason(scenario, c, d, used), []).append(d)
    return [item(label, f"defence{'s' if len(ds) > 1 else ''} never chosen: {', '.join(ds)}", why)
            for why, ds in by_reason.items()]


def _tags(scenario, table, label, idx, c) -> list[dict]:
    if "tags_applied" not in table.columns or total(scenario, table, "tags_applied", idx):
        return []
    known = {**T.DEFAULT_TAGS, **{k.upper(): v for k, v in scenario.rules["tags"].items()}}
    s = c.stats
    carried = [t for group in ("weapons", "attacks", "spells") for w in s[group] for t in w["tags"]]
    applying = [t for t in dict.fromkeys(carried) if (known.get(t) or {}).get("inflicts")]
    if not applying:
        return []
    hits = total(scenario, table, "hits", idx)
    if not hits:
        why = "it never hit"
    elif s["kind"] == "character" and not _play(c)["tags"] and c.policy.params["family"] != "expected_value":
        why = f"its policy pays for no Tag action (tags: 0) and no Triumph added one in {hits:,} hits"
    else:
        why = f"none of its {hits:,} hits applied one"
    return [item(label, f"tag{'s' if len(applying) > 1 else ''} never applied: {', '.join(applying)}", why)]


def inert(scenario, table) -> list[dict]:
    out = []
    for label, idx, c in blocks(scenario):
        out += _tags(scenario, table, label, idx, c)
        if c.stats["kind"] == "character":
            out += _shield(scenario, table, label, idx, c) + _defences(scenario, table, label, idx, c)
    return out
