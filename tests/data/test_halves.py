"""core/data/halves.py: the position task's images, the lesson's shapes labelled by the half of the canvas their
centre is in, both halves drawn equally often."""

import numpy as np
import pytest

from core.data.halves import CLASSES, grid, half, make_dataset
from core.data.shapes import SHAPES, all_positions, make_image


def test_a_centre_is_left_when_it_is_in_the_left_half_of_the_canvas():
    assert CLASSES == ("left", "right")
    assert [half(cx, 5, 16) for cx in (3, 7, 8, 12)] == [0, 0, 1, 1]
    assert [half(cx, 5, 15) for cx in (7, 8)] == [0, 1]  # an odd canvas: cx < 7.5 is left


def test_the_halves_are_drawn_equally_often_even_where_they_offer_different_numbers_of_centres():
    positions = tuple((cx, cy) for cy in (4, 5) for cx in (5, 8, 9, 10, 11, 12))  # 1 column left, 5 right
    for n in (1, 7, 300):
        ds = make_dataset(np.random.default_rng(0), n, positions)
        assert (ds.labels == 0).sum() == (n + 1) // 2 and ds.labels.dtype == np.float32
        assert np.array_equal(ds.labels == 1, ds.centres[:, 0] >= 8)
        assert {tuple(c) for c in ds.centres.tolist()} <= set(positions)
        for image, (cx, cy) in zip(ds.images, ds.centres.tolist(), strict=True):  # the shapes' own images
            assert any(np.array_equal(image, make_image(s, cx, cy)) for s in SHAPES)
    again = make_dataset(np.random.default_rng(0), 300, positions)
    assert np.array_equal(again.images, ds.images) and np.array_equal(again.labels, ds.labels)  # one generator


def test_centres_in_one_half_only_are_refused_naming_them():
    with pytest.raises(ValueError, match="got n=10, 4 left and 0 right positions"):
        make_dataset(np.random.default_rng(0), 10, ((3, 3), (4, 3), (3, 4), (4, 4)))


def test_the_grid_is_the_shapes_map_labelled_by_half():
    g, shapes = grid(16), all_positions(16)
    assert np.array_equal(g.images, shapes.images) and np.array_equal(g.centres, shapes.centres)
    assert np.array_equal(g.labels == 1, g.centres[:, 0] >= 8) and g.labels.mean() == 0.5
