"""Plotly figures shared by the pages. Plotly only: no Streamlit here, so figures can be tested alone."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.models.registry import spec

HEAT = "RdBu_r"


def _square(fig: go.Figure, height: int = 360) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10))
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")
    fig.update_xaxes(constrain="domain")
    return fig


def image_figure(image: np.ndarray, title: str = "") -> go.Figure:
    """(C, H, W) in [0, 1]: grey as a heatmap, RGB as an image."""
    C, H, W = image.shape
    fig = go.Figure()
    if C == 1:
        fig.add_trace(go.Heatmap(z=image[0], colorscale="gray", zmin=0, zmax=1, showscale=False,
                                 hovertemplate="x=%{x} y=%{y} value=%{z:.3f}<extra></extra>"))
    else:
        rgb = (np.clip(image.transpose(1, 2, 0), 0, 1) * 255).astype(np.uint8)
        fig.add_trace(go.Image(z=rgb, hovertemplate="x=%{x} y=%{y} rgb=%{z}<extra></extra>"))
    # A thin frame: a white patch at the image's edge would otherwise melt into the white page
    fig.add_shape(type="rect", x0=-0.5, x1=W - 0.5, y0=-0.5, y1=H - 0.5, line=dict(color="#6b7280", width=1))
    fig.update_layout(title=title)
    return _square(fig)


GRID_TRACE = "patch grid"  # the line trace of a patch grid: drawing, not data


def image_with_patch_grid(image: np.ndarray, patch_size: int, highlight: int | None = None, title: str = "",
                          labels: list | None = None) -> go.Figure:
    """The image with its patch grid drawn on top and each patch's number (default: its place in the sequence)."""
    C, H, W = image.shape
    fig = image_figure(image, title)
    gh, gw = H // patch_size, W // patch_size
    # The grid's lines as one line trace (None breaks it between lines), not one layout shape per line:
    # Plotly builds and validates every shape on its own, on the server at each rerun, and draws each
    # apart. "Show numbers" skips it (figure_tables): it is drawing, not data.
    verticals = [k * patch_size - 0.5 for k in range(1, gw)]  # each line's x
    horizontals = [k * patch_size - 0.5 for k in range(1, gh)]  # each line's y
    xs = [v for x in verticals for v in (x, x, None)] + [v for _ in horizontals for v in (-0.5, W - 0.5, None)]
    ys = [v for _ in verticals for v in (-0.5, H - 0.5, None)] + [v for y in horizontals for v in (y, y, None)]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#f59e0b", width=1), name=GRID_TRACE,
                             hoverinfo="skip", showlegend=False))
    if highlight is not None:
        r, c = divmod(highlight, gw)
        fig.add_shape(type="rect", x0=c * patch_size - 0.5, x1=(c + 1) * patch_size - 0.5, xref="x", yref="y",
                      y0=r * patch_size - 0.5, y1=(r + 1) * patch_size - 0.5, line=dict(color="#ef4444", width=3))
    if gh * gw <= 256:
        # The numbers as one text trace on dark squares, not as layout annotations: Plotly lays out every
        # annotation on its own, which makes the figure slow to draw (benchmarks/browser_latency.py)
        text = [str(labels[i] if labels is not None else i) for i in range(gh * gw)]
        font = 14 if gh * gw <= 16 else 10 if gh * gw <= 64 else 7
        centre = (patch_size - 1) / 2
        rows, cols = np.divmod(np.arange(gh * gw), gw)  # patch i sits at grid (row, col), row-major
        fig.add_trace(go.Scatter(
            x=cols * patch_size + centre, y=rows * patch_size + centre, text=text, mode="markers+text", name="patch numbers", textfont=dict(color="white", size=font),
            marker=dict(symbol="square", color="rgba(17,24,39,0.75)",
                        size=font * (1.2 + 0.6 * max(len(t) for t in text))),
            hoverinfo="skip", showlegend=False))
    # the image's own extent, row 0 at the top: the line and marker traces would otherwise move the autorange
    fig.update_xaxes(range=[-0.5, W - 0.5], autorange=False)
    fig.update_yaxes(range=[H - 0.5, -0.5], autorange=False)
    return fig


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


def grid_map(values: np.ndarray, title: str, colorscale: str = "Viridis", text_fmt: str = ".3f",
             zmin: float | None = None, zmax: float | None = None, height: int = 320,
             x_labels: list | None = None, y_labels: list | None = None) -> go.Figure:
    """A small 2-D map with its value written in every cell (patch grids, attention maps)."""
    values = np.asarray(values, dtype=np.float64)
    text = [[format(v, text_fmt) for v in row] for row in values]
    fig = go.Figure(go.Heatmap(z=values, x=x_labels, y=y_labels, colorscale=colorscale, zmin=zmin, zmax=zmax,
                               text=text, texttemplate="%{text}" if values.size <= 256 else None,
                               hovertemplate="x=%{x} y=%{y} value=%{z:.4g}<extra></extra>"))
    fig.update_layout(title=title)
    return _square(fig, height)


def bar_figure(values: np.ndarray, title: str, labels: list | None = None, height: int = 260) -> go.Figure:
    values = np.asarray(values, dtype=np.float64)
    fig = go.Figure(go.Bar(x=labels if labels is not None else list(range(len(values))), y=values,
                           marker_color=["#4f46e5" if v >= 0 else "#ef4444" for v in values]))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def grouped_bars(groups: dict[str, np.ndarray], title: str, labels: list | None = None, height: int = 280) -> go.Figure:
    """Several vectors side by side (e.g. logits before and after a change)."""
    fig = go.Figure()
    for name, values in groups.items():
        values = np.asarray(values, dtype=np.float64)
        fig.add_trace(go.Bar(name=name, x=labels if labels is not None else list(range(len(values))), y=values))
    fig.update_layout(title=title, barmode="group", height=height, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=-0.2))
    return fig


def log_strip(groups: dict[str, np.ndarray], title: str, x_title: str, floor: float = 1e-18, height: int = 280) -> go.Figure:
    """Distributions of positive numbers spanning many decades, one row per group, each value a dot."""
    fig = go.Figure()
    for name, values in groups.items():
        values = np.maximum(np.asarray(values, dtype=np.float64), floor)  # exact zeros drawn at the floor
        fig.add_trace(go.Box(x=values, name=name, boxpoints="all", jitter=0.5, pointpos=0, orientation="h"))
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), showlegend=False,
                      xaxis=dict(type="log", title=x_title, exponentformat="power", dtick=2))
    return fig


def label(model: str) -> str:
    return spec(model).label


def color(model: str) -> str:
    return spec(model).color


def accuracy_bars(rows: list[dict], title: str = "Accuracy per model (bars: mean, dots: seeds)") -> go.Figure:
    """Grouped bars of mean train and test accuracy per model, each seed drawn as a dot. ``rows``: dicts
    with model, seed, train_acc and test_acc (diverged seeds left out by the caller)."""
    fig = go.Figure()
    models = list(dict.fromkeys(r["model"] for r in rows))
    for split, opacity in (("train_acc", 0.45), ("test_acc", 1.0)):
        means = [np.mean([r[split] for r in rows if r["model"] == m]) for m in models]
        fig.add_trace(go.Bar(x=[label(m) for m in models], y=means, name="train (seen positions)" if split == "train_acc"
                             else "test (unseen positions)", opacity=opacity, offsetgroup=split,
                             marker_color=[color(m) for m in models],
                             text=[f"{v:.1%}" for v in means], textposition="outside", textfont=dict(color="#111827")))
        fig.add_trace(go.Box(x=[label(r["model"]) for r in rows], y=[r[split] for r in rows], offsetgroup=split,
                             boxpoints="all", pointpos=0, jitter=0.3, fillcolor="rgba(0,0,0,0)", line_color="rgba(0,0,0,0)",
                             marker=dict(color="#111827", size=7), showlegend=False, name=f"{split}, per seed",
                             hovertext=[f"seed {r['seed']}: {r[split]:.1%}" for r in rows], hoverinfo="text"))
    fig.add_hline(y=0.5, line=dict(dash="dot", color="#6b7280"), annotation_text="chance")
    fig.update_layout(title=title, barmode="group", boxmode="group", height=380, yaxis=dict(range=[0, 1.12], tickformat=".0%"),
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.15))
    return fig


SEED_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def curves_figure(curves: list[dict], metric: str, title: str, height: int = 320) -> go.Figure:
    """One line per (model, seed) over epochs: one colour per model, the seeds as line styles, one legend
    entry per model (clicking it hides all its seeds). Missing points (epochs not evaluated) are skipped."""
    fig = go.Figure()
    keys = list(dict.fromkeys((c["model"], c["seed"]) for c in curves))
    seeds = sorted({seed for _, seed in keys})
    for model, seed in keys:
        pts = [c for c in curves if c["model"] == model and c["seed"] == seed and c.get(metric) is not None]
        first = seed == min(s for m, s in keys if m == model)
        fig.add_trace(go.Scatter(x=[c["epoch"] for c in pts], y=[c[metric] for c in pts], mode="lines",
                                 name=label(model), legendgroup=model, showlegend=first,
                                 line=dict(color=color(model), dash=SEED_DASHES[seeds.index(seed) % len(SEED_DASHES)]),
                                 hovertemplate=f"{label(model)} · seed {seed}<br>epoch %{{x}}: %{{y:.3~g}}<extra></extra>"))
    if len(seeds) > 1:
        title += " (line style: seed " + ", ".join(f"{s} {d}" for s, d in zip(seeds, SEED_DASHES, strict=False)) + ")"
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="epoch",
                      legend=dict(orientation="h", y=-0.25))
    if metric != "loss":
        fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


# Accuracy from wrong (0) through chance (0.5, white) to right (1): orange to blue, which colour-blind eyes
# tell apart (unlike red to green); every cell also carries its number.
ACCURACY_SCALE = [[0.0, "#b35806"], [0.25, "#f1a340"], [0.5, "#f7f7f7"], [0.75, "#67a9cf"], [1.0, "#2166ac"]]


def position_map_figure(grid: np.ndarray, centres: list[int], train_range: tuple[int, int],
                        test_range: tuple[int, int], title: str, height: int = 330) -> go.Figure:
    """Accuracy at each shape centre (x = cx, y = cy) with the training and test regions outlined.
    Ranges are inclusive."""
    text = [["" if np.isnan(v) else f"{v:.0%}" for v in row] for row in grid]
    fig = go.Figure(go.Heatmap(z=grid, x=centres, y=centres, zmin=0, zmax=1, colorscale=ACCURACY_SCALE, text=text,
                               texttemplate="%{text}", textfont=dict(size=8), colorbar=dict(tickformat=".0%"),
                               hovertemplate="cx=%{x} cy=%{y} accuracy=%{z:.0%}<extra></extra>"))
    for (lo, hi), color, name in ((train_range, "#111827", "train"), (test_range, "#7c3aed", "test")):
        fig.add_shape(type="rect", x0=lo - 0.5, x1=hi + 0.5, y0=lo - 0.5, y1=hi + 0.5,
                      line=dict(color=color, width=3, dash="solid" if name == "train" else "dash"))
    fig.update_layout(title=title)
    fig.update_xaxes(title="cx", dtick=1)
    fig.update_yaxes(title="cy", dtick=1)
    return _square(fig, height)


def ranking_figure(rows: list[dict], title: str = "Test accuracy at unseen positions, best first (bars: 95 % "
                                                       "interval)") -> go.Figure:
    """Horizontal bars, one per model, sorted by mean test accuracy, with its 95 % interval as error bars.
    ``rows``: dicts with model, mean, lo, hi."""
    rows = sorted(rows, key=lambda r: r["mean"])  # best at the top (Plotly draws the first bar lowest)
    fig = go.Figure(go.Bar(
        y=[label(r["model"]) for r in rows], x=[r["mean"] for r in rows], orientation="h",
        marker_color=[color(r["model"]) for r in rows], text=[f"{r['mean']:.0%}" for r in rows],
        textposition="inside", insidetextanchor="start", textfont=dict(color="#ffffff"),
        error_x=dict(type="data", symmetric=False, array=[r["hi"] - r["mean"] for r in rows],
                     arrayminus=[r["mean"] - r["lo"] for r in rows], color="#111827"),
        hovertemplate="%{y}: %{x:.1%}<extra></extra>"))
    fig.add_vline(x=0.5, line=dict(dash="dot", color="#6b7280"), annotation_text="chance", annotation_position="top")
    fig.update_layout(title=title, height=60 + 28 * len(rows), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis=dict(range=[0, 1.02], tickformat=".0%",
                                 title="test accuracy<br>(unseen positions)"))  # two lines: fits a phone
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


def maps_grid_figure(grids: dict[str, np.ndarray], centres: list[int], train_range: tuple[int, int],
                     test_range: tuple[int, int], title: str, cols: int = 4) -> go.Figure:
    """Every model's generalization map (accuracy at each centre, both shapes averaged) side by side, at one
    colour scale, each with the training square (solid) and the test square (dashed). One figure, not one
    per model: a chart costs the browser far more than a subplot."""
    from plotly.subplots import make_subplots

    names = list(grids)
    rows = max(1, -(-len(names) // cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[wrap(label(m), 12) for m in names],
                        horizontal_spacing=0.03, vertical_spacing=0.35 / rows)
    for i, m in enumerate(names):
        r, c = i // cols + 1, i % cols + 1
        fig.add_trace(go.Heatmap(z=grids[m], x=centres, y=centres, coloraxis="coloraxis", name=label(m),
                                 hovertemplate=f"{label(m)}<br>cx=%{{x}} cy=%{{y}}: %{{z:.0%}}<extra></extra>"),
                      row=r, col=c)
        for (lo, hi), line in ((train_range, dict(color="#111827", width=2)),
                               (test_range, dict(color="#7c3aed", width=2, dash="dash"))):
            fig.add_shape(type="rect", x0=lo - 0.5, x1=hi + 0.5, y0=lo - 0.5, y1=hi + 0.5, line=line, row=r, col=c)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, autorange="reversed")
    for k in range(1, len(names) + 1):  # square cells
        fig.update_layout({f"yaxis{k if k > 1 else ''}": dict(scaleanchor=f"x{k if k > 1 else ''}")})
    fig.update_annotations(font_size=10)
    fig.update_layout(title=title, height=230 * rows + 60, margin=dict(l=10, r=10, t=70, b=10),
                      coloraxis=dict(colorscale=ACCURACY_SCALE, cmin=0, cmax=1, colorbar=dict(tickformat=".0%")))
    return fig


def small_maps_figure(maps: np.ndarray, titles: list[str], title: str, cols: int, colorscale: str = "Viridis",
                      zmin: float | None = None, zmax: float | None = None, height_per_row: int = 150,
                      hover: str = "value") -> go.Figure:
    """Many small maps (an (n, h, w) array) in one figure at one colour scale: attention per layer and head,
    feature maps per channel, position similarities per position."""
    from plotly.subplots import make_subplots

    maps = np.asarray(maps, dtype=np.float64)
    n = len(maps)
    rows = max(1, -(-n // cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.02,
                        vertical_spacing=min(0.3 / rows, 0.08))
    lo = float(np.nanmin(maps)) if zmin is None else zmin
    hi = float(np.nanmax(maps)) if zmax is None else zmax
    for i, m in enumerate(maps):
        fig.add_trace(go.Heatmap(z=m, coloraxis="coloraxis", name=titles[i],
                                 hovertemplate=f"{titles[i]}<br>row %{{y}}, col %{{x}}: {hover} %{{z:.3g}}<extra></extra>"),
                      row=i // cols + 1, col=i % cols + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, autorange="reversed")
    for k in range(1, n + 1):
        fig.update_layout({f"yaxis{k if k > 1 else ''}": dict(scaleanchor=f"x{k if k > 1 else ''}")})
    fig.update_annotations(font_size=10)
    fig.update_layout(title=title, height=height_per_row * rows + 70, margin=dict(l=10, r=10, t=60, b=10),
                      coloraxis=dict(colorscale=colorscale, cmin=lo, cmax=hi))
    return fig


def probe_map_figure(grid: np.ndarray, centres: list[int], train_range: tuple[int, int],
                     test_range: tuple[int, int], chosen: tuple[int, int], title: str) -> go.Figure:
    """A generalization map to click: each cell probes the model with the shape at that centre. An
    invisible marker on every cell makes the click a selectable point; the chosen cell has a red box."""
    fig = position_map_figure(grid, centres, train_range, test_range, title)
    xs, ys = np.meshgrid(centres, centres)
    fig.add_trace(go.Scatter(x=xs.flatten(), y=ys.flatten(), mode="markers", name="probe here",
                             marker=dict(size=22, symbol="square", opacity=0.01, color="#000000"),
                             hovertemplate="click: probe at cx=%{x}, cy=%{y}<extra></extra>", showlegend=False))
    cx, cy = chosen
    fig.add_shape(type="rect", x0=cx - 0.5, x1=cx + 0.5, y0=cy - 0.5, y1=cy + 0.5, line=dict(color="#ef4444", width=3))
    lo, hi = centres[0] - 0.5, centres[-1] + 0.5  # the markers must not widen the axes beyond the map
    fig.update_xaxes(range=[lo, hi], autorange=False)
    fig.update_yaxes(range=[hi, lo], autorange=False)
    return fig


def image_with_map(image: np.ndarray, grid: np.ndarray, title: str, colorscale: str = "Inferno") -> go.Figure:
    """A grey (H, W) image with a (G, G) map over it, each cell covering its patch: where attention goes,
    on the picture itself. Hover gives each patch's value."""
    H, W = image.shape
    G = grid.shape[0]
    P = H // G
    cells = np.kron(np.asarray(grid, dtype=np.float64), np.ones((P, P)))  # (H, W): each patch's value on its pixels
    fig = go.Figure([
        go.Heatmap(z=image, colorscale="gray", zmin=0, zmax=1, showscale=False, hoverinfo="skip", name="image"),
        go.Heatmap(z=cells, colorscale=colorscale, opacity=0.6, zmin=0, name="attention",
                   customdata=np.kron(np.arange(G * G).reshape(G, G), np.ones((P, P), dtype=int)),
                   hovertemplate="patch %{customdata}: %{z:.3f}<extra></extra>", colorbar=dict(thickness=12))])
    fig.add_shape(type="rect", x0=-0.5, x1=W - 0.5, y0=-0.5, y1=H - 0.5, line=dict(color="#6b7280", width=1))
    fig.update_layout(title=title)
    return _square(fig, 320)


def image_with_peaks(image: np.ndarray, peaks: list[tuple[int, int]], title: str, size: int = 2) -> go.Figure:
    """A grey image with a box where each CNN channel's strongest response is (``size`` pixels: one cell of
    the pooled feature map)."""
    fig = image_figure(image[None], title)
    fig.update_layout(shapes=list(fig.layout.shapes) + [
        dict(type="rect", x0=c - 0.5, x1=c + size - 0.5, y0=r - 0.5, y1=r + size - 0.5, xref="x", yref="y",
             line=dict(color="#ef4444", width=2)) for r, c in set(peaks)])
    return fig


def model_bars(values: dict[str, float], title: str, x_title: str, fmt: str = ".1f") -> go.Figure:
    """One horizontal bar per model, largest at the top, in each model's colour."""
    items = sorted(values.items(), key=lambda kv: kv[1])
    fig = go.Figure(go.Bar(y=[label(m) for m, _ in items], x=[v for _, v in items], orientation="h",
                           marker_color=[color(m) for m, _ in items], text=[format(v, fmt) for _, v in items],
                           textposition="outside", hovertemplate="%{y}: %{x:.3g}<extra></extra>"))
    fig.update_layout(title=title, height=60 + 28 * len(items), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title=x_title)
    return fig


def distance_bars(untrained: np.ndarray, trained: np.ndarray, title: str) -> go.Figure:
    """Mean attention distance per layer and head, before and after training (as the ViT paper's figure 7)."""
    labels = [f"layer {layer}, head {h}" for layer in range(untrained.shape[0]) for h in range(untrained.shape[1])]
    fig = go.Figure([go.Bar(x=labels, y=untrained.flatten(), name="untrained", marker_color="#9ca3af"),
                     go.Bar(x=labels, y=trained.flatten(), name="trained", marker_color="#4f46e5")])
    fig.update_layout(title=title, barmode="group", height=320, margin=dict(l=10, r=10, t=40, b=10),
                      yaxis_title="pixels", legend=dict(orientation="h", y=-0.3))
    return fig


def image_gallery(images: list[np.ndarray], captions: list[str], cols: int = 4, title: str = "",
                  table: list[dict] | None = None) -> go.Figure:
    """Small grey images in a grid, each with a caption (four to a row, so captions stay apart on a phone).
    ``table``: what "Show numbers" lists instead of the pixels (one dict per image)."""
    from plotly.subplots import make_subplots

    rows = max(1, -(-len(images) // cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=captions, horizontal_spacing=0.02, vertical_spacing=0.12)
    for i, img in enumerate(images):
        fig.add_trace(go.Heatmap(z=img, colorscale="gray", zmin=0, zmax=1, showscale=False, hoverinfo="skip"),
                      row=i // cols + 1, col=i % cols + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, autorange="reversed")
    for k in range(1, len(images) + 1):  # keep every little image square
        fig.update_layout({f"yaxis{k if k > 1 else ''}": dict(scaleanchor=f"x{k if k > 1 else ''}")})
    fig.update_annotations(font_size=10)
    fig.update_layout(title=title, height=190 * rows + 40, margin=dict(l=10, r=10, t=60, b=10),
                      meta={"table": table} if table else None)
    return fig


def sweep_figure(rows: list[dict], axis_title: str, log_x: bool = False, height: int = 360) -> go.Figure:
    """Mean test accuracy per model at each value of one setting, the seeds' range as error bars.
    ``rows``: dicts with value, model and test_acc."""
    fig = go.Figure()
    for m in dict.fromkeys(r["model"] for r in rows):
        values = sorted({r["value"] for r in rows if r["model"] == m})
        accs = [np.array([r["test_acc"] for r in rows if r["model"] == m and r["value"] == v]) for v in values]
        mean = np.array([a.mean() for a in accs])
        fig.add_trace(go.Scatter(x=values, y=mean, mode="lines+markers", name=label(m), line=dict(color=color(m)),
                                 error_y=dict(type="data", symmetric=False, array=[a.max() for a in accs] - mean,
                                              arrayminus=mean - [a.min() for a in accs])))
    fig.add_hline(y=0.5, line=dict(dash="dot", color="#6b7280"), annotation_text="chance")
    values = sorted({r["value"] for r in rows})
    fig.update_layout(title=f"Test accuracy at unseen positions vs {axis_title} (bars: lowest to highest seed)",
                      height=height, yaxis=dict(range=[0, 1.05], tickformat=".0%", title="test accuracy"),
                      xaxis=dict(type="log" if log_x else "linear", title=axis_title, tickmode="array",
                                 tickvals=values, ticktext=[f"{v:g}" for v in values]),
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig


def patch_row_figure(row: np.ndarray, title: str, channels: int, patch_size: int, height: int = 200,
                     pixels_first: bool = False) -> go.Figure:
    """One flattened patch as a row of values: channel blocks split by lines in the right order; in the
    wrong (pixels-first) order each pixel's channels sit side by side, so lines split the pixels instead."""
    fig = matrix_figure(row[None], title, "value index: pixel, then channel" if pixels_first else
                        "value index: channel, then pixel", "", colorscale="gray", symmetric=False, height=height,
                        zmin=0, zmax=1)
    if pixels_first:
        cuts, width = ([px * channels for px in range(1, patch_size * patch_size)] if channels > 1 else []), 1
    else:
        cuts, width = [ch * patch_size * patch_size for ch in range(1, channels)], 2
    fig.update_layout(shapes=[dict(type="line", x0=x - 0.5, x1=x - 0.5, y0=0, y1=1, xref="x", yref="paper",
                                   line=dict(color="#ef4444", width=width)) for x in cuts])
    return fig


# Streamlit's chart theme turns on Plotly's ``automargin`` for every axis: Plotly then lays out and draws
# each chart, measures its tick labels and draws it again with margins that fit them. That second pass is
# a large share of a control change's wait on the symmetry page (docs/performance.md), so the margins are set here, from the labels the figure will draw. An axis whose labels may be turned on
# their side (many long categories along x) keeps automargin: their height cannot be known here.
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


def fixed_margins(fig: go.Figure) -> go.Figure:
    """Margins that fit the figure's axis labels and titles, automargin off (see above). In place."""
    left, bottom = 0, 0
    for axis in _axis_names(fig):
        ax = fig.layout[axis]
        labels = [] if ax.visible is False else _labels(fig, axis)  # a hidden axis draws no labels
        turned = axis.startswith("x") and sum(len(t) for t in labels) * CHAR_PX > ROTATE_AT
        fig.layout[axis].automargin = turned
        if ax.visible is False or turned:
            continue
        title = LINE_PX * (ax.title.text.count("<br>") + 1) if ax.title.text else 0
        if axis.startswith("y"):
            chars = max((len(t) for t in labels), default=4 if str(ax.tickformat or "").endswith("%") else 5)
            left = max(left, chars * CHAR_PX + title)
        else:
            bottom = max(bottom, LINE_PX + title)
    m = fig.layout.margin
    fig.update_layout(margin=dict(l=max(m.l or 0, left + PAD_PX + 4) if left else m.l,
                                  b=max(m.b or 0, bottom + PAD_PX + 4) if bottom else m.b))
    return fig


def figure_tables(fig: go.Figure) -> list[tuple[str, pd.DataFrame]]:
    """A figure's values as tables, one per trace: the "Show numbers" alternative to looking at a chart.
    Maps are tables as drawn (rows = y, columns = x); colour images give each pixel's "r, g, b" (0-255);
    bars, lines and dots are (x, y) rows."""
    meta = fig.layout.meta
    if isinstance(meta, dict) and meta.get("table"):
        return [("one row per picture", pd.DataFrame(meta["table"]))]
    out = []
    for i, trace in enumerate(fig.data):
        if trace.name == GRID_TRACE:
            continue
        name = trace.name or (f"{trace.type} {i + 1}" if len(fig.data) > 1 else trace.type)
        if trace.type == "heatmap":
            z = np.asarray(trace.z, dtype=np.float64)
            rows = list(trace.y) if trace.y is not None else list(range(z.shape[0]))
            cols = list(trace.x) if trace.x is not None else list(range(z.shape[1]))
            out.append((f"{name}: rows are y, columns x", pd.DataFrame(z, index=rows, columns=cols)))
        elif trace.type == "image":
            z = np.asarray(trace.z)
            cells = [[", ".join(str(int(v)) for v in px) for px in row] for row in z]
            out.append((f"{name}: each pixel's r, g, b (0-255); rows are y, columns x", pd.DataFrame(cells)))
        elif trace.type in ("bar", "scatter", "box"):
            x = list(trace.x) if trace.x is not None else list(range(len(trace.y)))
            y = list(trace.y) if trace.y is not None else [None] * len(x)
            table = pd.DataFrame({"x": x, "y": y})
            if trace.text is not None and not isinstance(trace.text, str):
                table["label"] = list(trace.text)
            if trace.hovertext is not None and not isinstance(trace.hovertext, str):
                table["detail"] = list(trace.hovertext)
            out.append((name, table))
    return out
