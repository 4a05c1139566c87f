"""Plus-vs-circle images and datasets, made exactly as the lesson makes them.

A plus is two 3-pixel-thick bars of length 7; a circle is every pixel within distance 3 of the centre.
Both reach 3 pixels from their centre (cx, cy), so a centre fits when 3 <= cx, cy <= size - 4.
The dataset draws, per image, a shape name then cx then cy from one ``numpy.random.Generator``: with
``default_rng(1)``, 300 training images at positions 5..10 and then 150 test images at 3..4 reproduce
the lesson's data bit for bit. Position ranges are inclusive (5..10 is ``(5, 10)``), here and on every
page; the lesson's half-open ``rng.integers(5, 11)`` appears in one place, ``make_dataset``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.data.centre_range import check_range

SHAPES = ("plus", "circle")
REACH = 3  # pixels from the centre to the edge of either shape
PATTERN = f"a plus or circle reaches {REACH} pixels from its centre"


def make_image(shape: str, cx: int, cy: int, size: int = 16) -> np.ndarray:
    """One (size, size) float32 image with the shape centred at column cx, row cy."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    check_centre(cx, cy, size)
    img = np.zeros((size, size), dtype=np.float32)
    if shape == "plus":
        img[cy - 1:cy + 2, cx - 3:cx + 4] = 1.0
        img[cy - 3:cy + 4, cx - 1:cx + 2] = 1.0
    else:
        yy, xx = np.mgrid[0:size, 0:size]
        img[((xx - cx) ** 2 + (yy - cy) ** 2) <= 9] = 1.0
    return img


def valid_centres(size: int) -> range:
    """Every centre coordinate at which both shapes fit inside a size x size image."""
    return range(REACH, size - REACH)


def check_centre(cx: int, cy: int, size: int) -> None:
    if not (REACH <= cx < size - REACH and REACH <= cy < size - REACH):
        raise ValueError(f"a shape centred at (cx={cx}, cy={cy}) does not fit a {size}x{size} image: "
                         f"centres must be in {REACH}..{size - REACH - 1}")


@dataclass(frozen=True)
class ShapeDataset:
    images: np.ndarray  # (n, size, size) float32
    labels: np.ndarray  # (n,) float32: 0 plus, 1 circle
    centres: np.ndarray  # (n, 2) int: (cx, cy)


def make_dataset(rng: np.random.Generator, n: int, position_range: tuple[int, int], size: int = 16) -> ShapeDataset:
    """``n`` images at centres in the inclusive ``position_range``; per image the draws are: shape, cx,
    cy (the lesson's order)."""
    check_range(position_range, valid_centres(size), size, PATTERN)
    if n < 1:
        raise ValueError(f"need at least one image, got n={n}")
    lo, hi = position_range
    images, labels, centres = [], [], []
    for _ in range(n):
        shape = rng.choice(["plus", "circle"])
        cx, cy = rng.integers(lo, hi + 1), rng.integers(lo, hi + 1)  # the lesson's half-open form
        images.append(make_image(str(shape), int(cx), int(cy), size))
        labels.append(0.0 if shape == "plus" else 1.0)
        centres.append((int(cx), int(cy)))
    return ShapeDataset(np.array(images, dtype=np.float32), np.array(labels, dtype=np.float32),
                        np.array(centres, dtype=np.int64))


def make_dataset_at(rng: np.random.Generator, n: int, positions: tuple[tuple[int, int], ...],
                    size: int = 16) -> ShapeDataset:
    """``n`` images at centres drawn from ``positions`` ((cx, cy) pairs, the phase split's); per image the draws
    are: shape, then which position."""
    if n < 1 or not positions:
        raise ValueError(f"need at least one image and one position, got n={n}, {len(positions)} positions")
    images, labels, centres = [], [], []
    for _ in range(n):
        shape = rng.choice(["plus", "circle"])
        cx, cy = positions[int(rng.integers(len(positions)))]
        images.append(make_image(str(shape), cx, cy, size))
        labels.append(0.0 if shape == "plus" else 1.0)
        centres.append((cx, cy))
    return ShapeDataset(np.array(images, dtype=np.float32), np.array(labels, dtype=np.float32),
                        np.array(centres, dtype=np.int64))


def possible_images(position_range: tuple[int, int]) -> int:
    """How many different images centres in the inclusive ``position_range`` allow: an image is fixed by
    its shape and centre, so 2 x k x k for k centres per axis."""
    k = position_range[1] - position_range[0] + 1
    return len(SHAPES) * k * k


def max_distinct(n: int, position_range: tuple[int, int]) -> int:
    """At most this many distinct images among ``n`` drawn at centres in ``position_range``."""
    return min(n, possible_images(position_range))


def all_positions(size: int) -> ShapeDataset:
    """Both shapes at every centre where they fit: the grid behind the generalization map."""
    images, labels, centres = [], [], []
    for label, shape in enumerate(SHAPES):
        for cy in valid_centres(size):
            for cx in valid_centres(size):
                images.append(make_image(shape, cx, cy, size))
                labels.append(float(label))
                centres.append((cx, cy))
    return ShapeDataset(np.array(images, dtype=np.float32), np.array(labels, dtype=np.float32),
                        np.array(centres, dtype=np.int64))
