"""The class editor of *Your own experiment*: 2 to 4 named classes, each 1 to 8 drawings on the 16×16 canvas of *Draw
your own* (click a pixel to ink it or clear it; start from a plus, a circle or a shipped scan; clear) or every shipped
scan of one digit.

What the editor shows is a draft (session state ``own_draft``: names, digits and 16×16 canvases); every change writes
it to the form's control ``own_classes`` as its link text, or, while it is no setting (an empty class, two classes
alike), as ``DRAFT`` + the sentence that says why, which the form then shows instead of running
(``core/lessons/lesson6_own_experiment.py``). A preset or a link that sets ``own_classes`` to other classes makes the
draft again from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from core.data import shapes
from core.data.own_classes import (
    DEFAULT_CLASSES,
    MAX_CLASSES,
    MAX_DRAWINGS,
    MAX_SIDE,
    MIN_CLASSES,
    OwnClass,
    decode_classes,
    digit_drawings,
    drawing_bitmap,
    drawing_rows,
    encode_classes,
)
from core.lessons.lesson6_own_experiment import DRAFT
from ui.figures import image_figures
from ui.widgets import chart, plot

KEY = "own_classes"  # the form's control (its link text)
SIDE = MAX_SIDE  # the canvas
STARTS = ("plus", "circle", *(f"digit {d}" for d in range(10)))  # what a drawing can start from


@dataclass
class DraftClass:
    name: str
    digit: int | None = None  # every shipped scan of this digit; None: the drawings
    drawings: list[np.ndarray] = field(default_factory=list)  # (SIDE, SIDE) each, ink 1.0


def on_canvas(rows: tuple[str, ...]) -> np.ndarray:
    """A drawing (cut to its ink) in the middle of a blank canvas."""
    ink, canvas = drawing_bitmap(rows), np.zeros((SIDE, SIDE), dtype=np.float32)
    h, w = ink.shape
    y, x = (SIDE - h) // 2, (SIDE - w) // 2
    canvas[y:y + h, x:x + w] = ink
    return canvas


def draft_of(text: str) -> list[DraftClass]:
    classes = decode_classes(text) if text else DEFAULT_CLASSES
    return [DraftClass(c.name, c.digit, [on_canvas(rows) for rows in c.drawings]) for c in classes]


def text_of(draft: list[DraftClass]) -> str:
    """The draft as the form's value: its link text, or DRAFT + why it is no setting yet."""
    try:
        return encode_classes(tuple(OwnClass(c.name, digit=c.digit) if c.digit is not None else
                                    OwnClass(c.name, tuple(drawing_rows(d) for d in c.drawings)) for c in draft))
    except ValueError as exc:
        return DRAFT + str(exc)


def draft() -> list[DraftClass]:
    """The draft, made again from the form's classes when something else set them (a preset, a link)."""
    text = st.session_state.get(KEY, "")
    if "own_draft" not in st.session_state or st.session_state.get("own_draft_of") != text:
        try:
            st.session_state.own_draft = draft_of(text)
        except ValueError:  # a text the form refuses already says why; the editor starts from the default
            st.session_state.own_draft = draft_of("")
        st.session_state.own_draft_of = text
        _restructured()
    return st.session_state.own_draft


def _restructured() -> None:
    """Classes added, removed or made again: the per-class widgets start afresh (their keys name the structure's
    version, so a name typed for a removed class never shows on the class that took its place)."""
    st.session_state.own_structure = st.session_state.get("own_structure", 0) + 1


def _commit() -> None:
    text = text_of(st.session_state.own_draft)
    st.session_state[KEY] = st.session_state.own_draft_of = text
    st.session_state.own_canvas_version = st.session_state.get("own_canvas_version", 0) + 1


def _picked() -> tuple[DraftClass, int]:
    d = st.session_state.own_draft
    c = d[min(st.session_state.get("own_class_at", 0), len(d) - 1)]
    return c, min(st.session_state.get("own_edit_drawing", 0), max(len(c.drawings) - 1, 0))


# ---------------------------------------------------------------- callbacks: each edits the draft, then commits it
def _clicked(chart_key: str) -> None:
    points = st.session_state[chart_key].selection.points
    c, i = _picked()
    if points and c.digit is None and c.drawings:
        x, y = int(points[0]["x"]), int(points[0]["y"])
        c.drawings[i][y, x] = 0.0 if c.drawings[i][y, x] > 0 else 1.0
        _commit()


def _start_from() -> None:
    c, i = _picked()
    start = st.session_state.own_edit_start
    if start.startswith("digit"):
        picture = on_canvas(digit_drawings(int(start.split()[1]), i + 1)[i])  # drawing k starts from scan k
    else:
        picture = (shapes.make_image(start, SIDE // 2, SIDE // 2, SIDE) >= 0.5).astype(np.float32)
    if c.drawings:
        c.drawings[i] = picture
    _commit()


def _clear() -> None:
    c, i = _picked()
    if c.drawings:
        c.drawings[i] = np.zeros((SIDE, SIDE), dtype=np.float32)
    _commit()


def _add_drawing() -> None:
    c, i = _picked()
    c.drawings.append(c.drawings[i].copy() if c.drawings else np.zeros((SIDE, SIDE), dtype=np.float32))
    st.session_state.own_edit_drawing = len(c.drawings) - 1
    _commit()


def _remove_drawing() -> None:
    c, i = _picked()
    del c.drawings[i]
    st.session_state.own_edit_drawing = max(i - 1, 0)
    _commit()


def _add_class() -> None:
    d = st.session_state.own_draft
    names = {c.name for c in d}
    name = next(f"class {k}" for k in range(len(d) + 1, 99) if f"class {k}" not in names)
    d.append(DraftClass(name, drawings=[np.zeros((SIDE, SIDE), dtype=np.float32)]))
    st.session_state.own_class_at, st.session_state.own_edit_drawing = len(d) - 1, 0
    _restructured()
    _commit()


def _remove_class() -> None:
    d = st.session_state.own_draft
    at = min(st.session_state.get("own_class_at", 0), len(d) - 1)
    del d[at]
    st.session_state.own_class_at, st.session_state.own_edit_drawing = max(at - 1, 0), 0
    _restructured()
    _commit()


def _pick_class(key: str) -> None:
    st.session_state.own_class_at = st.session_state[key]


def _renamed(at: int, key: str) -> None:
    st.session_state.own_draft[at].name = st.session_state[key]
    _commit()


def _made_of(at: int, key: str) -> None:
    c = st.session_state.own_draft[at]
    choice = st.session_state[key]
    if choice == "drawings":
        c.digit = None
        c.drawings = c.drawings or [np.zeros((SIDE, SIDE), dtype=np.float32)]
    else:
        c.digit = int(choice.split()[1])
    _commit()


# ---------------------------------------------------------------- the editor
def class_editor() -> None:
    """The editor, above the form: the classes at a glance, then the one being edited."""
    d = draft()
    st.subheader("1. Your classes")
    st.caption(f"{MIN_CLASSES} to {MAX_CLASSES} classes, each 1 to {MAX_DRAWINGS} drawings on the {SIDE}×{SIDE} canvas "
               "or every shipped scan of one digit. A drawing is kept cut to its ink (a link reopens it in the middle "
               "of the canvas): the experiment places it at each centre you mark below.")
    _overview(d)
    names = [c.name or f"class {i + 1}" for i, c in enumerate(d)]
    at = min(st.session_state.get("own_class_at", 0), len(d) - 1)
    # keyed by the names too: a renamed class is a new choice to Streamlit, which drops a radio's value whose label
    # changed; the class being edited is kept by index (own_class_at)
    key = "own_edit_class_" + "|".join(names)
    at = st.radio("Edit class", range(len(d)), index=at, format_func=lambda i: names[i], horizontal=True,
                  key=f"own_edit_class_{'|'.join(names)}", on_change=_pick_class, args=(key,))
    c, version = d[at], st.session_state.get("own_structure", 0)
    left, right = st.columns([3, 2])
    name_key, made_key = f"own_edit_name_{version}_{at}", f"own_edit_made_of_{version}_{at}"
    right.text_input("Its name", c.name, key=f"own_edit_name_{version}_{at}", on_change=_renamed, args=(at, name_key), max_chars=16)
    made_of = ["drawings", *(f"digit {k}" for k in range(10))]
    right.selectbox("Made of", made_of, index=0 if c.digit is None else c.digit + 1, key=f"own_edit_made_of_{version}_{at}",
                    on_change=_made_of, args=(at, made_key),
                    format_func=lambda o: "your drawings" if o == "drawings" else f"every shipped scan of a {o[6:]}",
                    help="A shipped digit is every UCI scan of it (lesson 5's), split into training and test scans "
                         "as there")
    b1, b2 = right.columns(2)
    b1.button("Add a class", key="own_add_class", on_click=_add_class, disabled=len(d) >= MAX_CLASSES,
              width="stretch")
    b2.button("Remove this class", key="own_remove_class", on_click=_remove_class, disabled=len(d) <= MIN_CLASSES,
              width="stretch")
    if c.digit is not None:
        left.caption(f"Class {c.name!r} is every shipped scan of a {c.digit}; a few of them:")
        scans = [on_canvas(rows) for rows in digit_drawings(c.digit, 4)]
        chart(image_figures.image_gallery(scans, [f"scan {k + 1}" for k in range(len(scans))], cols=4, tile_px=90,
                                          title=f"Shipped scans of a {c.digit} (ink where at least half dark)"), left,
              key=f"own_scans_{at}")
        return
    _drawing(left, right, c)


def _drawing(left, right, c: DraftClass) -> None:
    n = len(c.drawings)
    if st.session_state.get("own_edit_drawing", 0) >= n:
        st.session_state.own_edit_drawing = n - 1
    i = right.radio("Drawing", range(n), format_func=lambda k: str(k + 1), horizontal=True, key="own_edit_drawing")
    i = min(i, n - 1)
    version = st.session_state.get("own_canvas_version", 0)
    chart_key = f"own_canvas_{version}"  # a fresh chart after each change: a click is a new selection
    plot(image_figures.drawing_figure(c.drawings[i], f"{c.name}, drawing {i + 1}: click a pixel to ink it or clear "
                                                     "it"), left, key=chart_key, on_select=lambda: _clicked(chart_key))
    d1, d2 = right.columns(2)
    d1.button("Add a drawing", key="own_add_drawing", on_click=_add_drawing, disabled=n >= MAX_DRAWINGS,
              help="A copy of this drawing, to change", width="stretch")
    d2.button("Remove this drawing", key="own_remove_drawing", on_click=_remove_drawing, disabled=n <= 1, width="stretch")
    right.selectbox("Start this drawing from", STARTS, key="own_edit_start",
                    format_func=lambda o: f"the lesson's {o}" if o in ("plus", "circle") else f"a shipped scan of {o}")
    right.button("Start from it", key="own_start_from", on_click=_start_from, width="stretch",
                 help="Replace this drawing with the lesson's plus or circle or a shipped scan of a digit")
    right.button("Clear the canvas", key="own_clear", on_click=_clear, width="stretch")
    ink = int(c.drawings[i].sum())
    right.caption(f"{ink} pixel{'s' * (ink != 1)} of ink.")


def _overview(d: list[DraftClass]) -> None:
    """Every class's drawings (a digit's first scan), one row: what the experiment will draw."""
    images, captions = [], []
    for c in d:
        shown = c.drawings if c.digit is None else [on_canvas(digit_drawings(c.digit, 1)[0])]
        for k, img in enumerate(shown):
            images.append(img)
            captions.append(f"{c.name} {k + 1}" if c.digit is None else f"{c.name}: digit {c.digit}")
    cols = min(len(images), 8)
    chart(image_figures.image_gallery(images, captions, cols=cols, tile_px=80, title="Your classes"),
          key="own_overview")
