"""Look and feel shared by every figure: a colour-blind-safe palette, sizes, saving.

Colours are the Okabe-Ito set (Okabe & Ito 2008), distinguishable with the common
colour-vision deficiencies; sides also differ by line style or position, never by
colour alone. Figures are plain `matplotlib.figure.Figure` objects, never pyplot
windows: they render headless without choosing a backend (so a notebook keeps its
inline one) and are freed when dropped.
"""
from __future__ import annotations

import functools
import io
import warnings

import matplotlib
from matplotlib.figure import Figure

OKABE_ITO = {
    "blue": "#0072B2", "vermillion": "#D55E00", "green": "#009E73", "purple": "#CC79A7",
    "orange": "#E69F00", "sky": "#56B4E9", "yellow": "#F0E442", "black": "#000000",
}
SIDE_COLORS = [OKABE_ITO[k] for k in ("blue", "vermillion", "green", "purple", "orange", "sky", "black")]
SIDE_LINESTYLES = ["-", "--", "-.", ":"]
SIDE_MARKERS = ["o", "s", "^", "D"]
DRAW_COLOR = "#999999"
UNFINISHED_COLOR = "#4D4D4D"
STATE_COLORS = {  # how a combatant ends a fight
    "dead": OKABE_ITO["vermillion"], "unconscious": OKABE_ITO["orange"],
    "fled": OKABE_ITO["sky"], "standing": "#DDDDDD",
}
# Diverging map for win rates around 50%: purple-orange stays readable for red-green
# colour blindness, unlike red-green maps.
DIVERGING_CMAP = "PuOr"

WIDTH = 7.5          # inches; fits a report column and a notebook cell
ROW_HEIGHT = 0.34    # inches per combatant row, so 12 names never touch
PNG_DPI = 120
MAX_LABEL = 28       # characters before a name is shortened with an ellipsis

RC = {
    "font.size": 9.5, "axes.titlesize": 11, "axes.titleweight": "bold", "axes.labelsize": 9.5,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
    "legend.fontsize": 8.5, "legend.frameon": False,
    "svg.hashsalt": "skirmish-sim",  # stable ids: regenerated reports do not churn in git
    "svg.fonttype": "path",          # text as outlines: the SVG looks the same without the font
}


def side_colors(sides) -> dict:
    return {s: SIDE_COLORS[i % len(SIDE_COLORS)] for i, s in enumerate(sides)}


def side_styles(sides) -> dict:
    return {s: SIDE_LINESTYLES[i % len(SIDE_LINESTYLES)] for i, s in enumerate(sides)}


def side_markers(sides) -> dict:
    return {s: SIDE_MARKERS[i % len(SIDE_MARKERS)] for i, s in enumerate(sides)}


def short(label, limit: int = MAX_LABEL) -> str:
    """Shorten a long name in the middle: copies made with `count` differ only at the
    end ('Goblin skirmisher 10'), so the end must survive."""
    text = str(label)
    if len(text) <= limit:
        return text
    tail = min(9, limit // 3)
    return text[: limit - tail - 1].rstrip() + "…" + text[-tail:].lstrip()


def styled(fn):
    """Draw the whole figure under our rc settings (titles, fonts and grid read them)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(RC):
            return fn(*args, **kwargs)
    return wrapper


def new_figure(height: float, width: float = WIDTH, ncols: int = 1, sharey: bool = False):
    """A figure with constrained layout, so labels never run off the canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # an off-screen canvas of its own; the pyplot backend is untouched
    axes = list(fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0])
    for ax in axes:
        ax.set_axisbelow(True)
    return fig, (axes[0] if ncols == 1 else axes)


def rows_height(rows: int, extra: float = 1.3, minimum: float = 2.6) -> float:
    return max(minimum, extra + ROW_HEIGHT * rows)


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """PNG or SVG bytes without timestamps, so the same result gives the same file."""
    buf = io.BytesIO()
    with matplotlib.rc_context(RC), warnings.catch_warnings():
        # A name with a character the font lacks (a control character from a hostile
        # scenario, or a script DejaVu does not cover) is drawn as a box; matplotlib's
        # warning about it would print that character raw on the terminal, once per
        # figure, after the one line `report` prints.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
        if fmt == "png":
            fig.savefig(buf, format="png", dpi=PNG_DPI, metadata={"Software": None})
        elif fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
        else:  # pragma: no cover
            raise ValueError(fmt)
    return buf.getvalue()


def _drawn_texts(fig: Figure, renderer):
    """Visible, non-empty texts as drawn: tick labels outside an axis' view are skipped."""
    from matplotlib.text import Text
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            try:
                shown = {id(t) for t in axis._update_ticks()}  # the ticks matplotlib will draw
            except Exception:  # pragma: no cover - private API changed; check every label
                continue
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if id(tick) not in shown:
                    hidden.update((id(tick.label1), id(tick.label2)))
    for t in fig.findobj(Text):
        if id(t) in hidden or not t.get_visible() or not t.get_text().strip() or t.get_alpha() == 0:
            continue
        bb = t.get_window_extent(renderer)
        if bb.width > 0 and bb.height > 0:
            yield t.get_text(), bb


def text_overlaps(fig: Figure, pad: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose boxes overlap, and texts cut off by the figure's edge
    (paired with "<edge>"). Used by the tests; `pad` pixels of slack keep touching but
    legible neighbours from counting.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    in_legend = {t.get_text() for lg in legends for t in lg.get_texts()}
    boxes = list(_drawn_texts(fig, renderer))
    # A legend box (swatches included) must not cover any other text either.
    boxes += [("<legend>", lg.get_window_extent(renderer)) for lg in legends]
    W, H = fig.bbox.width, fig.bbox.height
    found = [(text, "<edge>") for text, b in boxes
             if b.x0 < -pad or b.y0 < -pad or b.x1 > W + pad or b.y1 > H + pad]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i][1], boxes[j][1]
            names = {boxes[i][0], boxes[j][0]}
            if "<legend>" in names and names & in_legend:
                continue  # a legend's own labels sit inside it
            if (a.x0 + pad < b.x1 - pad and b.x0 + pad < a.x1 - pad
                    and a.y0 + pad < b.y1 - pad and b.y0 + pad < a.y1 - pad):
                found.append((boxes[i][0], boxes[j][0]))
    return found
