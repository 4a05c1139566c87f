"""A lesson's declared controls (``core.lessons.controls.Control``) drawn as Streamlit widgets, each under its
key and bound to the URL, so the form, the link and the config all read the one declaration."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.controls import Control
from ui.url_state import linked_slider, named


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
    else:
        raise ValueError(f"control {c.key!r}: unknown widget {c.widget!r}")


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
    if form_cfg is None or form_cfg == cfg:
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
        if c.widget == "multiselect":
            control_widget(c, defaults[c.key])
            continue
        cols = cols or st.columns(columns)
        control_widget(c, defaults[c.key], cols[i % columns])
        i += 1
