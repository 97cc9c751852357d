"""An edited rule takes effect: the compile cache follows every source file, not only the caller's.

Numba's own cache index checks only the file of the function it compiled, so a kernel
that inlines a rule from another module kept running the old rule after that module
was edited. The probe here is the smallest such pair: a kernel in one file, the rule it
inlines in another, in a copy of the package with a cache folder of its own.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import sim

RULE = '''
from numba import njit


@njit(cache=True, inline="always")
def to_hit():
    return {value}
'''

KERNEL = '''
from numba import njit

from sim._probe_rule import to_hit


@njit(cache=True)
def hits():
    return to_hit() * 2
'''


def _run(tree: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree), "SKIRMISH_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import sim; from sim._probe_kernel import hits; print(hits())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd=tree)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_an_edited_rule_in_another_file_takes_effect(tmp_path):
    tree = tmp_path / "src"
    shutil.copytree(Path(sim.__file__).parent, tree / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "sim" / "_probe_kernel.py").write_text(KERNEL)
    rule = tree / "sim" / "_probe_rule.py"
    rule.write_text(RULE.format(value=11))
    cache = tmp_path / "cache"
    assert _run(tree, cache) == "22"
    assert _run(tree, cache) == "22"  # from the cache
    rule.write_text(RULE.format(value=12))
    assert _run(tree, cache) == "24"
    # Each state of the sources compiled into a folder of its own.
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2


def test_the_fingerprint_follows_rule_files_and_ignores_the_rest(tmp_path):
    from sim.compiled import kernel_sources, source_fingerprint

    tree = tmp_path / "sim"
    shutil.copytree(Path(sim.__file__).parent, tree, ignore=shutil.ignore_patterns("__pycache__"))
    names = {str(p.relative_to(tree)) for p in kernel_sources(tree)}
    # A constants module with no Numba in it, read by a kernel, counts; the CLI does not.
    assert "rulesets/lifeforce/layout.py" in names and "keyed.py" in names
    assert "cli.py" not in names and "summary.py" not in names
    before = source_fingerprint(tree)
    (tree / "summary.py").write_text((tree / "summary.py").read_text() + "\n# a report-only edit\n")
    assert source_fingerprint(tree) == before
    layout = tree / "rulesets" / "lifeforce" / "layout.py"
    layout.write_text(layout.read_text() + "\n# a rule edit\n")
    assert source_fingerprint(tree) != before


def test_an_import_on_the_line_after_another_is_followed(tmp_path):
    # The scan once read imports with a pattern that ran across the line end of
    # `from sim import keyed` and swallowed the next line, so `tables` went unfingerprinted.
    from sim.compiled import kernel_sources

    tree = tmp_path / "sim"
    (tree / "rules").mkdir(parents=True)
    (tree / "__init__.py").write_text("")
    (tree / "keyed.py").write_text("X = 1\n")
    (tree / "rules" / "__init__.py").write_text("")
    (tree / "rules" / "tables.py").write_text("LIMIT = 3\n")
    (tree / "rules" / "other.py").write_text("Y = 2\n")
    (tree / "rules" / "kernel.py").write_text(
        "from numba import njit\nfrom sim import keyed\nfrom sim.rules.tables import (\n    LIMIT)\n"
        "import sim.rules.other\n")
    names = {str(p.relative_to(tree)) for p in kernel_sources(tree)}
    assert {"rules/kernel.py", "keyed.py", "rules/tables.py", "rules/other.py"} <= names


def test_the_compile_notice_says_minutes_for_a_long_compile_and_seconds_for_a_short_one():
    from sim.compiled import about
    assert about(40) == "about 40 s"
    assert about(240) == "about 4 minutes"
    assert about(115) == "about 2 minutes"
