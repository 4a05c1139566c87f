"""Choices shown by their label and linked by their name: ``?models=vit&models=cnn``, never the label.

Streamlit's own URL binding (``bind="query-params"``) writes a widget's *formatted* option into the address, so a
link would read ``models=ViT (lesson)`` and renaming a label would turn every saved link back into the defaults,
silently. ``named`` draws the same widget unbound and keeps the address itself: an option's name (``str`` of the
option: a model's registry name, an offset, a scale) goes into the URL, a value equal to the default is left
out, and the value outlives the page's widgets when the learner visits another page, as a bound widget's does.

Links saved before names were used carry the labels of that time: ``link_labels.json`` holds them, frozen, for
each control (a label renamed later still opens its old link). A value that is neither is left at the default.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import streamlit as st

LABELS_FILE = Path(__file__).with_name("link_labels.json")
KEPT = "_linked_"  # + a widget's key: its value, kept when the page's widgets are cleaned up
FIRST_TAB = "_first_tab_"  # + a tabs widget's key: the tab its link opened, its default on every run


@cache
def old_labels() -> dict[str, dict[str, object]]:
    """Per table (a control's key, or "model" for any choice of models): the labels links carried, -> option."""
    return json.loads(LABELS_FILE.read_text())


def name_of(option: object) -> str:
    return str(option)


def named(widget: Callable, label: str, options: Sequence, default, *, key: str, format_func: Callable,
          labels: str | None = None, **kwargs):
    """``widget`` (``st.selectbox``, ``st.radio``, ``st.select_slider`` or ``st.multiselect``, or a column's)
    showing each option as ``format_func(option)``, its value linked by name under ``key``; ``labels``: the
    table of the labels old links carried (default: ``key``'s own). Returns the widget's value."""
    kind = widget.__name__
    options, many = list(options), kind == "multiselect"
    if key not in st.session_state:
        _restore(key, _from_link(key, options, many, labels or key), lambda v: _valid(v, options, many))
    start = {}
    if key not in st.session_state:  # a value given both ways makes Streamlit warn on the page
        start = ({"default": list(default)} if many else {"value": default} if kind == "select_slider"
                 else {"index": options.index(default)})
    value = widget(label, options, key=key, format_func=format_func, **start, **kwargs)
    st.session_state[KEPT + key] = value
    _to_link(key, value, default, many)
    return value


def linked_slider(widget: Callable, label: str, lo, hi, default, *, key: str, **kwargs):
    """``widget`` (``st.slider`` or a column's), one value or a range, linked by its number(s) under ``key`` as
    Streamlit's own binding wrote them (``?n_train=120``, ``?train_range=5&train_range=10``), kept in the address
    as the value last submitted, like every control of a form (``named``)."""
    many = isinstance(default, (tuple, list))
    if key not in st.session_state:
        _restore(key, _numbers_from_link(key, lo, hi, default), lambda v: True)
    start = {} if key in st.session_state else {"value": default}
    value = widget(label, lo, hi, key=key, **start, **kwargs)
    st.session_state[KEPT + key] = value
    _to_link(key, list(value) if many else value, list(default) if many else default, many, _number_name)
    return value


def _number_name(v) -> str:
    """A number as Streamlit's binding writes it: 5.0 as "5"."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _numbers_from_link(key: str, lo, hi, default):
    """The value(s) the address names for a slider: numbers of the default's type within its bounds, two in
    order for a range; None for anything else."""
    if key not in st.query_params:
        return None
    kind = type(default[0] if isinstance(default, (tuple, list)) else default)
    try:
        values = [float(t) for t in st.query_params.get_all(key)]
    except ValueError:
        return None
    if kind is int and not all(v.is_integer() for v in values):
        return None
    values = [kind(v) for v in values]
    if not values or not all(lo <= v <= hi for v in values):
        return None
    if isinstance(default, (tuple, list)):
        return tuple(values) if len(values) == 2 and values[0] <= values[1] else None
    return values[-1] if len(values) == 1 else None


def _restore(key: str, linked, valid: Callable[[object], bool]) -> None:
    """A widget drawn afresh starts at the value its link names, else at the value it had when its page was
    left (if it is still one of its choices), else at its default."""
    if linked is not None:
        st.session_state[key] = linked
    elif KEPT + key in st.session_state and valid(st.session_state[KEPT + key]):
        st.session_state[key] = st.session_state[KEPT + key]


def _valid(value, options: list, many: bool) -> bool:
    return all(v in options for v in value) if many else value in options


def _from_link(key: str, options: list, many: bool, table: str):
    """The value the address names for ``key``: by option name, or by a label an old link carried; None when it
    names none, or one that is not an option now."""
    if key not in st.query_params:
        return None
    by_name = {name_of(o): o for o in options}
    by_label = old_labels().get(table, {})
    picked = []
    for text in st.query_params.get_all(key):
        option = by_name.get(text, by_label.get(text))
        if option is None or option not in options:
            return None
        picked.append(option)
    if not picked:
        return None
    return picked if many else picked[-1]


def _to_link(key: str, value, default, many: bool, name: Callable[[object], str] = name_of) -> None:
    same = list(value) == list(default) if many else value == default
    names = [name(v) for v in value] if many else name(value)
    if same:
        if key in st.query_params:
            del st.query_params[key]
    elif (st.query_params.get_all(key) if many else st.query_params.get(key)) != names:
        st.query_params[key] = names


def tab_from_link(key: str, labels: dict[str, str]) -> str | None:
    """The label of the tab the address names for ``key`` when the page first drew them (by name, or by a label
    an old link carried); None: the first. The same on every later run: a tab widget given another default is
    another widget, and would open its first tab again."""
    first = FIRST_TAB + key
    if first not in st.session_state:
        text = st.query_params.get(key)
        name = text if text in labels else old_labels().get(key, {}).get(text)
        st.session_state[first] = labels.get(name)
    return st.session_state[first] if st.session_state[first] in labels.values() else None


def tab_to_link(key: str, labels: dict[str, str]) -> None:
    """The open tab's name in the address (the first tab's is left out)."""
    names = {label: name for name, label in labels.items()}
    open_label = st.session_state.get(key)
    if open_label not in names:
        return
    _to_link(key, names[open_label], next(iter(labels)), False)
