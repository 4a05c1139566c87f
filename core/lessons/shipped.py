"""The results that ship with the app (``results/<name>.json`` and ``.weights.pt``): lesson 3's presets,
lesson 4's bench and lesson 5's two tasks, each with the fingerprint of the code that made them, so a stale file is never shown as
current. ``python -m scripts.precompute`` writes them."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import torch

from core.engine.fingerprint import ROOT, code_fingerprint
from core.engine.run_config import GeneralizationConfig
from core.engine.run_result import RunResult
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.lesson4_fixing_the_vit import BENCH, BENCH_PHASE
from core.lessons.lesson5_real_handwriting import PRESETS as DIGIT_PRESETS

RESULTS_DIR = ROOT / "results"
# What ships precomputed: lesson 3's presets, lesson 4's bench and lesson 5's two tasks
SHIPPED_CONFIGS: dict[str, GeneralizationConfig] = {
    **{p: PRESETS[p] for p in ("lesson", "exercise-1", "exercise-2", "exercise-3", "mlp", "splits-notebook",
                                "splits-phase")}, "remedies": BENCH,
    "remedies-phase": BENCH_PHASE,
    "digits": DIGIT_PRESETS["ten digits"], "digits-0-1": DIGIT_PRESETS["0 vs 1"]}
SHIPPED = tuple(SHIPPED_CONFIGS)


def shipped_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.json"


def weights_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.weights.pt"


def save_shipped(preset: str, result: RunResult) -> Path:
    path = shipped_path(preset)
    data = {"preset": preset, "fingerprint": code_fingerprint(), "result": result.to_json()}
    path.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False))
    torch.save(result.weights, weights_path(preset))
    return path


def load_shipped(preset: str) -> tuple[RunResult, bool]:
    """(result, fresh): fresh is False when the code changed since the file was made. The trained weights
    come from the file beside it (tensors only: loaded with ``weights_only``)."""
    data = json.loads(shipped_path(preset).read_text())
    result = RunResult.from_json({**data["result"], "origin": "shipped"})
    if weights_path(preset).exists():
        result.weights = torch.load(weights_path(preset), weights_only=True)
    return result, data["fingerprint"] == code_fingerprint()


def load_fresh_shipped() -> dict[GeneralizationConfig, RunResult]:
    """Every shipped result that still matches the code and its preset; stale or missing ones are skipped."""
    out = {}
    for preset in SHIPPED:
        if shipped_path(preset).exists():
            result, fresh = load_shipped(preset)
            if fresh and result.config == SHIPPED_CONFIGS[preset]:
                out[result.config] = result
    return out


def save_shipped_rows(name: str, base: GeneralizationConfig, rows: list) -> Path:
    """A sweep's rows (dataclasses), shipped like a result: with the code fingerprint and its base config."""
    path = shipped_path(name)
    data = {"name": name, "fingerprint": code_fingerprint(), "base": base.to_json(), "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False))
    return path


def load_shipped_rows(name: str, base: GeneralizationConfig) -> list[dict] | None:
    """The shipped rows, if the file exists, matches ``base`` and the code (else None: run it instead)."""
    path = shipped_path(name)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    fresh = data["fingerprint"] == code_fingerprint() and GeneralizationConfig.from_json(data["base"]) == base
    return data["rows"] if fresh else None
