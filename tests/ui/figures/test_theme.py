"""ui.figures.theme: the lab's look goes in the figure itself, without a template (Plotly redraws a chart whose
template object is replaced), with a data revision that changes exactly when the figure does."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from ui.figures import theme


def sent(fig: go.Figure) -> dict:
    """The figure as Streamlit sends it (``st.plotly_chart`` serializes it this way)."""
    return json.loads(pio.to_json(fig, validate=False))


def heatmap(value: float = 0.5) -> go.Figure:
    return go.Figure(go.Heatmap(z=np.full((3, 3), value)))


def test_the_figure_goes_without_any_template_and_with_the_labs_look():
    spec = sent(theme.lab_look(heatmap()))
    assert "template" not in spec["layout"]  # an empty one would still be a new object on every round trip
    assert spec["layout"]["font"]["family"].startswith('"Source Sans"')
    assert spec["layout"]["paper_bgcolor"] == "#ffffff" and spec["layout"]["xaxis"]["showgrid"] is False


def test_a_figures_own_settings_win_over_the_look():
    fig = heatmap().update_layout(font=dict(size=16), paper_bgcolor="#000000", hovermode="x")
    fig.update_xaxes(showgrid=True)
    layout = sent(theme.lab_look(fig, selectable=True))["layout"]
    assert layout["font"]["size"] == 16 and layout["font"]["color"] == theme.TEXT  # unset parts filled in
    assert layout["paper_bgcolor"] == "#000000" and layout["xaxis"]["showgrid"] is True
    assert layout["hovermode"] == "x" and layout["clickmode"] == "event+select"  # what it left unset


def test_every_subplots_axes_get_the_look():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Heatmap(z=[[1, 2]]), row=1, col=1).add_trace(go.Heatmap(z=[[1, 2]]), row=1, col=2)
    layout = sent(theme.lab_look(fig))["layout"]
    assert layout["xaxis2"]["showgrid"] is False and layout["yaxis2"]["gridcolor"] == theme.GRID


def test_the_data_revision_changes_with_the_figure_and_only_with_it():
    a, b, c = (sent(theme.lab_look(heatmap(v)))["layout"]["datarevision"] for v in (0.5, 0.5, 0.25))
    assert a == b != c
    titled = sent(theme.lab_look(heatmap(0.5).update_layout(title="other")))["layout"]["datarevision"]
    assert titled != a  # any change of the figure, not only of its arrays


def test_a_scatters_coordinates_go_as_plain_lists():
    xs = np.arange(4)
    fig = go.Figure([go.Scatter(x=xs, y=xs, mode="markers"), go.Heatmap(z=np.eye(2))])
    data = sent(theme.lab_look(fig))["data"]
    assert data[0]["x"] == [0, 1, 2, 3] and data[0]["y"] == [0, 1, 2, 3]
    assert "bdata" in data[1]["z"]  # a heatmap's typed array is kept: Plotly does not redraw it


def test_the_pages_settings_go_over_the_figures_own_and_none_unsets():
    fig = heatmap().update_layout(title="a title", margin=dict(l=5, t=80), meta={"numbers": [1]}, font=dict(size=20))
    layout = sent(theme.lab_look(fig, settings={"title": None, "meta": None, "margin": {"t": 30}}))["layout"]
    assert "title" not in layout and "meta" not in layout
    assert layout["margin"] == {"l": 5, "t": 30}  # the figure's own left margin kept, its top one replaced
    assert layout["font"]["size"] == 20 and layout["font"]["color"] == theme.TEXT  # the figure's own, then the look's


def test_merged_follows_nested_settings_and_changes_neither():
    base, part = {"margin": {"l": 5}, "title": {"text": "t"}}, {"margin": {"t": 30}, "title": None}
    assert theme.merged(base, part) == {"margin": {"l": 5, "t": 30}}
    assert base == {"margin": {"l": 5}, "title": {"text": "t"}} and part == {"margin": {"t": 30}, "title": None}
