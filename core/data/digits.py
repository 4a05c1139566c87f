"""Real handwriting: the UCI "Optical Recognition of Handwritten Digits" images, each placed on a larger canvas
at a centre, as lesson 3 places a plus or a circle.

The data ships in ``uci_digits.csv.gz`` beside this module (source, licence and citation in ``uci_digits.md``;
``python -m scripts.make_digits`` writes it from scikit-learn's copy): 1,797 grey images of 8×8 pixels, each
pixel a count 0..16 of ink in a 4×4 block of the original 32×32 scan, about 180 of each digit. Nothing is
downloaded at run time; the file's SHA-256 is checked when it is read.

A digit's 8×8 box is placed with its centre at (cx, cy): it covers columns cx-4..cx+3 and rows cy-4..cy+3, so
a centre fits a canvas of ``size`` when 4 <= cx, cy <= size - 4.

Training and test images are split by *digit image* as well as by position: each class's images are shuffled
with the data seed and a third go to the test pool, so a test digit is never a training digit, at any centre.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA_FILE = Path(__file__).with_name("uci_digits.csv.gz")
SHA256 = "07165f912194429831f2fae934abdeb26b9f12bf2fcf43ff74d5dbd0b642b7b1"
DIGIT_SIZE = 8
LEVELS = 16  # a pixel counts 0..16 inked pixels of a 4x4 block
REACH = (4, 3)  # the box reaches 4 pixels before its centre and 3 after, in rows and columns
TEST_SHARE = 1 / 3  # of each class's images: the test pool
GRID_PER_CLASS = 5  # test digits of each class drawn at every centre for the generalization map


@lru_cache(maxsize=1)
def load() -> tuple[np.ndarray, np.ndarray]:
    """(images (1797, 8, 8) float32 in 0..1, labels (1797,) int64), read from the shipped file."""
    raw = DATA_FILE.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        raise ValueError(f"{DATA_FILE.name} is not the shipped data (sha256 {digest}, expected {SHA256}): "
                         "restore it from the repository or run python -m scripts.make_digits")
    table = np.loadtxt(gzip.decompress(raw).decode().splitlines(), delimiter=",", dtype=np.int64)  # (n, 65)
    labels, counts = table[:, 0], table[:, 1:]
    return (counts.reshape(-1, DIGIT_SIZE, DIGIT_SIZE) / LEVELS).astype(np.float32), labels


def centres(size: int) -> range:
    """Every centre coordinate at which a digit's box fits a size x size canvas."""
    return range(REACH[0], size - REACH[1])


def place(digit: np.ndarray, cx: int, cy: int, size: int) -> np.ndarray:
    """One (size, size) float32 canvas with the 8x8 ``digit`` centred at column cx, row cy."""
    if cx not in centres(size) or cy not in centres(size):
        raise ValueError(f"a digit centred at (cx={cx}, cy={cy}) does not fit a {size}x{size} canvas: centres must "
                         f"be in {REACH[0]}..{size - REACH[1] - 1}")
    canvas = np.zeros((size, size), dtype=np.float32)
    canvas[cy - REACH[0]:cy + REACH[1] + 1, cx - REACH[0]:cx + REACH[1] + 1] = digit
    return canvas


def split(classes: tuple[int, ...], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(training pool, test pool): indices into ``load()`` of the digits in ``classes``, each class's images
    shuffled and cut so that a third of them are test images only."""
    labels = load()[1]
    train, test = [], []
    for c in classes:
        idx = rng.permutation(np.flatnonzero(labels == c))
        cut = len(idx) - round(len(idx) * TEST_SHARE)
        train.append(idx[:cut])
        test.append(idx[cut:])
    return np.concatenate(train), np.concatenate(test)


@dataclass(frozen=True)
class DigitSet:
    images: np.ndarray  # (n, size, size) float32
    labels: np.ndarray  # (n,): the index of the digit's class in ``classes``
    centres: np.ndarray  # (n, 2) int: (cx, cy)
    items: np.ndarray  # (n,): which image of ``load()`` each one is


def draw(rng: np.random.Generator, pool: np.ndarray, classes: tuple[int, ...], n: int,
         position_range: tuple[int, int], size: int) -> DigitSet:
    """``n`` digits from ``pool`` at centres in the inclusive ``position_range``; per image the draws are: the
    digit, cx, cy."""
    lo, hi = position_range
    images, labels = load()
    items = rng.choice(pool, size=n)
    cx, cy = rng.integers(lo, hi + 1, size=n), rng.integers(lo, hi + 1, size=n)
    placed = np.stack([place(images[i], int(x), int(y), size) for i, x, y in zip(items, cx, cy, strict=True)])
    return DigitSet(placed, np.searchsorted(classes, labels[items]), np.stack([cx, cy], axis=1), items)


def draw_at(rng: np.random.Generator, pool: np.ndarray, classes: tuple[int, ...], n: int,
            positions: tuple[tuple[int, int], ...], size: int) -> DigitSet:
    """``n`` digits from ``pool`` at centres drawn from ``positions`` ((cx, cy) pairs, the phase split's); the
    draws are: the digits, then which position for each."""
    images, labels = load()
    items = rng.choice(pool, size=n)
    where = np.array(positions, dtype=np.int64)[rng.integers(len(positions), size=n)]  # (n, 2)
    placed = np.stack([place(images[i], int(x), int(y), size) for i, (x, y) in zip(items, where, strict=True)])
    return DigitSet(placed, np.searchsorted(classes, labels[items]), where, items)


def grid(test_pool: np.ndarray, classes: tuple[int, ...], size: int) -> DigitSet:
    """The first ``GRID_PER_CLASS`` test digits of each class at every centre that fits: the generalization map."""
    images, labels = load()
    chosen = np.concatenate([test_pool[labels[test_pool] == c][:GRID_PER_CLASS] for c in classes])
    out, centre, item = [], [], []
    for cy in centres(size):
        for cx in centres(size):
            for i in chosen:
                out.append(place(images[i], cx, cy, size))
                centre.append((cx, cy))
                item.append(i)
    item_arr = np.array(item)
    return DigitSet(np.stack(out), np.searchsorted(classes, labels[item_arr]), np.array(centre, dtype=np.int64),
                    item_arr)
