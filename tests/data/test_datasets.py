"""The dataset registry: what a config's ``data.dataset`` names, and what the engine reads from it."""

import numpy as np
import pytest
import torch

from core.data.data_config import DataConfig, make_data
from core.data.datasets import DATASETS, dataset


def test_each_dataset_says_its_classes_outputs_chance_and_centres():
    assert list(DATASETS) == ["shapes", "digits", "digits-0-1"]
    shapes, ten, two = dataset("shapes"), dataset("digits"), dataset("digits-0-1")
    assert (shapes.outputs, ten.outputs, two.outputs) == (1, 10, 1)  # two classes: the lesson's one logit
    assert (shapes.chance, ten.chance, two.chance) == (0.5, 0.1, 0.5)
    assert list(shapes.centres(16)) == list(range(3, 13)) and list(ten.centres(16)) == list(range(4, 13))
    assert ten.name_of(7) == "digit 7" and shapes.name_of(1) == "circle"
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
