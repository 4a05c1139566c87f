"""Helpers for AppTest: run a page, read what its charts show."""

import hashlib
import os

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def page(path: str, timeout: float = 30, query: dict | None = None) -> AppTest:
    """Open a page as a visitor does: the app's entry point first (the pages' navigation links point to it),
    then the page, with ``query`` as the URL's query parameters (a link a teacher sent)."""
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=timeout)
    if path == "app.py":
        return at.run()
    at.switch_page(path)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def charts_digest(at: AppTest) -> str:
    """A fingerprint of every Plotly figure on the page: changes when any chart shows something else."""
    specs = [el.proto.spec for el in at.get("plotly_chart")]
    return hashlib.sha256("".join(specs).encode()).hexdigest()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def assert_change_shows(path: str, change) -> None:
    """Open the page, apply ``change`` (a function of the AppTest), re-run: no error, and some chart differs."""
    at = page(path)
    before = charts_digest(at)
    change(at)
    at.run()
    assert_clean(at)
    assert charts_digest(at) != before
