"""The shipped results' files read without torch: where they are, whether the code that made them is this code, and
a run's accuracy maps straight from its JSON (json and NumPy alone, no model registry).

A sleeping app's wake shows its home page before torch is imported (docs/performance.md): its puzzle is two maps of
the shipped lesson run, read here. Everything else about a shipped run (its config, weights, units) is
``core.lessons.shipped``, which imports torch. The maps are ``run_result.mean_grid``'s numbers, computed in the same
order, bit for bit (``tests/lessons/test_shipped_files.py``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.data.datasets import dataset
from core.engine.setting.fingerprint import ROOT, code_fingerprint

RESULTS_DIR = ROOT / "results"
FINGERPRINTS = RESULTS_DIR / "fingerprints.json"  # name -> the fingerprint of the code that made its file


def shipped_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.json"


def stamps() -> dict[str, str]:
    return json.loads(FINGERPRINTS.read_text()) if FINGERPRINTS.exists() else {}


def is_stamped(name: str) -> bool:
    return stamps().get(name) == code_fingerprint()


@dataclass(frozen=True)
class ShippedMaps:
    centres: list[int]  # every centre coordinate (cx or cy) of the maps, in order
    train_range: tuple[int, int]  # inclusive, as the run's data config
    test_range: tuple[int, int]
    grids: dict[str, np.ndarray]  # model -> (rows=cy, cols=cx) accuracy over every class, averaged over seeds


def shipped_maps(preset: str) -> ShippedMaps | None:
    """Each model's accuracy at every centre in ``preset``'s shipped run (``run_result.mean_grid``), read from its
    file; None when there is none for this code (missing or stale: nothing stale is shown as current). The file is
    the one made for the preset's config: ``tests/lessons/test_shipped.py`` checks that for every shipped name."""
    path = shipped_path(preset)
    if not path.exists() or not is_stamped(preset):
        return None
    run = json.loads(path.read_text())["result"]
    data = run["config"]["data"]
    kind = dataset(data["dataset"])
    centres = list(kind.centres(data["img_size"]))
    index = {c: i for i, c in enumerate(centres)}
    grids = {}
    for model in run["config"]["models"]:
        # run_result.position_grid per class (sums in the map's order), then their mean: the same floats
        per_class = []
        for shape in kind.classes:
            total = np.zeros((len(centres), len(centres)))
            count = np.zeros_like(total)
            for p in run["position_map"]:
                if p["model"] == model and p["shape"] == shape:
                    total[index[p["cy"]], index[p["cx"]]] += p["correct"]
                    count[index[p["cy"]], index[p["cx"]]] += 1
            with np.errstate(invalid="ignore"):
                per_class.append(total / np.where(count > 0, count, np.nan))
        with np.errstate(invalid="ignore"):
            grids[model] = np.nanmean(per_class, axis=0)
    return ShippedMaps(centres, tuple(data["train_range"]), tuple(data["test_range"]), grids)
