"""The experiment's images: training and test sets drawn as the lesson draws them, and the grid of
every position behind the generalization map."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.generalization.config import DataConfig
from core.shapes import all_positions, make_dataset, max_distinct
from core.train import distinct


@dataclass(frozen=True)
class Data:
    Xtr: torch.Tensor  # (n_train, 1, H, W)
    ytr: torch.Tensor  # (n_train,): 0 plus, 1 circle
    Xte: torch.Tensor  # (n_test, 1, H, W)
    yte: torch.Tensor
    test_centres: np.ndarray  # (n_test, 2): (cx, cy)
    grid_X: torch.Tensor  # both shapes at every centre that fits
    grid_y: torch.Tensor
    grid_centres: np.ndarray


def make_data(d: DataConfig) -> Data:
    """One generator for both sets, training first: with data_seed 1 these are the lesson's images."""
    rng = np.random.default_rng(d.data_seed)
    tr = make_dataset(rng, d.n_train, d.train_range, d.img_size)
    te = make_dataset(rng, d.n_test, d.test_range, d.img_size)
    grid = all_positions(d.img_size)

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a)

    return Data(t(tr.images).unsqueeze(1), t(tr.labels), t(te.images).unsqueeze(1), t(te.labels), te.centres,
                t(grid.images).unsqueeze(1), t(grid.labels), grid.centres)


def distinct_training_images(d: DataConfig) -> int:
    """How many distinct images the training set holds: what each training step actually computes."""
    data = make_data(d)
    return len(distinct(data.Xtr, data.ytr)[0])


def max_distinct_training_images(d: DataConfig) -> int:
    """An upper bound on ``distinct_training_images`` without drawing the data (for planning)."""
    return max_distinct(d.n_train, d.train_range)
