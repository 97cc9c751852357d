"""User-facing errors: one paragraph that names the file, the field and what to change."""
from __future__ import annotations

import difflib


class ScenarioError(Exception):
    """Bad scenario input. The CLI prints `str(err)` and exits with status 2.

    A loader that checks a whole file raises the first problem with the others in
    `also`; `problems` lists all of them (`skirmish validate` prints each).
    """

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None,
                 line: int | None = None):
        self.file = file
        self.path = path
        self.line = line
        self.message = message
        self.also: list[ScenarioError] = []
        super().__init__(self._render())

    def _render(self, with_more: bool = True) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.line:
            where.append(f"line {self.line}")
        if self.path:
            where.append(f"field '{self.path}'")
        prefix = ", ".join(where)
        text = f"{prefix}: {self.message}" if prefix else self.message
        if with_more and self.also:
            n = len(self.also)
            text += (f" ({n} more problem{'s' if n > 1 else ''} in this file; "
                     "`skirmish validate FILE` lists them all.)")
        return _printable(text)

    def _refresh(self) -> None:
        self.args = (self._render(),)

    @property
    def problems(self) -> list["ScenarioError"]:
        return [self, *self.also]

    def single(self) -> str:
        """This problem alone, without the count of the others."""
        return self._render(with_more=False)

    def located(self, file: str | None = None, lines=None) -> "ScenarioError":
        """Attach the file name (and, given `lines(path) -> int`, the line of each field)
        once the loader knows them (validators work on plain data)."""
        for e in self.problems:
            if file and not e.file:
                e.file = file
            if lines is not None and e.path and not e.line:
                e.line = lines(e.path)
            e._refresh()
        return self


def combine(errors: list[ScenarioError]) -> ScenarioError:
    """One error standing for several: the first, carrying the rest."""
    flat, seen = [], set()
    for p in (p for e in errors for p in e.problems):
        # An error already combined once brings its list along; and one problem of a side's
        # policy was found once per combatant inheriting it ("3 problems", all the same).
        key = (p.file, p.path, p.message)
        if key not in seen:
            seen.add(key)
            flat.append(p)
    first = flat[0]
    first.also = flat[1:]
    for e in first.also:
        e.also = []
    first._refresh()
    return first


class Problems:
    """Collects the problems of independent parts of a file, so all are reported at once."""

    def __init__(self):
        self.errors: list[ScenarioError] = []

    def attempt(self, fn, *args, default=None, **kw):
        try:
            return fn(*args, **kw)
        except ScenarioError as e:
            self.errors.extend(e.problems)
            return default

    def add(self, error: ScenarioError) -> None:
        self.errors.extend(error.problems)

    def raise_any(self) -> None:
        if self.errors:
            errors, self.errors = self.errors, []
            raise combine(errors)


def _printable(text: str) -> str:
    # Field names come from the user's file; a key holding a newline or a control byte must
    # not break the one-paragraph message, so such characters are shown escaped.
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


# Words designers bring from other tools and games, and ours for the same idea: no
# spelling is close enough for difflib ("lowest_hp" is not near "weakest").
OTHER_WORDS = {"lowest_hp": "weakest", "lowest_health": "weakest", "low_hp": "weakest", "weakest_first": "weakest",
               "highest_hp": "strongest", "toughest": "strongest", "closest": "nearest", "nearest_enemy": "nearest",
               "hp": "health", "hit_points": "health", "life": "health", "turn": "round"}


def closest(name: str, allowed) -> str:
    """A ' Did you mean X?' hint, or '' when nothing is close."""
    allowed = [str(a) for a in allowed]
    match = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.6)
    if not match and OTHER_WORDS.get(str(name).lower()) in allowed:
        match = [OTHER_WORDS[str(name).lower()]]
    return f" Did you mean '{match[0]}'?" if match else ""
