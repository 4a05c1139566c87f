"""Chart margins set on the server, from the labels a figure will draw. Plotly only: no Streamlit here."""

from __future__ import annotations

import re

import plotly.graph_objects as go

# Streamlit's chart theme turns on Plotly's ``automargin`` for every axis: Plotly then lays out and draws
# each chart, measures its tick labels and draws it again with margins that fit them. That second pass is
# a large share of a control change's wait on the symmetry page (docs/performance.md), so the margins are
# set here, from the labels the figure will draw. An axis whose labels may be turned on their side (many long categories along x) keeps automargin: their height cannot be known here.
CHAR_PX = 7  # an average character of the theme's 12 px axis font, with a little room
LINE_PX = 20  # one line of axis text
PAD_PX = 10  # the theme's gap between the plot and its tick labels
ROTATE_AT = 250  # category labels along x of more characters than this together may be turned (pixels)


def _axis_names(fig: go.Figure) -> list[str]:
    """Every x and y axis the figure draws: the first two always, the subplots' ones when set."""
    return sorted({"xaxis", "yaxis"} | {k for k in fig.layout.to_plotly_json() if re.fullmatch(r"[xy]axis\d*", k)})


def _traces_on(fig: go.Figure, axis: str) -> list:
    ref = axis[0] + axis[5:]  # "yaxis2" -> "y2"; "yaxis" -> "y"
    return [t for t in fig.data if (getattr(t, axis[0] + "axis", None) or axis[0]) == ref]


def _labels(fig: go.Figure, axis: str) -> list[str]:
    """The text of an axis's tick labels where the figure decides it (categories, ticktext), else []."""
    ax = fig.layout[axis]
    if ax.ticktext is not None:
        return [str(t) for t in ax.ticktext]
    labels = []
    for t in _traces_on(fig, axis):
        values = getattr(t, axis[0], None)
        if values is not None:
            labels += [v for v in values if isinstance(v, str)]
        elif t.type == "box" and t.name and (t.orientation == "h") == (axis[0] == "y"):
            labels.append(t.name)  # a box without positions sits at its name, on its category axis
    return labels


def margin_settings(fig: go.Figure) -> dict:
    """The layout settings that fit the figure's axis labels and titles, automargin off (see above): each drawn
    axis's ``automargin`` and the left and bottom margins, as a layout update (``ui.figures.theme.lab_look`` writes
    them with the rest of the figure's look, in one go)."""
    out: dict = {}
    left, bottom = 0, 0
    for axis in _axis_names(fig):
        ax = fig.layout[axis]
        labels = [] if ax.visible is False else _labels(fig, axis)  # a hidden axis draws no labels
        turned = axis.startswith("x") and sum(len(t) for t in labels) * CHAR_PX > ROTATE_AT
        out[axis] = {"automargin": turned}
        if ax.visible is False or turned:
            continue
        title = LINE_PX * (ax.title.text.count("<br>") + 1) if ax.title.text else 0
        if axis.startswith("y"):
            chars = max((len(line) for t in labels for line in t.split("<br>")),  # a label's longest line
                        default=4 if str(ax.tickformat or "").endswith("%") else 5)
            left = max(left, chars * CHAR_PX + title)
        else:
            bottom = max(bottom, LINE_PX + title)
    m = fig.layout.margin
    margin = {**({"l": max(m.l or 0, left + PAD_PX + 4)} if left else {}),
              **({"b": max(m.b or 0, bottom + PAD_PX + 4)} if bottom else {})}
    return out | ({"margin": margin} if margin else {})


def legend_below_axis(fig: go.Figure, settings: dict) -> dict:
    """A legend drawn at the figure's foot (``model_figures.legend_foot``: orientation h, y 0 of the container) moved
    up to just below the x axis's title, as a layout update: its margin is sized for a phone, where the legend
    wraps to a row per entry; on a wide screen it takes one row, and the margin's blank then lies below it, not
    between the chart and its legend. ``settings``: the update so far (its margins win over the figure's)."""
    legend, m = fig.layout.legend, fig.layout.margin
    if not (legend.orientation == "h" and legend.yref == "container" and legend.y == 0 and fig.layout.height):
        return {}
    margin = settings.get("margin", {})
    top, bottom = margin.get("t", m.t or 0), margin.get("b", m.b or 0)
    plot_px = fig.layout.height - top - bottom
    title = fig.layout.xaxis.title.text or ""
    axis_px = LINE_PX + (LINE_PX * (title.count("<br>") + 1) if title else 0) + PAD_PX
    return {"legend": {"yref": "paper", "y": -axis_px / plot_px, "yanchor": "top"}} if plot_px > 0 else {}
