"""A learner's own drawing through a run's trained models: every model's answer at every seed, whether the
drawing sits where the models were trained, and the shift sweep (the drawing moved to every place it fits,
each model's probability of the drawn class there: the generalization map of one input).

A drawing's place is its centre of mass (``core.data.drawing``): "seen" when both coordinates lie in the
training range, "unseen: test" in the test range, else "unseen".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.data import drawing as drawings
from core.engine.results.run_result import RunResult
from core.engine.running.train import predict
from core.inspect.trained_model import class_probabilities, shared_model


def where(result: RunResult, drawing: np.ndarray) -> str:
    """Whether the drawing's centre of mass is at a training centre ("seen"), a test centre ("unseen: test"),
    or elsewhere ("unseen"); "empty" without ink."""
    centre = drawings.centre_of_mass(drawing)
    if centre is None:
        return "empty"
    d = result.config.data
    if d.phases or d.split:  # centres, not squares: a lattice's or a painted split's
        return "seen" if centre in d.train_positions else "unseen: test" if centre in d.test_positions else "unseen"
    for (lo, hi), name in ((d.train_range, "seen"), (d.test_range, "unseen: test")):
        if all(lo <= c <= hi for c in centre):
            return name
    return "unseen"


def _batch(images: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32))[:, None]  # (B, 1, H, W)


def answers(result: RunResult, drawing: np.ndarray) -> dict[tuple[str, int], np.ndarray]:
    """(model, seed) -> the probability of each class for the drawing, for every trained model of the run."""
    d = drawings.check(drawing, result.config.data.img_size)
    x = _batch(d[None])
    out = {}
    for seed in result.config.train.seeds:
        for m in result.config.models:
            if f"{m}/{seed}" in result.weights:
                logits = predict(shared_model(result, m, seed), x)  # (1,) or (1, K)
                out[m, seed] = class_probabilities(logits)[0].numpy()
    return out


@dataclass(frozen=True)
class ShiftMaps:
    centres: list[int]  # every coordinate on the canvas (0..size-1)
    maps: dict[str, np.ndarray]  # model -> (size, size): p(drawn class) with the centre of mass at (cx, cy); NaN: unreachable


def shift_sweep(result: RunResult, seed: int, drawing: np.ndarray, label: int) -> ShiftMaps:
    """Every model of ``seed``: its probability of class ``label`` with the drawing moved so its centre of mass
    is at each (cx, cy) it can reach with all its ink on the canvas."""
    size = result.config.data.img_size
    d = drawings.check(drawing, size)
    centre = drawings.centre_of_mass(d)
    if centre is None:
        raise ValueError("the drawing is empty: draw something first")
    xs, ys = drawings.offsets(d)
    moves = [(dx, dy) for dy in ys for dx in xs]
    X = _batch(np.stack([drawings.shift(d, dx, dy) for dx, dy in moves]))  # (moves, 1, H, W)
    maps = {}
    for m in result.config.models:
        if f"{m}/{seed}" not in result.weights:
            continue
        p = class_probabilities(predict(shared_model(result, m, seed), X))[:, label].numpy()
        grid = np.full((size, size), np.nan)
        for (dx, dy), value in zip(moves, p, strict=True):
            cx, cy = centre[0] + dx, centre[1] + dy
            if 0 <= cx < size and 0 <= cy < size:
                grid[cy, cx] = value
        maps[m] = grid
    return ShiftMaps(list(range(size)), maps)
