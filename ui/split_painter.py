"""The split painter of *Your own experiment*: the training and test centres marked on the map of the canvas itself
(click a cell, or drag a box or a lasso over many, with the brush chosen), or filled from a preset (the notebook's
ranges, the phase split, a checkerboard, one quadrant, a ring). Before anything trains the map says what the split
asks of a model (``core/lessons/split_moves.py``): at which test centres the model's sampling grid lines up with the
drawing as at a training centre (whole steps of the grid away), and which sit at an offset no training centre has.

The painted sets are a draft (``own_split_draft``); every change writes them to the form's control ``own_split`` as
their link text, or as ``DRAFT`` + the sentence that refuses them (no test centre, say), as the class editor does.
"""

from __future__ import annotations

import streamlit as st

from core.data.datasets import dataset
from core.data.own_split import SPLIT_PRESETS, decode_split, encode_split, make_split
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.lesson6_own_experiment import DRAFT, preset_split, undrafted
from core.lessons.model_cards import label
from core.lessons.split_moves import move_kinds, split_moves
from core.models.registry import spec
from ui.figures import model_figures
from ui.url_state import named
from ui.widgets import bullets, plot

KEY = "own_split"  # the form's control (its link text)
CLASSES = "own_classes"
BRUSHES = {"train": "training centre", "test": "test centre", "none": "neither (erase)"}
PRESET_NAMES = {"notebook": "the notebook's ranges", "phase": "the phase split", "checkerboard": "a checkerboard",
                "quadrant": "one quadrant", "ring": "a ring"}


def painted() -> tuple[set, set]:
    """The painted (training, test) centres, made again from the form's split when something else set it."""
    text = st.session_state.get(KEY, "")
    if "own_split_draft" not in st.session_state or st.session_state.get("own_split_draft_of") != text:
        try:
            split = decode_split(undrafted(text))
            st.session_state.own_split_draft = (set(split.train), set(split.test))
        except ValueError:  # the form says why; the painter keeps what it had, or starts empty
            st.session_state.setdefault("own_split_draft", (set(), set()))
        st.session_state.own_split_draft_of = text
    return st.session_state.own_split_draft


def _commit(train: set, test: set) -> None:
    try:
        text = encode_split(make_split(train, test))
    except ValueError as exc:
        text = DRAFT + str(exc)
    st.session_state.own_split_draft = (train, test)
    st.session_state[KEY] = st.session_state.own_split_draft_of = text
    st.session_state.own_split_version = st.session_state.get("own_split_version", 0) + 1


def paint(train: set, test: set, cells: list[tuple[int, int, str | None]], brush: str) -> tuple[set, set]:
    """(training, test) centres after ``brush`` (a key of ``BRUSHES``) went over ``cells``, each (cx, cy, its kind
    on the map): a cell is one set's or neither's; a marked centre where the classes do not fit is only erased."""
    if brush not in BRUSHES:
        raise ValueError(f"brush must be one of {list(BRUSHES)}, got {brush!r}")
    train, test = set(train), set(test)
    for cx, cy, kind in cells:
        if kind == "unfit" and brush != "none":
            continue
        train.discard((cx, cy))
        test.discard((cx, cy))
        {"train": train, "test": test}.get(brush, set()).add((cx, cy))
    return train, test


def _painted_over(chart_key: str) -> None:
    """A click or a drag on the map (a callback): every selected centre gets the brush."""
    points = st.session_state[chart_key].selection.points
    if points:
        cells = [(int(p["x"]), int(p["y"]), p.get("customdata")) for p in points]
        _commit(*paint(*painted(), cells, st.session_state.get("own_edit_brush", "train")))


def _preset(name: str) -> None:
    try:
        classes = undrafted(st.session_state.get(CLASSES, ""))
        text = preset_split(name, classes)
    except ValueError:  # classes that are no setting yet: the default's centres
        text = preset_split(name, "")
    split = decode_split(text)
    _commit(set(split.train), set(split.test))


def _drop_unfit(fits: range) -> None:
    train, test = painted()
    _commit({c for c in train if c[0] in fits and c[1] in fits}, {c for c in test if c[0] in fits and c[1] in fits})


def _fits(cfg_base: GeneralizationConfig) -> range:
    """The centres where the form's classes fit (the default's while they are no setting)."""
    own = dataset("own")
    try:  # the classes alone (a DataConfig would also check its default ranges against them)
        return own.with_classes(undrafted(st.session_state.get(CLASSES, cfg_base.data.own_classes))).centres(
            cfg_base.data.img_size)
    except ValueError:
        return own.with_classes("").centres(cfg_base.data.img_size)


def split_painter(base: GeneralizationConfig, cfg: GeneralizationConfig | None) -> None:
    """The painter, above the form. ``cfg``: the form's setting as it stands (None: refused; the map then shows the
    painted sets without what they ask of each model)."""
    st.subheader("2. Your split: where the models train, where they are tested")
    train, test = painted()
    size, fits = base.data.img_size, _fits(base)
    st.caption("Start from a split, then paint over it:")
    for col, name in zip(st.columns(len(SPLIT_PRESETS)), SPLIT_PRESETS, strict=True):  # a row across the page
        col.button(PRESET_NAMES.get(name, name), key=f"own_split_{name}", on_click=_preset, args=(name,),
                   width="stretch")
    c1, c2 = st.columns([3, 2])
    c2.radio("Brush", list(BRUSHES), format_func=BRUSHES.get, key="own_edit_brush", horizontal=True,
             help="What a click, or a box or lasso dragged over the map, marks")
    models = cfg.models if cfg is not None else base.models
    if st.session_state.get("own_moves_for", models[0]) not in models:  # a model since left out of the form
        del st.session_state["own_moves_for"]
    who = named(c2.selectbox, "Colour the test centres for", models, models[0], format_func=label, key="own_moves_for",
                       help="A model samples its input on a grid (a ViT every patch, the CNN every pooled cell): at a test "
                            "centre whole steps of that grid away from a training centre, the grid cuts the drawing as "
                            "it did there; at another offset it cuts it where training never did")
    kinds = {}
    if cfg is not None and who in cfg.models:
        kinds = move_kinds(cfg.data, spec(who).stride(cfg.model, size))
    cells = []
    for cy in range(size):
        for cx in range(size):
            c = (cx, cy)
            inside = cx in fits and cy in fits
            kind = ("unfit" if not inside and (c in train or c in test) else "seen" if c in train
                    else kinds.get(c, "test") if c in test else "neither" if inside else None)
            if kind is not None:
                cells.append((cx, cy, kind))
    version = st.session_state.get("own_split_version", 0)
    chart_key = f"own_split_map_{version}"  # a fresh chart after each change: the next drag is a new selection
    title = (f"{len(train)} training and {len(test)} test centre{'s' * (len(test) != 1)}: click a cell, or pick the box or lasso at the "
             f"map's top right and drag over many (dotted: where your classes fit, centres {fits[0]}..{fits[-1]})")
    plot(model_figures.painted_split_figure(size, tuple(cells), (fits[0], fits[-1]), title), c1, key=chart_key,
         on_select=lambda: _painted_over(chart_key), selection_mode=("points", "box", "lasso"), tools=True)
    shown = {k for *_, k in cells}
    c1.markdown(" · ".join(f":{mark}[■] {name}" for kind, (_, name, mark) in model_figures.SPLIT_CELLS.items()
                           if kind in shown))
    unfit = sum(1 for *_, k in cells if k == "unfit")
    if unfit:
        c2.warning(f"{unfit} marked centre{'s' * (unfit != 1)} lie where your classes do not fit.")
        c2.button("Leave them out", key="own_split_drop", on_click=_drop_unfit, args=(fits,))
    if cfg is not None:
        with c2.expander("What this split asks of each model", expanded=True):
            bullets([m.sentence() for m in split_moves(cfg)])
