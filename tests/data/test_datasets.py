"""The dataset registry: what a config's ``data.dataset`` names, and what the engine reads from it."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from core.data import shapes
from core.data.data_config import DataConfig, make_data
from core.data.datasets import DATASETS, dataset


def test_each_dataset_says_its_classes_outputs_chance_and_centres():
    assert list(DATASETS) == ["shapes", "digits", "digits-0-1", "where", "own"]
    shapes, ten, two, where = dataset("shapes"), dataset("digits"), dataset("digits-0-1"), dataset("where")
    assert (shapes.outputs, ten.outputs, two.outputs, where.outputs) == (1, 10, 1, 1)  # two classes: one logit
    assert (shapes.chance, ten.chance, two.chance, where.chance) == (0.5, 0.1, 0.5, 0.5)
    assert list(shapes.centres(16)) == list(range(3, 13)) and list(ten.centres(16)) == list(range(4, 13))
    assert list(where.centres(16)) == list(shapes.centres(16))  # the same shapes fit the same centres
    assert ten.name_of(7) == "digit 7" and shapes.name_of(1) == "circle" and where.name_of(0) == "left"
    # the map: every class at every centre, except where the label is the place (one class per centre)
    assert (shapes.map_cells(16), ten.map_cells(16), where.map_cells(16)) == (200, 810, 100)
    with pytest.raises(ValueError, match="unknown dataset 'mnist'"):
        dataset("mnist")


def test_a_range_that_does_not_fit_the_dataset_is_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"8×8 digit reaches 4 pixels .* centres must be in 4..12"):
        DataConfig(dataset="digits")  # the lesson's test centres 3..4 fit a plus, not a digit
    with pytest.raises(ValueError, match="overlap"):
        DataConfig(dataset="digits", train_range=(4, 8), test_range=(8, 9))


def test_labels_are_floats_for_one_logit_and_class_indices_for_ten():
    two = make_data(DataConfig(dataset="digits-0-1", n_train=50, n_test=20, train_range=(6, 12), test_range=(4, 5)))
    ten = make_data(DataConfig(dataset="digits", n_train=50, n_test=20, train_range=(6, 12), test_range=(4, 5)))
    assert two.ytr.dtype == torch.float32 and set(two.ytr.tolist()) <= {0.0, 1.0}
    assert ten.ytr.dtype == torch.int64 and ten.ytr.max() <= 9 and ten.Xtr.shape == (50, 1, 16, 16)
    # the map's first image of a class at a centre is the dataset's example there (what the probe draws)
    d = DataConfig(dataset="digits", n_train=50, n_test=20, train_range=(6, 12), test_range=(4, 5))
    first = next(i for i, (c, y) in enumerate(zip(ten.grid_centres.tolist(), ten.grid_y.tolist(), strict=True))
                 if c == [5, 9] and y == 3)
    assert np.array_equal(ten.grid_X[first, 0].numpy(), d.kind.example(d.data_seed, 3, 5, 9, 16))


def test_the_position_task_draws_the_lessons_shapes_labelled_by_their_half_of_the_canvas():
    d = DataConfig(dataset="where", train_range=(3, 12), phases=(0, 1, 2))
    data, lesson = make_data(d), make_data(replace(d, dataset="shapes"))
    for X, y in ((data.Xtr, data.ytr), (data.Xte, data.yte), (data.grid_X, data.grid_y)):
        assert y.dtype == torch.float32 and y.mean().item() == 0.5  # balanced: exactly half of each
        cx = (X[:, 0].sum(dim=1) * torch.arange(16)).sum(dim=1) / X[:, 0].sum(dim=(1, 2))  # both shapes: symmetric
        assert torch.equal(y == 1, cx >= 8)  # right: cx >= 16 / 2
    assert np.array_equal(data.yte.numpy() == 1, data.test_centres[:, 0] >= 8)
    # the very images the shapes dataset draws at those centres: the map is the lesson's, only its labels differ
    assert torch.equal(data.grid_X, lesson.grid_X) and np.array_equal(data.grid_centres, lesson.grid_centres)
    assert {tuple(c) for c in data.test_centres.tolist()} <= set(d.test_positions)
    # the map's first image at a centre is the example there, whichever class is asked for
    first = next(i for i, c in enumerate(data.grid_centres.tolist()) if c == [10, 4])
    for index in (0, 1):
        assert np.array_equal(data.grid_X[first, 0].numpy(), d.kind.example(d.data_seed, index, 10, 4, 16))


def test_the_shapes_are_unchanged_by_the_position_task():
    """The lesson's images with data seed 1 (tests/data/test_shapes.py checks them against the notebook's)."""
    d = DataConfig()
    data, rng = make_data(d), np.random.default_rng(d.data_seed)
    train, test = shapes.make_dataset(rng, d.n_train, d.train_range), shapes.make_dataset(rng, d.n_test, d.test_range)
    assert np.array_equal(data.Xtr[:, 0].numpy(), train.images) and np.array_equal(data.ytr.numpy(), train.labels)
    assert np.array_equal(data.Xte[:, 0].numpy(), test.images) and np.array_equal(data.yte.numpy(), test.labels)
