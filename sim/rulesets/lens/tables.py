"""The Lens as data: dice ladders, defence outcome rows, conditions and tags.

Everything a designer might want to retune is a row here; the condition and tag
tables can be replaced per scenario through the rule options `conditions` and `tags`.
Sources: the Lens skirmish page and, for the ladders, the public reference's challenge
and abilities tables (docs/rules/lens.md, 'The challenge').
"""
from __future__ import annotations

import numpy as np

# Outcomes of a challenge, by number of efforts (dice at or over the TN).
BOTCH, SACRIFICE, SUCCESS, TRIUMPH = 0, 1, 2, 3
OUTCOMES = ("botch", "sacrifice", "success", "triumph")
SACRIFICE_ALT = 4  # the "or" branch of a Sacrifice row, taken when the policy chooses it

TALENT_DICE = (6, 8, 10, 12)  # weakness d6, usual d8, strength d10, "freebie" d12
# Training level -> sides of the two Training dice (abilities table: Novice 2d4 .. Master 2d12).
TRAINING_DICE = {"untrained": 0, "novice": 4, "apprentice": 6, "journeyman": 8, "artisan": 10, "master": 12}
# Tags an attack may carry: "Novices can only apply one, while Masters can apply five".
TAG_CAP = {"untrained": 0, "novice": 1, "apprentice": 2, "journeyman": 3, "artisan": 4, "master": 5}
# Workmanship -> die sides (the TN column of the challenge table) and quality modifier.
WORKMANSHIP_DIE = {"crude": 2, "common": 4, "fine": 6, "superior": 8, "exquisite": 10, "legendary": 12}
WORKMANSHIP_MOD = {"crude": -1, "common": 0, "fine": 1, "superior": 2, "exquisite": 3, "legendary": 4}
# Weapon size -> number of damage dice ("TINY 1 ... LARGE 4"); LARGE needs two hands.
WEAPON_SIZE_DICE = {"tiny": 1, "small": 2, "medium": 3, "large": 4}
TWO_HANDED = {"large"}
# Item size -> Momentum to Use it. The text gives only TINY 0 and IMMENSE 7; the names
# between are this simulator's reading of "from TINY to IMMENSE", one step apart.
ITEM_SIZE_COST = {"tiny": 0, "small": 1, "medium": 2, "large": 3, "huge": 4, "giant": 5, "colossal": 6,
                  "immense": 7}

# Abilities every character has (schools of magic are added by the spells a scenario lists).
ABILITIES = ("weapon_use", "maneuvering", "shield_use", "armor_use", "abjuration", "source")

DEFENCES = ("abjure", "mitigate", "block", "dodge", "parry")
ABJURE, MITIGATE, BLOCK, DODGE, PARRY = range(5)
ACTIVE = np.array([False, False, True, True, True])
DEFENCE_ABILITY = ("abjuration", "armor_use", "shield_use", "maneuvering", "weapon_use")

CONDITIONS = ("STUN", "PRONE", "HAMSTRUNG", "DISARMED")
STUN, PRONE, HAMSTRUNG, DISARMED = range(4)

# Defence outcome rows. Columns: negate (attack nullified), ar (damage change in Armor
# Ratings: -1 reduce by AR, +1 add AR; negate 2 halves the damage), tag (tags removed; 2 = "reduce damage OR remove
# a tag", the defender's choice), def_cond / att_cond (condition the defender / the
# attacker gains), move (free move to an open adjacent square), lock (blocks locked for
# the rest of the round), riposte (free attack back), momentum (Momentum the defender
# loses). Rows 0..3 are Botch..Triumph; row 4 is the Sacrifice's "or" branch.
_COLS = ("negate", "ar", "tag", "def_cond", "att_cond", "move", "lock", "riposte", "momentum")


def _row(negate=0, ar=0, tag=0, def_cond=-1, att_cond=-1, move=0, lock=0, riposte=0, momentum=0):
    return (negate, ar, tag, def_cond, att_cond, move, lock, riposte, momentum)


FULL = _row()
DEFENCE_ROWS = {
    # Abjure's rows are not published ("Resists magical attacks"): rule option `abjure_rows`.
    "abjure": {
        "success_resists": [FULL, FULL, _row(negate=1), _row(negate=1), FULL],
        "half_on_sacrifice": [FULL, _row(), _row(negate=1), _row(negate=1), _row(negate=2)],
    },
    "mitigate": {
        # Sacrifice "Damage reduced by Armor Rating, but" breaks off: rule option `mitigate_sacrifice`.
        "reduced_with_tags": [_row(ar=1), FULL, _row(ar=-1, tag=2), _row(ar=-1, tag=1), _row(ar=-1)],
        "reduced_lose_momentum": [_row(ar=1), FULL, _row(ar=-1, tag=2), _row(ar=-1, tag=1),
                                  _row(ar=-1, momentum=1)],
        "full": [_row(ar=1), FULL, _row(ar=-1, tag=2), _row(ar=-1, tag=1), FULL],
    },
    "block": {
        "text": [_row(def_cond=STUN), FULL, _row(negate=1), _row(negate=1, att_cond=STUN), _row(negate=1, lock=1)],
    },
    "dodge": {
        # Triumph says "Full attack blocked": read as dodged
        # (docs/rules/lens.md, Gaps and contradictions, 'Dodge Triumph blocked').
        "text": [_row(def_cond=PRONE), FULL, _row(negate=1, move=1), _row(negate=1, move=1, att_cond=PRONE),
                 _row(negate=1, def_cond=HAMSTRUNG)],
    },
    "parry": {
        # Success/Triumph repeat Dodge's wording; the summary promises a riposte
        # (docs/rules/lens.md, Gaps and contradictions, 'Parry rows').
        "riposte": [_row(def_cond=DISARMED), FULL, _row(negate=1), _row(negate=1, riposte=1),
                    _row(negate=1, def_cond=HAMSTRUNG)],
        "literal": [_row(def_cond=DISARMED), FULL, _row(negate=1, move=1), _row(negate=1, move=1, att_cond=PRONE),
                    _row(negate=1, def_cond=HAMSTRUNG)],
    },
}


def defence_table(choices: dict[str, str]) -> dict[str, np.ndarray]:
    """Column arrays of shape (5 defences, 5 rows) for the chosen readings."""
    rows = [DEFENCE_ROWS[d][choices[d]] for d in DEFENCES]
    return {col: np.array([[r[i] for r in rs] for rs in rows], dtype=np.int8) for i, col in enumerate(_COLS)}


# Conditions: lasting effects are unpublished. Default (docs/rules/lens.md, Gaps and
# contradictions, 'Conditions'): each costs the bearer 1 Momentum next round; DISARMED
# also forbids Parry and weapon attacks until a 1-Momentum Use re-arms. Monsters have no
# Momentum: a condition costs them attacks.
CONDITION_FIELDS = ("momentum_loss", "attacks_lost", "no_parry", "no_weapon_attack", "no_dodge", "until_rearmed")
DEFAULT_CONDITIONS = {
    "STUN": {"momentum_loss": 1, "attacks_lost": 1, "no_parry": False, "no_weapon_attack": False,
             "no_dodge": False, "until_rearmed": False},
    "PRONE": {"momentum_loss": 1, "attacks_lost": 1, "no_parry": False, "no_weapon_attack": False,
              "no_dodge": False, "until_rearmed": False},
    "HAMSTRUNG": {"momentum_loss": 1, "attacks_lost": 1, "no_parry": False, "no_weapon_attack": False,
                  "no_dodge": False, "until_rearmed": False},
    "DISARMED": {"momentum_loss": 1, "attacks_lost": 1, "no_parry": True, "no_weapon_attack": True,
                 "no_dodge": False, "until_rearmed": True},
}

# Tags. The text names which defences CRUSHING, SWEEPING, HEAVY and PIERCING defeat;
# SLASHING, OVERBEARING, BURNING and FREEZING are named with no effect. The four
# *-ING condition tags are this simulator's addition so attacks can inflict conditions
# (and Mitigate's "remove one tag" has something to remove); a scenario may redefine all.
DEFAULT_TAGS = {
    "CRUSHING": {"defeats": ["block"], "inflicts": None, "ignores_armor": False},
    "SWEEPING": {"defeats": ["dodge"], "inflicts": None, "ignores_armor": False},
    "HEAVY": {"defeats": ["parry"], "inflicts": None, "ignores_armor": False},
    "PIERCING": {"defeats": ["mitigate"], "inflicts": None, "ignores_armor": True},
    "SLASHING": {"defeats": [], "inflicts": None, "ignores_armor": False},
    "OVERBEARING": {"defeats": [], "inflicts": None, "ignores_armor": False},
    "BURNING": {"defeats": [], "inflicts": None, "ignores_armor": False},
    "FREEZING": {"defeats": [], "inflicts": None, "ignores_armor": False},
    "STUNNING": {"defeats": [], "inflicts": "STUN", "ignores_armor": False},
    "TRIPPING": {"defeats": [], "inflicts": "PRONE", "ignores_armor": False},
    "HAMSTRINGING": {"defeats": [], "inflicts": "HAMSTRUNG", "ignores_armor": False},
    "DISARMING": {"defeats": [], "inflicts": "DISARMED", "ignores_armor": False},
}
UNREMOVABLE_TAGS = {"PIERCING"}  # "any one TAG (except PIERCING) can be removed via Mitigation"


class TagTable:
    """Tags as bit positions so an attack's tags are one integer mask."""

    def __init__(self, tags: dict):
        self.names = list(tags)
        self.bit = {n: 1 << i for i, n in enumerate(self.names)}
        self.defeat_mask = np.zeros(len(DEFENCES), dtype=np.int64)
        for name, row in tags.items():
            for d in row["defeats"]:
                self.defeat_mask[DEFENCES.index(d)] |= self.bit[name]
        self.inflicts = np.zeros((len(self.names), len(CONDITIONS)), dtype=np.int8)
        for i, (_name, row) in enumerate(tags.items()):
            if row["inflicts"]:
                self.inflicts[i, CONDITIONS.index(row["inflicts"])] = 1
        self.condition_masks = [sum(self.bit[n] for i, n in enumerate(self.names) if self.inflicts[i, k])
                                for k in range(len(CONDITIONS))]
        self.inflicting_mask = sum(self.bit[n] for n, r in tags.items() if r["inflicts"])
        self.armor_piercing_mask = sum(self.bit[n] for n, r in tags.items() if r["ignores_armor"])
        self.removable = [n for n in self.names if n not in UNREMOVABLE_TAGS and tags[n]["inflicts"]]

    def mask(self, names) -> int:
        return int(sum(self.bit[n] for n in set(names)))

    def conditions(self, mask: np.ndarray) -> np.ndarray:
        """(…, 4) bool: conditions inflicted by the tags in `mask`."""
        mask = np.asarray(mask)
        if not self.inflicts.any() or not (mask & self.inflicting_mask).any():
            return np.zeros(mask.shape + (len(CONDITIONS),), dtype=bool)
        # Condition k is inflicted when any tag that inflicts it is in the mask: one AND
        # per condition instead of unpacking every tag bit and a matrix product.
        out = np.empty(mask.shape + (len(CONDITIONS),), dtype=bool)
        for k, m in enumerate(self.condition_masks):
            out[..., k] = (mask & m) != 0
        return out

    def drop_one(self, mask: np.ndarray) -> np.ndarray:
        """Mitigation removes the first removable tag (one that inflicts a condition)."""
        out = np.asarray(mask).copy()
        done = np.zeros(out.shape, dtype=bool)
        for n in self.removable:
            b = self.bit[n]
            hit = ~done & ((out & b) != 0)
            out = np.where(hit, out & ~b, out)
            done |= hit
        return out

    def describe(self, mask: int) -> str:
        return "+".join(n for n in self.names if mask & self.bit[n]) or "no tags"
