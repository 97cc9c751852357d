"""One self-contained HTML page: verdict on top, sections of figures and tables,
provenance at the bottom. Figures are embedded as base64 PNG (the page opens offline,
mailed as one file) and also written beside it as PNG and SVG for slides and print.

Every file goes through sim.io's atomic writes and index.html is written last, so an
interrupted report never leaves a half-written page or a page pointing at missing files.
"""
from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sim.io import atomic_write_bytes, atomic_write_text
from sim.recipe import current as current_recipe, script_tag
from sim.report.style import figure_bytes


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    figures: list[tuple[str, object]] = field(default_factory=list)  # (file stem, Figure)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)  # (caption, frame)
    level: int = 2
    anchor: str = ""  # id for links; defaults to the title's slug


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower()
    return s or "results"


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:960px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{border-bottom:2px solid #0072B2;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.6em}
.verdict{background:#f3f7fb;border-left:5px solid #0072B2;padding:.6em 1.2em;margin:1em 0}
.verdict p{margin:.45em 0} figure{margin:1.2em 0} figure img{max-width:100%;height:auto}
figcaption{font-size:.85em;color:#555} figcaption a{color:#0072B2}
table{border-collapse:collapse;font-size:.85em;margin:.8em 0} th,td{padding:.25em .6em;border-bottom:1px solid #ddd}
th{text-align:left;background:#fafafa} td.num{text-align:right;font-variant-numeric:tabular-nums}
.prov td{vertical-align:top} .prov code{font-size:.95em;white-space:pre-wrap}
.note{font-size:.85em;color:#555} .tablewrap{overflow-x:auto;max-width:100%}
details pre{font-size:.85em;white-space:pre-wrap;background:#fafafa;padding:.5em}
"""


def cell_text(value, column: str) -> str:
    """Numbers as a person reads them: percentages (columns marked %) to one decimal,
    other fractional numbers to two, whole numbers with thousands separators."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "" if value is None else str(value)
    if isinstance(value, float) and value != value:
        return "-"
    if "%" in column:
        return f"{value:.1f}"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.2f}"


def _table_html(caption: str, frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for _, r in frame.iterrows():
        cells = []
        for col, v in zip(frame.columns, r):
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            cells.append(f"<td class=\"{'num' if num else ''}\">{html.escape(cell_text(v, str(col)))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption class=\"note\">{html.escape(caption)}</caption>" if caption else ""
    # Wide tables scroll inside their own box instead of pushing the page past the window.
    return (f"<div class=\"tablewrap\"><table>{cap}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _compact(value) -> str:
    """A provenance value in few lines: a mapping one `key: value` a line, anything else
    as one line of JSON (a list of twenty numbers must not take twenty lines)."""
    def one(v):
        return json.dumps(v, default=str, ensure_ascii=False) if isinstance(v, (dict, list)) else str(v)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {one(v)}" for k, v in value.items())
    return one(value)


def provenance_html(meta: dict) -> str:
    order = ["scenario", "scenario_file", "overrides", "scenario_hash", "ruleset", "seed", "skirmishes",
             "max_rounds", "rule_options", "package_version", "chunk_size", "scenario_text", "day_text"]
    keys = [k for k in order if k in meta] + [k for k in meta if k not in order]
    rows = []
    for k in keys:
        v = meta[k]
        if k in ("scenario_text", "day_text"):  # the whole file: folded away, in full
            what = "scenario" if k == "scenario_text" else "day"
            rows.append(f"<tr><th>{what} file as played</th><td><details><summary>show the YAML</summary>"
                        f"<pre>{html.escape(str(v))}</pre></details></td></tr>")
            continue
        text = _compact(v)
        rows.append(f"<tr><th>{html.escape(k.replace('_', ' '))}</th><td><code>{html.escape(text)}</code></td></tr>")
    return f"<table class=\"prov\">{''.join(rows)}</table>"


def write_report(out_dir, title: str, verdict: list[tuple[str, list[str]]], sections: list[Section],
                 provenance: list[tuple[str, dict]], subtitle: str = "") -> Path:
    """Write figures (PNG + SVG) and index.html into `out_dir`; return the index path.

    `verdict`: (heading, sentences) pairs shown first; heading may be "" for one result.
    `provenance`: (heading, meta dict) pairs shown last.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    body = [f"<h1>{html.escape(title)}</h1>"]
    if subtitle:
        body.append(f"<p class=\"note\">{html.escape(subtitle)}</p>")
    body.append("<h2 id=\"verdict\">Verdict</h2>")
    for heading, sentences in verdict:
        if heading:
            body.append(f"<h3>{html.escape(heading)}</h3>")
        body.append("<div class=\"verdict\">" + "".join(f"<p>{html.escape(s)}</p>" for s in sentences) + "</div>")
    for sec in sections:
        h = f"h{sec.level}"
        body.append(f"<{h} id=\"{sec.anchor or slug(sec.title)}\">{html.escape(sec.title)}</{h}>")
        body.extend(f"<p>{html.escape(p)}</p>" for p in sec.paragraphs)
        for stem, fig in sec.figures:
            png = figure_bytes(fig, "png")
            atomic_write_bytes(out / f"{stem}.png", png)
            atomic_write_bytes(out / f"{stem}.svg", figure_bytes(fig, "svg"))
            alt = fig.axes[0].get_title() if fig.axes else stem
            if getattr(fig, "_suptitle", None) is not None:
                alt = fig._suptitle.get_text()
            data = base64.b64encode(png).decode("ascii")
            body.append(f"<figure><img alt=\"{html.escape(alt)}\" src=\"data:image/png;base64,{data}\">"
                        f"<figcaption>{html.escape(alt)} · files: <a href=\"{stem}.png\">{stem}.png</a>, "
                        f"<a href=\"{stem}.svg\">{stem}.svg</a></figcaption></figure>")
        for caption, frame in sec.tables:
            body.append(_table_html(caption, frame))
    body.append("<h2 id=\"provenance\">Provenance</h2>")
    body.append("<p class=\"note\">Everything needed to reproduce these numbers: the same scenario "
                "(hash), seed, rule options, package version and number of skirmishes give the same "
                "tables.</p>")
    for heading, meta in provenance:
        if heading:
            body.append(f"<h3>{html.escape(heading)}</h3>")
        body.append(provenance_html(meta))
    recipe = current_recipe()
    if recipe is not None:
        body.append("<p class=\"note\">To play this page again and check every figure: "
                    "<code>skirmish rerun index.html</code> (it holds the command and the files it read).</p>")
        body.append(script_tag(recipe))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return atomic_write_text(out / "index.html", page)
