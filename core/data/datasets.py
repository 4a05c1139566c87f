"""What is drawn at a centre: the lesson's plus and circle, or real handwritten digits. One ``Dataset`` per
choice, registered here; ``DataConfig.dataset`` names one, and everything that depends on it (the classes,
where a centre fits, how the images are drawn) is read from it, never decided by comparing names.

Two classes make the lesson's binary task (one logit); more make a K-way task (K logits, cross-entropy).

A class is what is drawn (a plus, a digit 7), except in the position task (``where``): there the lesson's shapes
are labelled by where they are (``Dataset.place``), so the map holds one class per centre, not every class.

The learner's own classes (``own``) are the one dataset whose classes a config chooses: its ``Dataset.own`` makes the
fields for the classes of ``DataConfig.own_classes`` (``Dataset.with_classes``); registered, it holds the default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol

import numpy as np

from core.data import digits, halves, own_dataset, shapes


class Placed(Protocol):
    images: np.ndarray  # (n, size, size) float32
    labels: np.ndarray  # (n,) class index
    centres: np.ndarray  # (n, 2): (cx, cy)


# (rng, n_train, where to train, n_test, where to test, size) -> (training set, test set, map grid); "where" is an
# inclusive centre range (lo, hi) or a tuple of (cx, cy) positions (``is_range``)
Draw = Callable[[np.random.Generator, int, tuple[int, int], int, tuple[int, int], int], tuple[Placed, Placed, Placed]]
# (data_seed, class index, cx, cy, size) -> (size, size): the class's first image of the map grid at that centre
# (where the label is the place, the centre's class: the first image there, whichever class is asked for)
Example = Callable[[int, int, int, int, int], np.ndarray]
# (cx, cy, size) -> the class a centre gives, for a dataset whose label is where the pattern is
Place = Callable[[int, int, int], int]


@dataclass(frozen=True)
class Dataset:
    name: str
    label: str
    noun: str  # what the images show, in a sentence: "shapes", "handwritten digits"
    classes: tuple[str, ...]  # class names, by class index
    reach: tuple[int, int]  # pixels a pattern reaches before and after its centre (rows and columns alike)
    pattern: str  # what is placed, for messages: "a plus or circle reaches 3 pixels from its centre"
    draw: Draw
    patterns: Callable[[], int]  # distinct patterns the training set can draw from (for an upper bound)
    example: Example
    place: Place | None = None  # None: the class is what is drawn; else the class is where it is drawn
    # The learner's own classes: their link text -> the fields above and own_text for them (core/data/own_dataset.py).
    # None: the classes are fixed.
    own: Callable[[str], dict] | None = None
    own_text: str = ""  # the learner's classes this dataset draws, in their one link text ("" where classes are fixed)

    def with_classes(self, text: str) -> Dataset:
        """This dataset drawing the classes of ``text`` (``DataConfig.own_classes``) where its classes are the
        learner's; itself where they are fixed."""
        if self.own is None:
            return self
        if not isinstance(text, str):
            raise ValueError(f"the classes of dataset {self.name!r} are their link text, got {type(text).__name__}")
        return _with_classes(self, text)

    def name_of(self, index: int) -> str:
        """Class ``index`` as a page says it: "plus", "digit 7"."""
        name = self.classes[index]
        return f"digit {name}" if name.isdigit() else name

    def centres(self, size: int) -> range:
        """Every centre coordinate (cx or cy) at which a pattern fits a size x size image."""
        return range(self.reach[0], size - self.reach[1])

    @property
    def outputs(self) -> int:
        """Logits a model answers with: one for two classes (as the lesson), else one per class."""
        return 1 if len(self.classes) == 2 else len(self.classes)

    @property
    def chance(self) -> float:
        """The accuracy of guessing (the classes are balanced)."""
        return 1 / len(self.classes)

    def map_cells(self, size: int) -> int:
        """The (class, centre) cells of the map: every class at every centre, or where the label is the place one
        class per centre (what a complete run holds per model and seed)."""
        return (1 if self.place else len(self.classes)) * len(self.centres(size)) ** 2

    def classes_at(self, positions, size: int) -> set[int]:
        """The classes images at ``positions`` ((cx, cy) pairs) can carry: every class, or where the label is the
        place the classes those centres give."""
        if self.place is None:
            return set(range(len(self.classes)))
        return {self.place(cx, cy, size) for cx, cy in positions}

    def possible_images(self, position_range: tuple[int, int]) -> int:
        """How many different training images centres in the inclusive ``position_range`` allow."""
        k = position_range[1] - position_range[0] + 1
        return self.patterns() * k * k


@lru_cache(maxsize=64)
def _with_classes(kind: Dataset, text: str) -> Dataset:
    return replace(kind, **kind.own(text))


DATASETS: dict[str, Dataset] = {}


def register(d: Dataset) -> Dataset:
    if d.name in DATASETS:
        raise ValueError(f"dataset {d.name!r} is already registered")
    DATASETS[d.name] = d
    return d


def dataset(name: str) -> Dataset:
    try:
        return DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; choose from {list(DATASETS)}") from None


def is_range(where) -> bool:
    """A centre range (lo, hi), as the notebook's split; else a tuple of (cx, cy) positions (the phase split)."""
    return not where or not isinstance(where[0], tuple)


def _shapes(rng, n_train, train_at, n_test, test_at, size):
    # one generator, training first: with data seed 1 and ranges these are the lesson's images, bit for bit
    def make(n, where):
        return (shapes.make_dataset if is_range(where) else shapes.make_dataset_at)(rng, n, where, size)

    return make(n_train, train_at), make(n_test, test_at), shapes.all_positions(size)


def _square(where) -> tuple[tuple[int, int], ...]:
    """A centre range's (cx, cy) positions, or the phase split's positions as they are."""
    if not is_range(where):
        return where
    axis = range(where[0], where[1] + 1)
    return tuple((cx, cy) for cy in axis for cx in axis)


def _where(rng, n_train, train_at, n_test, test_at, size):
    # one generator, training first, as every dataset
    return (halves.make_dataset(rng, n_train, _square(train_at), size),
            halves.make_dataset(rng, n_test, _square(test_at), size), halves.grid(size))


def _digits(classes: tuple[int, ...]) -> Draw:
    def draw(rng, n_train, train_at, n_test, test_at, size):
        train_pool, test_pool = digits.split(classes, rng)  # by image: a test digit is never a training digit

        def make(pool, n, where):
            return (digits.draw if is_range(where) else digits.draw_at)(rng, pool, classes, n, where, size)

        return (make(train_pool, n_train, train_at), make(test_pool, n_test, test_at),
                digits.grid(test_pool, classes, size))
    return draw


def _digit_example(classes: tuple[int, ...]) -> Example:
    def example(data_seed, index, cx, cy, size):
        images, labels = digits.load()
        test_pool = digits.split(classes, np.random.default_rng(data_seed))[1]  # the draw's first use of its rng
        return digits.place(images[test_pool[labels[test_pool] == classes[index]][0]], cx, cy, size)
    return example


def _training_digits(classes: tuple[int, ...]) -> Callable[[], int]:
    return lambda: int(np.isin(digits.load()[1], classes).sum() * (1 - digits.TEST_SHARE)) + len(classes)


DIGIT_PATTERN = "an 8×8 digit reaches 4 pixels before its centre and 3 after"
register(Dataset("shapes", "plus vs circle", "shapes", shapes.SHAPES, (shapes.REACH, shapes.REACH),
                 shapes.PATTERN, _shapes, lambda: len(shapes.SHAPES),
                 lambda data_seed, index, cx, cy, size: shapes.make_image(shapes.SHAPES[index], cx, cy, size)))
for _name, _label, _classes in (("digits", "handwritten digits 0–9", tuple(range(10))),
                                ("digits-0-1", "handwritten 0 vs 1", (0, 1))):
    register(Dataset(_name, _label, "handwritten digits", tuple(map(str, _classes)), digits.REACH, DIGIT_PATTERN, _digits(_classes),
                     _training_digits(_classes), _digit_example(_classes)))
# The position task: the same shapes, labelled by the half of the canvas they are in (core/data/halves.py)
register(Dataset("where", "where: left or right half", "shapes", halves.CLASSES, (shapes.REACH, shapes.REACH),
                 shapes.PATTERN, _where, lambda: len(shapes.SHAPES),
                 lambda data_seed, index, cx, cy, size: shapes.make_image(shapes.SHAPES[0], cx, cy, size),
                 place=halves.half))
# The learner's own classes (core/data/own_classes.py), drawn where the lesson draws its shapes; registered with the
# default classes ("": the lesson's plus and circle as drawings), a config's own_classes chooses theirs
register(Dataset("own", "your own classes", own=own_dataset.own_fields, **own_dataset.own_fields("")))
