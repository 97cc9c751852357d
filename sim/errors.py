"""User-facing errors: one paragraph that names the file, the field and what to change."""
from __future__ import annotations

import difflib


class ScenarioError(Exception):
    """Bad scenario input. The CLI prints `str(err)` and exits with status 2."""

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None):
        self.file = file
        self.path = path
        self.message = message
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.path:
            where.append(f"field '{self.path}'")
        prefix = ", ".join(where)
        return _printable(f"{prefix}: {self.message}" if prefix else self.message)

    def located(self, file: str | None = None) -> "ScenarioError":
        """Attach the file name once the loader knows it (validators work on plain data)."""
        if file and not self.file:
            self.file = file
            self.args = (self._render(),)
        return self


def _printable(text: str) -> str:
    # Field names come from the user's file; a key holding a newline or a control byte must
    # not break the one-paragraph message, so such characters are shown escaped.
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def closest(name: str, allowed) -> str:
    """A ' Did you mean X?' hint, or '' when nothing is close."""
    match = difflib.get_close_matches(str(name), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" Did you mean '{match[0]}'?" if match else ""
