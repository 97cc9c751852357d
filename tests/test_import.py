"""`skirmish import` (sim/importer.py): stat blocks from a CSV or a pasted G&M stat table,
loaded exactly as a hand-written library, and every malformed input one paragraph."""
from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import sim
import sim.cli_import  # noqa: F401  (registers `import` on the group)
from sim.cli import main
from sim.dice import Dice
from sim.errors import ScenarioError
from sim.importer import export_csv, import_csv, import_stat_table, template, write_library
from sim.library import check_library_file
from sim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
RULESETS = ("gods_and_monsters", "lens", "lifeforce")
CHAPTER = Path("/work/shared/rules/gods-and-monsters-conflicts.txt")


# ----------------------------------------------------------------------------- generated rows
# Each generator gives a row's cells (as a designer types them) and the values the loader
# must hold for them afterwards (a list entry: the fields the cell gave).

def _gm_row(i: int, rng: random.Random):
    sides, bonus = rng.choice((4, 6, 8, 10)), rng.randint(0, 2)
    weapon_cells = [
        ("long sword", [{"name": "long sword", "damage": "d8"}]),
        (f"club {i % 4}: {1 + i % 2}d{sides}+{bonus} attack={i % 3}",
         [{"name": f"club {i % 4}", "damage": str(Dice(1 + i % 2, sides, bonus)), "attack": i % 3}]),
        ("short bow: d6 range=150; dagger", [{"name": "short bow", "damage": "d6", "range": 150.0},
                                            {"name": "dagger", "damage": "d4"}]),
        ("arquebus: 2d6 range=300 actions=3 loaded=2",
         [{"name": "arquebus", "damage": "2d6", "range": 300.0, "actions": 3, "loaded": 2}]),
        ("poisoned dagger: d4 carried.damage=d6 carried.save=evasion",
         [{"name": "poisoned dagger", "damage": "d4", "carried": {"damage": "d6", "save": "evasion"}}]),
        ("great club" if i != 5 else "great club: 2d6", [{"name": "great club", "damage": "2d6"}]),
    ]
    weapons, want_weapons = weapon_cells[i % 6]
    archetypes = rng.choice(((" ", []), ("warrior", ["warrior"]), ("thief; warrior", ["thief", "warrior"])))
    cells = {"name": f"Gm {i:02d}", "archetypes": archetypes[0], "level": rng.randint(0, 9),
             "survival": rng.randint(1, 60), "verve": rng.choice(("", rng.randint(0, 20))),
             "perception": rng.randint(1, 18), "willpower": rng.choice(("", rng.randint(1, 18))),
             "fortitude": rng.randint(3, 18), "combat": f"+{rng.randint(0, 4)}", "attack": rng.randint(-2, 3),
             "defense": rng.randint(-1, 7), "strength": rng.choice(("", rng.randint(3, 18))),
             "damage_bonus": rng.randint(-1, 3), "movement": rng.choice((20, 30, 37.5)),
             "awareness": rng.choice(("aware", "Unaware", "asleep")), "weapons": weapons,
             "evasion": rng.randint(5, 15), "size": rng.choice(("small", "medium", "large")),
             "head_protection": rng.randint(0, 2), "cover": rng.choice(("none", "weak", "strong")),
             "unseen": rng.choice(("true", "FALSE", "")), "high_ground": rng.choice(("yes", "no")),
             "weapon_drawn": rng.choice(("", "false"))}
    if i % 7 == 3:
        cells["attacks"] = "claw: d6; claw: d6; bite: d8 attack=1 reach=10"
    if i % 9 == 4:
        cells["spells"] = "sleep: save=willpower condition=sleep range=30 uses=2; fire dart: 2d4"
    want = _plain_expected(cells, {"archetypes": archetypes[1], "weapons": want_weapons,
                                   "awareness": cells["awareness"].lower(), "combat": int(cells["combat"]),
                                   "unseen": cells["unseen"] == "true", "high_ground": cells["high_ground"] == "yes",
                                   "weapon_drawn": cells["weapon_drawn"] != "false"},
                           {"verve": 0, "willpower": 10, "strength": None})
    if "attacks" in cells:
        want["attacks"] = [{"name": "claw", "damage": "d6"}, {"name": "claw", "damage": "d6"},
                           {"name": "bite", "damage": "d8", "attack": 1, "reach": 10.0}]
    if "spells" in cells:
        want["spells"] = [{"name": "sleep", "save": "willpower", "condition": "sleep", "range": 30.0, "uses": 2,
                           "damage": None}, {"name": "fire dart", "damage": "2d4", "save": "evasion"}]
    return cells, want


def _lens_row(i: int, rng: random.Random):
    common = {"name": f"Lens {i:02d}", "body": rng.randint(5, 30), "armor_rating": rng.randint(0, 3),
              "defense": rng.randint(2, 7), "attack_rating": rng.randint(2, 7), "abjuration_tn": rng.randint(2, 6),
              "speed": rng.choice((20, 30, 45))}
    if i % 2:
        cells = {**common, "kind": "monster", "initiative": rng.randint(0, 6),
                 "attacks": f"claw: d{rng.choice((4, 6, 8))} SLASHING; bite: 2d4 PIERCING magical reach=10",
                 "attacks_per_round": rng.choice(("", rng.randint(1, 3)))}
        want = _plain_expected(cells, {"attacks": [
            {"name": "claw", "damage": cells["attacks"].split()[1], "tags": ["SLASHING"]},
            {"name": "bite", "damage": "2d4", "tags": ["PIERCING"], "magical": True, "reach": 10.0}]},
            {"attacks_per_round": None})
        return cells, want
    weapons = [("long sword", [{"name": "long sword", "size": "medium", "workmanship": "common", "damage": None}]),
               ("spear: medium fine PIERCING reach=10 tags=sweeping",
                [{"name": "spear", "size": "medium", "workmanship": "fine", "tags": ["PIERCING", "SWEEPING"],
                  "reach": 10.0}]),
               ("bow: small common missile range=60; dagger",
                [{"name": "bow", "size": "small", "missile": True, "range": 60.0}, {"name": "dagger", "size": "tiny"}]),
               ("maul: 2d6+1 CRUSHING", [{"name": "maul", "damage": "2d6+1", "tags": ["CRUSHING"]}])][i // 2 % 4]
    talent = rng.choice(("", 6, 8, 10, 12))
    cells = {**common, "kind": rng.choice(("", "character")), "talent": talent,
             "abilities": "weapon_use: apprentice; maneuvering: 10 novice; source: journeyman"
                          + ("; evocation: 12 novice" if i % 3 == 0 else ""),
             "bonus_momentum": rng.randint(0, 2), "weapons": weapons[0],
             "shield": rng.choice(("none", "common", "fine", "")), "armor_workmanship": rng.choice(("crude", "fine")),
             "initiative_ability": rng.choice(("", "maneuvering"))}
    if i % 3 == 0:
        cells["spells"] = "firebolt: 2d4 complexity=4 BURNING range=60"
        cells["items"] = "healing draught: small 2d4 uses=2"
    want = _plain_expected(cells, {
        "weapons": weapons[1], "kind": "character", "talent": talent or 8,
        "abilities": {"weapon_use": {"training": "apprentice", "talent": None},
                      "maneuvering": {"talent": 10, "training": "novice"},
                      "source": {"training": "journeyman"},
                      **({"evocation": {"talent": 12, "training": "novice"}} if i % 3 == 0 else {})},
        "shield": cells["shield"] if cells["shield"] not in ("none", "") else None},
        {"initiative_ability": None})
    if i % 3 == 0:
        want["spells"] = [{"name": "firebolt", "damage": "2d4", "complexity": 4, "school": "evocation",
                           "tags": ["BURNING"], "range": 60.0}]
        want["items"] = [{"name": "healing draught", "size": "small", "heal": "2d4", "uses": 2}]
    return cells, want


def _lf_row(i: int, rng: random.Random):
    weapons = [("bearded axe: d10 skill=25 two_handed", [{"name": "bearded axe", "damage": "d10", "skill": 25,
                                                         "two_handed": True, "damage_type": "slashing"}]),
               ("short sword: d6 skill=20 piercing; crossbow: d8 skill=15 piercing range=30 loading",
                [{"name": "short sword", "damage": "d6", "skill": 20, "damage_type": "piercing"},
                 {"name": "crossbow", "damage": "d8", "range": 30.0, "loading": True}]),
               ("spear: d8 skill=25 piercing reach=2 two_handed", [{"name": "spear", "reach": 2.0}]),
               ("war hammer" if i != 3 else "war hammer: d8 bludgeoning skill=30 armor_penetration=2",
                [{"name": "war hammer", "damage": "d8", "damage_type": "bludgeoning", "armor_penetration": 2}])][i % 4]
    reactions = rng.choice((("", ["shield_block"]), ("none", []), ("attack_of_opportunity", ["attack_of_opportunity"]),
                            ("shield_block; attack_of_opportunity", ["shield_block", "attack_of_opportunity"])))
    cells = {"name": f"Lf {i:02d}", "hp": rng.randint(10, 60), "reaction": rng.randint(10, 40),
             "initiative": rng.choice(("", rng.randint(5, 40))), "movement": rng.randint(6, 18),
             "offence": rng.randint(-5, 10), "dodge": rng.randint(0, 30), "reflex": rng.randint(0, 30),
             "fortitude": rng.randint(0, 20), "will": rng.randint(0, 20), "athletics": rng.randint(0, 30),
             "intimidate": rng.randint(0, 20), "strength": rng.choice(("", rng.randint(20, 60))),
             "strength_benefit": rng.choice(("", rng.randint(0, 5))), "armor": rng.randint(0, 5),
             "shield": rng.choice(("", "d6", "d8")), "reactions": reactions[0], "hastened": rng.randint(0, 1),
             "slowed": rng.randint(0, 1), "surprised": rng.choice(("true", "false")), "weapons": weapons[0]}
    want = _plain_expected(cells, {"reactions": reactions[1], "weapons": weapons[1],
                                   "surprised": cells["surprised"] == "true"},
                           {"initiative": None, "strength": None, "strength_benefit": None, "shield": None})
    return cells, want


GENERATORS = {"gods_and_monsters": _gm_row, "lens": _lens_row, "lifeforce": _lf_row}


def _plain_expected(cells: dict, special: dict, empty: dict) -> dict:
    """What the loader holds for the plain number and word cells (an empty one: its default)."""
    want = {}
    for k, v in cells.items():
        if k in special:
            continue
        want[k] = empty[k] if v == "" else v if isinstance(v, (int, float)) else v
    return {**want, **special}


def _csv_text(rows: list[dict]) -> str:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="", lineterminator="\r\n")  # as Excel writes it
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _plain(value):
    """Loaded values as the expectations write them: dice as text."""
    if isinstance(value, Dice):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _matches(loaded, wanted, where: str) -> None:
    if isinstance(wanted, dict):
        for k, v in wanted.items():
            _matches(loaded[k], v, f"{where}.{k}")
    elif isinstance(wanted, list):
        assert len(loaded) == len(wanted), where
        for i, (a, b) in enumerate(zip(loaded, wanted)):
            _matches(a, b, f"{where}[{i}]")
    else:
        assert _plain(loaded) == wanted, (where, loaded, wanted)


def _scenario(tmp_path: Path, library: Path, ruleset: str, names: list[str], file: str = "fight.yaml") -> Path:
    half = len(names) // 2
    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    scen = {"name": "imported", "ruleset": ruleset, "include": f"../{library.relative_to(tmp_path)}",
            "sides": {"a": {"combatants": [{"use": n} for n in names[:half]]},
                      "b": {"combatants": [{"use": n} for n in names[half:]]}},
            "run": {"skirmishes": 300, "seed": 3, "max_rounds": 25}}
    path = folder / file
    path.write_text(yaml.safe_dump(scen, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- round trips

@pytest.mark.parametrize("ruleset", RULESETS)
def test_fifty_rows_import_load_play_and_come_back_the_same(ruleset, tmp_path):
    rng = random.Random(ruleset)
    rows, wanted = zip(*(GENERATORS[ruleset](i, rng) for i in range(50)))
    data = import_csv(_csv_text(list(rows)), ruleset)
    library = write_library(data, tmp_path / "library" / "mine.yaml")
    assert check_library_file(library).startswith(f"a {ruleset} library: 50 stat blocks")
    path = _scenario(tmp_path, library, ruleset, [r["name"] for r in rows])
    scen = load_scenario(path)
    assert [c.name for c in scen.combatants] == [r["name"] for r in rows]
    for c, want in zip(scen.combatants, wanted):
        _matches(c.stats, want, c.name)
    result = sim.run(scen)
    assert len(result.skirmishes) == 300 and set(result.skirmishes["winner"]) <= {"a", "b", "draw", "unfinished"}
    # Back to a CSV, imported again: the same stat blocks, field for field.
    again = import_csv(export_csv([c.stats for c in scen.combatants], ruleset), ruleset)
    library2 = write_library(again, tmp_path / "library" / "again.yaml")
    scen2 = load_scenario(_scenario(tmp_path, library2, ruleset, [r["name"] for r in rows], "again.yaml"))
    assert [c.stats for c in scen2.combatants] == [c.stats for c in scen.combatants]


def test_a_weapon_written_once_and_named_in_other_rows_goes_to_the_armory():
    text = ("name,survival,weapons,attacks\n"
            "Ogre,40,,great club: 2d6 attack=1\nOgre 2,30,great club,\nThug,8,\"great club; dagger\",\n"
            "Thief,6,\"cudgel: d6; long sword\",\nBrute,9,cudgel: d6,\n")
    data = import_csv(text, "gods_and_monsters")
    assert data["armory"] == {"great club": {"damage": "2d6", "attack": 1}, "cudgel": {"damage": "d6"}}
    assert data["bestiary"]["Ogre"]["attacks"] == ["great club"]
    assert data["bestiary"]["Thug"]["weapons"] == ["great club", "dagger"]
    assert data["bestiary"]["Thief"]["weapons"] == ["cudgel", "long sword"]  # the ruleset's weapon stays by name


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_template_imports_and_the_shipped_one_is_the_same(ruleset):
    text = template(ruleset)
    header = text.splitlines()[0].split(",")
    assert header == ["name", *sim.rulesets.get(ruleset).combatant_fields]
    assert len(import_csv(text, ruleset)["bestiary"]) == 2
    shipped = ROOT / "library" / "templates" / f"{ruleset}.csv"
    assert shipped.read_text(encoding="utf-8") == text, f"{shipped} is stale: write it from template({ruleset!r})"


def test_a_utf8_bom_and_excel_quirks_are_accepted(tmp_path):
    text = ("sep=,\r\nCombatant,Survival,Damage Bonus,weapons,,\r\n"
            "Hild,8,\u22121,\"long sword: d8 attack=+1\",,\r\n,,,,,\r\nOrc, 6 ,1,short sword: d6,,\r\n")
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    data = import_csv(path, "gods_and_monsters")
    assert data["bestiary"] == {
        "Hild": {"survival": 8, "damage_bonus": -1, "weapons": [{"name": "long sword", "damage": "d8", "attack": 1}]},
        "Orc": {"survival": 6, "damage_bonus": 1, "weapons": [{"name": "short sword", "damage": "d6"}]}}


def test_the_docs_show_the_templates_and_their_example_cells_import():
    doc = (ROOT / "docs" / "import.md").read_text(encoding="utf-8")
    for ruleset in RULESETS:
        assert template(ruleset) in doc, f"docs/import.md shows a stale template of {ruleset}"
    names = {"Gods & Monsters": "gods_and_monsters", "The Lens": "lens", "Lifeforce": "lifeforce"}
    base = {"gods_and_monsters": {"survival": "5", "weapons": "dagger"}, "lens": {"body": "9", "weapons": "dagger"},
            "lifeforce": {"hp": "9", "weapons": "axe: d6"}}
    ruleset, checked = None, 0
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")] if line.startswith("| ") else []
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue
        ruleset = names.get(cells[0], ruleset)
        column, cell = cells[1].strip("`"), cells[2].split("`")[1]
        row = {"name": "X", **base[ruleset], column: cell}
        if column == "attacks" and ruleset == "lens":
            row = {"name": "X", "kind": "monster", "body": "9", "attacks": cell}
        import_csv(_csv_text([row]), ruleset)
        checked += 1
    assert checked >= 12


# ----------------------------------------------------------------------------- the command

def _invoke(*args):
    return CliRunner().invoke(main, ["import", *map(str, args)])


def _one_paragraph(res) -> str:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = [line for line in res.output.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    return lines[0]


def test_the_command_writes_the_library_and_says_how_to_include_it(tmp_path):
    src = tmp_path / "goblins.csv"
    src.write_text("name,survival,defense,weapons\nGoblin,6,2,spear: d6\nGoblin chief,9,3,spear\n", encoding="utf-8")
    out = tmp_path / "library" / "goblins.yaml"
    res = _invoke(src, "--ruleset", "gods_and_monsters", "-o", out)
    assert res.exit_code == 0, res.output
    assert "wrote 2 stat blocks and 1 shared weapon (armory)" in res.output and "include:" in res.output
    assert "{use: Goblin}" in res.output
    assert yaml.safe_load(out.read_text())["bestiary"]["Goblin chief"] == {"survival": 9, "defense": 3,
                                                                           "weapons": ["spear"]}
    before = out.read_text()
    line = _one_paragraph(_invoke(src, "--ruleset", "gods_and_monsters", "-o", out))
    assert "exists" in line and "--force" in line and out.read_text() == before
    assert _invoke(src, "--ruleset", "gods_and_monsters", "-o", out, "--force").exit_code == 0


def test_the_template_is_printed_or_written(tmp_path):
    res = _invoke("--template", "lens")
    assert res.exit_code == 0 and res.output == template("lens")
    out = tmp_path / "lens.csv"
    res = _invoke("--template", "lens", "-o", out)
    assert res.exit_code == 0 and out.read_text() == template("lens")
    assert "Did you mean 'lifeforce'" in _one_paragraph(_invoke("--template", "lifeforc"))


GM = "name,survival,defense,weapons\n"
# (what is wrong, the file's text, words the one paragraph must hold)
MALFORMED = [
    ("unknown column", "name,survival,defence,weapons\nOrc,6,2,dagger\n", ["row 1", "column C", "'defence'",
                                                                           "Did you mean 'defense'"]),
    ("another ruleset's word", "name,hp,weapons\nOrc,6,dagger\n", ["column B", "'hp'", "'survival'"]),
    ("missing name column", "survival,weapons\n6,dagger\n", ["no 'name' column"]),
    ("missing required column", "name,defense,weapons\nOrc,2,dagger\n", ["no 'survival' column"]),
    ("duplicate names", GM + "Orc,6,2,dagger\nElf,5,3,dagger\nOrc,7,1,dagger\n", ["row 4 (Orc)", "column 'name'",
                                                                                   "row 2"]),
    ("empty name", GM + ",6,2,dagger\n", ["row 2", "column 'name'", "is empty"]),
    ("empty required cell", GM + "Orc,,2,dagger\n", ["row 2 (Orc)", "column 'survival'", "no default"]),
    ("non-number", GM + "Orc,6,two,dagger\n", ["row 2 (Orc)", "column 'defense'", "'two' is not a number"]),
    ("decimal comma", GM + "Orc,6,\"2,5\",dagger\n", ["column 'defense'", "with a point"]),
    ("fraction in a whole-number column", GM + "Orc,6,2.5,dagger\n", ["column 'defense'", "whole number"]),
    ("out of range", GM + "Orc,6,99,dagger\n", ["row 2 (Orc)", "column 'defense'", "got 99", "from -20 to 40",
                                                "empty for the default (0)"]),
    ("bad dice", GM + "Orc,6,2,club: 2x6\n", ["column 'weapons'", "entry 1", "'2x6' is not a dice expression"]),
    ("bad dice by key", GM + "Orc,6,2,club: damage=d\n", ["column 'weapons'", "'d' is not a dice expression"]),
    ("unknown field in a list cell", GM + "Orc,6,2,club: d6 atack=1\n", ["column 'weapons'", "unknown field 'atack'",
                                                                         "Did you mean 'attack'"]),
    ("stray word in a list cell", GM + "Orc,6,2,club: d6 sharp\n", ["column 'weapons'", "'sharp'"]),
    ("field given twice", GM + "Orc,6,2,club: d6 d8\n", ["column 'weapons'", "'damage' is given twice"]),
    ("lens: missing field in a list entry", "name,kind,body,attacks\nWolf,monster,10,bite\n",
     ["row 2 (Wolf)", "column 'attacks'", "entry 1 (bite)", "field 'damage'", "missing"]),
    ("unknown weapon", GM + "Orc,6,2,long swrd\n", ["row 2 (Orc)", "column 'weapons'", "'long swrd'",
                                                    "Did you mean 'long sword'", "after a colon"]),
    ("shared weapon written two ways", GM + "Orc,6,2,club: d6\nOgre,9,2,club: d8\nImp,3,1,club\n",
     ["row 4 (Imp)", "column 'weapons'", "row 2 (Orc) and row 3 (Ogre)"]),
    ("bad choice", GM.replace("weapons", "awareness,weapons") + "Orc,6,2,sleepy,dagger\n",
     ["column 'awareness'", "'sleepy'", "asleep"]),
    ("bad true/false", GM.replace("weapons", "unseen,weapons") + "Orc,6,2,maybe,dagger\n",
     ["column 'unseen'", "'maybe' is not true or false"]),
    ("a ruleset check across fields", GM + "Orc,6,2,arquebus: 2d6 actions=2 loaded=2\n",
     ["row 2 (Orc)", "column 'weapons', entry 1 (arquebus), field 'loaded'", "at most 1"]),
    ("no weapon at all", GM + "Orc,6,2,\n", ["row 2 (Orc)", "neither `weapons` nor `attacks`", "dagger: d4"]),
    ("empty file", "", ["is empty", "--template"]),
    ("only blank lines", "\n\n,,\n", ["only empty rows"]),
    ("header only", GM, ["header row but no stat blocks"]),
    ("semicolons", "name;survival;defense;weapons\nOrc;6;2;dagger\n", ["semicolons", "CSV UTF-8"]),
    ("Excel's sep line for semicolons", "sep=;\nname;survival\nOrc;6\n", ["semicolons"]),
    ("tabs", "name\tsurvival\tweapons\nOrc\t6\tdagger\n", ["tabs"]),
    ("ragged row, too many cells", GM + "Orc,6,2,long sword: d8, dagger: d4\n",
     ["row 2 (Orc) has 5 cells", "4 columns", "double quotes"]),
    ("ragged row, too few cells", GM + "Orc,6\n", ["row 2 (Orc) has 2 cells", "one cell per column"]),
    ("unclosed quote", GM + "Orc,6,2,\"dagger\n", ["row 2", "double quote"]),
    ("header without names", "Orc,6,2,dagger\nElf,5,3,dagger\n", ["row 1", "names no column", "header"]),
    ("duplicate column", "name,survival,defense,Defense,weapons\nOrc,6,2,3,dagger\n", ["columns C and D"]),
    ("nameless column with values", "name,survival,,weapons\nOrc,6,2,dagger\n",
     ["row 1, column C: has no name", "row 2"]),
    ("lens: a monster with a character's weapon", "name,kind,body,weapons,attacks\nWolf,monster,10,dagger,bite: d6\n",
     ["row 2 (Wolf)", "column 'weapons'", "character field"]),
    ("lens: unknown tag", "name,body,weapons\nHero,10,sword: medium common CRUSHNG\n",
     ["row 2 (Hero)", "column 'weapons'", "unknown tag 'CRUSHNG'", "CRUSHING"]),
    ("lifeforce: a bad reaction", "name,hp,reactions,weapons\nAxeman,30,parry,axe: d8\n",
     ["row 2 (Axeman)", "column 'reactions'", "'parry'"]),
]


@pytest.mark.parametrize("what,text,words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_every_malformed_file_is_one_paragraph_exit_2_and_writes_nothing(what, text, words, tmp_path):
    ruleset = what.split(":")[0] if what.split(":")[0] in RULESETS else "gods_and_monsters"
    src = tmp_path / "stat_blocks.csv"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out" / "mine.yaml"
    line = _one_paragraph(_invoke(src, "--ruleset", ruleset, "-o", out))
    for word in words:
        assert word in line, (word, line)
    assert str(src) in line
    assert not (tmp_path / "out").exists()  # not even a temporary file beside the output


@pytest.mark.parametrize("raw,words", [
    (b"\xff\xfen\x00a\x00m\x00e\x00", ["UTF-16", "CSV UTF-8"]),
    (b"name,survival,weapons\nKord\xe9,6,dagger\n", ["line 2", "0xe9", "not UTF-8"]),
    (b"PK\x03\x04rest of a zip", ["Excel workbook"]),
])
def test_files_excel_saves_the_wrong_way_are_refused_in_one_paragraph(raw, words, tmp_path):
    src = tmp_path / "sheet.csv"
    src.write_bytes(raw)
    line = _one_paragraph(_invoke(src, "--ruleset", "gods_and_monsters", "-o", tmp_path / "x.yaml"))
    assert all(w in line for w in words), line
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("args,words", [
    (["missing.csv", "--ruleset", "lens"], ["no such file"]),
    (["{src}", "--ruleset", "lense"], ["unknown ruleset 'lense'", "Did you mean 'lens'"]),
    (["{src}"], ["--ruleset"]),
    ([], ["give the CSV file"]),
    (["{src}", "--ruleset", "lens", "-o", "{tmp}/out.csv"], ["should end in .yaml"]),
    (["{src}", "--ruleset", "lens", "--stat-table"], ["Gods & Monsters"]),
    (["{src}", "--template", "lens"], ["--template"]),
])
def test_a_bad_command_line_is_one_paragraph(args, words, tmp_path):
    src = tmp_path / "a.csv"
    src.write_text("name,body\nX,3\n", encoding="utf-8")
    line = _one_paragraph(_invoke(*(a.format(src=src, tmp=tmp_path) for a in args)))
    assert all(w in line for w in words), line


def test_several_problems_are_counted_in_the_one_paragraph():
    with pytest.raises(ScenarioError) as e:
        import_csv(GM + "Orc,x,2,dagger\nElf,5,99,dagger\nImp,3,1,dagger: q\n", "gods_and_monsters")
    text = str(e.value)
    assert text.startswith("<csv>: row 2 (Orc), column 'survival'") and "2 more problems: row 3, row 4." in text


# ----------------------------------------------------------------------------- the G&M stat table

# The Conflicts chapter's two tables as the text lays them out (the rules text does not ship
# with the project; where it is on this machine, the whole chapter is read too).
CHAPTER_TABLES = """\
A successful called shot also allows carried attacks.
|
Cover |
Warriors |
Non-Warriors |
|
Weak Cover |
+1 Defense |
No bonus |
|
Strong Cover |
+2 Defense |
+1 Defense |
|
Full Cover |
+3 Defense |
+2 Defense |
In ranged combat, combatants will often try to hide behind obstacles.
There are four combatants in this example.
|
Combatant |
Survival |
Verve |
Perception |
Willpower |
Fortitude |
Combat |
Attack |
Defense |
|
Sam Stevens |
6 |
15 |
5 |
4 |
5 |
+1 |
0 |
+4 |
|
Charlotte Kordé |
5 |
14 |
10 |
9 |
5 |
+1 |
0 |
+1 |
|
Toromeen |
7 |
17 |
5 |
7 |
11 |
+2 |
+2 |
+5 |
|
Yeti |
20 |
6 |
6 |
6 |
+4 |
0 |
+3 |
Combat begins when a Yeti surprises them in the snowy mountains outside Hightown in West Highland.
"""
CHAPTER_BLOCKS = {  # the chapter's table; the Yeti row read without verve (its seven numbers)
    "Sam Stevens": (6, 15, 5, 4, 5, 1, 0, 4), "Charlotte Kordé": (5, 14, 10, 9, 5, 1, 0, 1),
    "Toromeen": (7, 17, 5, 7, 11, 2, 2, 5), "Yeti": (20, 0, 6, 6, 6, 4, 0, 3)}
COLUMNS = ("survival", "verve", "perception", "willpower", "fortitude", "combat", "attack", "defense")


def test_the_chapters_table_gives_its_four_combatants_and_the_whole_chapter_the_same():
    data = import_stat_table(CHAPTER_TABLES, weapons="claw")
    assert list(data["bestiary"]) == list(CHAPTER_BLOCKS)
    for name, numbers in CHAPTER_BLOCKS.items():
        block = data["bestiary"][name]
        assert tuple(block.get(c, 0) for c in COLUMNS) == numbers, name
        assert block["weapons"] == ["claw"]
    # The same numbers as the hand-written library's adventurers and the Yeti scenario's.
    library = yaml.safe_load((ROOT / "library/gods_and_monsters.yaml").read_text(encoding="utf-8"))["bestiary"]
    for name in ("Sam Stevens", "Charlotte Kordé", "Toromeen"):
        assert all(data["bestiary"][name].get(c, 0) == library[name].get(c, 0) for c in COLUMNS), name
    yeti = load_scenario(ROOT / "scenarios/gods_and_monsters/yeti.yaml").combatants[-1].stats
    assert all(data["bestiary"]["Yeti"].get(c, 0) == yeti[c] for c in COLUMNS)
    if CHAPTER.exists():
        assert import_stat_table(CHAPTER.read_text(encoding="utf-8"), weapons="claw") == data


def test_the_chapters_table_without_weapons_says_how_to_add_them(tmp_path):
    src = tmp_path / "chapter.txt"
    src.write_text(CHAPTER_TABLES, encoding="utf-8")
    line = _one_paragraph(_invoke(src, "--stat-table", "-o", tmp_path / "c.yaml"))
    assert "line 31 (Sam Stevens)" in line and "Weapons |" in line and "--weapons" in line
    assert "3 more problems" in line and not (tmp_path / "c.yaml").exists()


def _flattened(rows: list[list]) -> str:
    """Rows in the chapter's layout: one cell a line, ending in ' |', a '|' line before each row."""
    return "\n".join(line for row in rows for line in ("|", *(f"{cell} |" for cell in row)))


# The chapter's table with the columns a designer adds for what the prose says; the Yeti
# row, as the chapter's, one number short (no verve).
TABLE = "\n".join([
    "The party and their foe, with the weapons the prose names.",
    _flattened([["Combatant", "Survival", "Verve", "Perception", "Willpower", "Fortitude", "Combat", "Attack",
                 "Defense", "Archetypes", "Weapons", "Attacks"],
                ["Sam Stevens", 6, 15, 5, 4, 5, "+1", 0, "+4", "thief; warrior", "long sword", "-"],
                ["Yeti", 20, 6, 6, 6, "+4", 0, "+3", "-", "-", "claw; claw"]]),
    "Combat begins when a Yeti surprises them."])


def test_a_table_with_weapon_columns_loads_and_plays(tmp_path):
    src = tmp_path / "yeti.txt"
    src.write_text(TABLE, encoding="utf-8")
    out = tmp_path / "library" / "yeti.yaml"
    res = _invoke(src, "--ruleset", "gods_and_monsters", "--stat-table", "-o", out)
    assert res.exit_code == 0, res.output
    scen = load_scenario(_scenario(tmp_path, out, "gods_and_monsters", ["Sam Stevens", "Yeti"]))
    sam, yeti = (c.stats for c in scen.combatants)
    assert sam["archetypes"] == ["thief", "warrior"] and sam["weapons"][0]["damage"] == Dice(1, 8, 0)
    assert (yeti["survival"], yeti["verve"], yeti["combat"], yeti["defense"]) == (20, 0, 4, 3)
    assert [a["name"] for a in yeti["attacks"]] == ["claw", "claw"] and yeti["weapons"] == []
    assert len(sim.run(scen).skirmishes) == 300


def test_stat_lines_under_a_name_and_one_line_rows_are_read_too():
    down = ("Goblin\nSurvival | 6\nDefense | +2\nWeapons | spear: d6\n\n"
            "Name | Hobgoblin\nSurvival | 9\nWeapons | spear\n")
    data = import_stat_table(down)
    assert data["bestiary"] == {"Goblin": {"survival": 6, "defense": 2, "weapons": ["spear"]},
                                "Hobgoblin": {"survival": 9, "weapons": ["spear"]}}
    assert data["armory"] == {"spear": {"damage": "d6"}}
    across = "| Combatant | Survival | Verve | Defense |\n|---|---|---|---|\n| Orc | 6 | - | 3 |\n"
    assert import_stat_table(across, weapons="dagger")["bestiary"] == {"Orc": {"survival": 6, "defense": 3,
                                                                               "weapons": ["dagger"]}}


@pytest.mark.parametrize("text,words", [
    ("Nothing but prose here.\nAnd more.\n", ["holds no stat table"]),
    ("| Combatant | Survival | Hit Dice |\n| Orc | 6 | 2 |\n", ["line 1", "'Hit Dice'"]),
    ("| Combatant | Survival | Verve | Defense |\n| Orc | 6 |\n", ["line 2 (Orc)", "2 cells under 4 columns"]),
    ("| Combatant | Survival | Defense |\n| Orc | six | 2 |\n", ["line 2 (Orc)", "column 'survival'", "'six'"]),
    ("Survival | 6\nDefense | 2\n", ["line 1", "before any creature is named"]),
    ("Name | Orc\nSurvival | 6\nSurvival | 7\n", ["line 3 (Orc)", "a second 'Survival'"]),
])
def test_a_bad_stat_table_is_one_paragraph_naming_the_line(text, words, tmp_path):
    src = tmp_path / "paste.txt"
    src.write_text(text, encoding="utf-8")
    line = _one_paragraph(_invoke(src, "--stat-table", "--weapons", "dagger", "-o", tmp_path / "t.yaml"))
    assert all(w in line for w in words), line
    assert not (tmp_path / "t.yaml").exists()
