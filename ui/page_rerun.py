"""Sections that re-run alone, and the one way a click inside one re-runs the whole page.

A page's section with controls or tabs of its own (its tabs, an exercise, a sweep, *Draw your own*) is an
``st.fragment``: a click inside it re-runs that section alone, and the rest of the page keeps what it drew. A
whole re-run of a lesson page costs several times Streamlit's own floor; a section's re-run sends its few
elements (docs/performance.md, "A lecture hall"). A form's Run, a link and every control outside a section still
re-run the page.

A few clicks inside a section change what the rest of the page shows: an exercise's *Show me* sets the page's
controls, a preset button fills the form. Their callbacks are wrapped in ``whole_page``, which asks for the
page's re-run; every section starts by honouring it (a callback cannot re-run the page itself: Streamlit ignores
``st.rerun`` there). The request lives in the session's state, never drawn outside the section.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

ASKED = "_rerun_page"  # session key: a callback inside a section asked for the whole page


def fragment(func: Callable) -> Callable:
    """``st.fragment(func)``, which first re-runs the whole page if a callback asked for it (``whole_page``)."""
    @functools.wraps(func)
    def section(*args, **kwargs):
        if st.session_state.pop(ASKED, False):
            st.rerun(scope="app")
        return func(*args, **kwargs)

    return st.fragment(section)


def whole_page(callback: Callable[..., object]) -> Callable[..., None]:
    """``callback``, then the whole page re-run (not only the section its widget is in)."""
    @functools.wraps(callback)
    def run(*args, **kwargs) -> None:
        callback(*args, **kwargs)
        st.session_state[ASKED] = True

    return run


def page_run_started() -> None:
    """Called first on every page run: a request is met by the page's run itself (no second run for it)."""
    st.session_state.pop(ASKED, None)
