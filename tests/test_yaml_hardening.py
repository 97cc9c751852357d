"""YAML that would change meaning or exhaust the machine is refused: quickly, in bounded
memory, with exit status 2 and one paragraph (issue 17, the scenario-loader classes)."""
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from sim.cli import main
from sim.errors import ScenarioError
from sim.scenario import load_scenario
from sim.yamlload import MAX_BYTES, MAX_DEPTH, MAX_NODES, load_text

YETI = Path("scenarios/gods_and_monsters/yeti.yaml")
YETI_TEXT = YETI.read_text(encoding="utf-8")


def one_paragraph_error(path, *args):
    res = CliRunner().invoke(main, ["validate", str(path), *args])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and res.output.startswith("error: ")
    assert res.output.strip().count("\n") == 0, res.output
    return res.output


def bomb(levels: int, width: int = 9) -> str:
    """A billion-laughs document: each anchor lists the previous one `width` times."""
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


@settings(max_examples=25, deadline=None)
@given(first=st.integers(1, 50), second=st.integers(1, 50), key=st.sampled_from(["survival", "defense", "verve"]))
def test_a_key_given_twice_is_refused_with_both_lines(first, second, key):
    lines = YETI_TEXT.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{key}:"))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at:at + 1] = [f"{indent}{key}: {first}", f"{indent}{key}: {second}"]
    with pytest.raises(ScenarioError) as e:
        load_text("\n".join(lines), file="x.yaml")
    assert f"'{key}' is given twice" in str(e.value) and f"lines {at + 1} and {at + 2}" in str(e.value)


def test_a_pasted_second_side_does_not_replace_the_first(tmp_path):
    f = tmp_path / "two_parties.yaml"
    party = YETI_TEXT[YETI_TEXT.index("  party:"):YETI_TEXT.index("  yeti:")]
    f.write_text(YETI_TEXT.replace("  yeti:", party + "  yeti:"), encoding="utf-8")
    assert "'party' is given twice" in one_paragraph_error(f)


def test_merge_keys_may_be_overridden_beside_them():
    data, _ = load_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n")
    assert data["other"] == {"x": 1, "y": 3}


@settings(max_examples=10, deadline=None)
@given(levels=st.integers(6, 12), width=st.integers(8, 12))
def test_alias_bombs_are_refused_at_parse_time(levels, width):
    text = bomb(levels, width)
    if width ** levels <= MAX_NODES:  # pragma: no cover - the strategy keeps every case a bomb
        return
    start = time.perf_counter()
    with pytest.raises(ScenarioError) as e:
        load_text(text)
    assert "aliases" in str(e.value) and time.perf_counter() - start < 2


def test_an_alias_bomb_in_sweep_fails_validate_and_run(tmp_path):
    f = tmp_path / "bomb.yaml"
    block = "".join("    " + line + "\n" for line in bomb(9).splitlines())
    f.write_text(YETI_TEXT + "sweep:\n  vary:\n" + block, encoding="utf-8")
    assert len(f.read_bytes()) < 3000
    assert "aliases" in one_paragraph_error(f)
    res = CliRunner().invoke(main, ["sweep", str(f), "-n", "10"])
    assert res.exit_code == 2 and "aliases" in res.output


def test_an_alias_bomb_through_set_is_refused():
    value = "{" + bomb(9).replace("\n", ", ").rstrip(", ").replace("a0: ", "a0: ") + "}"
    res = CliRunner().invoke(main, ["run", str(YETI), "-n", "10", "--set", f"sweep={value}"])
    assert res.exit_code == 2 and "aliases" in res.output and "Traceback" not in res.output


@settings(max_examples=10, deadline=None)
@given(depth=st.integers(MAX_DEPTH + 1, 1000), flow=st.booleans())
def test_deep_nesting_is_refused_without_recursion(depth, flow):
    if flow:  # [[[...]]], or indented block mappings (their indentation grows with depth)
        text = "x: " + "[" * depth * 100 + "]" * depth * 100
    else:
        text = "".join(" " * i + f"k{i}:\n" for i in range(depth)) + " " * depth + "v\n"
    with pytest.raises(ScenarioError) as e:
        load_text(text)
    assert f"more than {MAX_DEPTH} deep" in str(e.value)


def test_nesting_500_deep_is_one_paragraph(tmp_path):
    f = tmp_path / "deep.yaml"
    f.write_text("name: " + "[" * 500 + "]" * 500 + "\n")
    assert "deep" in one_paragraph_error(f)


def test_a_big_file_is_refused_before_parsing(tmp_path):
    f = tmp_path / "big.yaml"
    f.write_text(YETI_TEXT + "#" + "x" * (3_600_000) + "\n")
    start = time.perf_counter()
    assert f"at most {MAX_BYTES:,} bytes" in one_paragraph_error(f)
    assert time.perf_counter() - start < 2


def test_the_largest_allowed_file_parses_within_seconds_and_bounded_memory(tmp_path):
    # A worst case under the limit: one flat list of ~160,000 numbers (just under 1 MB).
    f = tmp_path / "wide.yaml"
    f.write_text("name: [" + ",".join(["12345"] * ((MAX_BYTES - 20) // 6)) + "]\n")
    # The peak is read from VmHWM, which starts afresh at exec: ru_maxrss would carry over the
    # RSS of the forked pytest process (hundreds of MB late in a suite), not this parse's.
    code = ("import sys, time; from sim.yamlload import load_text, read_file; t = time.time(); "
            f"load_text(read_file({str(f)!r})); "
            "hwm = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM')); "
            "print(time.time() - t, hwm)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    seconds, max_rss_kb = out.stdout.split()
    assert float(seconds) < 10 and int(max_rss_kb) < 600_000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "scenario.yaml"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "sim.cli", "validate", str(fifo)], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unreadable_file_is_one_paragraph(tmp_path, monkeypatch):
    f = tmp_path / "locked.yaml"
    f.write_text(YETI_TEXT)
    real_open = os.open

    def refuse(path, *a, **k):  # as root chmod 000 still reads, so the refusal is simulated
        if str(path) == str(f):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)
    monkeypatch.setattr(os, "open", refuse)
    assert "Permission denied" in one_paragraph_error(f)


def test_a_folder_and_a_missing_file_are_one_paragraph(tmp_path):
    assert "no such file" in one_paragraph_error(tmp_path / "nope.yaml")
    with pytest.raises(ScenarioError, match="is a folder"):
        load_scenario(tmp_path)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_a_scenario_or_one_scenario_error(text):
    """Random text never escapes as anything but a ScenarioError, and never takes long."""
    start = time.perf_counter()
    try:
        load_text(text)
    except ScenarioError as e:
        assert "\n" not in str(e).strip()
    assert time.perf_counter() - start < 2


def test_limits_leave_the_shipped_scenarios_alone():
    for p in sorted(Path("scenarios").rglob("*.yaml")) + sorted(Path("library").glob("*.yaml")):
        assert load_text(p.read_text(encoding="utf-8"))[0] == yaml.safe_load(p.read_text(encoding="utf-8"))


def test_memory_of_a_refused_bomb_stays_small():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ScenarioError):
        load_text(bomb(12))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB
