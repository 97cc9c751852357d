"""Text from scenario files made safe to print on a terminal.

Kept out of sim/errors.py because that file is read by the compiled rules: an edit there
would recompile every ruleset. Nothing here is read by a kernel.
"""
from __future__ import annotations

import re

# Control characters (C0 but newline and tab, DEL, C1) and the bidirectional embeddings,
# overrides and isolates: a name in a shared scenario could otherwise move the cursor,
# clear the screen, set the window title or make a printed line read in another order.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text) -> str:
    """`text` with every control character written as its escape (ESC as \\x1b, U+202E
    as \\u202e); newline, tab and every printable character are left as they are."""
    return _CONTROL.sub(_escape, str(text))


def echo(message="", err: bool = False, **kw) -> None:
    """click.echo for every line the CLI prints: names and paths from scenario files reach
    the terminal as text, never as escape sequences. (JSON output has none to escape:
    json.dumps writes control characters as \\u escapes; the files written keep names as
    they are.)"""
    import click
    click.echo(terminal_safe(message), err=err, **kw)
