"""Start-up a designer does not notice: `skirmish --help`, `rules` and `validate` load
neither the engine nor Numba nor pandas (--help 0.78 CPU-s before, 0.10 after; validate
about 1.0 before, 0.3-0.4 after), and `import sim` names the API lazily."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = ("import json, sys\n"
         "from sim.cli import main\n"
         "try:\n"
         "    main(sys.argv[1:])\n"
         "except SystemExit:\n"
         "    pass\n"
         "print(json.dumps({m: m in sys.modules for m in ('numba', 'pandas', 'sim.runner', 'sim.engine')}))\n")


@pytest.mark.parametrize("command", [["--help"], ["rules", "lens"], ["rules", "lifeforce"],
                                     ["validate", "scenarios/gods_and_monsters/yeti.yaml"],
                                     ["validate", "scenarios/lens/novice_party_vs_brute.yaml"],
                                     ["validate", "scenarios/lifeforce/"]])
def test_help_rules_and_validate_load_neither_numba_nor_pandas_nor_the_engine(command):
    # Before: --help loaded pandas and the engine (0.78 CPU-s); validate and rules also
    # Numba and every kernel of the ruleset (about 1.0 CPU-s).
    out = subprocess.run([sys.executable, "-c", PROBE, *command], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == {"numba": False, "pandas": False, "sim.runner": False, "sim.engine": False}
    assert "Traceback" not in out.stderr


def test_the_api_names_and_submodules_load_on_first_use():
    import sim
    assert callable(sim.run) and callable(sim.trace) and callable(sim.load_scenario)
    assert sim.runner.CHUNK_SIZE > 0  # a submodule reached without importing it first
    assert sim.trace.__module__ == "sim.trace"  # the function, not the module of that name
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = sim.no_such_thing
