"""ui.widgets' Plotly preload: it must import the very module Streamlit's own lazy import resolves, or it only
adds work (a second copy of Plotly) instead of moving it to when the learner reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import streamlit as st

from tests.apptest_helpers import all_charts, page
from ui.widgets import PRELOAD_JS, plotly_module

JS = Path(st.__file__).parent / "static" / "static" / "js"


def test_the_preload_names_the_chunk_streamlits_index_imports_lazily():
    chunk = plotly_module()
    assert chunk is not None and (JS / chunk).is_file()
    # the preload's URL is the chunk's name relative to the URL of the index chunk the app's HTML loads (the
    # one script element the preload looks for), as Vite's import() inside that chunk resolves it
    html = (JS.parent.parent / "index.html").read_text()
    scripts = re.findall(r'<script[^>]*src="\./static/js/([^"/]*)"', html)
    assert len(scripts) == 1 and re.fullmatch(r"index\.[^/]*\.js", scripts[0])
    assert re.search(r"import\(\s*[`'\"]\./" + re.escape(chunk) + r"[`'\"]\s*\)", (JS / scripts[0]).read_text())
    assert r"/\/static\/js\/index\.[^/]*\.js$/" in PRELOAD_JS


def test_every_page_carries_the_preload_once():
    for path in ("app.py", "pages/1_Patchify.py", "pages/3_ViT_vs_CNN.py"):
        at = page(path, timeout=60)
        scripts = [h for h in at.get("html") if plotly_module() in h.proto.body]
        assert len(scripts) == 1, path
        assert "import(new URL('./" + plotly_module() + "', index.src)" in scripts[0].proto.body


def test_every_chart_of_every_section_is_sent_with_its_margins_set_to_be_drawn_once():
    # Streamlit's theme turns axis automargin on (a second layout and draw of each chart in the browser);
    # every chart of the pages leaves the server with it off, and its margins set, except an x axis of
    # labels that may be turned (ui.figures.margins.margin_settings)
    # Each is also sent so that the browser draws it once (ui.figures.theme): Streamlit's theme off, no template,
    # and a data revision
    for path in ("pages/1_Patchify.py", "pages/2_Permutation_symmetry.py", "pages/3_ViT_vs_CNN.py"):
        charts = all_charts(page(path, timeout=60))
        assert charts and all(el.proto.theme == "" for el in charts), path
        specs = [json.loads(el.proto.spec) for el in charts]
        for spec in specs:
            assert "template" not in spec["layout"] and spec["layout"]["datarevision"], path
            assert "meta" not in spec["layout"], path  # "Show numbers" tables are drawn by Streamlit, not sent along
            axes = {k: v for k, v in spec["layout"].items() if re.fullmatch(r"[xy]axis\d*", k)}
            assert {"xaxis", "yaxis"} <= set(axes), path
            assert all(v.get("automargin") is False for k, v in axes.items() if k.startswith("y")), (path, axes)
            assert all(isinstance(v.get("automargin"), bool) for v in axes.values()), (path, axes)


def test_a_pictures_numbers_table_is_listed_though_it_is_not_sent_with_the_chart():
    at = page("pages/3_ViT_vs_CNN.py", timeout=60)
    at.toggle(key="numbers").set_value(True).run()
    split = at.get("plotly_chart")[0]  # the pictures of the split: a mosaic whose table is one row per picture
    assert "meta" not in json.loads(split.proto.spec)["layout"]
    assert any("in training" in str(v) for v in at.dataframe[0].value["image"])


def test_a_static_table_is_one_escaped_html_table_with_one_header_row():
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import tables

    def app():
        import pandas as pd

        from ui.widgets import static_table

        static_table(pd.DataFrame({"seed 0": ["plus 0.91", "<b>circle</b>"], "seed 1": ["—", "x & y"]},
                                  index=pd.Index(["ViT (lesson)", "ViT, max over patches"], name="model")),
                     'Answers "quoted" <here>')

    at = AppTest.from_function(app).run()
    body = at.get("html")[0].proto.body
    assert body.count("<table") == 1 and body.count("<tr") == 3  # the header and two rows: no row for the index name
    assert "<b>" not in body and "&lt;b&gt;circle&lt;/b&gt;" in body  # a cell's text is text, never markup
    # a box a keyboard can focus (it scrolls a wide table), named for a screen reader
    assert 'tabindex="0" role="region" aria-label="Answers &quot;quoted&quot; &lt;here&gt;"' in body
    [table] = tables(at)
    assert table.index.name == "model" and list(table.columns) == ["seed 0", "seed 1"]
    assert table.loc["ViT, max over patches", "seed 1"] == "x & y" and table.loc["ViT (lesson)", "seed 0"] == "plus 0.91"


def test_a_wide_static_table_stacks_its_rows_in_a_narrow_box_a_line_per_value_named_by_its_column():
    from streamlit.testing.v1 import AppTest

    def app():
        import pandas as pd

        from ui.widgets import static_table

        static_table(pd.DataFrame({"a": ["1"], "b": ["2"]}, index=pd.Index(["x"], name="model")), "narrow")
        static_table(pd.DataFrame({"a": ["1"], "b": ["2"], 'c "3"': ["3"]}, index=pd.Index(["x"], name="model")), "wide")

    narrow, wide = (e.proto.body for e in AppTest.from_function(app).run().get("html"))
    # two columns of values wrap in any box; three or more stack below 640 px (widgets.STYLE's container query)
    assert 'class="lab-table-box"' in narrow and 'class="lab-table-box lab-stack"' in wide
    assert '<td data-label="c &quot;3&quot;">3</td>' in wide and '<th scope="row">x</th>' in wide


def test_a_runs_models_are_rebuilt_ahead_once_on_a_timer(monkeypatch):
    from core.inspect import trained_model as tm
    from core.lessons.shipped import load_fresh_shipped
    from ui import look_inside

    result = next(r for c, r in load_fresh_shipped().items() if len(c.models) == 2)  # lesson 3's shipped run
    monkeypatch.setattr(look_inside, "LOAD_DELAY", 0.0)
    look_inside._models_loading.clear()
    tm._loaded.cache_clear()
    look_inside.load_models_ahead(result)
    look_inside.load_models_ahead(result)  # the same run again: the same timer, no second thread
    timer = look_inside._models_loading(result.config, look_inside.run_id(result), result)
    timer.join(60)
    assert tm._loaded.cache_info().currsize == len(result.weights) and tm._loaded.cache_info().misses == len(result.weights)
