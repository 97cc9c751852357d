"""Progress bars for runs that take more than a moment.

Bars go to stderr, so `--json` on stdout stays one clean object. They are silent when
asked (`--quiet`), when stderr is not a terminal (pipes, CI logs, notebooks' captured
streams) and for runs that end before `delay` seconds, so short runs print nothing.
The Python API is silent by default: `sim.run(..., progress=None)`.

Analyses (sweep, tune, sensitivity, tournament, compare) take the same `progress`
callback. They know their total only once they have built their variants, so they
announce it with `expect(progress, total)`; a plain callable simply ignores that.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


def wanted(quiet: bool = False, stream=None) -> bool:
    """Whether a bar should be shown: not quiet, and the stream is a terminal."""
    if quiet:
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


def expect(progress, total: int | None) -> None:
    """Tell a progress callback how many skirmishes are coming (tune adds more as it goes)."""
    announce = getattr(progress, "expect", None)
    if announce is not None:
        announce(total)


class _Ticker:
    """`update(k)` for a tqdm bar, plus `expect(total)` to set or grow its total."""

    def __init__(self, bar):
        self.bar = bar

    def __call__(self, k: int) -> None:
        self.bar.update(k)

    def expect(self, total: int | None) -> None:
        self.bar.total = total
        self.bar.refresh()


@contextmanager
def progress_bar(total: int | None, desc: str = "skirmishes", *, quiet: bool = False, enabled: bool | None = None,
                 stream=None, delay: float = 0.5, unit: str = "skirmish") -> Iterator[Callable[[int], None] | None]:
    """Yield `update(k)` to call as work finishes (k units at a time), or None when silent.

    `enabled=None` decides by `wanted(quiet, stream)`; True/False force it (tests).
    `total=None` for work whose size is announced later through `expect`.
    """
    stream = sys.stderr if stream is None else stream
    show = wanted(quiet, stream) if enabled is None else (enabled and not quiet)
    if not show:
        yield None
        return
    from tqdm import tqdm
    from sim.terminal import terminal_safe
    # The label is a file stem or scenario name: redrawn many times a second, it must not
    # carry an escape sequence to the terminal.
    bar = tqdm(total=total, desc=terminal_safe(desc), unit=unit, unit_scale=True, file=stream, delay=delay,
               leave=False, dynamic_ncols=True)
    try:
        yield _Ticker(bar)
    finally:
        bar.close()
