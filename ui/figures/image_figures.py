"""Images as figures: an image with its patch grid, maps beside images, galleries, a patch's row of
values. Plotly only: no Streamlit here, so figures can be tested alone."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures.plots import MIN_FONT, matrix_figure, square_layout
from ui.figures.reuse import reused


@reused
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
    return square_layout(fig)


GRID_TRACE = "patch grid"  # the line trace of a patch grid: drawing, not data
# A patch's number: bold white in a solid dark ring (a CSS text shadow of every offset up to 2 px, no blur), so each
# digit stands on the ring's dark (17.7:1) whatever pixel lies under it. Dark text in a soft white glow read as
# faint grey on the lab's black images.
NUMBER_COLOR, NUMBER_RING = "#ffffff", "#111827"
NUMBER_OUTLINE = ", ".join(f"{dx}px {dy}px 0 {NUMBER_RING}" for dx in range(-2, 3) for dy in range(-2, 3)
                           if 0 < dx * dx + dy * dy <= 5)
IMAGE_PX = 290  # the side of an image as a page draws it (a square of 360 px less its title, two to a row, or a phone)
NUMBER_PX = 18  # the largest a patch's number is written


def number_px(across: int) -> int:
    """The font (px) of the patch numbers with ``across`` patches to a row: under half a patch's side as drawn
    (``IMAGE_PX``), at most ``NUMBER_PX``, never below the lab's ``MIN_FONT``."""
    return max(MIN_FONT, min(NUMBER_PX, int(0.45 * IMAGE_PX / max(across, 1))))


@reused
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
    if max(gh, gw) <= 16:
        # Each number in its patch's top-left corner, as plain text (one text trace, not layout annotations,
        # which Plotly lays out one by one: docs/performance.md). No badge behind it: a badge hid
        # what it labelled (the bright patch under its "0"). White in a solid dark ring (NUMBER_OUTLINE): legible on any
        # pixel (a colour chosen from the pixels under it went white on a light stroke the number reached past).
        text = [str(labels[i] if labels is not None else i) for i in range(gh * gw)]
        rows, cols = np.divmod(np.arange(gh * gw), gw)  # patch i sits at grid (row, col), row-major
        fig.add_trace(go.Scatter(
            x=cols * patch_size - 0.5, y=rows * patch_size - 0.5, text=text, mode="text", name="patch numbers",
            textposition="bottom right", hoverinfo="skip", showlegend=False, cliponaxis=False,  # the top row's too
            textfont=dict(color=NUMBER_COLOR, shadow=NUMBER_OUTLINE, weight="bold", size=number_px(gw))))
    # the image's own extent, row 0 at the top: the line and marker traces would otherwise move the autorange
    fig.update_xaxes(range=[-0.5, W - 0.5], autorange=False)
    fig.update_yaxes(range=[H - 0.5, -0.5], autorange=False)
    return fig


TITLE_PX = 30  # room above each tile of a mosaic for a two-line title of 10 px text
LINE_PX = TITLE_PX / 2  # one line of it
NARROWEST_PX = 340  # the narrowest a chart is drawn: a 390 px phone less the page's padding


@reused
def mosaic_figure(maps: np.ndarray, titles: list[str], title: str, cols: int, tile_px: int, colorscale="Viridis",
                  zmin: float | None = None, zmax: float | None = None, hover: str = "value",
                  colorbar: bool = True, table: list[dict] | None = None) -> go.Figure:
    """Many small (h, w) maps as tiles of ONE heatmap, ``cols`` to a row, each with its title above it, at one
    colour scale. One heatmap and one text trace, not a subplot per map: every subplot is an axis pair that
    Plotly lays out and draws on its own, which made a section of many maps slow to draw in the browser
    (docs/performance.md). ``tile_px``: a tile's height on screen where the figure is wide enough.
    ``table``: what "Show numbers" lists (default: every cell of every map)."""
    maps = np.asarray(maps, dtype=np.float64)
    n, h, w = maps.shape
    rows = max(1, -(-n // cols))
    scale = tile_px / h  # screen px per map cell
    gx = max(1, int(np.ceil(6 / scale)))  # empty columns between tiles
    # Empty rows above each tile for its title, enough at the narrowest screen too: the figure shrinks to a phone's
    # width with its cells, its text does not (a two-line caption lost its top line there). At most twice the
    # room a wide screen needs, so a wide mosaic does not gape on a desktop.
    lines = max((t.count("<br>") + 1 for t in titles), default=1)
    narrowest = max(min(scale, NARROWEST_PX / (cols * w + (cols - 1) * gx)), scale / 2)
    gy = int(np.ceil(lines * LINE_PX / narrowest))
    z = np.full((rows * (h + gy), cols * w + (cols - 1) * gx), np.nan)
    which = np.full(z.shape, "", dtype=object)  # each cell's map, for the hover
    xs, ys = [], []
    for i, m in enumerate(maps):
        r, c = divmod(i, cols)
        y0, x0 = r * (h + gy) + gy, c * (w + gx)
        z[y0:y0 + h, x0:x0 + w] = m
        which[y0:y0 + h, x0:x0 + w] = titles[i].replace("<br>", " ")
        xs.append(x0 + (w - 1) / 2)
        ys.append(y0 - 0.5)
    lo = float(np.nanmin(maps)) if zmin is None else zmin
    hi = float(np.nanmax(maps)) if zmax is None else zmax
    cells = np.indices((h, w))  # each cell's row and column inside its map
    fig = go.Figure([
        go.Heatmap(z=z, colorscale=colorscale, zmin=lo, zmax=hi, showscale=colorbar, customdata=which,
                   colorbar=dict(thickness=12), hoverongaps=False, name=title or "maps",
                   hovertemplate=f"%{{customdata}}: {hover} %{{z:.3g}}<extra></extra>"),
        go.Scatter(x=xs, y=ys, text=titles, mode="text", textposition="top center", hoverinfo="skip",
                   textfont=dict(size=MIN_FONT, color="#111827"), showlegend=False, name="titles"),
    ])
    fig.update_xaxes(visible=False, range=[-0.5, z.shape[1] - 0.5], constrain="domain")
    # on a narrow screen the tiles shrink with the width: they keep to the top, the room left over goes below
    fig.update_yaxes(visible=False, range=[z.shape[0] - 0.5, -0.5], scaleanchor="x", constrain="domain",
                     constraintoward="top")
    if table is None:
        table = [{"map": titles[i].replace("<br>", " "), "row": int(r), "column": int(c), hover: float(maps[i, r, c])}
                 for i in range(n) for r, c in zip(cells[0].ravel(), cells[1].ravel(), strict=True)]
    fig.update_layout(title=title, height=int(z.shape[0] * scale) + 20, margin=dict(l=10, r=10, t=10, b=10),
                      meta={"table": table})
    return fig


@reused
def small_maps_figure(maps: np.ndarray, titles: list[str], title: str, cols: int, colorscale: str = "Viridis",
                      zmin: float | None = None, zmax: float | None = None, height_per_row: int = 150,
                      hover: str = "value") -> go.Figure:
    """Many small maps (an (n, h, w) array) at one colour scale: attention per layer and head, feature maps
    per channel, position similarities per position."""
    return mosaic_figure(maps, titles, title, cols, height_per_row - TITLE_PX, colorscale, zmin, zmax, hover)


# Over the picture at MAP_OPACITY: a single-hue scale from light to dark, so that blended with what lies beneath
# (and in the colour bar, over white) a lower value always reads lighter. Inferno at 0.6 showed its lowest values as
# light lavender above near-black low-middle ones (tests/ui/figures/test_figures.py checks the lightness)
MAP_SCALE = "YlOrRd"
MAP_OPACITY = 0.6


@reused
def image_with_map(image: np.ndarray, grid: np.ndarray, title: str, colorscale: str = MAP_SCALE) -> go.Figure:
    """A grey (H, W) image with a (G, G) map over it, each cell covering its patch: where attention goes,
    on the picture itself. Hover gives each patch's value."""
    H, W = image.shape
    G = grid.shape[0]
    P = H // G
    cells = np.kron(np.asarray(grid, dtype=np.float64), np.ones((P, P)))  # (H, W): each patch's value on its pixels
    fig = go.Figure([
        go.Heatmap(z=image, colorscale="gray", zmin=0, zmax=1, showscale=False, hoverinfo="skip", name="image"),
        go.Heatmap(z=cells, colorscale=colorscale, opacity=MAP_OPACITY, zmin=0, name="attention",
                   customdata=np.kron(np.arange(G * G).reshape(G, G), np.ones((P, P), dtype=int)),
                   hovertemplate="patch %{customdata}: %{z:.3f}<extra></extra>", colorbar=dict(thickness=12))])
    fig.add_shape(type="rect", x0=-0.5, x1=W - 0.5, y0=-0.5, y1=H - 0.5, line=dict(color="#6b7280", width=1))
    fig.update_layout(title=title)
    return square_layout(fig, 320)


@reused
def image_with_peaks(image: np.ndarray, peaks: list[tuple[int, int]], title: str, size: int = 2) -> go.Figure:
    """A grey image with a box where each CNN channel's strongest response is (``size`` pixels: one cell of
    the pooled feature map)."""
    fig = image_figure(image[None], title)
    fig.update_layout(shapes=list(fig.layout.shapes) + [
        dict(type="rect", x0=c - 0.5, x1=c + size - 0.5, y0=r - 0.5, y1=r + size - 0.5, xref="x", yref="y",
             line=dict(color="#ef4444", width=2)) for r, c in set(peaks)])
    return fig


@reused
def image_gallery(images: list[np.ndarray], captions: list[str], cols: int = 4, title: str = "",
                  table: list[dict] | None = None, tile_px: int = 150) -> go.Figure:
    """Small grey images in a grid, each with a caption (four to a row, so captions stay apart on a phone), as
    one mosaic (``mosaic_figure``). ``table``: what "Show numbers" lists instead of the pixels (one dict per
    image). ``tile_px``: an image's height on screen (smaller for a gallery in a narrow column: no room left
    below it)."""
    return mosaic_figure(np.stack(images), captions, title, cols, tile_px, "gray", 0, 1, "brightness", colorbar=False,
                         table=table or [{"image": c.replace("<br>", ", ")} for c in captions])


@reused
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


@reused
def drawing_figure(drawing: np.ndarray, title: str) -> go.Figure:
    """A learner's drawing to click: grey pixels, and an invisible marker on every pixel so that a click selects
    it (the page toggles that pixel)."""
    fig = image_figure(drawing[None], title)
    n = drawing.shape[0]
    ys, xs = np.mgrid[0:n, 0:n]
    fig.add_trace(go.Scatter(x=xs.flatten(), y=ys.flatten(), mode="markers", name="pixel", showlegend=False,
                             marker=dict(size=14, symbol="square", opacity=0.01, color="#000000"),
                             hovertemplate="click: ink on or off at x=%{x}, y=%{y}<extra></extra>"))
    fig.update_xaxes(range=[-0.5, n - 0.5], autorange=False)
    fig.update_yaxes(range=[n - 0.5, -0.5], autorange=False)
    return fig
