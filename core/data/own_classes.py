"""A learner's own classes: 2 to 4, each named, each either 1 to 8 drawings or every scan of one shipped digit (lesson
5's handwriting, split into training and test scans as there); one task may mix the two ("my arrow vs digit 7").

A drawing is binary ink on at most 16×16 pixels, the canvas of *Draw your own*, and is kept cut to its ink: where it
sat on the canvas says nothing, since the dataset places it at each centre itself (``core/data/own_dataset.py``). So
two drawings that differ only by a move are one drawing, and one setting is one text.

Three forms, one meaning, each checked by ``checked_classes`` (every refusal one sentence naming the class):

- ``OwnClass`` values: what a page builds from its canvas (``drawing_rows``) and what the dataset reads.
- Text, for a file (the command line's ``--drawings``): a line ``[name]`` opens a class; then its drawings, one row
  per line (rows may also be split by ``/``), ``.`` or ``0`` for empty and ``#`` or ``1`` for ink, a blank line
  between two drawings; or, instead of drawings, one line ``digit 3`` (every shipped scan of a 3)::

      [arrow]
      ..#..
      .###.
      #.#.#
      ..#..

      [seven]
      digit 7

- Link text (``c1.…``, ``core/data/link_text.py``): per class its name (UTF-8) and either its digit or its drawings,
  each as its ink box's width and height in one byte and its pixels one bit each. At most ``CLASSES_LINK_LIMIT``
  characters: with the split (``own_split.SPLIT_LINK_LIMIT``) a whole setting stays under 2,000 characters, the
  address length that every browser, server and chat app carries whole. The structural limits keep most sets far
  below it (two classes of four 8×8 drawings: about 130 characters; four classes of six 16×16 drawings: about 1,100);
  only four classes of eight drawings near 16×16 each reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.data import digits, shapes
from core.data.link_text import LinkReader, packed_bits, sealed, unsealed

MIN_CLASSES, MAX_CLASSES = 2, 4
MAX_DRAWINGS = 8  # per class
MAX_SIDE = 16  # a drawing's ink box, in pixels: the canvas of Draw your own
MAX_NAME = 16  # characters of a class's name
CLASSES_TAG = "c1"
CLASSES_LINK_LIMIT = 1_400  # characters of the link text (see the module's docstring)
MAX_CLASSES_FILE = 100_000  # characters of a file of drawings: far above any that fits a link
MAX_ROW = 64  # pixels of a row in a file (the largest canvas), before the drawing is cut to its ink
INK_MARKS, EMPTY_MARKS = "#1", ".0"
DIGIT_INK = 0.5  # a shipped digit's pixel at least this dark is ink, where a digit becomes a drawing


@dataclass(frozen=True)
class OwnClass:
    """One class: ``name`` and either ``drawings`` (each its rows, ``#`` ink and ``.`` empty) or a shipped ``digit``."""

    name: str
    drawings: tuple[tuple[str, ...], ...] = ()
    digit: int | None = None


def drawing_rows(bitmap) -> tuple[str, ...]:
    """A drawing's rows from a 2-D array (a page's canvas): ``#`` where a pixel is at least half inked."""
    a = np.asarray(bitmap, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"a drawing is a 2-D grid of pixels, got shape {tuple(a.shape)}")
    return tuple("".join("#" if v >= 0.5 else "." for v in row) for row in a)


def drawing_bitmap(rows: tuple[str, ...]) -> np.ndarray:
    """(h, w) float32 ink (1.0) on empty (0.0)."""
    return np.array([[ch == "#" for ch in row] for row in rows], dtype=np.float32).reshape(len(rows), -1)


def digit_drawings(digit: int, n: int = MAX_DRAWINGS) -> tuple[tuple[str, ...], ...]:
    """The first ``n`` shipped scans of ``digit`` as drawings (ink where a pixel is at least half dark): a page's
    "start from a digit", which the learner may then change. Cut to their ink, as every drawing is kept."""
    images, labels = digits.load()
    return tuple(_cut_to_ink(drawing_rows(images[i] >= DIGIT_INK), f"scan {i} of digit {digit}")
                 for i in np.flatnonzero(labels == digit)[:n])


def _cut_to_ink(rows: tuple[str, ...], where: str) -> tuple[str, ...]:
    """``rows`` cut to the box around their ink; an empty or oversized drawing refused, named by ``where``."""
    ink = drawing_bitmap(rows) > 0
    ys, xs = np.nonzero(ink)
    if not len(ys):
        raise ValueError(f"{where} is empty: draw something in it or leave it out")
    box = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = box.shape
    if w > MAX_SIDE or h > MAX_SIDE:
        raise ValueError(f"{where} is {w}×{h} pixels of ink, more than the {MAX_SIDE}×{MAX_SIDE} of the canvas: make "
                         "it smaller")
    return drawing_rows(box)


def _checked_rows(rows, where: str) -> tuple[str, ...]:
    if isinstance(rows, str) or not isinstance(rows, tuple | list) or not all(isinstance(r, str) for r in rows):
        raise ValueError(f"{where} must be rows of text, got {type(rows).__name__}")
    if not rows:
        raise ValueError(f"{where} is empty: draw something in it or leave it out")
    if len(rows) > MAX_ROW or any(len(r) > MAX_ROW for r in rows):
        raise ValueError(f"{where} is larger than {MAX_ROW}×{MAX_ROW} pixels: make it smaller")
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"{where} has rows of {sorted({len(r) for r in rows})} pixels: every row of a drawing must be "
                         "as long")
    bad = sorted({ch for r in rows for ch in r} - set("#."))
    if bad:
        raise ValueError(f"{where} holds {''.join(bad)!r}: a drawing is # for ink and . for empty")
    return _cut_to_ink(tuple(rows), where)


def _checked_name(name, index: int) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"class {index + 1} has no name: name every class")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise ValueError(f"class {index + 1}'s name is {len(name)} characters long: at most {MAX_NAME}")
    if not name.isprintable() or "[" in name or "]" in name:
        raise ValueError(f"class {index + 1}'s name holds a character a name cannot have (a control character, [ or "
                         "])")
    return name


def _checked_class(c: OwnClass, index: int) -> OwnClass:
    if not isinstance(c, OwnClass):
        raise ValueError(f"class {index + 1} must be an OwnClass, got {type(c).__name__}")
    name = _checked_name(c.name, index)
    who = f"class {name!r}"
    if c.digit is not None:
        if c.drawings:
            raise ValueError(f"{who} has drawings and a digit: a class is either drawings or every scan of one digit")
        if isinstance(c.digit, bool) or not isinstance(c.digit, int | np.integer) or not 0 <= c.digit <= 9:
            raise ValueError(f"{who}'s digit must be one of 0..9, got {c.digit!r}")
        return OwnClass(name, digit=int(c.digit))
    if isinstance(c.drawings, str) or not isinstance(c.drawings, tuple | list):
        raise ValueError(f"{who}'s drawings must be a list of drawings, got {type(c.drawings).__name__}")
    if not c.drawings:
        raise ValueError(f"{who} has no drawing: give it 1 to {MAX_DRAWINGS} drawings, or a digit")
    if len(c.drawings) > MAX_DRAWINGS:
        raise ValueError(f"{who} has {len(c.drawings)} drawings: at most {MAX_DRAWINGS} per class")
    drawn = tuple(_checked_rows(rows, f"drawing {i + 1} of {who}") for i, rows in enumerate(c.drawings))
    for i, rows in enumerate(drawn):
        if rows in drawn[:i]:
            raise ValueError(f"drawing {i + 1} of {who} is its drawing {drawn.index(rows) + 1} again (once cut to its "
                             "ink): each drawing of a class must differ")
    return OwnClass(name, drawn)


def checked_classes(classes) -> tuple[OwnClass, ...]:
    """``classes`` as the lab keeps them (names stripped, drawings cut to their ink), or a ValueError sentence on the
    first thing wrong: the count, a name, an empty class or drawing, a drawing too large, two classes alike."""
    if isinstance(classes, OwnClass) or not isinstance(classes, tuple | list):
        raise ValueError(f"classes must be a list of classes, got {type(classes).__name__}")
    if not MIN_CLASSES <= len(classes) <= MAX_CLASSES:
        raise ValueError(f"give {MIN_CLASSES} to {MAX_CLASSES} classes, got {len(classes)}")
    out = tuple(_checked_class(c, i) for i, c in enumerate(classes))
    names = [c.name.casefold() for c in out]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ValueError(f"two classes are named {out[i].name!r}: name each class differently")
    for i, a in enumerate(out):  # an image drawn for two classes is one the labels contradict
        for b in out[i + 1:]:
            if a.digit is not None and a.digit == b.digit:
                raise ValueError(f"classes {a.name!r} and {b.name!r} are both digit {a.digit}: these two classes are "
                                 "the same image: nothing to learn")
            shared = next((d for d in a.drawings if d in b.drawings), None)
            if shared is not None:
                raise ValueError(f"drawing {a.drawings.index(shared) + 1} of class {a.name!r} is drawing "
                                 f"{b.drawings.index(shared) + 1} of class {b.name!r}: these two classes are the same "
                                 "image: nothing to learn")
    return out


# ---------------------------------------------------------------- the link's text

def encode_classes(classes) -> str:
    """The classes as link text (``c1.…``), checked; a set too large for a link is refused, saying by how much."""
    classes = checked_classes(classes)
    out = bytearray([len(classes)])
    for c in classes:
        name = c.name.encode()
        out += bytes([len(name)]) + name
        if c.digit is not None:  # 0 drawings: a digit follows
            out += bytes([0, c.digit])
            continue
        out.append(len(c.drawings))
        for rows in c.drawings:
            out.append((len(rows[0]) - 1) << 4 | (len(rows) - 1))  # width and height, 1..16 each, in one byte
            out += packed_bits(drawing_bitmap(rows) > 0)
    text = sealed(CLASSES_TAG, bytes(out))
    if len(text) > CLASSES_LINK_LIMIT:
        raise ValueError(f"these drawings take {len(text):,} characters in a link, more than the "
                         f"{CLASSES_LINK_LIMIT:,} it holds: use fewer or smaller drawings")
    return text


def decode_classes(text: str) -> tuple[OwnClass, ...]:
    """The classes ``encode_classes`` wrote, checked as ``checked_classes`` checks any; a text that was cut short,
    edited by hand or made up is refused in one sentence."""
    if not isinstance(text, str):
        raise ValueError(f"the classes' link text must be text, got {type(text).__name__}")
    return _decoded_classes(text)


@lru_cache(maxsize=64)
def _decoded_classes(text: str) -> tuple[OwnClass, ...]:
    what = "the classes' link text"
    r = LinkReader(unsealed(CLASSES_TAG, text, what, CLASSES_LINK_LIMIT), what)
    classes = []
    for _ in range(r.byte()):
        try:
            name = r.take(r.byte()).decode()
        except UnicodeDecodeError:
            raise r.malformed("a name is not UTF-8") from None
        count = r.byte()
        if count == 0:
            classes.append(OwnClass(name, digit=r.byte()))
            continue
        drawn = []
        for _ in range(count):
            size = r.byte()
            w, h = (size >> 4) + 1, (size & 15) + 1
            bits = r.bits(w * h).reshape(h, w)
            drawn.append(drawing_rows(bits))
        classes.append(OwnClass(name, tuple(drawn)))
    r.finish()
    return checked_classes(classes)


# ---------------------------------------------------------------- the text of a file

def classes_to_text(classes) -> str:
    """The classes in the file form (see the module's docstring)."""
    parts = []
    for c in checked_classes(classes):
        body = f"digit {c.digit}" if c.digit is not None else "\n\n".join("\n".join(rows) for rows in c.drawings)
        parts.append(f"[{c.name}]\n{body}\n")
    return "\n".join(parts)


def classes_from_text(text: str) -> tuple[OwnClass, ...]:
    """The classes of a file (see the module's docstring), checked; a line that is neither names its number."""
    if len(text) > MAX_CLASSES_FILE:
        raise ValueError(f"the file is {len(text):,} characters long: a file of drawings is at most "
                         f"{MAX_CLASSES_FILE:,}")
    classes: list[_Reading] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            classes.append(_Reading(line[1:-1]))
        elif not classes:
            if line:
                raise ValueError(f"line {number}: a file of drawings starts with a class's name in brackets, [name]")
        else:
            classes[-1].read(line, number)
    return checked_classes([OwnClass(c.name, tuple(tuple(d) for d in c.drawings if d), c.digit) for c in classes])


class _Reading:
    """A class of a file, as its lines are read: its drawings so far (the last one open), or its digit."""

    def __init__(self, name: str):
        self.name, self.drawings, self.digit = name, [[]], None

    def read(self, line: str, number: int) -> None:
        either = f"line {number}: a class is either drawings or one line 'digit N' with N in 0..9"
        if not line:
            if self.drawings[-1]:
                self.drawings.append([])  # a blank line ends a drawing
        elif line.split()[0].lower() == "digit":
            words = line.split()[1:]
            if self.digit is not None or any(self.drawings) or len(words) != 1 or words[0] not in tuple("0123456789"):
                raise ValueError(either)
            self.digit = int(words[0])
        else:
            rows = [r.strip() for r in line.split("/") if r.strip()]
            bad = sorted({ch for r in rows for ch in r} - set(INK_MARKS + EMPTY_MARKS))
            if bad:
                raise ValueError(f"line {number}: a drawing is written with . or 0 for empty and # or 1 for ink, "
                                 f"got {''.join(bad)[:10]!r}")
            if self.digit is not None:
                raise ValueError(either)
            self.drawings[-1] += [r.translate(str.maketrans(INK_MARKS + EMPTY_MARKS, "##..")) for r in rows]
            if len(self.drawings[-1]) > MAX_ROW:
                raise ValueError(f"line {number}: a drawing of more than {MAX_ROW} rows: make it smaller")


def _cut(image: np.ndarray) -> tuple[str, ...]:
    return _cut_to_ink(drawing_rows(image), "a default drawing")


# The classes a config of the own dataset holds until the learner draws theirs: the lesson's plus and circle, drawn
# as drawings (so such a config trains on the lesson's very images: tests/data/test_own_dataset.py)
DEFAULT_CLASSES = tuple(OwnClass(name, (_cut(shapes.make_image(name, 8, 8)),)) for name in shapes.SHAPES)
