"""Whether a Ctrl-C is pending, for code that must stop at its next safe point.

The `skirmish` process's Ctrl-C handler (sim/cli_scale.py) raises KeyboardInterrupt
once and sets the flag. The exception can land where Python drops it (a callback, a
`__del__`); long loops (playing chunks, streaming tables) then stop here instead of
running on until the watchdog ends the process with nothing said.
"""
from __future__ import annotations

INTERRUPTED = {"pending": False, "said": False}


def stop_if_interrupted() -> None:
    if INTERRUPTED["pending"]:
        raise KeyboardInterrupt
