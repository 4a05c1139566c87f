"""Choices shown by their label and linked by their name: ``?models=vit&models=cnn``, never the label.

Streamlit's own URL binding (``bind="query-params"``) writes a widget's *formatted* option into the address, so a
link would read ``models=ViT (lesson)`` and renaming a label would turn every saved link back into the defaults,
silently. ``named`` draws the same widget unbound and keeps the address itself: an option's name (``str`` of the
option: a model's registry name, an offset, a scale) goes into the URL, a value equal to the default is left
out, and the value outlives the page's widgets when the learner visits another page, as a bound widget's does.

Links saved before names were used carry the labels of that time: ``link_labels.json`` holds them, frozen, for
each control (a label renamed later still opens its old link). A value that is neither is left at the default,
and the page says so: a link note (``refused``, shown by ``ui.widgets.show_link_notes``), one sentence per value, which
stays while the control holds the value used instead. Widgets Streamlit binds itself (lessons 1 and 2) drop such a
value silently: ``bound_link`` and ``check_bound`` say it for them.

Only a page's open section is drawn: the controls of its closed sections stay in the address all the same
(``keep_closed_sections``, ``section_controls``), so a link copied at any moment holds every setting.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state.session_state_proxy import get_session_state

from core.engine.setting.typed_json import plain

LABELS_FILE = Path(__file__).with_name("link_labels.json")
KEPT = "_linked_"  # + a widget's key: its value, kept when the page's widgets are cleaned up
FIRST_TAB = "_first_tab_"  # + a tabs widget's key: the tab its link opened, its default on every run
LAST_TAB = "_last_tab_"  # + a tabs widget's key: the tab open when it was last drawn
NOTES = "_link_notes_"  # a control's key -> (its page, the sentences, the value used instead): what a link named
HIDDEN = "_section_links_"  # page -> tabs' key -> section -> control's key -> (the link's texts, its value): kept
SHOWN_CHOICES = 8  # a list of choices longer than this is cut in a link note


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
        linked, bad = _from_link(key, options, many, labels or key)
        _restore(key, linked, lambda v: _valid(v, options, many))
        refused(key, [(t, f"is not one of {_choices([name_of(o) for o in options])}") for t in bad],
                st.session_state.get(key, default), default)
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
        linked, bad = _numbers_from_link(key, lo, hi, default)
        _restore(key, linked, lambda v: True)
        refused(key, bad, st.session_state.get(key, default), default, _number_name)
    start = {} if key in st.session_state else {"value": default}
    value = widget(label, lo, hi, key=key, **start, **kwargs)
    st.session_state[KEPT + key] = value
    _to_link(key, list(value) if many else value, list(default) if many else default, many, _number_name)
    return value


def linked_text(key: str, default: str, check: Callable[[str], object], instead: str) -> str:
    """A value the page's own editor sets (no widget draws it): text under ``key`` in session state and in the
    address. The first call of a session reads the link; a text ``check`` refuses (a link cut short, edited by hand)
    is a link note naming why, and ``default`` is used (``instead``: those words for it). Every call keeps the address
    at the value, while ``check`` accepts it (an editor's unfinished state stays out of links: the address keeps the
    last one that was a setting); the default is left out. Returns the value."""
    if key not in st.session_state:
        text, value = st.query_params.get(key), default
        if text is not None:
            try:
                check(text)
                value = text
            except ValueError as exc:
                refused(key, [(text, f"could not be read ({exc})")], default, default, instead=instead)
        st.session_state[key] = value
    value = st.session_state[key]
    try:
        check(value)
    except ValueError:
        return value
    _to_link(key, value, default, False)
    return value


def _number_name(v) -> str:
    """A number as Streamlit's binding writes it: 5.0 as "5"."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _numbers_from_link(key: str, lo, hi, default) -> tuple[object, list[tuple[str, str]]]:
    """The value(s) the address names for a slider: numbers of the default's type within its bounds, two in
    order for a range; None for anything else. With it, what was wrong: (the link's text, why) each."""
    if key not in st.query_params:
        return None, []
    texts = st.query_params.get_all(key)
    values, bad = _numbers(texts, lo, hi, type(default[0] if isinstance(default, (tuple, list)) else default))
    if bad:
        return None, bad
    if isinstance(default, (tuple, list)):
        if len(values) == 2 and values[0] <= values[1]:
            return tuple(values), []
        return None, [(f"&{key}=".join(texts), "is not two numbers, the lower first")]
    return (values[-1], []) if len(values) == 1 else (None, [(f"&{key}=".join(texts), "is more than one number")])


def _numbers(texts: list[str], lo, hi, kind: type) -> tuple[list, list[tuple[str, str]]]:
    """``texts`` as numbers of ``kind`` within [lo, hi], and (text, why) for each that is not one."""
    values, bad = [], []
    for text in texts:
        try:
            v = float(text)
        except ValueError:
            bad.append((text, "is not a number"))
            continue
        if kind is int and not v.is_integer():
            bad.append((text, "is not a whole number"))
        elif not lo <= v <= hi:
            bad.append((text, f"is not between {_number_name(lo)} and {_number_name(hi)}"))
        else:
            values.append(kind(v))
    return values, bad


def _restore(key: str, linked, valid: Callable[[object], bool]) -> None:
    """A widget drawn afresh starts at the value its link names, else at the value it had when its page was
    left (if it is still one of its choices), else at its default."""
    if linked is not None:
        st.session_state[key] = linked
    elif KEPT + key in st.session_state and valid(st.session_state[KEPT + key]):
        st.session_state[key] = st.session_state[KEPT + key]


def _valid(value, options: list, many: bool) -> bool:
    return all(v in options for v in value) if many else value in options


def _from_link(key: str, options: list, many: bool, table: str) -> tuple[object, list[str]]:
    """The value the address names for ``key``: by option name, or by a label an old link carried; None when it
    names none, or one that is not an option now. With it, the link's texts that name no option."""
    if key not in st.query_params:
        return None, []
    by_name = {name_of(o): o for o in options}
    by_label = old_labels().get(table, {})
    picked, bad = [], []
    for text in st.query_params.get_all(key):
        option = by_name.get(text, by_label.get(text))
        if option is None or option not in options:
            bad.append(text)
        else:
            picked.append(option)
    if bad or not picked:
        return None, bad
    return (picked if many else picked[-1]), []


def _to_link(key: str, value, default, many: bool, name: Callable[[object], str] = name_of) -> None:
    in_section(key)
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
    another widget, and would open its first tab again. Tabs drawn afresh (a run left them out: a new setting's
    results wait for its prediction) open where the learner left them."""
    first = FIRST_TAB + key
    if first not in st.session_state:
        text = st.query_params.get(key)
        name = text if text in labels else old_labels().get(key, {}).get(text)
        st.session_state[first] = labels.get(name)
        if key in st.query_params and name not in labels:
            refused(key, [(text, f"is not one of {_choices(list(labels))}")], next(iter(labels.values())),
                    instead="the first section is shown")
    elif key not in st.session_state:  # the tabs drawn afresh, the link read long ago: its note is old
        _forget(key)
        st.session_state[first] = st.session_state.get(LAST_TAB + key, st.session_state[first])
    return st.session_state[first] if st.session_state[first] in labels.values() else None


def tab_to_link(key: str, labels: dict[str, str]) -> None:
    """The open tab's name in the address (the first tab's is left out)."""
    names = {label: name for name, label in labels.items()}
    open_label = st.session_state.get(key)
    if open_label not in names:
        return
    st.session_state[LAST_TAB + key] = open_label
    _to_link(key, names[open_label], next(iter(labels)), False)


# ---------------------------------------------------------------- closed sections: their controls stay in the link
# Only the open section of a page's tabs is drawn (``ui.widgets.sections``). Streamlit drops the parameter of a
# widget it binds to the address at the end of every run that does not draw it (``QueryParams.remove_stale_bindings``,
# from ``SessionState._remove_stale_widgets``), and refuses a page's own write to a parameter while it is bound: the
# moment another section opened, a link lost the first one's settings. So a section's linked controls are remembered
# as the address held them when it was last drawn, and at the start of every run that can leave them out (the page's,
# its tabs' fragment's) each is unbound from its widget (not drawn yet in the run) and written back: a widget drawn in
# the run binds itself again; one not drawn keeps its parameter. Opened, the link starts each widget at its value
# when its section is first drawn (Streamlit's binding and ``named`` read the address then).

_drawing = threading.local()  # ``stack``: the keys linked while a section is drawn, a set per section, innermost last
_NONE = "_no value_"  # a control's value when the session holds none


def in_section(key: str) -> None:
    """``key`` is in the link: kept there while the section being drawn (if any) is closed."""
    stack = getattr(_drawing, "stack", None)
    if stack:
        stack[-1].add(key)


def _drawn_ids() -> object:
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.shared.widget_ids_this_run if ctx is not None else frozenset()


def _bound_drawn() -> dict[str, str]:
    """The parameters Streamlit has bound to widgets drawn so far in this run: key -> the widget's id."""
    keys, drawn = [k for k in st.session_state.keys() if isinstance(k, str)], _drawn_ids()
    with get_session_state().query_params() as qp:
        bindings = {k: qp.get_binding_for_param(k) for k in keys}
    return {k: b.widget_id for k, b in bindings.items() if b is not None and b.widget_id in drawn}


def _unbind(key: str) -> bool:
    """Streamlit's binding of ``key`` to a widget not drawn in this run undone (its parameter is the page's to keep);
    False when a widget drawn in this run holds it."""
    drawn = _drawn_ids()
    with get_session_state().query_params() as qp:
        binding = qp.get_binding_for_param(key)
        if binding is None:
            return True
        if binding.widget_id in drawn:
            return False
        qp.unbind_widget(binding.widget_id)
        return True


def _value(key: str):
    return st.session_state[key] if key in st.session_state else st.session_state.get(KEPT + key, _NONE)


def _this_page() -> dict[str, dict[str, dict[str, tuple[list[str] | None, object]]]]:
    return st.session_state.setdefault(HIDDEN, {}).setdefault(_page(), {})


def keep_closed_sections(tabs: str | None = None) -> None:
    """At the start of a run: the remembered controls of this page's sections (``tabs``: of those tabs only) back in
    the address, unbound from their widgets (see above). A control whose value changed since it was remembered (in
    a fragment inside its section) is remembered again as the address holds it now. Not when the browser's Back or
    Forward opens an address: the run then takes every value from it."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or ctx.is_history_navigation:
        return
    for name, closed in _this_page().items():
        if tabs is not None and name != tabs:
            continue
        for controls in closed.values():
            for key, (texts, value) in list(controls.items()):
                now = _value(key)
                if not _same(now, value):
                    texts = st.query_params.get_all(key) or None
                    controls[key] = (texts, now)
                if texts and _unbind(key) and st.query_params.get_all(key) != texts:
                    st.query_params[key] = texts


@contextmanager
def section_controls(tabs: str, section: str) -> Iterator[None]:
    """Draw the open ``section`` of the tabs ``tabs`` inside: its linked controls (bound by Streamlit, or linked here:
    ``in_section``) are remembered as the address holds them after it, kept there once it is closed
    (``keep_closed_sections``). One drawn last time and not now (shown for one choice of another) leaves the address,
    as Streamlit's binding does."""
    stack = _drawing.__dict__.setdefault("stack", [])
    before = _bound_drawn()
    stack.append(set())
    try:
        yield
        keys = stack[-1] | {k for k, w in _bound_drawn().items() if before.get(k) != w}
    finally:
        stack.pop()
    controls = _this_page().setdefault(tabs, {})
    for key in controls.get(section, {}).keys() - keys:
        if key in st.query_params and _unbind(key):
            del st.query_params[key]
    controls[section] = {k: (st.query_params.get_all(k) or None, _value(k)) for k in keys}
    if stack:  # a section inside another: the outer one keeps them too
        stack[-1].update(keys)


# ---------------------------------------------------------------- link notes: what a link named and the page did not use
def _page() -> str:
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.page_script_hash if ctx is not None else ""


def _same(a, b) -> bool:
    return list(a) == list(b) if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) else a == b


def _choices(names: list[str]) -> str:
    if len(names) <= SHOWN_CHOICES:
        return ", ".join(names)
    return f"its {len(names)} choices ({', '.join(names[:SHOWN_CHOICES - 2])}, …)"


def _forget(key: str) -> None:
    st.session_state.get(NOTES, {}).pop(key, None)


def refused(key: str, bad: list[tuple[str, str]], used, default=None, name: Callable[[object], str] = name_of,
            instead: str | None = None) -> None:
    """Note that the link's value(s) for ``key`` were not used: ``bad`` holds (the link's text, why) for each,
    ``used`` is the value the control took instead (``instead``: those words for it). Replaces the control's
    earlier note; with nothing bad, only forgets it (the control was drawn afresh, its link read again)."""
    _forget(key)
    if not bad:
        return
    if instead is None:
        values = used if isinstance(used, (list, tuple)) else [used]
        shown = ", ".join(name(v) for v in values) or "none"
        instead = f"the default ({shown}) is used" if _same(used, default) else f"{shown} is used"
    sentences = tuple(f"{key}={plain(text, 60)} in the link {why}: {instead}." for text, why in bad)
    st.session_state.setdefault(NOTES, {})[key] = (_page(), sentences, used)


def leave_other_pages() -> None:
    """Drop the link notes of every other page (called first on every page): a note belongs to the visit whose link
    it read, and a control Streamlit binds keeps its value across pages, so a note kept would be said again, of a
    link long gone, when the learner comes back."""
    notes, page = st.session_state.get(NOTES, {}), _page()
    for key in [k for k, (p, _, _) in notes.items() if p != page]:
        del notes[key]


def link_notes() -> list[str]:
    """This page's link notes, a sentence each. A note stays while its control holds the value used instead:
    moved, the control no longer shows what the note is about, and the note is dropped (another page's too)."""
    notes, page, missing = st.session_state.get(NOTES, {}), _page(), object()
    for key in [k for k, (p, _, used) in notes.items() if p != page or not _same(st.session_state.get(k, missing), used)]:
        del notes[key]
    return [s for _, sentences, _ in notes.values() for s in sentences]


def bound_link(key: str) -> list[str] | None:
    """For a widget Streamlit binds to the address itself (``bind="query-params"``), which drops a value it cannot
    use without a word: the link's text(s) for ``key``, read before the widget is drawn (after, it is gone);
    None when the link names nothing or the widget is not drawn afresh. Hand them to ``check_bound`` after."""
    if key in st.session_state:
        return None
    _forget(key)
    return st.query_params.get_all(key) if key in st.query_params else None


def check_bound(key: str, texts: list[str] | None, value, default, *, options: Sequence = (),
                bounds: tuple = (), toggle: bool = False) -> None:
    """Note the link's value (``bound_link``) that the widget drawn under ``key`` did not take, and why: a switch
    takes true or false, a choice one of ``options`` by name, a number one within ``bounds`` of their type.
    Streamlit reads the last of several values, as this does."""
    if not texts:
        return
    text = texts[-1]
    if toggle:
        meant, bad = text.lower() == "true", [] if text.lower() in ("true", "false") else [(text, "is not true or false")]
    elif options:
        by_name = {name_of(o): o for o in options}
        meant = by_name.get(text)
        bad = [] if text in by_name else [(text, f"is not one of {_choices(list(by_name))}")]
    else:
        lo, hi = bounds[:2]
        numbers, bad = _numbers([text], lo, hi, type(lo))
        meant = numbers[0] if numbers else None
    if not bad and not _same(value, meant):  # what Streamlit refused that looked right here
        bad = [(text, "is not a value this control takes")]
    refused(key, bad, value, default, (lambda v: str(v).lower()) if toggle else name_of if options else _number_name)
