"""Replace one `## ` section of docs/performance.md, keeping every other section as it is."""
from __future__ import annotations

from pathlib import Path

# A section's measured part is written by its benchmark; what follows this line in the
# section is written by hand (what a session changed and why) and a --write keeps it.
KEEP = "<!-- written by hand below: a benchmark's --write keeps it -->"


def replace_section(section: str, out: Path) -> None:
    """The section's first line is its heading: the section it names (up to the next `## `
    heading) is replaced, or the section is appended when the page has none yet. Where the
    old section has the KEEP line, the line and what follows it stay after the new text.
    One blank line separates it from the heading that follows."""
    title = section.splitlines()[0]
    body = section.rstrip("\n") + "\n"
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    if title in text:
        start = text.index(title)
        nxt = text.find("\n## ", start + len(title))
        end = nxt + 1 if nxt >= 0 else len(text)
        old, tail = text[start:end], text[end:]
        kept = old[old.index(KEEP):].rstrip("\n") + "\n" if KEEP in old else ""
        text = text[:start] + body + ("\n" + kept if kept else "") + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    out.write_text(text, encoding="utf-8")
