"""The chapter's special situations compiled into static arrays and flags.

`build_situations` returns None when a scenario uses none of them: the round then runs
the core slice unchanged (same draws, same cost). Otherwise the round of extended.py
plays, and every situation that cannot arise in the scenario stays switched off by a
flag here, so it costs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.dice import Dice, DiceTable
from sim.rulesets.gods_and_monsters import schema as S

A_ = {name: i for i, name in enumerate(S.ACTIONS)}
ATTACK, HOLD, FLEE = A_["attack"], A_["hold"], A_["flee"]
CALLED, KNOCKOUT, KILL, GRAB = A_["called_shot"], A_["knockout"], A_["killing_blow"], A_["immobilize"]
TIE_UP, CAST, LEAD, COVER, RELOAD, WITHDRAW = (A_[a] for a in ("tie_up", "cast", "lead", "cover", "reload", "withdraw"))
# Actions that use the combatant's attacks this round.
ATTACKING = np.zeros(len(S.ACTIONS), dtype=bool)
ATTACKING[[ATTACK, CALLED, KNOCKOUT, KILL, GRAB, RELOAD]] = True
# "Surprised characters may not initiate complex actions such as casting spells ... or any
# of the special conflict maneuvers": these fall back to a plain attack while surprised.
MANEUVER = np.zeros(len(S.ACTIONS), dtype=bool)
MANEUVER[[CALLED, KNOCKOUT, KILL, GRAB, TIE_UP, CAST, LEAD, COVER]] = True

# Slot kinds of one round.
NORMAL, K_CALLED, K_KO, K_KILL, K_GRAB = range(5)
ND_ATTACK = np.array([S.NOT_DEFENDING_BONUS[k][0] for k in S.NOT_DEFENDING], dtype=np.int32)
ND_DAMAGE = np.array([S.NOT_DEFENDING_BONUS[k][1] for k in S.NOT_DEFENDING], dtype=np.int32)
UNAWARE, COVERED, IMMOBILE = (S.NOT_DEFENDING.index(k) for k in ("unaware", "covered", "immobile"))
COVER_TABLE = np.array([S.COVER_BONUS[k] for k in S.COVER_LEVELS], dtype=np.int32)  # (level, [warrior, other])
STRONG, FULL = S.COVER_LEVELS.index("strong"), S.COVER_LEVELS.index("full")
HELD_NONE, HELD_GRABBED, HELD_IMMOBILIZED = 0, 1, 2
FOREVER = 1 << 30


@dataclass
class Situations:
    warrior: np.ndarray  # (C,) bool
    evasion: np.ndarray
    agility: np.ndarray
    size: np.ndarray
    head: np.ndarray
    movement_bonus: np.ndarray  # (C,) bonus on disruption reactions
    save_scores: np.ndarray  # (C, len(SAVES)) the score of each reaction roll; "none" never saves
    cover_level: np.ndarray  # (C,) index into COVER_LEVELS
    level: np.ndarray  # (C,)
    slot_ranged: np.ndarray  # (A,) bool
    close_reach: np.ndarray  # (C, C) cells within which two opponents are in close combat
    slot_actions: np.ndarray  # (A,)
    slot_loaded0: np.ndarray  # (A,)
    carried_dice: DiceTable | None
    carried_save: np.ndarray  # (A,) index into SAVES, -1 without a carried effect
    pair_mod: np.ndarray | None  # (A, C) need change per slot and target: high ground, unseen targets
    spell_owner: np.ndarray  # (S,)
    spell_names: list
    spell_dice: DiceTable | None
    spell_save: np.ndarray
    spell_sleep: np.ndarray  # (S,) bool
    spell_range: np.ndarray  # (S,) cells
    spell_uses: np.ndarray  # (S,) FOREVER when unlimited
    # policy parameters per combatant
    called_when: np.ndarray
    knockout: np.ndarray
    killing: np.ndarray
    grab_when: np.ndarray
    hold_attack: np.ndarray
    tie_up: np.ndarray
    lead: np.ndarray
    cover_aim: np.ndarray
    cast: np.ndarray
    reload: np.ndarray
    quick_draw: np.ndarray
    extra_unaware: np.ndarray
    withdraw_below: np.ndarray
    rout_below: np.ndarray
    undrawn: np.ndarray  # (C,) bool
    ko_points: np.ndarray  # (C,) injuries a knockout blow by this attacker deals
    # flags: which situations can arise at all
    into_melee: bool
    cover_any: bool
    multi: bool
    spells: bool
    draw: bool
    called: bool  # any called shot can be made (incl. knockout, kill, grab)
    grab: bool
    immobile: bool  # immobile targets can exist
    unaware: bool
    extra: bool  # extra attack rolls can happen (warriors vs unaware, covering)
    aim: bool  # covering
    leading: bool
    morale: bool  # withdraw or rout
    scripted_extra: bool  # scripted rules use actions beyond attack/hold/flee


def _scripted_actions(policies) -> set:
    return {r.action for p in policies for r in p.rules}


def build_situations(scenario, slot_owner: np.ndarray, slot_entries: list, grid,
                     force: bool = False) -> Situations | None:
    rules = scenario.rules
    cs = scenario.combatants
    C = len(cs)
    pols = [c.policy.params for c in cs]
    stat = lambda key: np.array([c.stats[key] for c in cs], dtype=np.int32)
    pol = lambda key, dtype=bool: np.array([p[key] for p in pols], dtype=dtype)
    warrior_arch = {a.lower() for a in rules["warrior_archetypes"]}
    warrior = np.array([any(a.lower() in warrior_arch for a in c.stats["archetypes"]) for c in cs])
    scripted = _scripted_actions([c.policy for c in cs])
    extra_actions = scripted - {ATTACK, HOLD, FLEE}

    slot_ranged = np.array([bool(e["range"]) for e in slot_entries])
    slot_actions = np.array([e["actions"] for e in slot_entries], dtype=np.int32)
    slot_loaded0 = np.array([min(e["actions"] - 1, e["loaded"]) if e["loaded"] is not None else e["actions"] - 1
                             for e in slot_entries], dtype=np.int32)
    carried = [e["carried"] for e in slot_entries]
    has_carried = any(x is not None for x in carried)
    carried_dice = DiceTable([x["damage"] if x else Dice(0, 0, 0) for x in carried]) if has_carried else None
    carried_save = np.array([S.SAVES.index(x["save"]) if x else -1 for x in carried], dtype=np.int32)

    high = np.array([c.stats["high_ground"] and p["high_ground"] != "none" for c, p in zip(cs, pols)])
    unseen = np.array([c.stats["unseen"] for c in cs])
    pair_mod = None
    if high.any() or unseen.any():
        # +1 to attack (or to defense) "from the higher end of a reasonable slope": only
        # against an opponent who lacks the advantage.
        atk = np.array([p["high_ground"] == "attack" for p in pols])
        owner = slot_owner
        pm = np.zeros((len(slot_owner), C), dtype=np.int32)
        pm += (high[owner] & atk[owner])[:, None] & ~high[None, :]
        pm -= (~high[owner])[:, None] & (high & ~atk)[None, :]
        pm *= S.HIGH_GROUND_BONUS
        penalty = np.where(slot_ranged, S.UNSEEN_PENALTY["ranged"], S.UNSEEN_PENALTY["close"])
        pm -= penalty[:, None] * unseen[None, :]
        pair_mod = pm.astype(np.int32)

    spells = [(i, sp) for i, c in enumerate(cs) for sp in c.stats["spells"]]
    spell_dice = DiceTable([sp["damage"] or Dice(0, 0, 0) for _, sp in spells]) if spells else None

    cover_level = np.array([S.COVER_LEVELS.index(c.stats["cover"]) for c in cs], dtype=np.int32)
    awareness = [c.stats["awareness"] for c in cs]
    undrawn = ~np.array([c.stats["weapon_drawn"] for c in cs])
    called_when = np.array([S.CALLED_SHOT_WHEN.index(p["called_shot"]) for p in pols], dtype=np.int8)
    grab_when = np.array([S.IMMOBILIZE_WHEN.index(p["immobilize"]) for p in pols], dtype=np.int8)
    knockout, lead, cover_aim = pol("knockout"), pol("lead"), pol("cover")
    lead &= warrior
    # float64 like the health they are compared with: 0.3 as float32 is a hair above 0.3.
    withdraw_below, rout_below = pol("withdraw_below", np.float64), pol("rout_below", np.float64)
    extra_unaware = pol("unaware_extra_attack") & warrior

    into_melee = bool(rules["firing_into_close_combat"] and slot_ranged.any())
    multi = bool((slot_actions > 1).any())
    grab = bool((grab_when > 0).any() or GRAB in scripted)
    sleep_spell = any(sp["condition"] == "sleep" for _, sp in spells)
    sleepers = bool(rules["sleepers_immobile"] and "asleep" in awareness)
    immobile = grab or sleep_spell or sleepers
    unaware = bool(rules["surprised_are_unaware"] and any(a != "aware" for a in awareness))
    aim = bool(cover_aim.any() or COVER in scripted)
    called = bool((called_when > 0).any() or grab or knockout.any() or bool(scripted & {CALLED, KNOCKOUT, KILL})
                  or (immobile and pol("killing_blow").any()))
    used = (into_melee or bool((cover_level > 0).any()) or pair_mod is not None or multi or bool(spells)
            or bool(undrawn.any()) or called or immobile or unaware or aim or bool(lead.any())
            or bool((withdraw_below > 0).any() or (rout_below > 0).any()) or bool(extra_actions) or has_carried)
    if not (used or force):
        return None
    melee = np.array([max([grid.cells(e["reach"]) for e, o in zip(slot_entries, slot_owner) if o == i
                           and not e["range"]], default=1) for i in range(C)], dtype=np.int32)
    ev = stat("evasion")
    saves = np.stack([ev, stat("willpower"), stat("fortitude"), stat("perception"), stat("agility"),
                      np.full(C, -100, dtype=np.int32)], axis=1)
    move_bonus = (np.array([c.stats["movement"] for c in cs]) // 10).astype(np.int32) \
        if rules["disruption_movement_bonus"] else np.zeros(C, dtype=np.int32)
    ko = np.where(warrior, rules["warrior_knockout_injuries"], rules["knockout_injuries"]).astype(np.int32)
    return Situations(
        warrior=warrior, evasion=ev, agility=stat("agility"),
        size=np.array([S.SIZES.index(c.stats["size"]) for c in cs], dtype=np.int32),
        head=stat("head_protection"), movement_bonus=move_bonus, save_scores=saves, cover_level=cover_level,
        level=stat("level"), slot_ranged=slot_ranged, close_reach=np.maximum(melee[:, None], melee[None, :]), slot_actions=slot_actions, slot_loaded0=slot_loaded0,
        carried_dice=carried_dice, carried_save=carried_save, pair_mod=pair_mod,
        spell_owner=np.array([i for i, _ in spells], dtype=np.int32),
        spell_names=[sp["name"] for _, sp in spells], spell_dice=spell_dice,
        spell_save=np.array([S.SAVES.index(sp["save"]) for _, sp in spells], dtype=np.int32),
        spell_sleep=np.array([sp["condition"] == "sleep" for _, sp in spells], dtype=bool),
        spell_range=np.array([grid.cells(sp["range"]) for _, sp in spells], dtype=np.int32),
        spell_uses=np.array([sp["uses"] if sp["uses"] else FOREVER for _, sp in spells], dtype=np.int32),
        called_when=called_when, knockout=knockout, killing=pol("killing_blow"), grab_when=grab_when,
        hold_attack=np.array([p["hold_then"] == "attack" for p in pols]), tie_up=pol("tie_up"), lead=lead,
        cover_aim=cover_aim, cast=pol("cast"),
        reload=np.array([("out_of_close_combat", "always", "never").index(p["reload"]) for p in pols], dtype=np.int8),
        quick_draw=pol("quick_draw"), extra_unaware=extra_unaware, withdraw_below=withdraw_below,
        rout_below=rout_below, undrawn=undrawn, ko_points=ko,
        into_melee=into_melee, cover_any=bool((cover_level > 0).any() or lead.any() or into_melee), multi=multi,
        spells=bool(spells), draw=bool(undrawn.any()), called=called, grab=grab, immobile=immobile,
        unaware=unaware, extra=bool((extra_unaware.any() and unaware) or aim), aim=aim,
        leading=bool(lead.any() or LEAD in scripted), morale=bool((withdraw_below > 0).any() or (rout_below > 0).any()),
        scripted_extra=bool(extra_actions),
    )


def contest(roll_a, score_a, roll_b, score_b, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """(a wins, b wins) of a contest of d20 roll-under rolls."""
    ok_a, ok_b = roll_a <= score_a, roll_b <= score_b
    a_wins, b_wins = ok_a & ~ok_b, ok_b & ~ok_a
    if rule == "higher_success":
        both = ok_a & ok_b
        a_wins |= both & (roll_a > roll_b)
        b_wins |= both & (roll_b > roll_a)
    return a_wins, b_wins


def half_up(x):
    return (x + 1) // 2
