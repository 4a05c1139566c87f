"""The per-process result store (``core.engine.store``), made once per server."""

from __future__ import annotations

import streamlit as st

from core.engine.store import ResultStore
from core.lessons.shipped import load_fresh_shipped


@st.cache_resource
def result_store() -> ResultStore:
    return ResultStore(pinned=load_fresh_shipped())
