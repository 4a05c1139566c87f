"""The class-load benchmark's browse, small, against a fresh server: its first session meets the server's first
run of a page opened by name, which ends early and starts again from app.py (ui/widgets.navigation_first), and
must still find the page's widgets and its numbers."""

import asyncio

import pytest

from benchmarks.class_load import browse
from support.browser import streamlit_server

pytestmark = pytest.mark.e2e


def test_browse_on_a_fresh_server_moves_the_seed_and_every_number_is_right(tmp_path):
    with streamlit_server(env={"VITLAB_DATA_DIR": str(tmp_path / "data")}) as (base, _, _):
        r = asyncio.run(browse([base], n=2, seconds=3))
    assert r["reruns"] > 0 and r["errors"] == 0 and r["wrong"] == [], r
