"""What writing the lab's look into a figure costs the server, per figure, two ways: Plotly's ``update_layout``
with the settings a figure leaves unset, and the layout rebuilt from its merged settings (``ui.figures.theme.
lab_look``). Plotly checks every key of an update against the figure's subplots, so a figure with many axes
pays most for an update.

    python -m benchmarks.bench_figures
    python -m benchmarks.bench_figures --tries 15 --out benchmarks/records/bench_figures_last_run.txt

Medians in ms over ``--tries`` fresh figures each; the two ways take turns, and they write the same layout
(checked before timing, but for the revision: a digest of JSON whose keys come in another order).
"""

from __future__ import annotations

import hashlib
import json
import statistics

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from benchmarks.harness import machine_now, ms, table_arguments, write_table
from core.models.registry import REGISTRY
from ui.figures import image_figures, model_figures, plots, theme

# Figures the pages draw, built from stand-in values of the pages' own sizes
FIGURES = {
    "heatmap (one image)": lambda: image_figures.image_figure(np.random.default_rng(0).random((1, 16, 16)), "image"),
    "bars, every model": lambda: model_figures.model_bars({m: i / len(REGISTRY) for i, m in enumerate(REGISTRY)}, "bars",
                                                          "pixels"),
    "logit lens (3 layers x 2 classes)": lambda: model_figures.lens_figure(np.full((3, 2), 0.5), ("plus", "circle"),
                                                                           "lens"),
    "maps, 2 x 4 subplots": lambda: image_figures.small_maps_figure(np.zeros((8, 4, 4)), [f"head {i}" for i in range(8)],
                                                                    "maps", cols=4),
    "grouped bars": lambda: plots.grouped_bars({"a": np.arange(4.0), "b": np.arange(4.0)}, "groups"),
}


def look_by_update(fig: go.Figure) -> go.Figure:
    """The look written with ``update_layout``, the rest as ``lab_look`` does it."""
    fig.layout.template = None
    own = fig.layout.to_plotly_json()
    axes = {name: theme.X_AXIS if name.startswith("x") else theme.Y_AXIS
            for name in {"xaxis", "yaxis", *own} if name.startswith(("xaxis", "yaxis"))
            and (own.get(name) or {}).get("visible") is not False}
    fig.update_layout(theme._missing(own, theme.LAYOUT | axes))
    for trace in fig.data:
        if trace.type == "scatter":
            for axis in ("x", "y"):
                values = trace[axis]
                if isinstance(values, np.ndarray):
                    trace[axis] = None
                    trace[axis] = values.tolist()
    fig.layout.datarevision = None
    fig.layout.datarevision = hashlib.blake2b(pio.to_json(fig, validate=False).encode(), digest_size=8).hexdigest()
    return fig


def main() -> None:
    args = table_arguments(__doc__, 15)
    lines = [machine_now(), f"{'figure':<36} {'update_layout':>14} {'rebuilt':>8} {'ratio':>6}   (ms, median of {args.tries})"]
    for name, make in FIGURES.items():
        a, b = json.loads(pio.to_json(look_by_update(make()))), json.loads(pio.to_json(theme.lab_look(make())))
        a["layout"].pop("datarevision"), b["layout"].pop("datarevision")  # a digest of the JSON: its keys' order counts
        assert a["layout"] == b["layout"], f"{name}: the two ways wrote different layouts"
        times = {"update": [], "rebuilt": []}
        for _ in range(args.tries):
            for way, look in (("update", look_by_update), ("rebuilt", theme.lab_look)):
                fig = make()  # a fresh figure each time, built outside the timed call
                times[way].append(ms(lambda look=look, fig=fig: look(fig)))
        u, r = statistics.median(times["update"]), statistics.median(times["rebuilt"])
        lines.append(f"{name:<36} {u:14.1f} {r:8.1f} {r / u:6.2f}")
        print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
