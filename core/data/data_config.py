"""DataConfig: the experiment's data as one frozen config (validated once, here), and the images it makes: the
training and test sets drawn as the lesson draws them, and the grid of every position behind the generalization
map. What is drawn (the lesson's shapes or real digits) is the config's ``dataset`` (``core/data/datasets.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.data.centre_range import check_range
from core.data.datasets import Dataset, dataset
from core.data.own_split import bounding_range, check_split_fits, make_split

MAX_IMAGES = 100_000


@dataclass(frozen=True)
class DataConfig:
    n_train: int = 300
    train_range: tuple[int, int] = (5, 10)  # inclusive centres (cx and cy): the lesson's rng.integers(5, 11)
    n_test: int = 150
    test_range: tuple[int, int] = (3, 4)  # inclusive: never seen in training
    img_size: int = 16
    data_seed: int = 1
    dataset: str = "shapes"  # a name in core.data.datasets.DATASETS
    # The phase split: training centres only where c mod phase_period (a patch's width) is one of these offsets,
    # within train_range; the test is every other centre of the canvas. () is the notebook's split by ranges.
    phases: tuple[int, ...] = ()
    phase_period: int = 4
    # A split of one's own (core/data/own_split.py): (training centres, test centres), each a set of (cx, cy) in row
    # order; () for the ranges or the phase split. With it, the ranges are what its two sets span.
    split: tuple[tuple[tuple[int, int], ...], ...] = ()
    # The learner's own classes (dataset "own"), in their one link text (core/data/own_classes.py); "" the default
    own_classes: str = ""

    def __post_init__(self) -> None:
        for name in ("n_train", "n_test"):
            n = getattr(self, name)
            if not 1 <= n <= MAX_IMAGES:
                raise ValueError(f"{name} must be in 1..{MAX_IMAGES}, got {n}")
        if not 8 <= self.img_size <= 64:
            raise ValueError(f"img_size must be in 8..64, got {self.img_size}")
        if not 0 <= self.data_seed < 2**32:
            raise ValueError(f"data_seed must be in 0..2**32-1, got {self.data_seed}")
        object.__setattr__(self, "train_range", tuple(self.train_range))
        object.__setattr__(self, "test_range", tuple(self.test_range))
        object.__setattr__(self, "split", self.split or ())
        # The learner's classes, read only where the dataset is theirs, kept as their one text: one run, one key
        kind = dataset(self.dataset).with_classes(self.own_classes)  # unknown names and bad classes raise here
        object.__setattr__(self, "own_classes", kind.own_text)
        if not kind.centres(self.img_size):
            raise ValueError(f"{kind.pattern}: it fits a {self.img_size}x{self.img_size} image at no centre")
        if self.split:
            self._check_split(kind)
            self._check_places(kind)
            return
        check_range(self.train_range, kind.centres(self.img_size), self.img_size, kind.pattern, "training position range")
        if self.phases:
            self._check_phases(kind)
            self._check_places(kind)
            return
        object.__setattr__(self, "phase_period", 4)  # read by the phase split only: one key per run
        check_range(self.test_range, kind.centres(self.img_size), self.img_size, kind.pattern, "test position range")
        # The lesson is about positions never seen in training: a shared centre would make part of the
        # test "seen" while every label on the page calls it unseen, so overlapping ranges are refused.
        (a, b), (c, d) = self.train_range, self.test_range
        if max(a, c) <= min(b, d):
            lo, hi = kind.centres(self.img_size)[0], kind.centres(self.img_size)[-1]
            free = [f"{x}..{y}" for x, y in ((lo, a - 1), (b + 1, hi)) if x <= y]
            raise ValueError(f"test centres {c}..{d} overlap training centres {a}..{b}: the test must be at unseen "
                             "positions, " + (f"within {' or '.join(free)}" if free else
                                              f"so leave some of {lo}..{hi} out of the training range"))
        self._check_places(kind)

    def _check_split(self, kind: Dataset) -> None:
        if self.phases:
            raise ValueError("a split of your own and the phase split both choose the training centres: give one")
        if not isinstance(self.split, tuple | list) or len(self.split) != 2:
            raise ValueError("a split of your own is two sets of centres, the training centres and the test centres")
        split = make_split(*self.split)  # each set once, in row order: one run, one key
        check_split_fits(split, kind.centres(self.img_size), self.img_size, kind.pattern)
        object.__setattr__(self, "split", (split.train, split.test))
        # what the split spans, read by the pages' sentences and boxes; set from it, so never a second key
        object.__setattr__(self, "train_range", bounding_range(split.train))
        object.__setattr__(self, "test_range", bounding_range(split.test))
        object.__setattr__(self, "phase_period", 4)

    def _check_phases(self, kind: Dataset) -> None:
        P, phases = self.phase_period, tuple(sorted(set(self.phases)))
        if not 2 <= P <= self.img_size:
            raise ValueError(f"phase_period must be in 2..{self.img_size} (a patch's width), got {P}")
        if not all(0 <= p < P for p in phases) or len(phases) >= P:
            raise ValueError(f"phases must be some, not all, of the offsets 0..{P - 1} within a {P}-pixel patch, got "
                             f"{list(self.phases)}")
        object.__setattr__(self, "phases", phases)
        centres = kind.centres(self.img_size)
        object.__setattr__(self, "test_range", (centres[0], centres[-1]))  # the test: every other centre
        if not self.train_positions:
            raise ValueError(f"no training centre in {self.train_range[0]}..{self.train_range[1]} has an offset in "
                             f"{list(phases)} within a {P}-pixel patch: widen the range or pick other offsets")

    def _check_places(self, kind: Dataset) -> None:
        """Where the label is the place (the position task), the training centres and the test centres must each
        give every class: a test set of one label cannot tell a model that knows where a shape is from one that
        gives that answer to every image, and a training set of one label teaches only that answer."""
        if kind.place is None:  # every class is drawn at every centre
            return
        for what, positions in (("training", self.train_positions), ("test", self.test_positions)):
            reached = kind.classes_at(positions, self.img_size)
            if len(reached) == len(kind.classes):
                continue
            xs, ys = sorted({cx for cx, _ in positions}), sorted({cy for _, cy in positions})
            given = " and ".join(kind.name_of(k) for k in sorted(reached))
            missing = " and ".join(kind.name_of(k) for k in range(len(kind.classes)) if k not in reached)
            way_out = ("use the phase split (phases 0, 1, 2 with training centres 3..12), whose training and test "
                       "centres both spread over the canvas" if not self.phases else
                       f"widen the training range {self.train_range[0]}..{self.train_range[1]} or pick other "
                       f"offsets than {list(self.phases)}, so that both sets reach {missing}")
            raise ValueError(f"dataset {self.dataset!r} ({kind.label}) labels an image by where its shape is, but "
                             f"every {what} centre (cx {xs[0]}..{xs[-1]}, cy {ys[0]}..{ys[-1]}) gives {given}, none "
                             f"{missing}: {what} images of one label cannot "
                             + ("test whether a model uses where a shape is" if what == "test" else
                                "teach where a shape is") + f"; {way_out}")

    def trains_at(self, c: int) -> bool:
        """Whether a centre coordinate (cx or cy) is one training centres take (a split of one's own: one some
        training centre has, in x or in y)."""
        if self.split:
            return any(c in centre for centre in self.train_positions)
        return self.train_range[0] <= c <= self.train_range[1] and (
            not self.phases or c % self.phase_period in self.phases)

    @property
    def train_positions(self) -> tuple[tuple[int, int], ...]:
        """Every (cx, cy) the training set may draw."""
        if self.split:
            return self.split[0]
        axis = [c for c in self.kind.centres(self.img_size) if self.trains_at(c)]
        return tuple((cx, cy) for cy in axis for cx in axis)

    @property
    def test_positions(self) -> tuple[tuple[int, int], ...]:
        """Every (cx, cy) the test set may draw: the test range's square, or (phase split) every centre that is
        not a training position; a split of one's own: its test centres."""
        if self.split:
            return self.split[1]
        if not self.phases:
            axis = range(self.test_range[0], self.test_range[1] + 1)
            return tuple((cx, cy) for cy in axis for cx in axis)
        seen = set(self.train_positions)
        axis = self.kind.centres(self.img_size)
        return tuple((cx, cy) for cy in axis for cx in axis if (cx, cy) not in seen)

    @property
    def drawn_at(self) -> tuple:
        """(where the training set is drawn, where the test set is): the ranges for the notebook's split (its draws,
        the lesson's), else every position each may take."""
        if self.phases or self.split:
            return self.train_positions, self.test_positions
        return self.train_range, self.test_range

    @property
    def kind(self) -> Dataset:
        """What is drawn at a centre, its classes and where it fits."""
        return dataset(self.dataset).with_classes(self.own_classes)


@dataclass(frozen=True)
class Data:
    Xtr: torch.Tensor  # (n_train, 1, H, W)
    ytr: torch.Tensor  # (n_train,): the class index; float 0/1 for two classes (one logit), else int64
    Xte: torch.Tensor  # (n_test, 1, H, W)
    yte: torch.Tensor
    test_centres: np.ndarray  # (n_test, 2): (cx, cy)
    grid_X: torch.Tensor  # every class at every centre that fits (the shapes; five test digits of each digit)
    grid_y: torch.Tensor
    grid_centres: np.ndarray


def make_data(d: DataConfig) -> Data:
    """One generator for every draw, training first: with data_seed 1 the shapes are the lesson's images."""
    kind = d.kind
    train_at, test_at = d.drawn_at
    tr, te, grid = kind.draw(np.random.default_rng(d.data_seed), d.n_train, train_at, d.n_test, test_at, d.img_size)
    label_type = torch.float32 if kind.outputs == 1 else torch.int64  # binary cross-entropy, or cross-entropy

    def t(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(a)

    return Data(t(tr.images).unsqueeze(1), t(tr.labels).to(label_type), t(te.images).unsqueeze(1),
                t(te.labels).to(label_type), te.centres, t(grid.images).unsqueeze(1), t(grid.labels).to(label_type),
                grid.centres)


def distinct(X: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The distinct (image, label) pairs of a training set, and how many times each occurs."""
    key = torch.cat([X.flatten(1), y[:, None].to(X.dtype)], dim=1)  # (n, C*H*W + 1): image and label
    rows, counts = torch.unique(key, dim=0, return_counts=True)  # (u, C*H*W + 1), (u,)
    return rows[:, :-1].reshape(-1, *X.shape[1:]), rows[:, -1].to(y.dtype), counts  # (u, C, H, W), (u,), (u,)


def distinct_training_images(d: DataConfig) -> int:
    """How many distinct images the training set holds: what each training step actually computes."""
    data = make_data(d)
    return len(distinct(data.Xtr, data.ytr)[0])


def max_distinct_training_images(d: DataConfig) -> int:
    """An upper bound on ``distinct_training_images`` without drawing the data (for planning)."""
    if d.phases or d.split:
        return min(d.n_train, d.kind.patterns() * len(d.train_positions))
    return min(d.n_train, d.kind.possible_images(d.train_range))
