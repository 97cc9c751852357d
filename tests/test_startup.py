"""Start-up a designer does not notice: `skirmish --help` loads neither the engine nor
Numba nor pandas (0.78 CPU-s before, 0.10 after), and `import sim` names the API lazily."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = ("import json, sys\n"
         "from sim.cli import main\n"
         "try:\n"
         "    main(['--help'])\n"
         "except SystemExit:\n"
         "    pass\n"
         "print(json.dumps({m: m in sys.modules for m in ('numba', 'pandas', 'sim.runner', 'sim.engine')}))\n")


def test_help_imports_neither_numba_nor_pandas_nor_the_engine():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {"numba": False, "pandas": False, "sim.runner": False, "sim.engine": False}


def test_the_api_names_and_submodules_load_on_first_use():
    import sim
    assert callable(sim.run) and callable(sim.trace) and callable(sim.load_scenario)
    assert sim.runner.CHUNK_SIZE > 0  # a submodule reached without importing it first
    assert sim.trace.__module__ == "sim.trace"  # the function, not the module of that name
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = sim.no_such_thing
