"""Where finished runs of the generalization page live, for the life of the server process.

``result_store`` is one dict per process (``st.cache_resource``), keyed by the frozen config: a config
already run shows instantly, for every visitor. Only complete runs are put in it, so an interrupted
run caches nothing. It starts with the presets' shipped results that still match the code.
"""

from __future__ import annotations

import streamlit as st

from core.experiments import GeneralizationConfig, RunResult
from ui.shipped import load_fresh


@st.cache_resource
def result_store() -> dict[GeneralizationConfig, RunResult]:
    return load_fresh()
