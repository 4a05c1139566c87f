"""Figures about trained models: each model's label and colour, accuracies, curves, the generalization
maps, the ranking and the sweeps. Plotly only: no Streamlit here, so figures can be tested alone."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.lessons import model_cards
from ui.figures.plots import MIN_FONT, cell_font, square_layout, wrap
from ui.figures.reuse import reused


def label(model: str) -> str:
    return model_cards.label(model)


def color(model: str) -> str:
    return model_cards.color(model)


@reused
def accuracy_bars(rows: list[dict], title: str = "Accuracy per model (bars: mean, dots: seeds)",
                  chance: float = 0.5) -> go.Figure:
    """Grouped bars of mean train and test accuracy per model, each seed drawn as a dot. ``rows``: dicts
    with model, seed, train_acc and test_acc (diverged seeds left out by the caller). More than three models lie
    on their side, a row each: long names side by side would run together on a phone."""
    fig = go.Figure()
    models = list(dict.fromkeys(r["model"] for r in rows))
    flat = len(models) > 3

    def xy(names: list[str], values: list[float]) -> dict:  # names on the category axis, values on the other
        return dict(y=names, x=values, orientation="h") if flat else dict(x=names, y=values)

    for split, opacity in (("train_acc", 0.45), ("test_acc", 1.0)):
        means = [np.mean([r[split] for r in rows if r["model"] == m]) for m in models]
        fig.add_trace(go.Bar(**xy([label(m) for m in models], means), name="train (seen positions)"
                             if split == "train_acc" else "test (unseen positions)", opacity=opacity, offsetgroup=split,
                             marker_color=[color(m) for m in models], text=[f"{v:.1%}" for v in means],
                             textposition="outside", textfont=dict(color="#111827")))
        fig.add_trace(go.Box(**xy([label(r["model"]) for r in rows], [r[split] for r in rows]), offsetgroup=split,
                             boxpoints="all", pointpos=0, jitter=0.3, fillcolor="rgba(0,0,0,0)", line_color="rgba(0,0,0,0)",
                             marker=dict(color="#111827", size=7), showlegend=False, name=f"{split}, per seed",
                             hovertext=[f"seed {r['seed']}: {r[split]:.1%}" for r in rows], hoverinfo="text"))
    axis = dict(range=[0, 1.12], tickformat=".0%")
    if flat:
        fig.add_vline(x=chance, line=dict(dash="dot", color="#6b7280"), annotation_text="chance")
        fig.update_layout(xaxis=axis, yaxis=dict(autorange="reversed"), height=120 + 56 * len(models),
                          legend=dict(orientation="h", y=-120 / (56 * len(models))))
    else:
        fig.add_hline(y=chance, line=dict(dash="dot", color="#6b7280"), annotation_text="chance")
        fig.update_layout(yaxis=axis, height=380, legend=dict(orientation="h", y=-0.15))
    fig.update_layout(title=title, barmode="group", boxmode="group", margin=dict(l=10, r=10, t=40, b=10))
    return fig


SEED_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
# the scales α of a position table, smallest to largest: light to dark (each ≥ 3:1 against white, as a mark needs)
ALPHA_SHADES = ("#d97706", "#b45309", "#92400e", "#78350f", "#5b2a0b", "#3b1a05")
ALPHA_MARKS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "hexagon")  # a mark each, as well
VALUE_PX = 48  # the right margin that holds a chart's value column: "100%" in 12 px text, and a gap before it
BARGAP = 0.2  # the room between one category's bars and the next's (a fifth of a category): Plotly's own default


def bar_offset(k: int, n: int) -> float:
    """Where the ``k``-th of ``n`` grouped bars sits on its category axis, from the category's centre (in
    categories): the bars share the category's width less ``BARGAP``, the first one lowest."""
    return (k - (n - 1) / 2) * (1 - BARGAP) / n


def value_column(fig: go.Figure, texts: list[str], at: list[float]) -> None:
    """Each bar's value as text in a column right of the plot, level with its bar (``at``: its place on the
    category axis, the category's number plus its ``bar_offset``), in the ``VALUE_PX`` right margin. A value at its
    bar's end sat under the bar's error bar, which struck it through, and a chance line crossed a value inside a
    bar; neither reaches past the plot's right edge (100 %)."""
    for text, y in zip(texts, at, strict=True):
        if text:
            fig.add_annotation(x=1, xref="paper", xanchor="left", xshift=6, y=y, yref="y", text=text, showarrow=False,
                               font=dict(color="#111827", size=12))


def legend_foot(entries: int, axis: int) -> int:
    """The bottom margin (px) that holds the axis (``axis`` px: its ticks and title) and, at the figure's foot, a
    horizontal legend of ``entries`` as a phone draws it: Plotly wraps a legend to the plot's width, a phone's is
    150-330 px, so each entry takes a row of its own (about 25 px). A legend below the plot in the plot's own
    coordinates pushed the plot up into its axis title on a phone; in a margin of its own it cannot (a desktop
    draws it on one row, leaving the rest of the margin blank)."""
    return axis + 25 * entries + 10


@reused
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
    foot = legend_foot(len({m for m, _ in keys}), 60)  # the ticks and the axis title "epoch"
    fig.update_layout(title=title, height=height - 10 + foot, margin=dict(l=10, r=10, t=40, b=foot), xaxis_title="epoch",
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"))
    if metric != "loss":
        fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


# Accuracy from wrong (0) through chance (white: 0.5 for two classes, 0.1 for ten) to right (1): orange to blue,
# which colour-blind eyes tell apart (unlike red to green); every cell also carries its number.
def accuracy_scale(chance: float = 0.5) -> list[list]:
    return [[0.0, "#b35806"], [chance / 2, "#f1a340"], [chance, "#f7f7f7"], [(1 + chance) / 2, "#67a9cf"],
            [1.0, "#2166ac"]]



def phase_lattice(d) -> list[tuple[int, int]] | None:
    """The training centres of the phase split or a split of one's own, to outline one by one; None for the notebook's
    split (two squares)."""
    return list(d.train_positions) if d.phases or d.split else None


def mark_trained(fig: go.Figure, trained: list[tuple[int, int]], row: int | None = None, col: int | None = None) -> None:
    """The phase split's training centres, each outlined (they form a lattice, not a square)."""
    for cx, cy in trained:
        fig.add_shape(type="rect", x0=cx - 0.45, x1=cx + 0.45, y0=cy - 0.45, y1=cy + 0.45,
                      line=dict(color="#111827", width=1.5), row=row, col=col)


@reused
def position_map_figure(grid: np.ndarray, centres: list[int], train_range: tuple[int, int],
                        test_range: tuple[int, int], title: str, height: int = 330, chance: float = 0.5,
                        trained: list[tuple[int, int]] | None = None) -> go.Figure:
    """Accuracy at each shape centre (x = cx, y = cy) with the training and test regions outlined (``trained``:
    the phase split's training centres, each outlined instead). Ranges are inclusive. Each cell shows its
    accuracy (in %, without the sign) where the number fits."""
    text = [["" if np.isnan(v) else f"{100 * v:.0f}" for v in row] for row in grid]
    font = cell_font(len(centres), height - 60, 3)  # drawn alone or in two columns: height-bound
    fig = go.Figure(go.Heatmap(z=grid, x=centres, y=centres, zmin=0, zmax=1, colorscale=accuracy_scale(chance), text=text,
                               texttemplate="%{text}" if font else None, textfont=dict(size=font or MIN_FONT),
                               colorbar=dict(tickformat=".0%", thickness=12),
                               hovertemplate="cx=%{x} cy=%{y} accuracy=%{z:.0%}<extra></extra>"))
    if trained is None:
        for (lo, hi), color, name in ((train_range, "#111827", "train"), (test_range, "#7c3aed", "test")):
            fig.add_shape(type="rect", x0=lo - 0.5, x1=hi + 0.5, y0=lo - 0.5, y1=hi + 0.5,
                          line=dict(color=color, width=3, dash="solid" if name == "train" else "dash"))
    else:
        mark_trained(fig, trained)
    fig.update_layout(title=title)
    fig.update_xaxes(title="cx", dtick=1)
    fig.update_yaxes(title="cy", dtick=1)
    return square_layout(fig, height)


# Light fills, one per remedy group (core.lessons.model_cards.GROUPS), so the bars' colour says what kind of change
# each model is, and the dark numbers on them stay readable
GROUP_FILLS = {"baseline": "#d1d5db", "data": "#a6cee3", "positions": "#b2df8a", "tokens": "#fdbf6f",
               "attention": "#cab2d6", "pooling": "#fb9a99", "anti-aliasing": "#b3e2cd", "the CNN side": "#f6e58d"}


@reused
def ranking_figure(rows: list[dict], title: str = "Test set: accuracy, best first (bars: 95 % interval)",
                   chance: float = 0.5) -> go.Figure:
    """Horizontal bars, one per model, sorted by mean test accuracy, with its 95 % interval as error bars,
    coloured by the model's group (a legend entry each). ``rows``: dicts with model, mean, lo, hi and
    optionally group."""
    rows = sorted(rows, key=lambda r: r["mean"])  # best at the top (Plotly draws the first bar lowest)
    fig = go.Figure()
    for group in dict.fromkeys(r.get("group", "") for r in rows):
        part = [r for r in rows if r.get("group", "") == group]
        fig.add_trace(go.Bar(
            y=[label(r["model"]) for r in part], x=[r["mean"] for r in part], orientation="h", name=group or "model",
            showlegend=bool(group), marker_color=GROUP_FILLS.get(group, "#d1d5db"),
            marker_line=dict(color="#6b7280", width=1),
            error_x=dict(type="data", symmetric=False, array=[r["hi"] - r["mean"] for r in part],
                         arrayminus=[r["mean"] - r["lo"] for r in part], color="#111827"),
            hovertemplate="%{y}: %{x:.1%}<extra></extra>"))
    value_column(fig, [f"{r['mean']:.0%}" for r in rows], list(range(len(rows))))  # the category axis's order
    fig.add_vline(x=chance, line=dict(dash="dot", color="#6b7280"), annotation_text="chance", annotation_position="top")
    # the legend at the figure's foot, in a margin of its own: below the plot it would squeeze the plot (and
    # its two-line axis title) into itself on a phone, where its entries take three rows
    foot = legend_foot(len({r.get("group", "") for r in rows}) + 1, 60)  # the ticks and the two-line axis title
    fig.update_layout(title=title, height=90 + foot + 28 * len(rows), margin=dict(l=10, r=VALUE_PX, t=40, b=foot),
                      barmode="overlay", legend=dict(orientation="h", yref="container", y=0, yanchor="bottom",
                                                     title_text="group"),
                      yaxis=dict(categoryorder="array", categoryarray=[label(r["model"]) for r in rows]),
                      xaxis=dict(range=[0, 1.02], tickformat=".0%",
                                 title="test accuracy<br>(unseen positions)"))  # two lines: fits a phone
    return fig


@reused
def maps_grid_figure(grids: dict[str, np.ndarray], centres: list[int], train_range: tuple[int, int],
                     test_range: tuple[int, int], title: str | None, cols: int = 4,
                     colorbar: bool = True, chance: float = 0.5, trained: list[tuple[int, int]] | None = None) -> go.Figure:
    """Every model's generalization map (accuracy at each centre, both shapes averaged) side by side, at one
    colour scale, each with the training square (solid) and the test square (dashed). One figure, not one
    per model: a chart costs the browser far more than a subplot."""
    from plotly.subplots import make_subplots

    names = list(grids)
    rows = max(1, -(-len(names) // cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[wrap(label(m), 48 // cols) for m in names],
                        horizontal_spacing=0.03, vertical_spacing=0.35 / rows)
    for i, m in enumerate(names):
        r, c = i // cols + 1, i % cols + 1
        fig.add_trace(go.Heatmap(z=grids[m], x=centres, y=centres, coloraxis="coloraxis", name=label(m),
                                 hovertemplate=f"{label(m)}<br>cx=%{{x}} cy=%{{y}}: %{{z:.0%}}<extra></extra>"),
                      row=r, col=c)
        if trained is not None:
            mark_trained(fig, trained, row=r, col=c)
            continue
        for (lo, hi), line in ((train_range, dict(color="#111827", width=2)),
                               (test_range, dict(color="#7c3aed", width=2, dash="dash"))):
            fig.add_shape(type="rect", x0=lo - 0.5, x1=hi + 0.5, y0=lo - 0.5, y1=hi + 0.5, line=line, row=r, col=c)
    # a few centres on each axis, so a cell can be read as a place (cx across, cy down), and titles at the
    # lab's own text size
    ticks = dict(tickvals=sorted({centres[0], *train_range, *test_range, centres[-1]}), showgrid=False,
                 zeroline=False, ticks="", tickfont=dict(size=MIN_FONT))
    fig.update_xaxes(**ticks)
    fig.update_yaxes(**ticks, autorange="reversed")
    for k in range(1, len(names) + 1):  # square cells
        fig.update_layout({f"yaxis{k if k > 1 else ''}": dict(scaleanchor=f"x{k if k > 1 else ''}")})
    fig.update_annotations(font_size=12)
    fig.update_layout(title=title, height=230 * rows + 60, margin=dict(l=10, r=10, t=70, b=10),
                      coloraxis=dict(colorscale=accuracy_scale(chance), cmin=0, cmax=1, showscale=colorbar,
                                     colorbar=dict(tickformat=".0%")))
    return fig


@reused
def probe_map_figure(grid: np.ndarray, centres: list[int], train_range: tuple[int, int],
                     test_range: tuple[int, int], chosen: tuple[int, int], title: str, chance: float = 0.5,
                     trained: list[tuple[int, int]] | None = None) -> go.Figure:
    """A generalization map to click: each cell probes the model with the shape at that centre. An
    invisible marker on every cell makes the click a selectable point; the chosen cell has a red box."""
    fig = position_map_figure(grid, centres, train_range, test_range, title, chance=chance, trained=trained)
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


@reused
def model_bars(values: dict[str, float], title: str, x_title: str, fmt: str = ".1f") -> go.Figure:
    """One horizontal bar per model, largest at the top, in each model's colour."""
    items = sorted(values.items(), key=lambda kv: kv[1])
    fig = go.Figure(go.Bar(y=[label(m) for m, _ in items], x=[v for _, v in items], orientation="h",
                           marker_color=[color(m) for m, _ in items], text=[format(v, fmt) for _, v in items],
                           textposition="outside", hovertemplate="%{y}: %{x:.3g}<extra></extra>"))
    fig.update_layout(title=title, height=60 + 28 * len(items), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title=x_title)
    return fig


@reused
def distance_bars(untrained: np.ndarray, trained: np.ndarray, title: str) -> go.Figure:
    """Mean attention distance per layer and head, before and after training (as the ViT paper's figure 7)."""
    labels = [f"layer {layer}, head {h}" for layer in range(untrained.shape[0]) for h in range(untrained.shape[1])]
    fig = go.Figure([go.Bar(x=labels, y=untrained.flatten(), name="untrained", marker_color="#9ca3af"),
                     go.Bar(x=labels, y=trained.flatten(), name="trained", marker_color="#4f46e5")])
    fig.update_layout(title=title, barmode="group", height=320, margin=dict(l=10, r=10, t=40, b=10),
                      yaxis_title="pixels", legend=dict(orientation="h", y=-0.3))
    return fig


@reused
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
    values = sorted({r["value"] for r in rows})
    # chance as a legend entry, not a label on the line: a label there sat on a model's error bar
    fig.add_trace(go.Scatter(x=[values[0], values[-1]], y=[0.5, 0.5], mode="lines", name="chance (50 %)",
                             line=dict(dash="dot", color="#6b7280"), hoverinfo="skip"))
    fig.update_layout(title=f"Notebook's test accuracy vs {axis_title} (bars: lowest to highest seed)",
                      height=height, yaxis=dict(range=[0, 1.05], tickformat=".0%", title="notebook's test accuracy"),
                      xaxis=dict(type="log" if log_x else "linear", title=axis_title, tickmode="array",
                                 tickvals=values, ticktext=[f"{v:g}" for v in values]),
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig


@reused
def lens_figure(probs: np.ndarray, classes: tuple[str, ...], title: str) -> go.Figure:
    """The logit lens: each class's probability (columns) read after each layer (rows, the last = the answer),
    the number in each cell."""
    text = [[f"{100 * p:.0f}" for p in row] for row in probs]
    font = cell_font(len(classes), 320, 3)
    fig = go.Figure(go.Heatmap(z=probs, x=list(classes), y=[f"after layer {i}" for i in range(len(probs))], zmin=0,
                               zmax=1, colorscale="Blues", text=text, texttemplate="%{text}" if font else None,
                               textfont=dict(size=font or MIN_FONT), colorbar=dict(tickformat=".0%", thickness=12),
                               hovertemplate="%{y}: p(%{x}) = %{z:.1%}<extra></extra>"))
    fig.update_layout(title=title, height=110 + 40 * len(probs), margin=dict(l=10, r=10, t=40, b=10))
    fig.update_xaxes(type="category", title="class")
    fig.update_yaxes(autorange="reversed")
    return fig


@reused
def scale_figure(alphas: list[float], means: list[float], los: list[float], his: list[float],
                 seeds: list[tuple[float, ...]], title: str, chance: float = 0.5, height: int = 340) -> go.Figure:
    """Test accuracy against the position table's scale α: the mean with its 95 % interval, each seed a dot. The
    α axis is categorical (it starts at 0, which a log axis cannot show)."""
    ticks = [f"{a:g}" for a in alphas]
    fig = go.Figure(go.Scatter(
        x=ticks, y=means, mode="lines+markers", name="mean, 95 % interval", line=dict(color=color("vit")),
        error_y=dict(type="data", symmetric=False, array=np.array(his) - means, arrayminus=np.array(means) - los),
        hovertemplate="α = %{x}: %{y:.1%}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[t for t, s in zip(ticks, seeds, strict=True) for _ in s],
                             y=[a for s in seeds for a in s], mode="markers", name="one seed",
                             marker=dict(color="#111827", size=6, opacity=0.6),
                             hovertemplate="α = %{x}: a seed at %{y:.1%}<extra></extra>"))
    # chance named in the axis's title: a label on its line sat where an error bar could cross it
    fig.add_hline(y=chance, line=dict(dash="dot", color="#6b7280"))
    foot = legend_foot(2, 60)  # the ticks and the axis title, then the legend in a margin of its own
    fig.update_layout(title=title, height=height - 10 + foot, legend=dict(orientation="h", yref="container", y=0,
                                                                          yanchor="bottom"),
                      yaxis=dict(range=[0, 1.05], tickformat=".0%", title="test accuracy (dotted: chance)"),
                      xaxis=dict(type="category", title="scale α of the fixed 1-D table (1: the notebook's)"),
                      margin=dict(l=10, r=10, t=40, b=foot))
    return fig


@reused
def tradeoff_figure(alphas: list[float], what: list, where: list, title: str, chance: float = 0.5) -> go.Figure:
    """One point per scale α of the position table: its accuracy on the lesson's task (x: which shape, at the
    unseen centres) against the position task's (y: where the shape is), each with its 95 % interval; the
    notebook's α = 1 marked. ``what``, ``where``: Intervals. Each α is named in the legend, by its colour and
    mark: a name beside its point sat on the error bars (its own and its neighbours'), and two α at one place
    wrote their names over each other."""
    fig = go.Figure(go.Scatter(x=[iv.mean for iv in what], y=[iv.mean for iv in where], mode="lines",
                               line=dict(color="#9ca3af", dash="dot"), hoverinfo="skip", showlegend=False,
                               name="α in order"))
    for i, (a, w, h) in enumerate(zip(alphas, what, where, strict=True)):
        name, shade = f"α = {a:g}" + (" (notebook)" if a == 1 else ""), ALPHA_SHADES[i % len(ALPHA_SHADES)]
        fig.add_trace(go.Scatter(
            x=[w.mean], y=[h.mean], mode="markers", name=name,
            marker=dict(color=shade, size=14 if a == 1 else 10, symbol="star" if a == 1 else ALPHA_MARKS[i % len(ALPHA_MARKS)]),
            error_x=dict(type="data", symmetric=False, array=[w.hi - w.mean], arrayminus=[w.mean - w.lo], color=shade),
            error_y=dict(type="data", symmetric=False, array=[h.hi - h.mean], arrayminus=[h.mean - h.lo], color=shade),
            hovertemplate=name + ": which shape %{x:.1%}, where %{y:.1%}<extra></extra>"))
    for line in (fig.add_vline, fig.add_hline):
        line(chance, line=dict(dash="dot", color="#6b7280"))
    foot = legend_foot(len(alphas), 60)  # the ticks and the axis title, then the legend in a margin of its own
    fig.update_layout(title=title, height=420 - 10 + foot, margin=dict(l=10, r=10, t=40, b=foot),
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"),
                      xaxis=dict(range=[0, 1.08], tickformat=".0%", title="which shape: unseen test centres"),
                      yaxis=dict(range=[0, 1.08], tickformat=".0%", title="where (left or right half): test"))
    return fig


@reused
def shift_figure(models: list[str], one: list[float], patch: list[float], patch_size: int, title: str) -> go.Figure:
    """Each model's share of answers that change when the patterns move by 1 pixel and by one patch."""
    names = [label(m) for m in models]
    fig = go.Figure()
    for values, name, pattern in ((one, "1-pixel move", ""), (patch, f"{patch_size}-pixel move (one patch)", "/")):
        fig.add_trace(go.Bar(y=names, x=values, orientation="h", name=name, marker_color=[color(m) for m in models],
                             marker_pattern_shape=pattern, text=[f"{v:.0%}" for v in values], textposition="outside",
                             textfont=dict(color="#111827"),
                             hovertemplate="%{y}: " + name + " changes %{x:.0%} of the answers<extra></extra>"))
    foot = legend_foot(2, 60)  # the ticks and the axis title, then the legend in a margin of its own
    fig.update_layout(title=title, barmode="group", height=90 + 48 * len(models) + foot,
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"),
                      xaxis=dict(range=[0, 1.1], tickformat=".0%", title="answers changed"),
                      yaxis=dict(autorange="reversed"), margin=dict(l=10, r=10, t=40, b=foot))
    return fig


SPLIT_SERIES = ("notebook split: unseen centres (whole-patch moves)", "phase split: new offsets (part-of-a-patch moves)")


@reused
def split_figure(models: list[str], whole: list, part: list, title: str, chance: float = 0.5,
                 series: tuple[str, str] = SPLIT_SERIES, names: list[str] | None = None) -> go.Figure:
    """Each model's accuracy (mean, 95 % interval) on two measures, by default at the notebook split's unseen
    centres (whole-patch moves) and at the phase split's new offsets (moves by part of a patch). ``whole``,
    ``part``: Intervals or None; ``series``: the two measures' names; ``names``: the models' (default: labels)."""
    names = names or [label(m) for m in models]
    fig = go.Figure()
    for k, (ivs, name, pattern) in enumerate(((whole, series[0], ""), (part, series[1], "/"))):
        mean = [np.nan if iv is None else iv.mean for iv in ivs]
        fig.add_trace(go.Bar(y=names, x=mean, orientation="h", name=name, marker_color=[color(m) for m in models],
                             marker_pattern_shape=pattern,
                             error_x=dict(type="data", symmetric=False,
                                          array=[0 if iv is None else iv.hi - iv.mean for iv in ivs],
                                          arrayminus=[0 if iv is None else iv.mean - iv.lo for iv in ivs]),
                             hovertemplate="%{y}: %{x:.1%}<extra>" + name + "</extra>"))
        value_column(fig, [f"{v:.0%}" if v == v else "" for v in mean], [i + bar_offset(k, 2) for i in range(len(names))])
    fig.add_vline(x=chance, line=dict(dash="dot", color="#6b7280"))
    foot = legend_foot(2, 60)
    fig.update_layout(title=title, barmode="group", bargap=BARGAP, bargroupgap=0, height=90 + 56 * len(models) + foot,
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"),
                      xaxis=dict(range=[0, 1.02], tickformat=".0%", title="accuracy (dotted: chance)"),
                      yaxis=dict(autorange="reversed"), margin=dict(l=10, r=VALUE_PX, t=40, b=foot))
    return fig


# The painted split's cells: a colour, a legend name and the nearest of Markdown's colours (the page's legend) per
# kind (core/lessons/split_moves.py's OFFSETS, and the rest)
SPLIT_CELLS = {"seen": ("#1d4ed8", "training centre", "blue"),
               "new place, trained offsets": ("#16a34a", "test: its grid lines up as at a training centre", "green"),
               "new offset": ("#ea580c", "test: an offset no training centre has", "orange"),
               "test": ("#7c3aed", "test centre", "violet"),
               "neither": ("#e5e7eb", "neither (click to mark)", "gray"),
               "unfit": ("#dc2626", "marked, but your classes do not fit here", "red")}


@reused
def painted_split_figure(size: int, cells: tuple[tuple[int, int, str], ...], fits: tuple[int, int], title: str,
                 height: int = 420) -> go.Figure:
    """The canvas's centres as squares to click or drag over, each coloured by its kind (``SPLIT_CELLS``): ``cells``
    holds (cx, cy, kind) for every centre drawn; ``fits`` the inclusive range of centres where the classes fit,
    outlined."""
    fig = go.Figure()
    for kind, (colour, name, _) in SPLIT_CELLS.items():
        mine = [(x, y) for x, y, k in cells if k == kind]
        if not mine:
            continue
        xs, ys = zip(*mine, strict=True)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=name, customdata=[kind] * len(xs),
                                 marker=dict(symbol="square", size=max(8, int((height - 80) / size * 0.8)), color=colour,
                                             line=dict(color="#ffffff", width=1)),
                                 hovertemplate=f"cx=%{{x}} cy=%{{y}}: {name}<extra></extra>"))
    lo, hi = fits
    fig.add_shape(type="rect", x0=lo - 0.5, x1=hi + 0.5, y0=lo - 0.5, y1=hi + 0.5, line=dict(color="#6b7280", dash="dot"))
    # no legend in the figure (on a phone it wrapped over the map's top rows): the page says the colours in text
    # (``SPLIT_CELLS``' names); the axes fixed: a drag selects or does nothing
    fig.update_layout(title=title, showlegend=False)
    fig.update_xaxes(title="cx", range=[-0.5, size - 0.5], dtick=2, autorange=False, fixedrange=True)
    fig.update_yaxes(title="cy", range=[size - 0.5, -0.5], dtick=2, autorange=False, fixedrange=True)
    fig = square_layout(fig, height)
    fig.update_yaxes(autorange=False, range=[size - 0.5, -0.5])
    return fig
