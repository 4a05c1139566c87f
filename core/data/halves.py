"""The position task: the lesson's plus and circle, drawn as ``shapes`` draws them, labelled by *where* the shape
is instead of which shape it is: class 0 "left" when its centre is in the left half of the canvas (cx < size / 2),
class 1 "right" otherwise. A model that cannot use where a shape is (a ViT with no position table, read through a
mean of its patches) can only guess here; lesson 3's own task asks the opposite of it.

The two classes are drawn equally often (to one image): an exact half of the images is placed in each half of the
canvas, then per image a shape and a centre of its half. Centres drawn uniformly would not be balanced wherever the
halves offer different numbers of centres (the phase split trains at 3 columns left of the middle and 4 right of
it), and a model answering "right" every time would then beat the 50 % a page calls chance.
"""

from __future__ import annotations

import numpy as np

from core.data.shapes import SHAPES, ShapeDataset, all_positions, make_image

CLASSES = ("left", "right")


def half(cx: int, cy: int, size: int) -> int:
    """The class a centre gives: 0 (left) when cx < size / 2, else 1 (right); cy does not matter."""
    return int(2 * cx >= size)


def make_dataset(rng: np.random.Generator, n: int, positions: tuple[tuple[int, int], ...],
                 size: int = 16) -> ShapeDataset:
    """``n`` images at centres drawn from ``positions`` ((cx, cy) pairs), half of them (to one image) in each half
    of the canvas; the draws are: which images are left (a permutation), then per image its shape and which
    position of its half."""
    by_half = [[p for p in positions if half(*p, size) == k] for k in range(len(CLASSES))]
    if n < 1 or not all(by_half):
        raise ValueError(f"need at least one image and centres in both halves of a {size}-pixel canvas (cx < "
                         f"{size / 2:g} and cx >= {size / 2:g}), got n={n}, {len(by_half[0])} left and "
                         f"{len(by_half[1])} right positions")
    labels = rng.permutation(np.arange(n) % 2)  # ceil(n / 2) left, floor(n / 2) right, in a random order
    images, centres = [], []
    for label in labels.tolist():
        shape = rng.choice(SHAPES)
        cx, cy = by_half[label][int(rng.integers(len(by_half[label])))]
        images.append(make_image(str(shape), cx, cy, size))
        centres.append((cx, cy))
    return ShapeDataset(np.array(images, dtype=np.float32), labels.astype(np.float32), np.array(centres, dtype=np.int64))


def grid(size: int) -> ShapeDataset:
    """The shapes' map grid (both shapes at every centre where they fit), each image labelled by its half: the
    map then holds one class per centre, two images each."""
    shapes = all_positions(size)
    labels = np.array([half(cx, cy, size) for cx, cy in shapes.centres.tolist()], dtype=np.float32)
    return ShapeDataset(shapes.images, labels, shapes.centres)
