"""What a run's models were trained on, to show beside a learner's drawing: one training image of each class,
taken from the run's own training set, and what those images are, in a sentence.

A class's example is the training image of that class whose centre lies nearest the middle of the training
centres (the first such in the training set): a real row of ``make_data(d).Xtr``, drawn where the models learned.
What the sentence says is read from the ``DataConfig`` (the canvas, how many images, where they are centred) and
measured on the images (each one's ink box, how thick its strokes are, white or grey ink, how many different
patterns a class has), never written down beside the data: a thinner plus or another canvas would say so itself.

A stroke's thickness is measured per ink pixel (value >= ``INK``) as the shorter of its two runs of ink, across
its row and down its column, and the median over the pixels is taken: 3 for the lesson's plus (two bars 3 pixels
thick), 1 for a plus drawn with one-pixel lines. A shape whose strokes are more than half as thick as its box is
narrow, and 3 or more, is called *filled* (the lesson's circle, a disc).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.data.data_config import DataConfig

INK = 0.5  # a pixel at least this bright counts as ink, for the measures


@dataclass(frozen=True)
class TrainingExample:
    label: int  # the class index
    image: np.ndarray  # (size, size) float32, read-only: the training image itself
    centre: tuple[int, int]  # (cx, cy) it was drawn at: a training centre
    index: int  # its row in the training set (``make_data(d).Xtr[index]``)
    box: tuple[int, int]  # (width, height) of its ink, in pixels
    stroke: int  # how thick its strokes are, in pixels (``stroke_width``)
    patterns: int  # how many different patterns (ink cut to its box) the training set has of this class


def ink_box(image: np.ndarray) -> tuple[int, int]:
    """(width, height) of the smallest box around the image's ink; (0, 0) without ink."""
    rows, cols = np.nonzero(np.asarray(image) >= INK)
    if not len(rows):
        return 0, 0
    return int(cols.max() - cols.min() + 1), int(rows.max() - rows.min() + 1)


def _runs(ink: np.ndarray) -> np.ndarray:
    """Per pixel, the length of the run of ink along its row that it belongs to (0 off the ink)."""
    out = np.zeros(ink.shape, dtype=np.int64)
    for r, row in enumerate(ink):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            end = c
            while end < len(row) and row[end]:
                end += 1
            out[r, c:end] = end - c
            c = end
    return out


def stroke_width(image: np.ndarray) -> int:
    """How thick the image's strokes are: the median, over its ink pixels, of the shorter of the pixel's runs of
    ink across and down (0 without ink)."""
    ink = np.asarray(image) >= INK
    if not ink.any():
        return 0
    thinnest = np.minimum(_runs(ink), _runs(ink.T).T)[ink]
    return int(np.floor(np.median(thinnest) + 0.5))


def _pattern(image: np.ndarray) -> bytes:
    """The image cut to its ink (any value above 0), as bytes: the same pattern at another centre is equal."""
    rows, cols = np.nonzero(image > 0)
    if not len(rows):
        return b""
    cut = image[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    return bytes(f"{cut.shape}", "ascii") + np.ascontiguousarray(cut, dtype=np.float32).tobytes()


@lru_cache(maxsize=32)
def training_examples(d: DataConfig) -> tuple[TrainingExample, ...]:
    """One training image of each class the training set holds, in class order (see the module's docstring)."""
    kind = d.kind
    train_at, test_at = d.drawn_at
    train = kind.draw(np.random.default_rng(d.data_seed), d.n_train, train_at, d.n_test, test_at, d.img_size)[0]
    middle = np.mean(np.array(d.train_positions, dtype=np.float64), axis=0)  # (2,): the middle (cx, cy)
    far = ((np.asarray(train.centres, dtype=np.float64) - middle) ** 2).sum(axis=1)  # (n,)
    labels = np.asarray(train.labels).astype(np.int64)
    out = []
    for label in range(len(kind.classes)):
        rows = np.flatnonzero(labels == label)
        if not len(rows):  # a training set too small to hold every class
            continue
        i = int(rows[np.argmin(far[rows])])  # argmin: the first of the nearest
        image = np.array(train.images[i], dtype=np.float32)
        image.setflags(write=False)  # shared through the cache
        out.append(TrainingExample(label, image, (int(train.centres[i][0]), int(train.centres[i][1])), i,
                                   ink_box(image), stroke_width(image),
                                   len({_pattern(train.images[j]) for j in rows})))
    return tuple(out)


def filled(example: TrainingExample) -> bool:
    """Whether the shape is filled rather than drawn in strokes: strokes of 3 pixels or more (a line of one or two is
    a stroke however narrow its box, a handwritten 1) and more than half as thick as its box is narrow."""
    return example.stroke >= 3 and 2 * example.stroke > min(example.box)


def _centres(d: DataConfig) -> str:
    lo, hi = d.train_range
    if d.split:
        n = len(d.train_positions)
        return f"centred at the {n} training centre{'s' * (n != 1)} of your own split"
    if not d.phases:
        return f"centred at cx and cy in {lo}..{hi}"
    offsets = ", ".join(map(str, d.phases[:-1])) + (" or " if len(d.phases) > 1 else "") + str(d.phases[-1])
    return (f"centred at cx and cy in {lo}..{hi} with offset {offsets} within a {d.phase_period}-pixel patch "
            "(the phase split)")


def _one(d: DataConfig, e: TrainingExample) -> str:
    kind = d.kind
    w, h = e.box
    look = "filled" if filled(e) else f"strokes {e.stroke} pixel{'s' * (e.stroke != 1)} thick"
    if e.patterns == 1:
        return f"{kind.name_of(e.label)}: {w}×{h} pixels, {look} (the same pattern every time, only moved)"
    return f"{kind.name_of(e.label)}, the one shown: {w}×{h} pixels, {look} (one of {e.patterns} different patterns)"


def describe(d: DataConfig, examples: tuple[TrainingExample, ...] | None = None) -> str:
    """What the models were trained on, in a sentence, from the config and its examples (``training_examples``)."""
    examples = training_examples(d) if examples is None else examples
    kind = d.kind
    grey = any(((e.image > 0) & (e.image < 1)).any() for e in examples)
    ink = "grey ink (0 to 1)" if grey else f"white ink (value {max(float(e.image.max()) for e in examples):g})"
    noun = kind.noun if kind.noun in kind.label else f"{kind.noun} ({kind.label})"
    head = f"{d.n_train} image{'s' * (d.n_train != 1)} of {noun} on a {d.img_size}×{d.img_size} canvas, {ink} on black, {_centres(d)}"
    if kind.place is not None:
        head += "; the class is where the shape is, not which shape it is"
    if len(examples) <= 3:
        return f"{head}: " + "; ".join(_one(d, e) for e in examples) + "."
    slot = sum(kind.reach) + 1  # the pixels a pattern may cover across (and down) about its centre
    w, h = max(e.box[0] for e in examples), max(e.box[1] for e in examples)
    strokes = sorted(e.stroke for e in examples)
    lo, hi = min(e.patterns for e in examples), max(e.patterns for e in examples)
    return (f"{head}, each within {slot}×{slot} pixels (the ones shown: ink within {w}×{h} pixels, strokes about "
            f"{strokes[len(strokes) // 2]} pixels thick; {lo if lo == hi else f'{lo} to {hi}'} different training "
            "images of each class).")
