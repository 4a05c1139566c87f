"""Where finished runs of the generalization page live.

``result_store`` is one dict per server process (``st.cache_resource``), keyed by the frozen config:
a config already run shows instantly, for every visitor. Only complete runs are put in it, so an
interrupted run caches nothing. ``load_shipped`` adds the presets' precomputed results from
``results/`` (made by ``scripts/precompute.py``), so the page opens on the lesson's result at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from core.experiments import GeneralizationConfig, RunResult

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"


@st.cache_resource
def result_store() -> dict[GeneralizationConfig, RunResult]:
    return {}


def config_from_json(d: dict) -> GeneralizationConfig:
    tuples = {k: tuple(v) for k, v in d.items() if isinstance(v, list)}
    return GeneralizationConfig(**{**d, **tuples})


@st.cache_resource
def load_shipped() -> dict[GeneralizationConfig, RunResult]:
    out = {}
    for path in sorted(RESULTS_DIR.glob("*.json")):
        data = json.loads(path.read_text())
        result = RunResult(**data["result"])
        out[config_from_json(result.config)] = result
    return out
