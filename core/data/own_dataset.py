"""A learner's own classes (``core/data/own_classes.py``) placed at centres as the lesson places its plus and circle:
the fields of the registry's ``Dataset`` for them (``own_fields``), which ``core/data/datasets.py`` registers as the
dataset "own" (a config's ``DataConfig.own_classes`` says which classes).

A pattern (a drawing cut to its ink, or a digit's 8×8 scan) is placed with the middle pixel of its box at the centre:
pixel w // 2 across and h // 2 down, as the lesson's 7×7 plus and circle (3 pixels before, 3 after) and lesson 5's
8×8 digits (4 before, 3 after) are. The largest pattern decides where every pattern fits (``Dataset.reach``), so
every class is drawn at every centre of the map.

What is random is drawn as the lesson draws its shapes, from one generator, training first: per image its class,
then which of the class's patterns (only where it has more than one), then its centre (cx then cy from a range, or
one of the split's positions). So the default classes, the lesson's plus and circle as drawings, give the lesson's
images bit for bit on the notebook's ranges. At given test centres (a split of one's own, the phase split) the test
set is drawn systematically instead (``_tested``): every class in turn at each centre, so its classes are balanced
and, given enough images, every class is tested at every centre. A digit class's scans are first split by image, as lesson 5 splits them: a test scan is never a
training scan. A drawing is a training and a test pattern alike, as the lesson's shapes are: the test asks about new
places, not new drawings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.data import digits
from core.data.own_classes import DEFAULT_CLASSES, OwnClass, decode_classes, drawing_bitmap, encode_classes


@dataclass(frozen=True)
class OwnSet:
    images: np.ndarray  # (n, size, size) float32
    labels: np.ndarray  # (n,) float32: the class index
    centres: np.ndarray  # (n, 2) int: (cx, cy)


def place_pattern(pattern: np.ndarray, cx: int, cy: int, size: int) -> np.ndarray:
    """One (size, size) float32 canvas with ``pattern``'s middle pixel (w // 2, h // 2) at column cx, row cy."""
    h, w = pattern.shape
    top, left = cy - h // 2, cx - w // 2
    if top < 0 or left < 0 or top + h > size or left + w > size:
        raise ValueError(f"a {w}×{h} pattern centred at (cx={cx}, cy={cy}) does not fit a {size}x{size} canvas")
    canvas = np.zeros((size, size), dtype=np.float32)
    canvas[top:top + h, left:left + w] = pattern
    return canvas


def _patterns(classes: tuple[OwnClass, ...], rng: np.random.Generator) -> tuple[list, list, list]:
    """Per class, (its training patterns, its test patterns, the map's): a class's drawings for all three, or its
    digit's training scans, test scans and the first ``digits.GRID_PER_CLASS`` test scans. A digit class splits its
    scans with ``rng`` first, as lesson 5 does."""
    digit_classes = tuple(c.digit for c in classes if c.digit is not None)
    if digit_classes:
        images, labels = digits.load()
        train_pool, test_pool = digits.split(digit_classes, rng)
    train, test, grid = [], [], []
    for c in classes:
        if c.digit is None:
            drawn = [drawing_bitmap(rows) for rows in c.drawings]
            mine = (drawn, drawn, drawn)
        else:
            fit, held_out = (list(images[pool[labels[pool] == c.digit]]) for pool in (train_pool, test_pool))
            mine = (fit, held_out, held_out[:digits.GRID_PER_CLASS])
        for out, patterns in zip((train, test, grid), mine, strict=True):
            out.append(patterns)
    return train, test, grid


def _placed(rng: np.random.Generator, n: int, where, patterns: list, size: int) -> OwnSet:
    """``n`` images: per image its class, which pattern (where there is a choice), then its centre from ``where``
    (an inclusive range, or (cx, cy) positions)."""
    positions = where if where and isinstance(where[0], tuple) else None
    images = np.zeros((n, size, size), dtype=np.float32)
    labels, centres = np.zeros(n, dtype=np.float32), np.zeros((n, 2), dtype=np.int64)
    for i in range(n):
        k = int(rng.choice(len(patterns)))  # as the lesson's rng.choice(["plus", "circle"])
        mine = patterns[k]
        pattern = mine[int(rng.integers(len(mine)))] if len(mine) > 1 else mine[0]
        if positions is None:
            cx, cy = int(rng.integers(where[0], where[1] + 1)), int(rng.integers(where[0], where[1] + 1))
        else:
            cx, cy = positions[int(rng.integers(len(positions)))]
        images[i], labels[i], centres[i] = place_pattern(pattern, cx, cy, size), k, (cx, cy)
    return OwnSet(images, labels, centres)


def _tested(rng: np.random.Generator, n: int, positions: tuple, patterns: list, size: int) -> OwnSet:
    """``n`` test images at ``positions`` (a split's or the phase split's test centres): the centres in an order drawn
    from ``rng``, every class in turn at each, a class's pattern drawn where it has several. So the classes are
    balanced within one image, and ``n`` >= centres × classes tests every class at every test centre: what a page
    says of "your test centres" holds of the test set."""
    k = len(patterns)
    order = rng.permutation(len(positions))
    images = np.zeros((n, size, size), dtype=np.float32)
    labels, centres = np.zeros(n, dtype=np.float32), np.zeros((n, 2), dtype=np.int64)
    for i in range(n):
        cx, cy = positions[int(order[(i // k) % len(positions)])]
        mine = patterns[i % k]
        pattern = mine[int(rng.integers(len(mine)))] if len(mine) > 1 else mine[0]
        images[i], labels[i], centres[i] = place_pattern(pattern, cx, cy, size), i % k, (cx, cy)
    return OwnSet(images, labels, centres)


def centres_tested(n_test: int, centres: int, classes: int) -> int:
    """How many of a split's ``centres`` test centres ``_tested`` draws ``n_test`` images at."""
    return min(centres, -(-n_test // classes))


def _map(patterns: list, fits: range, size: int) -> OwnSet:
    """Every map pattern of every class at every centre that fits (class, then cy, then cx: the shapes' order)."""
    images, labels, centres = [], [], []
    for k, mine in enumerate(patterns):
        for cy in fits:
            for cx in fits:
                for pattern in mine:
                    images.append(place_pattern(pattern, cx, cy, size))
                    labels.append(k)
                    centres.append((cx, cy))
    return OwnSet(np.stack(images), np.array(labels, dtype=np.float32), np.array(centres, dtype=np.int64))


def _largest(classes: tuple[OwnClass, ...]) -> tuple[int, str]:
    """The widest or tallest pattern's extent in pixels, and that pattern in words (it decides where all fit)."""
    sizes = []  # (extent, the pattern in words), in class order
    for c in classes:
        if c.digit is not None:
            side = digits.DIGIT_SIZE
            sizes.append((side, f"an {side}×{side} digit (class {c.name!r})"))
        for i, rows in enumerate(c.drawings):
            w, h = len(rows[0]), len(rows)
            sizes.append((max(w, h), f"drawing {i + 1} of class {c.name!r} ({w}×{h} pixels)"))
    return max(sizes, key=lambda s: s[0])  # the first of the largest


def _pixels(n: int) -> str:
    return f"{n} pixel{'s' * (n != 1)}"


def _noun(classes: tuple[OwnClass, ...]) -> str:
    drawn = sum(c.digit is None for c in classes)
    return ("your own drawings" if drawn == len(classes) else "handwritten digits" if not drawn
            else "your own drawings and handwritten digits")


@lru_cache(maxsize=64)
def own_fields(text: str) -> dict:
    """The ``Dataset`` fields (all but its name and label) for the classes of the link text ``text`` ("": the
    default classes): their names, where they fit, how they are drawn, how many patterns a training set draws from,
    and their one link text (``own_text``: what a config keeps, so one setting is one key)."""
    classes = decode_classes(text) if text else DEFAULT_CLASSES
    extent, largest = _largest(classes)
    reach = (extent // 2, (extent - 1) // 2)

    def fits(size: int) -> range:
        return range(reach[0], size - reach[1])

    def draw(rng, n_train, train_at, n_test, test_at, size):
        train, test, grid = _patterns(classes, rng)
        at_positions = bool(test_at) and isinstance(test_at[0], tuple)  # a split's centres, not a range
        return (_placed(rng, n_train, train_at, train, size),
                (_tested if at_positions else _placed)(rng, n_test, test_at, test, size), _map(grid, fits(size), size))

    def example(data_seed, index, cx, cy, size):
        return place_pattern(_patterns(classes, np.random.default_rng(data_seed))[2][index][0], cx, cy, size)

    def patterns() -> int:  # a class's drawings, or its digit's training scans (digits.split's cut)
        scans = [int((digits.load()[1] == c.digit).sum()) for c in classes if c.digit is not None]
        return sum(len(c.drawings) for c in classes) + sum(n - round(n * digits.TEST_SHARE) for n in scans)

    return dict(noun=_noun(classes), classes=tuple(c.name for c in classes), reach=reach,
                pattern=f"{largest}, the largest, reaches {_pixels(reach[0])} before its centre and {reach[1]} after",
                draw=draw, patterns=patterns, example=example, own_text=encode_classes(classes))
