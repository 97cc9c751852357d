"""Names from a shared scenario file reach the terminal escaped, never as control
sequences (issue 33, "Security"), while the tables and JSON keep them exactly as written.

The hostile copy of the Yeti names its scenario, a side, a combatant and its own file
with ESC sequences (clear screen, colour, window title), BEL, CR and a right-to-left
override; each command runs as the real CLI in a subprocess, as a user would start it.
"""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from sim.io import read_meta
from sim.progress import progress_bar
from sim.terminal import terminal_safe
from tests.process_helpers import ROOT, YETI

SCENARIO = "Yeti\x1b[2J\rOWNED\x07\u202eevil"
SIDE = "par\x1b[31mty\u202e"
COMBATANT = "Toro\x1b]0;pwned\x07meen\r"
STEM = "ye\x1bti"
SHOWN = {  # as each is printed
    SCENARIO: "Yeti\\x1b[2J\\x0dOWNED\\x07\\u202eevil",
    SIDE: "par\\x1b[31mty\\u202e",
    COMBATANT: "Toro\\x1b]0;pwned\\x07meen\\x0d",
    STEM: "ye\\x1bti",
}
# Everything a terminal acts on but newline and tab: C0, DEL, C1 and the bidi controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
N = "300"


def test_terminal_safe_writes_each_control_character_as_its_escape():
    assert terminal_safe(SCENARIO) == "Yeti\\x1b[2J\\x0dOWNED\\x07\\u202eevil"
    assert terminal_safe("a\x00b\x08c\x0bd\x0ce\x1ff\x7fg\x80h\x9bi\x9fj") == \
        "a\\x00b\\x08c\\x0bd\\x0ce\\x1ff\\x7fg\\x80h\\x9bi\\x9fj"
    assert terminal_safe("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") == \
        "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
    # Line structure, indentation and every printable character (accents, other scripts,
    # a zero-width joiner in an emoji) stay as written; a backslash is left alone.
    assert terminal_safe("Charlotte Kordé\n\tОрк 🧙‍♂️ a\\x1b") == "Charlotte Kordé\n\tОрк 🧙‍♂️ a\\x1b"
    assert terminal_safe(42) == "42"


def test_the_progress_bar_label_is_escaped():
    stream = io.StringIO()
    with progress_bar(10, desc=STEM, enabled=True, stream=stream, delay=0) as update:
        update(5)
    drawn = stream.getvalue()
    assert SHOWN[STEM] in drawn
    # tqdm draws with CR (and ESC[A on a multi-line bar) itself; the label's own ESC must not be there.
    assert "ye\x1bti" not in drawn


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    text = (ROOT / YETI).read_text(encoding="utf-8")
    for old, new in (("name: Yeti in the snowy mountains", f"name: {json.dumps(SCENARIO)}"),
                     ("\n  party:\n", f"\n  {json.dumps(SIDE)}:\n"),
                     ("- name: Toromeen", f"- name: {json.dumps(COMBATANT)}")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path_factory.mktemp("hostile") / f"{STEM}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _cli(*args) -> tuple[int, str]:
    """Exit status and everything printed, stdout then stderr (undecoded bytes kept as escapes,
    so a raw control byte cannot hide in a decoding error)."""
    p = subprocess.run([sys.executable, "-m", "sim.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                       timeout=600)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "backslashreplace")


def _assert_escaped(printed: str, *names: str) -> None:
    assert "Traceback" not in printed, printed
    raw = sorted(set(RAW.findall(printed)))
    assert not raw, f"raw control characters {raw} printed:\n{printed!r}"
    for name in names:
        assert SHOWN[name] in printed, f"{SHOWN[name]} missing from:\n{printed}"


def test_validate_prints_the_file_and_side_names_escaped(hostile):
    status, printed = _cli("validate", hostile)
    assert status == 0, printed
    _assert_escaped(printed, STEM, SIDE)


def test_run_prints_names_escaped_and_the_tables_keep_them_as_written(hostile, tmp_path):
    out = tmp_path / "yeti.parquet"
    status, printed = _cli("run", "-n", N, "--out", out, hostile)
    assert status == 0, printed
    _assert_escaped(printed, SCENARIO, SIDE, COMBATANT)
    skirmishes, combatants = pd.read_parquet(out), pd.read_parquet(out.with_suffix(".combatants.parquet"))
    assert SIDE in set(skirmishes["winner"].astype(str))
    assert {SIDE, "yeti"} == set(combatants["side"].astype(str))
    assert COMBATANT in set(combatants["combatant"].astype(str))
    meta = read_meta(out.with_suffix(".combatants.parquet"))
    assert meta["scenario"] == SCENARIO
    assert Path(meta["scenario_file"]).name == f"{STEM}.yaml"


def test_run_json_keeps_the_names_as_written(hostile):
    status, printed = _cli("run", "-n", N, "--json", hostile)
    assert status == 0, printed
    assert not RAW.findall(printed)  # json.dumps writes them as \\u escapes
    summary = json.loads(printed)
    assert summary["scenario"] == SCENARIO
    assert set(summary["sides"]) == {SIDE, "yeti"}
    assert COMBATANT in {c["name"] for c in summary["combatants"]}


def test_trace_prints_names_escaped(hostile):
    status, printed = _cli("trace", hostile)
    assert status == 0, printed
    _assert_escaped(printed, SCENARIO, SIDE, COMBATANT)


def test_compare_prints_names_escaped(hostile):
    status, printed = _cli("compare", "-n", N, hostile, hostile)
    assert status == 0, printed
    _assert_escaped(printed, SCENARIO, SIDE, COMBATANT)


def test_sweep_prints_names_escaped_and_its_table_keeps_them(hostile, tmp_path):
    out = tmp_path / "sweep.parquet"
    status, printed = _cli("sweep", "-n", N, "--vary", "sides.yeti.combatants[Yeti].defense=2,3", "--out", out,
                           hostile)
    assert status == 0, printed
    _assert_escaped(printed, SIDE)
    table = pd.read_parquet(out)
    assert any(SIDE in str(c) for c in table.columns), list(table.columns)


def test_tournament_prints_names_escaped(hostile):
    status, printed = _cli("tournament", "-n", N, "--policies", "yeti=random,weakest", hostile)
    assert status == 0, printed
    _assert_escaped(printed, SIDE)


def test_an_error_naming_the_side_is_one_escaped_paragraph(hostile, tmp_path):
    bad = tmp_path / f"{STEM}.yaml"
    bad.write_text(hostile.read_text(encoding="utf-8").replace("survival: 7", "survival: -7"), encoding="utf-8")
    for command in ("validate", "run"):
        status, printed = _cli(command, "-n", N, bad) if command == "run" else _cli(command, bad)
        assert status == 2, printed
        _assert_escaped(printed, STEM, SIDE)
        assert len(printed.strip().splitlines()) == 1, printed


def test_reports_of_hostile_names_print_nothing_raw(hostile, tmp_path):
    # The figures draw the names too: matplotlib's warning about a glyph missing from the
    # font quoted each control character raw, once per figure.
    status, printed = _cli("run", "-n", N, "--out", tmp_path / "t.parquet", "--report", tmp_path / "r1", hostile)
    assert status == 0, printed
    _assert_escaped(printed, SCENARIO, SIDE, COMBATANT)
    assert "missing from font" not in printed
    status, printed = _cli("report", tmp_path / "t.parquet", "-o", tmp_path / "r2")
    assert status == 0, printed
    _assert_escaped(printed)
    assert printed.strip().splitlines() == [f"wrote {tmp_path / 'r2' / 'index.html'}"]
