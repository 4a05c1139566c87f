"""A figure's values as tables: what *Show numbers under every chart* puts beneath each chart.
Plotly only: no Streamlit here, so figures can be tested alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from ui.figures.image_figures import GRID_TRACE

if TYPE_CHECKING:
    import pandas as pd


def figure_tables(fig: go.Figure) -> list[tuple[str, pd.DataFrame]]:
    """A figure's values as tables, one per trace: the "Show numbers" alternative to looking at a chart.
    Maps are tables as drawn (rows = y, columns = x); colour images give each pixel's "r, g, b" (0-255);
    bars, lines and dots are (x, y) rows. pandas is imported here, when the tables are asked for: the home page
    draws without it (docs/performance.md)."""
    import pandas as pd

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
