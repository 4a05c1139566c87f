import numpy as np
import pytest

from core.data.shapes import all_positions, make_dataset, make_image, valid_centres


def lesson_dataset(rng, n, position_range):
    """The lesson's make_image/make_dataset, transcribed independently for this test."""
    imgs, labels, pos = [], [], []
    for _ in range(n):
        shape_type = rng.choice(["plus", "circle"])
        cx, cy = rng.integers(*position_range), rng.integers(*position_range)
        img = np.zeros((16, 16), dtype=np.float32)
        if shape_type == "plus":
            img[cy - 1:cy + 2, cx - 3:cx + 4] = 1.0
            img[cy - 3:cy + 4, cx - 1:cx + 2] = 1.0
        else:
            yy, xx = np.mgrid[0:16, 0:16]
            img[((xx - cx) ** 2 + (yy - cy) ** 2) <= 9] = 1.0
        imgs.append(img)
        labels.append(0.0 if shape_type == "plus" else 1.0)
        pos.append((cx, cy))
    return np.array(imgs, dtype=np.float32), np.array(labels, dtype=np.float32), np.array(pos)


def test_matches_the_lesson_stream_exactly():
    ref_rng, rng = np.random.default_rng(1), np.random.default_rng(1)
    Xtr, ytr, ptr = lesson_dataset(ref_rng, 300, (5, 11))
    Xte, yte, pte = lesson_dataset(ref_rng, 150, (3, 5))
    tr = make_dataset(rng, 300, (5, 10))
    te = make_dataset(rng, 150, (3, 4))
    assert np.array_equal(tr.images, Xtr) and np.array_equal(tr.labels, ytr) and np.array_equal(tr.centres, ptr)
    assert np.array_equal(te.images, Xte) and np.array_equal(te.labels, yte) and np.array_equal(te.centres, pte)
    # the first few, spelled out: guards against both sides drifting together
    assert tr.labels[:8].tolist() == ytr[:8].tolist()
    assert set(np.unique(tr.centres)) <= set(range(5, 11)) and set(np.unique(te.centres)) <= {3, 4}


def test_shapes_have_expected_pixels():
    plus = make_image("plus", 8, 8)
    circle = make_image("circle", 8, 8)
    assert plus.sum() == 3 * 7 * 2 - 9 and circle.sum() == 29
    assert plus[8, 5] == 1 and plus[5, 5] == 0 and circle[5, 8] == 1


def test_ranges_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match=r"1..10 does not fit a 16x16 image.*3..12"):
        make_dataset(np.random.default_rng(0), 10, (1, 10))
    with pytest.raises(ValueError, match="empty"):
        make_dataset(np.random.default_rng(0), 10, (5, 4))
    with pytest.raises(ValueError, match="cx=14"):
        make_image("plus", 14, 8)


def test_other_sizes_and_all_positions():
    ds = make_dataset(np.random.default_rng(0), 20, (3, 20), size=24)
    assert ds.images.shape == (20, 24, 24)
    grid = all_positions(16)
    assert len(grid.images) == 2 * len(valid_centres(16)) ** 2 == 200
