"""The per-process result store (``core.generalization.store``), made once per server."""

from __future__ import annotations

import streamlit as st

from core.generalization.results import load_fresh_shipped
from core.generalization.store import ResultStore


@st.cache_resource
def result_store() -> ResultStore:
    return ResultStore(pinned=load_fresh_shipped())
