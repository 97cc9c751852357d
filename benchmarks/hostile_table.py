"""The hostile pass as a table: every command given every kind of bad file, bad number and
bad output place, each case in a folder of its own, its exit status, whether it answered in
one paragraph, and whether it left anything behind.

    python benchmarks/hostile_table.py                 # all cases; writes docs/hostile_pass.md
    python benchmarks/hostile_table.py --only odds     # the cases of one command, printed

Each case runs in-process through click's CliRunner (the same code path as the program,
but milliseconds a case); tests/test_hostile_table.py runs every case and fails on any
that ends otherwise than the table expects. What a case expects: bad input is refused with
exit 2 and one paragraph starting `error: `, before anything is written; a case marked
`ok` is valid input the command must accept (exit 0), written only where it was asked to.
"""
from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

YETI = ROOT / "scenarios/gods_and_monsters/yeti.yaml"
DAY = ROOT / "days/gods_and_monsters/road_to_hightown.yaml"
LIBRARY = ROOT / "library/gods_and_monsters.yaml"
MAX_BYTES = 5_000_000

# How each command is invoked on one scenario (FILE), small enough to be quick when valid.
SCENARIO_COMMANDS = {
    "run": ["run", "FILE", "-n", "20", "-q"],
    "validate": ["validate", "FILE"],
    "trace": ["trace", "FILE", "-n", "20"],
    "compare": ["compare", "FILE", str(YETI), "-n", "20", "-q"],
    "sweep": ["sweep", "FILE", "--vary", "sides.yeti.combatants[Yeti].defense=1,2", "-n", "20", "-q"],
    "tune": ["tune", "FILE", "--param", "sides.yeti.combatants[Yeti].survival", "--target", "yeti.win_rate=0.1",
             "-n", "20", "-q"],
    "sensitivity": ["sensitivity", "FILE", "--combatant", "Yeti", "-n", "20", "-q"],
    "tournament": ["tournament", "FILE", "--policies", "party=random,focus", "-n", "20", "-q"],
    "optimize": ["optimize", "FILE", "--budget", "quick", "-n", "20", "-q"],
    "matters": ["matters", "FILE", "-n", "20", "-q"],
    "odds": ["odds", "FILE"],
    "gauntlet": ["gauntlet", "FILE", "--party", "party", "--until", "2", "-n", "20", "-q"],
    "balance": ["balance", "FILE", "--param", "sides.yeti.combatants[Yeti].survival", "--target",
                "yeti.win_rate=0.1", "--max-designs", "3", "-n", "20", "-q"],
}
# Commands whose FILE is not a scenario: every bad file is bad for them too.
OTHER_FILE_COMMANDS = {
    "import": ["import", "FILE", "--ruleset", "gods_and_monsters", "-o", "out.yaml"],
    "rerun": ["rerun", "FILE"],
}
DAY_COMMANDS = {"day": ["day", "FILE", "-n", "20", "-q"]}
# Commands that play: their numbers and their outputs are tried too.
PLAYING = ("run", "trace", "compare", "sweep", "tune", "sensitivity", "tournament", "optimize", "matters",
           "gauntlet", "day", "balance")
WRITES_OUT = ("run", "sweep", "tune", "sensitivity", "tournament", "optimize", "matters", "odds", "day", "balance")
WRITES_REPORT = ("run", "compare", "sweep", "tune", "sensitivity", "tournament", "optimize", "matters", "gauntlet",
                 "day", "balance")
# A case still going after this long has hung (a pipe opened for reading waits for a writer).
CASE_SECONDS = 60


@dataclass
class Case:
    command: str
    what: str
    args: list[str]
    expect: str = "refused"  # or "ok"
    make: object = None  # make(folder) -> the file put in place of FILE (a Path or a str)


def _text(content: str):
    def make(folder: Path) -> Path:
        p = folder / "input.yaml"
        p.write_text(content, encoding="utf-8")
        return p
    return make


def _bytes(content: bytes):
    def make(folder: Path) -> Path:
        p = folder / "input.yaml"
        p.write_bytes(content)
        return p
    return make


def _yeti(old: str, new: str):
    text = YETI.read_text(encoding="utf-8")
    assert old in text, old
    return _text(text.replace(old, new, 1))


def _folder(folder: Path) -> Path:
    (folder / "a_folder").mkdir()
    return folder / "a_folder"


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "pipe.yaml")
    return folder / "pipe.yaml"


def _big(folder: Path) -> Path:
    p = folder / "big.yaml"
    with open(p, "wb") as fh:
        fh.write(b"# padding\n" * (MAX_BYTES // 10 + 10))
    return p


def _deep(folder: Path) -> Path:
    p = folder / "deep.yaml"
    p.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    return p


def _circle(folder: Path) -> Path:
    (folder / "a.yaml").write_text("include: b.yaml\nbestiary: {}\n", encoding="utf-8")
    (folder / "b.yaml").write_text("include: a.yaml\nbestiary: {}\n", encoding="utf-8")
    text = YETI.read_text(encoding="utf-8")
    p = folder / "input.yaml"
    p.write_text("include: a.yaml\n" + text, encoding="utf-8")
    return p


LAUGHS = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))

FILE_KINDS = [
    ("a missing file", lambda folder: folder / "nowhere.yaml"),
    ("a folder", _folder),
    ("an empty file", _text("")),
    ("only a comment", _text("# nothing here\n")),
    ("binary bytes", _bytes(b"\x00\xff\xfe\x00" * 64)),
    ("Latin-1 text, not UTF-8", _bytes("name: Ogre caf\xe9\n".encode("latin-1"))),
    ("a tab in the indentation", _text("name: x\nsides:\n\tparty: {}\n")),
    ("a YAML list at the top", _text("- a\n- b\n")),
    ("a number at the top", _text("42\n")),
    ("a duplicate key", _yeti("name: Yeti in the snowy mountains", "name: a\nname: b")),
    ("an unknown ruleset", _yeti("ruleset: gods_and_monsters", "ruleset: gurps")),
    ("no sides", _text("name: x\nruleset: gods_and_monsters\n")),
    ("a side without combatants", _text("name: x\nruleset: gods_and_monsters\nsides:\n  a: {combatants: []}\n"
                                        "  b: {combatants: []}\n")),
    ("a negative survival", _yeti("survival: ", "survival: -5 #")),
    ("a misspelt stat", _yeti("survival: ", "survivl: ")),
    ("a billion laughs", _text(LAUGHS)),
    ("5,000 nested lists", _deep),
    ("a file over the size limit", _big),
    ("a named pipe", _fifo),
    ("a character device", lambda folder: Path("/dev/zero")),
    ("an include of /etc/passwd", _yeti("ruleset: gods_and_monsters", "ruleset: gods_and_monsters\n"
                                        "include: /etc/passwd")),
    ("an include of a missing file", _yeti("ruleset: gods_and_monsters", "ruleset: gods_and_monsters\n"
                                           "include: nowhere/lib.yaml")),
    ("a circle of includes", _circle),
    ("a python object tag", _text("name: !!python/object/apply:os.system ['echo owned']\n")),
    ("a library where a fight goes", lambda folder: LIBRARY),
    ("a day file where a fight goes", lambda folder: DAY),
    ("a 400-digit number", _yeti("survival: ", f"survival: {'9' * 400} #")),
]

BAD_NUMBERS = [("-n", "0"), ("-n", "-5"), ("-n", "many"), ("-n", "1e99"), ("-n", "2.5"),
               ("--seed", "-1"), ("--seed", "seed"), ("--seed", str(2 ** 64)),
               ("--jobs", "0"), ("--jobs", "-2"), ("--jobs", "two"),
               ("--max-rounds", "0"), ("--max-rounds", "soon")]
BAD_SETS = ["sides.nobody.combatants[X].survival=3", "sides.yeti.combatants[Yeti].survival=lots",
            "sides.yeti.combatants[Yeti].survival", "rules.no_such_rule=1", "=5",
            "sides.yeti.combatants[Yeti].survival=!!python/object/apply:os.system [id]"]


def _out_cases(command: str, base: list[str]) -> list[Case]:
    out = []
    if command in WRITES_OUT:
        out.append(Case(command, "--out in a folder not made yet", base + ["--out", "new/x.parquet"], "ok"))
        # A day's --out is a folder of tables; every other --out is one table's file name.
        folder = "ok" if command in DAY_COMMANDS else "refused"
        out.append(Case(command, "--out onto a folder", base + ["--out", "."], folder))
        out.append(Case(command, "--out onto a folder, with a slash", base + ["--out", "sub/"], folder))
        for what, target in (("--out where nobody may write", "/proc/x.parquet"),
                             ("--out below a file", f"{YETI}/x.parquet")):
            out.append(Case(command, what, base + ["--out", target]))
    if command in WRITES_REPORT:
        for what, target in (("--report onto a file", str(YETI)), ("--report where nobody may write", "/proc/x"),
                             ("--report inside a file", f"{YETI}/page")):
            out.append(Case(command, what, base + ["--report", target]))
    return out


def _unknown_option(command: str, base: list[str]) -> Case:
    return Case(command, "an unknown option", base + ["--skirmishs", "5"])


def cases() -> list[Case]:
    out: list[Case] = []
    for command, base in OTHER_FILE_COMMANDS.items():
        for what, make in FILE_KINDS:
            out.append(Case(command, f"FILE is {what}", list(base), "refused", make))
    for command, base in {**SCENARIO_COMMANDS, **DAY_COMMANDS}.items():
        valid = str(DAY if command in DAY_COMMANDS else YETI)
        for what, make in FILE_KINDS:
            if command in DAY_COMMANDS and what == "a day file where a fight goes":
                what, make = "a fight file where a day goes", (lambda folder: YETI)
            # validate checks a library as a library; a tournament or optimize of a day file is the day's.
            expect = "ok" if (command, what) in (("validate", "a library where a fight goes"),
                                                 ("tournament", "a day file where a fight goes"),
                                                 ("optimize", "a day file where a fight goes")) else "refused"
            out.append(Case(command, f"FILE is {what}", list(base), expect, make))
        filled = [valid if a == "FILE" else a for a in base]
        out.append(_unknown_option(command, filled))
        if command in PLAYING:
            for option, value in BAD_NUMBERS:
                args = _without(filled, option) + [option, value]
                out.append(Case(command, f"{option} {value}", args))
            for text in BAD_SETS:
                out.append(Case(command, f"--set {text[:40]}", filled + ["--set", text]))
        out += _out_cases(command, filled)
    return out


def _without(args: list[str], option: str) -> list[str]:
    aliases = {"-n": ("-n", "--skirmishes", "--days"), "--jobs": ("--jobs", "-j")}.get(option, (option,))
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in aliases:
            skip = True
            continue
        out.append(a)
    return out


@dataclass
class Outcome:
    case: Case
    status: int
    paragraph: bool
    traceback: bool
    left: list[str]
    said: str
    seconds: float

    @property
    def as_expected(self) -> bool:
        if self.traceback:
            return False
        if self.case.expect == "ok":  # 3: finished, a target or limit not reached (tune, optimize, balance)
            return self.status in (0, 3)
        return self.status == 2 and self.paragraph and not self.left


def play(case: Case) -> Outcome:
    from click.testing import CliRunner

    from sim.cli import main
    with tempfile.TemporaryDirectory(prefix="hostile-") as scratch:
        folder = Path(scratch)
        inputs = folder / "inputs"
        inputs.mkdir()
        args = list(case.args)
        if case.make is not None:
            target = case.make(inputs)
            args = [str(target) if a == "FILE" else a for a in args]
        before = _listing(folder)
        started = time.perf_counter()
        cwd = os.getcwd()
        os.chdir(folder)
        previous = signal.signal(signal.SIGALRM, _hung)
        signal.alarm(CASE_SECONDS)
        try:
            result = CliRunner().invoke(main, args)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
            os.chdir(cwd)
        seconds = time.perf_counter() - started
        left = sorted(set(_listing(folder)) - set(before))
    # The case's folder is new each time: the table names it CASE, so reruns give the same page.
    err = (result.stderr if hasattr(result, "stderr") else result.output).replace(str(folder), "CASE")
    lines = [line for line in err.strip().splitlines() if line.strip()]
    paragraph = len(lines) == 1 and lines[0].startswith("error: ")
    if case.command == "validate" and len(lines) > 1:  # validate lists every problem, a line each, and counts them
        paragraph = all(line.startswith("error: ") for line in lines[:-1]) and "problem" in lines[-1]
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    said = (lines[0] if lines else "")[:160]
    if crashed:
        said = f"{type(result.exception).__name__}: {result.exception}"[:160]
    return Outcome(case, result.exit_code, paragraph, crashed or "Traceback" in err, left, said, seconds)


class Hung(Exception):
    pass


def _hung(signum, frame):
    raise Hung(f"still going after {CASE_SECONDS} s")


def _listing(folder: Path) -> list[str]:
    return [str(p.relative_to(folder)) for p in folder.rglob("*") if "inputs" not in p.relative_to(folder).parts[:1]]


def table(outcomes: list[Outcome]) -> str:
    rows = ["| # | command | case | expected | exit | one paragraph | left behind | as expected | what it said |",
            "|---|---|---|---|---|---|---|---|---|"]
    for i, o in enumerate(outcomes, 1):
        said = o.said.replace("|", "\\|").replace(str(ROOT) + "/", "")
        rows.append(f"| {i} | {o.case.command} | {o.case.what.replace('|', '/')} | {o.case.expect} | {o.status} | "
                    f"{'yes' if o.paragraph else 'no'} | {', '.join(o.left) or '-'} | "
                    f"{'yes' if o.as_expected else '**no**'} | {said} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    chosen = [c for c in cases() if only is None or c.command == only]
    started = time.perf_counter()
    outcomes = [play(c) for c in chosen]
    slowest = sorted(outcomes, key=lambda o: -o.seconds)[:8]
    print("slowest:", "; ".join(f"{o.case.command} / {o.case.what} {o.seconds:.1f} s" for o in slowest))
    bad = [o for o in outcomes if not o.as_expected]
    summary = (f"{len(outcomes)} cases, {len(outcomes) - len(bad)} as expected, {len(bad)} not, in "
               f"{time.perf_counter() - started:.0f} s.")
    if only is None:
        from sim.io import atomic_write_text
        atomic_write_text(ROOT / "docs/hostile_pass.md", PAGE_HEAD + summary + "\n\n" + table(outcomes) + "\n")
    for o in bad:
        print(f"NOT AS EXPECTED: {o.case.command} / {o.case.what}: exit {o.status}, paragraph {o.paragraph}, "
              f"left {o.left}: {o.said}")
    print(summary)
    return 1 if bad else 0


PAGE_HEAD = """# The hostile pass

Every command given every kind of bad file, bad number, bad `--set` and bad place to
write, each case in a folder of its own (`benchmarks/hostile_table.py`, which writes this
page; `tests/test_hostile_table.py` plays every case). Expected: bad input is refused with
exit status 2 and one paragraph starting `error: `, and nothing is left behind in the
case's folder; an `ok` case is valid input the command accepts. Interrupting with Ctrl-C
(exit 130, nothing half-written) is tried in real processes by tests/test_faults*.py.

"""

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
