"""The shipped handwritten digits: the file is the UCI set, and lesson 5 splits it by image and by position."""

import hashlib

import numpy as np
import pytest

from core.data import digits
from core.data.datasets import dataset


def test_the_shipped_file_is_the_uci_digits():
    raw = digits.DATA_FILE.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == digits.SHA256
    images, labels = digits.load()
    assert images.shape == (1797, 8, 8) and images.dtype == np.float32 and labels.shape == (1797,)
    levels = np.unique(np.round(images * digits.LEVELS))
    assert levels.tolist() == list(range(17))  # 17 grey levels: counts 0..16, every one used
    counts = np.bincount(labels, minlength=10)
    assert counts.sum() == 1797 and counts.min() == 174 and counts.max() == 183  # about 180 of each digit
    assert digits.DATA_FILE.with_name("uci_digits.md").read_text().count(digits.SHA256) == 1  # provenance beside it


def test_the_file_is_scikit_learns_copy_made_again():
    pytest.importorskip("sklearn")  # a development dependency (requirements-dev.txt)
    from scripts.make_digits import from_scikit_learn

    assert from_scikit_learn() == digits.DATA_FILE.read_bytes()


def test_a_changed_file_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "uci_digits.csv.gz"
    raw = bytearray(digits.DATA_FILE.read_bytes())
    raw[1000] ^= 0xFF  # one byte of the compressed data changed
    bad.write_bytes(bytes(raw))
    monkeypatch.setattr(digits, "DATA_FILE", bad)
    digits.load.cache_clear()
    try:
        with pytest.raises(ValueError, match="not the shipped data"):
            digits.load()
    finally:
        digits.load.cache_clear()


def test_a_digit_is_placed_at_its_centre_and_must_fit():
    img = digits.load()[0][0]
    canvas = digits.place(img, 4, 12, 16)
    assert canvas.shape == (16, 16) and np.array_equal(canvas[8:16, 0:8], img) and canvas.sum() == img.sum()
    assert list(digits.centres(16)) == list(range(4, 13)) and list(digits.centres(24)) == list(range(4, 21))
    with pytest.raises(ValueError, match="centres must be in 4..12"):
        digits.place(img, 3, 8, 16)


def test_test_digits_are_never_training_digits():
    rng = np.random.default_rng(1)
    train, test = digits.split(tuple(range(10)), rng)
    assert not set(train) & set(test) and len(train) + len(test) == 1797
    labels = digits.load()[1]
    for c in range(10):  # a third of each class's images are test images
        n = (labels == c).sum()
        assert (labels[test] == c).sum() == round(n / 3)
    kind = dataset("digits")
    tr, te, grid = kind.draw(np.random.default_rng(1), 500, (6, 12), 200, (4, 5), 16)
    assert not set(tr.items) & set(te.items) and not set(tr.items) & set(grid.items)
    assert tr.centres.min() >= 6 and tr.centres.max() <= 12 and te.centres.min() >= 4 and te.centres.max() <= 5
    # the map: five test digits of each class at each of the 9 x 9 centres
    assert len(grid.images) == 81 * 50 and np.bincount(grid.labels).tolist() == [81 * 5] * 10
