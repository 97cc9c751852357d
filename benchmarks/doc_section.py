"""Replace one `## ` section of docs/performance.md, keeping every other section as it is."""
from __future__ import annotations

from pathlib import Path


def replace_section(section: str, out: Path) -> None:
    """The section's first line is its heading: the section it names (up to the next `## `
    heading) is replaced, or the section is appended when the page has none yet. One
    blank line separates it from the heading that follows."""
    title = section.splitlines()[0]
    body = section.rstrip("\n") + "\n"
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    if title in text:
        start = text.index(title)
        nxt = text.find("\n## ", start + len(title))
        tail = text[nxt + 1:] if nxt >= 0 else ""
        text = text[:start] + body + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    out.write_text(text, encoding="utf-8")
