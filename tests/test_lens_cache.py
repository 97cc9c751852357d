"""The compiled Lens rules are all in the cache's fingerprint (sim/compiled.py).

Numba files a cached function by its own source file only; a rule inlined into another
file's function (forceinline) is baked into that file's cache entry. The fingerprint of
every file compiled code reads is what makes an edit compile afresh, so a kernel file
missing from it would run stale machine code after an edit.
"""
from __future__ import annotations

import re
from pathlib import Path

from sim import compiled

LENS = Path(compiled.__file__).resolve().parent / "rulesets" / "lens"


def test_every_compiled_lens_file_is_fingerprinted():
    compiled_files = {p for p in LENS.glob("*.py") if re.search(r"^@(inline|once|rule)\b", p.read_text(), re.M)}
    assert {"kernel.py", "kactions.py", "kblows.py", "kbeat.py", "kcore.py", "kvalue.py"} <= {p.name for p in
                                                                                           compiled_files}
    missing = compiled_files - set(compiled.kernel_sources())
    assert not missing, f"not in the cache fingerprint: {sorted(p.name for p in missing)}"
