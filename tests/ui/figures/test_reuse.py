"""ui.figures.reuse: a figure made from the same inputs is built once, and every use gets its own copy."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.tools import return_figure_from_figure_or_data

from ui.figures import reuse
from ui.figures.image_figures import image_with_patch_grid
from ui.figures.theme import lab_look


def test_the_same_inputs_give_an_equal_figure_without_building_it_again():
    image = np.random.default_rng(0).random((1, 16, 16))
    first = image_with_patch_grid(image, 4, 5, "a grid")
    hits = reuse.BUILT.hits
    again = image_with_patch_grid(image.copy(), 4, 5, "a grid")
    assert reuse.BUILT.hits == hits + 1 and again is not first
    assert pio.to_json(again, validate=False) == pio.to_json(first, validate=False)
    assert isinstance(again.data[0].z, np.ndarray)  # values as Plotly held them: "Show numbers" reads them
    other = image_with_patch_grid(image, 4, 6, "a grid")
    assert pio.to_json(other, validate=False) != pio.to_json(first, validate=False)


def test_a_change_to_one_use_never_reaches_the_next():
    image = np.zeros((1, 16, 16))
    mine = image_with_patch_grid(image, 4, None, "mine")
    mine.update_layout(title="changed")
    mine.data[0].z[0, 0] = 1.0
    fresh = image_with_patch_grid(image, 4, None, "mine")
    assert fresh.layout.title.text == "mine" and fresh.data[0].z[0, 0] == 0.0


def test_the_look_applied_once_is_the_look_applied_every_time():
    def made():
        return go.Figure(go.Scatter(x=np.arange(3), y=np.arange(3.0)), layout=dict(title="t"))

    direct = lab_look(made(), settings={"height": 200})
    done = [reuse.finished(made(), lambda f: lab_look(f, settings={"height": 200}), False, {"height": 200})
            for _ in range(2)]
    # what Streamlit sends: the spec of what return_figure_from_figure_or_data hands it
    sent = [json.loads(pio.to_json(return_figure_from_figure_or_data(f, validate_figure=True), validate=False))
            for f in (*done, direct)]
    assert sent[0] == sent[1] == sent[2]  # the same keys and values (Plotly may order keys otherwise)
    assert "template" not in done[1].to_dict()["layout"] and isinstance(done[1].to_dict()["data"][0]["x"], (list, tuple))
    assert done[1].to_dict() is not done[1].to_dict()  # each use its own copy: Plotly's encoder changes what it sends


def test_streamlit_sends_a_finished_figure_as_it_sends_the_figure_it_was_made_from():
    """``reuse.Finished`` is read by Streamlit through ``to_dict`` alone: the element it sends is the same."""
    from streamlit.testing.v1 import AppTest

    def page():
        import numpy as np
        import plotly.graph_objects as go
        import streamlit as st

        from ui.figures import reuse
        from ui.figures.theme import lab_look

        def made():
            return go.Figure(go.Heatmap(z=np.arange(6.0).reshape(2, 3)), layout=dict(title="t"))

        st.plotly_chart(lab_look(made(), settings={"height": 200}), theme=None, key="direct")
        for key in ("first", "again"):
            st.plotly_chart(reuse.finished(made(), lambda f: lab_look(f, settings={"height": 200}), False, "s"),
                            theme=None, key=key)

    at = AppTest.from_function(page).run()
    specs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    assert len(specs) == 3 and specs[0] == specs[1] == specs[2]


def test_arguments_that_cannot_be_keyed_build_every_time_and_the_cache_is_bounded():
    calls = []

    @reuse.reused
    def figure(f):
        calls.append(1)
        return go.Figure(layout=dict(title=str(f(1))))

    figure(lambda v: v)
    figure(lambda v: v)  # a lambda cannot be pickled: no key, built each time
    assert len(calls) == 2
    small = reuse.SpecCache(size=2)
    for key in (b"a", b"b", b"c"):
        small.put(key, go.Figure())
    assert small.get(b"a") is None and small.get(b"c") is not None
    big = go.Figure(go.Heatmap(z=np.zeros((100, 100))))  # about 80 KB pickled
    light = reuse.SpecCache(max_bytes=200_000)
    for key in (b"a", b"b", b"c", b"d"):
        light.put(key, big)
    assert light.get(b"a") is None and light.get(b"d") is not None and light.bytes <= 200_000


def test_the_private_plotly_api_this_module_reads_is_there_and_round_trips():
    """reuse.py (and theme.py) read ``Figure._data`` and ``._layout`` and build with ``_validate=False``: Plotly's
    private API, pinned only by a range in requirements.txt. A Plotly that changes it fails here, not on a page."""
    import pickle

    from ui.figures.reuse import unchecked

    fig = go.Figure(go.Bar(x=[1, 2], y=[3, 4]), layout=dict(title="t", template=None))
    assert isinstance(fig._data, list) and isinstance(fig._layout, dict) and fig._data[0]["type"] == "bar"
    again = unchecked(pickle.dumps({"data": fig._data, "layout": fig._layout}, protocol=5))
    assert again.to_plotly_json() == fig.to_plotly_json()
