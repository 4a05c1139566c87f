"""The presets' precomputed results in ``results/`` (made by ``python -m scripts.precompute``).

Plain Python, no Streamlit: the precompute script and the staleness test use it too.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.experiments import GeneralizationConfig, RunResult, code_fingerprint

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
SHIPPED = ("lesson", "exercise-1", "exercise-2", "exercise-3")


def path_for(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.json"


def config_from_json(d: dict) -> GeneralizationConfig:
    return GeneralizationConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def load(preset: str) -> tuple[GeneralizationConfig, RunResult, bool]:
    """(config, result, fresh): fresh is False when the code changed since the file was made."""
    data = json.loads(path_for(preset).read_text())
    result = RunResult(**{**data["result"], "origin": "shipped"})
    return config_from_json(result.config), result, data["fingerprint"] == code_fingerprint()


def load_fresh() -> dict[GeneralizationConfig, RunResult]:
    """Every shipped result that still matches the code; stale or missing ones are skipped."""
    out = {}
    for preset in SHIPPED:
        if path_for(preset).exists():
            cfg, result, fresh = load(preset)
            if fresh:
                out[cfg] = result
    return out
