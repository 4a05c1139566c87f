"""A lesson's declared controls (``core.lessons.controls.Control``) drawn as Streamlit widgets, each under its
key and bound to the URL, so the form, the link and the config all read the one declaration."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.lessons.controls import Control
from ui.widgets import URL


def control_widget(c: Control, default, where=st) -> None:
    """One control, its value starting at ``default`` (the lesson's)."""
    options = list(c.options)
    fmt = {"format_func": c.format} if c.format else {}
    if c.widget == "slider":
        lo, hi, *step = c.bounds
        where.slider(c.label, lo, hi, default, step=step[0] if step else None, key=c.key, bind=URL, help=c.help,
                     **c.extra)
    elif c.widget == "select_slider":
        where.select_slider(c.label, options, default, key=c.key, bind=URL, help=c.help, **fmt, **c.extra)
    elif c.widget == "selectbox":
        where.selectbox(c.label, options, options.index(default), key=c.key, bind=URL, help=c.help, **fmt, **c.extra)
    elif c.widget == "radio":
        where.radio(c.label, options, options.index(default), key=c.key, bind=URL, help=c.help, **fmt, **c.extra)
    elif c.widget == "multiselect":
        # wrap: every chosen chip shown (in a column Streamlit would keep them on one scrolling row)
        where.multiselect(c.label, options, default, key=c.key, bind=URL, help=c.help, wrap=True, **fmt, **c.extra)
    else:
        raise ValueError(f"control {c.key!r}: unknown widget {c.widget!r}")


def control_grid(controls: Sequence[Control], defaults: dict, columns: int = 3) -> list:
    """Every control in order: a list of choices across the form, the others in ``columns`` columns, filled
    row by row. Returns the columns and the next free one's index, for what the page adds after them."""
    cols = None
    i = 0
    for c in controls:
        if c.widget == "multiselect":
            control_widget(c, defaults[c.key])
            continue
        cols = cols or st.columns(columns)
        control_widget(c, defaults[c.key], cols[i % columns])
        i += 1
    return [cols or st.columns(columns), i % columns]
