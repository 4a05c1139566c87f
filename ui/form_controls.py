"""A lesson's declared controls (``core.lessons.controls.Control``) drawn as Streamlit widgets, each under its
key and bound to the URL, so the form, the link and the config all read the one declaration: a form's (lessons
3-5) linked by name through ``ui.url_state``, a live page's (lessons 1 and 2, no form, no labels) by Streamlit's
own binding."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.controls import Control
from ui.url_state import bound_link, check_bound, linked_slider, linked_text, named
from ui.widgets import URL


def control_widget(c: Control, default, where=st) -> None:
    """One control, its value starting at ``default`` (the lesson's), linked in the address by its options'
    names (``ui.url_state``): the address holds the setting last submitted."""
    if c.widget == "slider":
        lo, hi, *step = c.bounds
        linked_slider(where.slider, c.label, lo, hi, default, step=step[0] if step else None, key=c.key, help=c.help,
                      **c.extra)
    elif c.widget in ("select_slider", "selectbox", "radio", "multiselect"):
        wrap = {"wrap": True} if c.widget == "multiselect" else {}  # every chosen chip shown, not one scrolling row
        named(getattr(where, c.widget), c.label, list(c.options), default, key=c.key, format_func=c.format or str,
              help=c.help, **wrap, **c.extra)
    elif c.widget == "text":  # set by the page's own editor, not drawn in the form: only linked here
        linked_text(c.key, default, c.config_value, instead="the form's default is used")
    else:
        raise ValueError(f"control {c.key!r}: unknown widget {c.widget!r}")


def live_control(c: Control, base, values: dict, where=st, **kwargs):
    """One control of a page without a form, its value starting at ``base``'s and bound to the address. A
    control whose choices depend on another's is drawn under a key holding that value (``values`` holds the
    controls drawn before it, by key): a slider over consecutive choices, plain text where there is only one (a
    slider that cannot move only confuses). Sets and returns ``values[c.key]``. A link's value the widget
    cannot take, which Streamlit drops without a word, is said in a link note (``ui.url_state.check_bound``)."""
    key, options, default = c.widget_key(values), c.options_for(values), c.value(base)
    if c.choices and default not in options:
        default = options[(len(options) - 1) // 2]
    common = {"key": key, "help": c.help, "bind": URL, **c.extra, **kwargs}
    linked = bound_link(key) if len(options) != 1 else None  # read before the widget: after, Streamlit has dropped it
    if c.widget == "toggle":
        value = where.toggle(c.label, value=bool(default), **common)
    elif c.widget in ("slider", "number_input"):
        lo, hi, *step = c.bounds
        value = getattr(where, c.widget)(c.label, lo, hi, default, *step, **common)
    elif len(options) == 1:
        where.markdown(f"{c.label}: **{options[0]}** (the only choice here)")
        value = options[0]
    elif c.choices and options == tuple(range(options[0], options[-1] + 1)):
        value = where.slider(c.label, options[0], options[-1], default, **common)
    elif c.widget == "select_slider":
        value = where.select_slider(c.label, options, value=default, **common)
    else:  # a selectbox or radio
        value = getattr(where, c.widget)(c.label, options, index=options.index(default), **common)
    check_bound(key, linked, value, default, options=options, bounds=c.bounds, toggle=c.widget == "toggle")
    values[c.key] = value
    return value


def load_preset(controls: Sequence[Control], cfg: GeneralizationConfig) -> None:
    """Fill the form with ``cfg`` (a button's callback: it runs before the page, so the widgets show it)."""
    for c in controls:
        st.session_state[c.key] = c.value(cfg)


PRESETS_PER_ROW = 4


def preset_buttons(presets: dict[str, GeneralizationConfig], notes: dict[str, str], controls: Sequence[Control],
                   prefix: str = "") -> None:
    """One button per preset, at most PRESETS_PER_ROW to a row (more cut their names at 1400 px): each fills the
    form (the run waits for Run)."""
    columns = [col for start in range(0, len(presets), PRESETS_PER_ROW) for col in st.columns(PRESETS_PER_ROW)]
    for col, name in zip(columns, presets, strict=False):
        col.button(name, key=f"{prefix}preset_{name}", help=notes[name], on_click=load_preset,
                   args=(controls, presets[name]), width="stretch")


def changed_since(controls: Sequence[Control], form_cfg: GeneralizationConfig | None,
                  cfg: GeneralizationConfig) -> None:
    """Say so when the results on screen are not the form's setting (a preset or a control changed since)."""
    if form_cfg is None:
        st.warning("⏸ **These results are for the setting last run**, not the form's: the form's setting cannot run "
                   "(why is said under its Run button).")
        return
    if form_cfg == cfg:
        return
    changed = [c.label for c in controls if c.value(form_cfg) != c.value(cfg)]
    st.warning("⏸ **These results are for the setting last run**, not the form's: "
               f"{', '.join(changed) or 'the form'} changed since. Press **Run** to see the form's setting.")


def control_grid(controls: Sequence[Control], defaults: dict, columns: int = 3) -> None:
    """Every control in order: a list of choices across the form, the others in ``columns`` columns, filled
    row by row."""
    cols = None
    i = 0
    for c in controls:
        if c.widget in ("multiselect", "text"):  # across the form; a text is not drawn
            control_widget(c, defaults[c.key])
            continue
        cols = cols or st.columns(columns)
        control_widget(c, defaults[c.key], cols[i % columns])
        i += 1
