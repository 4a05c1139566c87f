"""Plot primitives of the lab's charts: matrices, grid maps, bars and strips from plain arrays.
Plotly only: no Streamlit here, so figures can be tested alone."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures.reuse import reused

HEAT = "RdBu_r"
# The smallest text a chart writes (px): legible on a 390 px phone and from the back of a room. Text that
# would have to be smaller is left out, and hover and "Show numbers" give the values instead.
MIN_FONT = 10


def cell_font(n_cols: int, side: float, longest: int) -> int | None:
    """The font (px) for text of ``longest`` characters in each of ``n_cols`` cells across a square map whose
    plot is at least ``side`` px wide where it is drawn, or None when it would need less than ``MIN_FONT``: a
    digit is about 0.6 font wide, and a cell keeps a quarter of its width free so that neighbours' numbers
    never run together."""
    cell = side / max(n_cols, 1)
    font = int(0.75 * cell / (0.6 * max(longest, 1)))
    return min(font, 14) if font >= MIN_FONT else None


def square_layout(fig: go.Figure, height: int = 360) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10))
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")
    fig.update_xaxes(constrain="domain")
    return fig


@reused
def matrix_figure(values: np.ndarray, title: str, x_title: str = "", y_title: str = "", colorscale: str = HEAT,
                  highlight_row: int | None = None, symmetric: bool = True, height: int = 360,
                  zmin: float | None = None, zmax: float | None = None) -> go.Figure:
    """A 2-D array as a heatmap, row 0 at the top."""
    values = np.asarray(values, dtype=np.float64)
    if symmetric and zmin is None and zmax is None:
        m = float(np.abs(values).max()) or 1.0
        zmin, zmax = -m, m
    fig = go.Figure(go.Heatmap(z=values, colorscale=colorscale, zmin=zmin, zmax=zmax,
                               hovertemplate="row=%{y} col=%{x} value=%{z:.4g}<extra></extra>"))
    if highlight_row is not None:
        fig.add_shape(type="rect", x0=-0.5, x1=values.shape[1] - 0.5, y0=highlight_row - 0.5, y1=highlight_row + 0.5,
                      line=dict(color="#ef4444", width=2))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title=x_title, yaxis_title=y_title)
    fig.update_yaxes(autorange="reversed")
    return fig


@reused
def grid_map(values: np.ndarray, title: str, colorscale: str = "Viridis", text_fmt: str = ".3f",
             zmin: float | None = None, zmax: float | None = None, height: int = 320,
             x_labels: list | None = None, y_labels: list | None = None, side: int = 200) -> go.Figure:
    """A small 2-D map with its value written in every cell where it fits (patch grids, attention maps).
    ``side``: the narrowest the plot is drawn, in px (a map in one of five columns on a desktop: about 200)."""
    values = np.asarray(values, dtype=np.float64)
    text = [[format(v, text_fmt) for v in row] for row in values]
    font = cell_font(values.shape[1], min(side, height - 60), max(len(t) for row in text for t in row))
    fig = go.Figure(go.Heatmap(z=values, x=x_labels, y=y_labels, colorscale=colorscale, zmin=zmin, zmax=zmax,
                               text=text, texttemplate="%{text}" if font else None, textfont=dict(size=font or MIN_FONT),
                               hovertemplate="x=%{x} y=%{y} value=%{z:.4g}<extra></extra>"))
    fig.update_layout(title=title)
    return square_layout(fig, height)


@reused
def bar_figure(values: np.ndarray, title: str, labels: list | None = None, height: int = 260) -> go.Figure:
    values = np.asarray(values, dtype=np.float64)
    fig = go.Figure(go.Bar(x=labels if labels is not None else list(range(len(values))), y=values,
                           marker_color=["#4f46e5" if v >= 0 else "#ef4444" for v in values]))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10))
    return fig


@reused
def grouped_bars(groups: dict[str, np.ndarray], title: str, labels: list | None = None, height: int = 280) -> go.Figure:
    """Several vectors side by side (e.g. logits before and after a change)."""
    fig = go.Figure()
    for name, values in groups.items():
        values = np.asarray(values, dtype=np.float64)
        fig.add_trace(go.Bar(name=name, x=labels if labels is not None else list(range(len(values))), y=values))
    fig.update_layout(title=title, barmode="group", height=height, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=-0.2))
    return fig


@reused
def log_strip(groups: dict[str, np.ndarray], title: str, x_title: str, floor: float = 1e-18, height: int = 280) -> go.Figure:
    """Distributions of positive numbers spanning many decades, one row per group, each value a dot."""
    fig = go.Figure()
    for name, values in groups.items():
        values = np.maximum(np.asarray(values, dtype=np.float64), floor)  # exact zeros drawn at the floor
        fig.add_trace(go.Box(x=values, name=name, boxpoints="all", jitter=0.5, pointpos=0, orientation="h"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), showlegend=False,
                      # "1e-12", not 10 with a superscript: a raised exponent reached into the axis title below
                      # it on a phone; every third decade, so that the labels fit 390 px
                      xaxis=dict(type="log", title=x_title, exponentformat="e", dtick=3))
    return fig


def wrap(text: str, width: int) -> str:
    """Break a label into lines of at most about ``width`` characters (Plotly's <br>), at spaces: subplot
    titles side by side must not run into each other on a phone."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)
