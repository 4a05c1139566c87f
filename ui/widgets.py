"""Small Streamlit pieces every page uses."""

from __future__ import annotations

import inspect

import streamlit as st


def show_source(*objects, label: str = "The code that ran (from `core`, read live with `inspect`)") -> None:
    """Show the real source of what the page just ran: never a pasted copy that could drift."""
    with st.expander(label):
        for obj in objects:
            module = inspect.getmodule(obj)
            st.caption(f"`{module.__name__}.{obj.__qualname__}`" if module else obj.__qualname__)
            st.code(inspect.getsource(obj), language="python")


def page_header(title: str, icon: str) -> None:
    st.set_page_config(page_title=f"{title} · ViT Lab", page_icon=icon, layout="wide")
    st.title(title)


def bullets(notes: list[str]) -> None:
    """The "What to notice" list: one Markdown bullet per note."""
    for note in notes:
        st.markdown(f"- {note}")
