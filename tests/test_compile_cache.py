"""An edited rule takes effect, and the same sources compile once per machine.

Numba's own cache checks only the file of the function it compiled and files it by that
file's full path. The compile cache (sim/compiled.py, sim/kernel_cache.py) files each
kernel file's functions by a hash of every file it can read, found from its imports.
The probes here are real rules of each ruleset, written in the house style (sim/jit),
called from a small kernel inside that ruleset's package, in a copy of the package with
a cache folder of its own; they compile in seconds where a whole ruleset takes minutes.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim import compiled

PACKAGE = Path(compiled.__file__).resolve().parent

# Per ruleset: (module, rule imported, a call of it, the edit: old text, new text).
PROBES = {
    "gods_and_monsters": ("attacks", "contest_wins", "1 if contest_wins(3, 10, 15, 10, False)[0] else 2",
                          "a_wins, b_wins = ok_a and not ok_b, ok_b and not ok_a",
                          "a_wins, b_wins = ok_b and not ok_a, ok_a and not ok_b"),
    "lens": ("kcore", "die_hits", "die_hits(6, 4)", "good = sides - max(tn, 1) + 1", "good = sides - max(tn, 1) + 2"),
    "lifeforce": ("kfacts", "mask_sum", "mask_sum(table, 3, 1)",
                  "    total = 0\n    k = 0\n    while m:", "    total = 100\n    k = 0\n    while m:"),
}
BEFORE = {"gods_and_monsters": "1", "lens": "0.5", "lifeforce": "2"}
AFTER = {"gods_and_monsters": "2", "lens": str(4 / 6), "lifeforce": "102"}

PROBE = '''
from sim.jit import kernel
from sim.rulesets.{ruleset}.{module} import {name}


@kernel
def probe(table):
    return {call}
'''

REPORT = '''
import json
import importlib
import numpy as np
out = {}
for name in ("gods_and_monsters", "lens", "lifeforce"):
    probe = importlib.import_module(f"sim.rulesets.{name}._probe").probe
    value = probe(np.ones((9, 4), np.int64))  # no allocation in a kernel: the table comes in
    out[name] = [str(value), probe.stats.cache_hits.get(probe.signatures[0], 0) > 0]
print(json.dumps(out))
'''


def _copy(tree: Path) -> Path:
    shutil.copytree(PACKAGE, tree / "sim", ignore=shutil.ignore_patterns("__pycache__", "_probe.py"))
    for ruleset, (module, name, call, _, _) in PROBES.items():
        text = PROBE.format(ruleset=ruleset, module=module, name=name, call=call)
        (tree / "sim" / "rulesets" / ruleset / "_probe.py").write_text(text)
    return tree


def _run(tree: Path, cache: Path, read_only: bool = False, with_stderr: bool = False):
    env = {**os.environ, "PYTHONPATH": str(tree), "SKIRMISH_CACHE_DIR": str(cache)}
    for name in ("NUMBA_CACHE_DIR", "SKIRMISH_CACHE_NOTICE_GIVEN"):
        env.pop(name, None)
    (tree / "report.py").write_text(REPORT)
    command = [sys.executable, str(tree / "report.py")]
    if read_only:  # the cache folder mounted read-only in a mount namespace of its own
        command = ["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(cache), *command]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=tree)
    assert out.returncode == 0, out.stderr
    got = {name: (value, cached) for name, (value, cached) in json.loads(out.stdout).items()}
    return (got, out.stderr) if with_stderr else got


def _can_mount_read_only(tmp_path: Path) -> bool:
    probe = tmp_path / "mount-probe"
    probe.mkdir()
    script = f'mount --bind -o ro "{probe}" "{probe}" && ! touch "{probe}/x"'
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True)
    return done.returncode == 0


def _edit(tree: Path, ruleset: str) -> None:
    module, _, _, old, new = PROBES[ruleset]
    path = tree / "sim" / "rulesets" / ruleset / f"{module}.py"
    text = path.read_text()
    assert text.count(old) == 1, f"the probe's edit no longer matches {path.name}"
    path.write_text(text.replace(old, new))


def test_an_edited_rule_takes_effect_in_its_ruleset_only_and_a_copy_elsewhere_compiles_nothing(tmp_path):
    cache = tmp_path / "cache"
    first = _copy(tmp_path / "a")
    assert _run(first, cache) == {name: (BEFORE[name], False) for name in PROBES}  # compiled
    assert _run(first, cache) == {name: (BEFORE[name], True) for name in PROBES}   # loaded
    # The same sources elsewhere (another install path, new file times) load, not compile.
    assert _run(_copy(tmp_path / "b"), cache) == {name: (BEFORE[name], True) for name in PROBES}
    edited = set()
    for ruleset in PROBES:
        _edit(first, ruleset)
        edited.add(ruleset)
        got = _run(first, cache)
        assert got[ruleset] == (AFTER[ruleset], False), ruleset
        for other in set(PROBES) - {ruleset}:
            assert got[other] == (AFTER[other] if other in edited else BEFORE[other], True), (ruleset, other)


def test_a_damaged_cache_entry_is_compiled_again_and_said_so_once(tmp_path):
    cache = tmp_path / "cache"
    tree = _copy(tmp_path / "a")
    _run(tree, cache)
    data = next(cache.glob("numba-*/sim.rulesets.lens._probe-*/*.nbc"))
    data.write_bytes(data.read_bytes()[:40])  # a truncated entry, as a full disk leaves one
    index = next(cache.glob("numba-*/sim.rulesets.lifeforce._probe-*/*.nbi"))
    index.write_bytes(index.read_bytes()[:12] + b"garbage")
    got, err = _run(tree, cache, with_stderr=True)
    assert got == {"gods_and_monsters": ("1", True), "lens": ("0.5", False), "lifeforce": ("2", False)}
    assert err.count("damaged compile-cache entry") == 1, err
    got, err = _run(tree, cache, with_stderr=True)
    assert got == {name: (BEFORE[name], True) for name in PROBES} and "damaged" not in err


def test_a_read_only_cache_is_read_where_it_is_and_a_new_compile_serves_the_run(tmp_path):
    if not _can_mount_read_only(tmp_path):
        pytest.skip("needs a private mount namespace (unshare -m) to mount the cache read-only")
    cache = tmp_path / "cache"
    tree = _copy(tmp_path / "a")
    _run(tree, cache)
    got, err = _run(tree, cache, read_only=True, with_stderr=True)
    assert got == {name: (BEFORE[name], True) for name in PROBES} and err == ""
    _edit(tree, "lens")
    got, err = _run(tree, cache, read_only=True, with_stderr=True)
    assert got["lens"] == (AFTER["lens"], False) and got["gods_and_monsters"] == ("1", True)
    assert err.count("cannot be written") == 1 and "SKIRMISH_CACHE_DIR" in err, err
    assert not list(Path.home().glob(".cache/numba/*_probe*"))  # nothing fell back to Numba's own folder


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "sim"
    shutil.copytree(PACKAGE, tree, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_a_ruleset_fingerprint_follows_its_own_files_and_the_core_and_ignores_the_rest(tmp_path):
    tree = _tree(tmp_path)
    names = ("gods_and_monsters", "lens", "lifeforce")
    fingerprint = lambda: {n: compiled.ruleset_fingerprint(n, tree) for n in names}
    before = fingerprint()
    # Every kernel file of G&M is covered: none contains the word numba (the old scan's seed).
    gm = {p.name for p in compiled.ruleset_sources("gods_and_monsters", tree) if p.parent.name == "gods_and_monsters"}
    assert {"round.py", "fused.py", "attacks.py", "tables.py", "moves.py", "kernel.py"} <= gm
    _append(tree / "summary.py", "\n# a report-only edit\n")
    _append(tree / "compiled.py", "\n# the compile notice, which no kernel reads\n")
    _append(tree / "recipe.py", "\n# a page's replay recipe, heard through yamlload's hook, not imported\n")
    _append(tree / "rulesets" / "lifeforce" / "odds.py", "\n# reads the kernel's tables; no kernel reads it\n")
    assert fingerprint() == before
    _append(tree / "rulesets" / "lifeforce" / "layout.py", "\n# a rule edit\n")
    after = fingerprint()
    assert after["lifeforce"] != before["lifeforce"]
    assert {n: after[n] for n in ("gods_and_monsters", "lens")} == {n: before[n] for n in ("gods_and_monsters", "lens")}
    _append(tree / "rulesets" / "lens" / "__init__.py", "\n# read by lens/ktables (RULESET)\n")
    lens_edit = fingerprint()
    assert lens_edit["lens"] != after["lens"] and lens_edit["lifeforce"] == after["lifeforce"]
    _append(tree / "rulesets" / "gods_and_monsters" / "fused.py", "\n# the fused pass, a carried start\n")
    fused_edit = fingerprint()
    assert fused_edit["gods_and_monsters"] != lens_edit["gods_and_monsters"]
    assert {n: fused_edit[n] for n in ("lens", "lifeforce")} == {n: lens_edit[n] for n in ("lens", "lifeforce")}
    _append(tree / "rulesets" / "gods_and_monsters" / "attacks.py", "\n# who may make a called shot\n")
    attacks_edit = fingerprint()
    assert attacks_edit["gods_and_monsters"] != fused_edit["gods_and_monsters"]
    assert {n: attacks_edit[n] for n in ("lens", "lifeforce")} == {n: fused_edit[n] for n in ("lens", "lifeforce")}
    fused_edit = attacks_edit
    _append(tree / "rulesets" / "lifeforce" / "kduel.py", "\n# the fused duel, a carried start\n")
    duel_edit = fingerprint()
    assert duel_edit["lifeforce"] != fused_edit["lifeforce"]
    assert {n: duel_edit[n] for n in ("lens", "gods_and_monsters")} == {n: fused_edit[n] for n in
                                                                        ("lens", "gods_and_monsters")}
    lens_edit = duel_edit
    _append(tree / "keyed.py", "\n# the dice, read by every ruleset\n")
    dice_edit = fingerprint()
    assert all(v != lens_edit[n] for n, v in dice_edit.items())
    _append(tree / "jit.py", "\n# how every rule is compiled\n")
    jit_edit = fingerprint()
    assert all(v != dice_edit[n] for n, v in jit_edit.items())
    _append(tree / "link_only.py", "\n# how once and rule reach machine code\n")
    assert all(v != jit_edit[n] for n, v in fingerprint().items())


@pytest.mark.parametrize("ruleset", ["gods_and_monsters", "lens", "lifeforce"])
def test_every_file_with_a_compiled_rule_is_a_kernel_file_of_its_ruleset(ruleset):
    folder = PACKAGE / "rulesets" / ruleset
    compiles = re.compile(r"^@(inline|once|rule|kernel|njit)\b", re.M)
    decorated = {p for p in folder.glob("*.py") if compiles.search(p.read_text())}
    assert len(decorated) >= 5
    assert all(compiled.is_kernel_file(p) for p in decorated)
    missing = decorated - set(compiled.ruleset_sources(ruleset))
    assert not missing, f"not in the {ruleset} fingerprint: {sorted(p.name for p in missing)}"


def test_imports_are_read_from_the_syntax_relative_ones_too(tmp_path):
    # A pattern once ran across the line end of `from sim import keyed` and swallowed the
    # next line; and `from X import module` must not pull in X's __init__.
    tree = tmp_path / "sim"
    (tree / "rules").mkdir(parents=True)
    (tree / "__init__.py").write_text("")
    (tree / "keyed.py").write_text("X = 1\n")
    (tree / "rules" / "__init__.py").write_text("from sim import cli\n")
    (tree / "cli.py").write_text("Z = 0\n")
    for name in ("tables", "other", "near", "far"):
        (tree / "rules" / f"{name}.py").write_text(f"{name.upper()} = 3\n")
    (tree / "rules" / "kernel.py").write_text(
        "from sim.jit import rule\nfrom sim import keyed\nfrom sim.rules.tables import (\n    TABLES)\n"
        "import sim.rules.other\nfrom . import near\nfrom .far import FAR\n")
    names = {str(p.relative_to(tree)) for p in compiled.closure(tree / "rules" / "kernel.py", tree)}
    assert names == {"rules/kernel.py", "keyed.py", "rules/tables.py", "rules/other.py", "rules/near.py",
                     "rules/far.py"}
    assert compiled.is_kernel_file(tree / "rules" / "kernel.py", tree)
    assert not compiled.is_kernel_file(tree / "rules" / "tables.py", tree)


def test_the_compile_notice_says_minutes_for_a_long_compile_and_seconds_for_a_short_one():
    assert compiled.about(40) == "about 40 s"
    assert compiled.about(240) == "about 4 minutes"
    assert compiled.about(115) == "about 2 minutes"
