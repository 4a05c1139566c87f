"""The lab's chart look, written into each figure's own layout, and the figure's data revision. Plotly only: no
Streamlit here, so figures can be tested alone.

Why not Streamlit's chart theme: the theme is a Plotly template, and Streamlit's chart element re-applies it
once the chart is on screen, which hands Plotly a new template object. Plotly redraws a chart from scratch
whenever its template object changes, even to an equal one, so every chart was drawn twice on arrival (about
half of a chart's cost in the browser: docs/performance.md). A figure without a template, drawn with
``theme=None``, is drawn once, provided Plotly also knows its data arrays are unchanged: ``datarevision``, a
digest of the figure's content, tells it so (the element's JSON round trip makes new arrays of the same
values). A scatter's coordinates go as plain lists: sent as typed arrays (how Plotly's Python side sends NumPy
arrays), Plotly redrew it anyway.
"""

from __future__ import annotations

import hashlib

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

TEXT = "#1f2937"  # dark grey: over 14:1 on white (the accessibility scan asks 4.5:1)
GRID = "#e5e7eb"
FONT = dict(family='"Source Sans", sans-serif', size=12, color=TEXT)
# What Streamlit's light chart theme gave, in the figure itself. A figure's own settings win over these.
LAYOUT = dict(
    font=FONT,
    paper_bgcolor="#ffffff",
    plot_bgcolor="#ffffff",
    hoverlabel=dict(bgcolor="#ffffff", bordercolor="#d1d5db", font=FONT),
    legend=dict(font=dict(size=12)),
    # Streamlit's categorical colours, for a trace that names none
    colorway=["#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1", "#ff8700", "#ffd16a", "#6d3fc0",
              "#d5dae5"],
)
X_AXIS = dict(showgrid=False, zeroline=False, gridcolor=GRID, tickcolor=GRID, linecolor=GRID)
Y_AXIS = dict(gridcolor=GRID, zerolinecolor="#d1d5db", tickcolor=GRID, linecolor=GRID)
# A selectable chart: what Streamlit's element sets on a chart with a selection when the figure does not (a
# change of these after the first draw is a second draw)
SELECTABLE = dict(clickmode="event+select", hovermode="closest", dragmode="pan")


def _missing(own: dict, defaults: dict) -> dict:
    """The part of ``defaults`` that the layout ``own`` (as JSON) leaves unset, nested dicts followed."""
    out = {}
    for name, value in defaults.items():
        if isinstance(value, dict):
            part = _missing(own.get(name) or {}, value)
            if part:
                out[name] = part
        elif own.get(name) is None:
            out[name] = value
    return out


def merged(base: dict, part: dict) -> dict:
    """``base`` with ``part``'s settings written over it, nested dicts followed (a layout update as Plotly applies
    it: a ``None`` unsets). Neither is changed."""
    out = dict(base)
    for name, value in part.items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = merged(out.get(name) or {}, value) if isinstance(value, dict) else value
    return out


def lab_look(fig: go.Figure, selectable: bool = False, settings: dict | None = None) -> go.Figure:
    """The lab's look in ``fig``'s own layout, no template, and its data revision (see the module's text); first
    ``settings`` (a layout update: what the page changes before sending, ``ui.widgets.plot``) written over the
    figure's own. Call it last: the revision is a digest of the figure as it is. In place."""
    own = merged(fig.layout.to_plotly_json(), settings or {})
    own.pop("template", None)
    own.pop("datarevision", None)
    axes = {name: X_AXIS if name.startswith("x") else Y_AXIS  # a hidden axis draws nothing to style
            for name in {"xaxis", "yaxis", *own} if name.startswith(("xaxis", "yaxis"))
            and (own.get(name) or {}).get("visible") is not False}
    # A new layout from the merged settings, not update_layout: Plotly checks every key of an update against the
    # figure's subplots, a few times the cost of building the layout afresh (docs/performance.md)
    fig.layout = merged(own, _missing(own, LAYOUT | (SELECTABLE if selectable else {}) | axes))
    fig.layout.template = None  # a figure's JSON then has no template at all (an empty one would still count; a
    # new layout takes Plotly's default template unless told)
    fig._layout.pop("template", None)  # a figure built unchecked (figures.reuse) keeps a None: no key at all
    for trace in fig.data:
        if trace.type == "scatter":  # Plotly redraws a scatter whose coordinates came as typed arrays (see above)
            for axis in ("x", "y"):
                values = trace[axis]
                if isinstance(values, np.ndarray):
                    trace[axis] = None  # Plotly keeps an array when given equal values: unset it first
                    trace[axis] = values.tolist()
    fig.layout.datarevision = hashlib.blake2b(pio.to_json(fig, validate=False).encode(), digest_size=8).hexdigest()
    return fig
