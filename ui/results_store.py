"""The server's finished runs and trainings in flight, made once per server process and shared by every
session: the store (shipped presets, memory, and the run archive on disk, ``core.engine.archive``) and the
flights (``core.engine.flights``: one training per distinct setting)."""

from __future__ import annotations

import streamlit as st

from core.engine.archive import open_archive
from core.engine.fingerprint import code_fingerprint
from core.engine.flights import Flights
from core.engine.store import ResultStore
from core.lessons.shipped import load_fresh_shipped


@st.cache_resource
def result_store() -> ResultStore:
    return ResultStore(pinned=load_fresh_shipped(), archive=open_archive(code_fingerprint()))


@st.cache_resource
def run_flights() -> Flights:
    return Flights(result_store())
