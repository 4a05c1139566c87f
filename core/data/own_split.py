"""A split of one's own: the training centres and the test centres as two explicit sets of (cx, cy) on the position
map, not only the notebook's two ranges or the phase split's offsets. ``DataConfig.split`` holds one as its link
text; the training set draws its centres from the training set of centres, the test set from the test set, and
every other centre of the map is neither (the map still shows it).

Three forms, one meaning:

- ``Split``: the two sets, each in row order (cy, then cx: the order the training set draws from); a tuple, as
  ``DataConfig.split`` holds it.
- Text, for a file (the command line's ``--split``): a map of the canvas, one line per row (cy = 0 first), one
  character per column (cx = 0 first): ``T`` a training centre, ``X`` a test centre, ``.`` neither; rows may also be
  split by ``/``. A map may stop before the canvas does (the rest is ``.``). The lesson's split on a 16×16 canvas
  starts::

      ................
      ................
      ................
      ...XX...........
      ...XX...........
      .....TTTTTT.....

- Link text (``s1.…``, ``core/data/link_text.py``): the box around the marked centres (its corner, width and height,
  a byte each), then two bits per cell of the box. At most ``SPLIT_LINK_LIMIT`` characters: any split of a canvas up
  to 29×29 (the lab's is 16×16: at most 99 characters), and with the classes under 2,000 characters in all
  (``own_classes``).

Presets (``SPLIT_PRESETS``) make the lab's splits and a few more from the centres at which a pattern fits: the
notebook's ranges, the phase split, a checkerboard, one quadrant, a ring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from core.data.link_text import LinkReader, packed_bits, sealed, unsealed

Centre = tuple[int, int]  # (cx, cy)
MAX_MAP_SIDE = 64  # the largest canvas a config allows
SPLIT_TAG = "s1"
SPLIT_LINK_LIMIT = 300  # characters (see the module's docstring)
MAX_SPLIT_FILE = 20_000  # characters of a split's file: a 64×64 map with room for line ends and spaces
TRAIN_MARKS, TEST_MARKS, UNUSED_MARKS = "Tt", "Xx", "."


class Split(NamedTuple):
    train: tuple[Centre, ...]
    test: tuple[Centre, ...]


def _row_order(centres: Iterable, what: str) -> tuple[Centre, ...]:
    """Each centre once, in row order; what is not a list of (cx, cy) pairs of whole numbers is refused."""
    if isinstance(centres, str | bytes) or not isinstance(centres, Iterable):
        raise ValueError(f"the {what} centres must be a list of (cx, cy), got {type(centres).__name__}")
    out = set()
    for c in centres:
        if (isinstance(c, str | bytes) or not isinstance(c, tuple | list) or len(c) != 2
                or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in c)):
            raise ValueError(f"a {what} centre is two whole numbers (cx, cy), got {c!r:.40}")
        out.add((int(c[0]), int(c[1])))
    return tuple(sorted(out, key=lambda c: (c[1], c[0])))


def make_split(train: Iterable, test: Iterable) -> Split:
    """A split of the centres ``train`` and ``test`` ((cx, cy) pairs), each set once and in row order; refused in one
    sentence without a training or a test centre, with a centre in both, or off the largest canvas."""
    train, test = _row_order(train, "training"), _row_order(test, "test")
    if not train:
        raise ValueError("this split has no training centre: mark at least one (T)")
    if not test:
        raise ValueError("this split has no test centre: mark at least one (X)")
    both = sorted(set(train) & set(test))
    if both:
        raise ValueError(f"centre {both[0]} is marked both for training and for test: a test centre must be unseen")
    off = [c for c in train + test if not all(0 <= v < MAX_MAP_SIDE for v in c)]
    if off:
        raise ValueError(f"centre {off[0]} is off every canvas: centres are in 0..{MAX_MAP_SIDE - 1}")
    return Split(train, test)


def check_split_fits(split: Split, fits: range, size: int, pattern: str) -> None:
    """Every centre of ``split`` one at which ``pattern`` fits a size × size image (``fits``: those centres, in cx and
    in cy), or a ValueError naming the first that is not."""
    for what, centres in (("training", split.train), ("test", split.test)):
        for cx, cy in centres:
            if cx not in fits or cy not in fits:
                raise ValueError(f"{what} centre ({cx}, {cy}) does not fit a {size}x{size} image: {pattern}, so "
                                 f"centres must be in {fits[0]}..{fits[-1]}")


def bounding_range(centres: tuple[Centre, ...]) -> tuple[int, int]:
    """The smallest inclusive range holding every coordinate (cx and cy) of ``centres``."""
    values = [v for c in centres for v in c]
    return min(values), max(values)


# ---------------------------------------------------------------- the link's text

def encode_split(split: Split) -> str:
    """The split as link text (``s1.…``); one too irregular for a link is refused, saying what fits."""
    split = make_split(*split)
    marked = split.train + split.test
    (x0, y0), (x1, y1) = np.min(marked, axis=0).tolist(), np.max(marked, axis=0).tolist()
    w, h = x1 - x0 + 1, y1 - y0 + 1
    cells = np.zeros((h, w), dtype=np.uint8)  # 0 neither, 1 training, 2 test
    for code, centres in ((1, split.train), (2, split.test)):
        for cx, cy in centres:
            cells[cy - y0, cx - x0] = code
    bits = np.stack([cells >> 1, cells & 1], axis=-1)  # two bits a cell, high first
    text = sealed(SPLIT_TAG, bytes([x0, y0, w - 1, h - 1]) + packed_bits(bits))
    if len(text) > SPLIT_LINK_LIMIT:
        raise ValueError(f"this split takes {len(text):,} characters in a link, more than the {SPLIT_LINK_LIMIT:,} it "
                         f"holds: mark centres within a smaller area (it spans {w}×{h})")
    return text


def decode_split(text: str) -> Split:
    """The split ``encode_split`` wrote; a text cut short, edited by hand or made up is refused in one sentence."""
    if not isinstance(text, str):
        raise ValueError(f"the split's link text must be text, got {type(text).__name__}")
    return _decoded_split(text)


@lru_cache(maxsize=64)
def _decoded_split(text: str) -> Split:
    what = "the split's link text"
    r = LinkReader(unsealed(SPLIT_TAG, text, what, SPLIT_LINK_LIMIT), what)
    x0, y0, w, h = r.byte(), r.byte(), r.byte() + 1, r.byte() + 1
    if x0 + w > MAX_MAP_SIDE or y0 + h > MAX_MAP_SIDE:
        raise r.malformed(f"its box reaches past {MAX_MAP_SIDE} pixels")
    bits = r.bits(2 * w * h).reshape(h, w, 2)
    r.finish()
    cells = 2 * bits[..., 0] + bits[..., 1]
    if (cells == 3).any():
        raise r.malformed("a cell is neither unused, training nor test")
    ys, xs = np.nonzero(cells)
    return make_split([(x0 + x, y0 + y) for x, y in zip(xs, ys, strict=True) if cells[y, x] == 1],
                      [(x0 + x, y0 + y) for x, y in zip(xs, ys, strict=True) if cells[y, x] == 2])


# ---------------------------------------------------------------- the text of a file

def split_to_text(split: Split, size: int) -> str:
    """The split as a map of a size × size canvas (see the module's docstring)."""
    cells = np.full((size, size), UNUSED_MARKS[0])
    for mark, centres in ((TRAIN_MARKS[0], split.train), (TEST_MARKS[0], split.test)):
        for cx, cy in centres:
            cells[cy, cx] = mark
    return "\n".join("".join(row) for row in cells) + "\n"


def split_from_text(text: str) -> Split:
    """The split a map shows (see the module's docstring); a character or a row that does not belong is named."""
    if len(text) > MAX_SPLIT_FILE:
        raise ValueError(f"the file is {len(text):,} characters long: a split's map is at most {MAX_SPLIT_FILE:,}")
    rows = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
    allowed = set(TRAIN_MARKS + TEST_MARKS + UNUSED_MARKS)
    for cy, row in enumerate(rows):
        bad = sorted(set(row) - allowed)
        if bad:
            raise ValueError(f"row {cy} of the map holds {''.join(bad)[:10]!r}: a split's map is T for a training "
                             "centre, X for a test centre and . for neither")
    if len(rows) > MAX_MAP_SIDE or any(len(r) > MAX_MAP_SIDE for r in rows):
        raise ValueError(f"the map is larger than {MAX_MAP_SIDE}×{MAX_MAP_SIDE}, the largest canvas")
    return make_split([(cx, cy) for cy, row in enumerate(rows) for cx, ch in enumerate(row) if ch in TRAIN_MARKS],
                      [(cx, cy) for cy, row in enumerate(rows) for cx, ch in enumerate(row) if ch in TEST_MARKS])


# ---------------------------------------------------------------- presets, from the centres at which a pattern fits

def _grid(fits: range, train: Callable[[int, int], bool], test: Callable[[int, int], bool]) -> Split:
    return make_split([(x, y) for y in fits for x in fits if train(x, y)],
                      [(x, y) for y in fits for x in fits if test(x, y) and not train(x, y)])


def notebook_split(fits: range, train: tuple[int, int] = (5, 10), test: tuple[int, int] = (3, 4)) -> Split:
    """The notebook's: training centres in the square of ``train`` (inclusive, cx and cy), test in ``test``'s."""
    def inside(r: tuple[int, int]) -> Callable[[int, int], bool]:
        return lambda x, y: r[0] <= x <= r[1] and r[0] <= y <= r[1]
    return _grid(fits, inside(train), inside(test))


def phase_split(fits: range, phases: tuple[int, ...] = (0, 1, 2), period: int = 4) -> Split:
    """The phase split: training centres where cx and cy mod ``period`` (a patch's width) are among ``phases``, the
    test at every other centre (``DataConfig(phases=...)``'s, over every centre that fits)."""
    return _grid(fits, lambda x, y: x % period in phases and y % period in phases, lambda x, y: True)


def checkerboard_split(fits: range, block: int = 1) -> Split:
    """A checkerboard of ``block`` × ``block`` squares: training on one colour, test on the other. With single
    cells every test centre is one pixel from four training centres, and at an offset no training centre takes."""
    return _grid(fits, lambda x, y: ((x - fits[0]) // block + (y - fits[0]) // block) % 2 == 0, lambda x, y: True)


def quadrant_split(fits: range) -> Split:
    """Training in the top-left quadrant of the map only, the test everywhere else: a model must carry what it
    learned right, down and both."""
    middle = fits[len(fits) // 2]
    return _grid(fits, lambda x, y: x < middle and y < middle, lambda x, y: True)


def ring_split(fits: range, width: int = 2) -> Split:
    """Training on a ring ``width`` centres wide around the map's edge, the test inside it: every test centre lies
    between training centres, in x and in y."""
    lo, hi = fits[0], fits[-1]
    return _grid(fits, lambda x, y: min(x - lo, hi - x, y - lo, hi - y) < width, lambda x, y: True)


SPLIT_PRESETS: dict[str, Callable[[range], Split]] = {
    "notebook": notebook_split, "phase": phase_split, "checkerboard": checkerboard_split,
    "quadrant": quadrant_split, "ring": ring_split}
