"""Telling the designer when a challenge cannot succeed at all.

Novice Training dice are d4: against TN 5 or more only the Talent die can reach, so every
roll is a Botch or a Sacrifice. The check runs over every character's rolls that the
scenario makes certain: attacks against each enemy's Defense (or Abjuration TN for a
spell), forming its spell, and each defence against each enemy's Attack Rating.
"""
from __future__ import annotations

from sim.rulesets.lens import challenge as CH
from sim.rulesets.lens import tables as T


def _names(ab) -> str:
    return ab.replace("_", " ")


def warnings(scenario) -> list[str]:
    setup = scenario.ruleset.build(scenario)
    rules = scenario.rules
    out: list[str] = []
    seen = set()

    def check(c, ability, tn, what):
        a = setup.abilities.index(ability)
        probs = CH.outcome_probs(int(setup.talent[c, a]), int(setup.training[c, a]), max(int(tn), 1),
                                 rules["challenge"], int(setup.tool[c, a]), int(setup.qmod[c, a]))
        key = (setup.names[c], ability, int(tn))
        if key in seen:
            return
        seen.add(key)
        dice = f"Talent d{setup.talent[c, a]}" + (f", Training 2d{setup.training[c, a]}"
                                                   if setup.training[c, a] else ", untrained")
        if probs[0] >= 1.0:
            out.append(f"{setup.names[c]}'s {_names(ability)} ({dice}) cannot reach TN {tn} ({what}): every roll "
                       "is a Botch.")
        elif probs[2] + probs[3] <= 0.0:
            out.append(f"{setup.names[c]}'s {_names(ability)} ({dice}) cannot succeed against TN {tn} ({what}): "
                       "every roll is a Botch or a Sacrifice.")

    for c in range(len(setup.names)):
        if not setup.is_char[c]:
            continue
        for j in range(len(setup.names)):
            if setup.side[j] == setup.side[c]:
                continue
            if setup.has_weapon[c]:
                check(c, "weapon_use", setup.defense[j], f"{setup.names[j]}'s Defense")
            if setup.has_spell[c]:
                check(c, setup.abilities[setup.spell_school[c]], setup.abj_tn[j], f"{setup.names[j]}'s Abjuration")
            for d, ability in enumerate(T.DEFENCE_ABILITY):
                usable = {"mitigate": setup.armor[c] > 0, "block": setup.shield[c],
                          "parry": setup.has_weapon[c], "dodge": True,
                          "abjure": bool(setup.slot_magical[setup.slot_owner == j].any() or setup.has_spell[j])
                          }[T.DEFENCES[d]]
                if usable and setup.pol["defences"][c, d]:
                    check(c, ability, setup.attack_rating[j], f"{T.DEFENCES[d]} against {setup.names[j]}")
        if setup.has_spell[c] and not setup.auto_cast[c]:
            check(c, "source", setup.spell_tn[c], f"forming {setup.spell_name[c]}")
    return out
