"""A learner's progress and predictions, kept in their own browser and restored on a reload.

What is kept: which exercises were answered right (``ui.exercise_panel.progress``), the answers picked, every
prediction widget's pick, and which settings were predicted or skipped before their result was shown
(``ui.prediction_gate.judged``). Where: the browser's ``localStorage``, written by a small component built on
Streamlit's own component API (``st.components.v2``). Never on the server beyond the session (no file, no cache,
no archive) and never in a link: a shared link opens the teacher's setting, not the learner's answers.

The round trip: at the end of every run the page sends this session's record to the component, which writes it
to ``localStorage`` when it is the one to keep: the browser keeps nothing yet, or this page load wrote it, or the
script has read what was kept. Otherwise (a learner coming back, after a reload) the component hands what the
browser kept to the script: one rerun, only then; a first visit costs none. ``restore`` checks every entry (it is
data a browser sent, so anything malformed is dropped, never raised) and the next run applies it before any
widget is drawn (a widget's value may only be set before the widget exists). A fresh session's record never
overwrites what the browser kept before it has been read.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import MutableMapping

import streamlit as st

from ui.exercise_panel import progress
from ui.prediction_gate import judged

VERSION = 1
STORAGE_KEY = "vitlab.progress"  # the localStorage entry
# exercise answers, prediction widgets and "skipped" flags; never a button's key (``…_check``, ``…_skip``): a
# button's value cannot be set, and setting it raises
WIDGETS = re.compile(r"^(answer_[\w-]+|\w*predict(_[\w-]+)?)(?<!_check)(?<!_skip)$")
MAX_BYTES = 200_000  # a record larger than this (or an entry read back larger) is not kept
MAX_JUDGED = 64  # settings whose prediction is kept, the latest
RECORD, PENDING, READ, SESSION = "_browser_record", "_browser_pending", "_browser_read", "_browser_session"

JS = f"""
export default function(component) {{
  const {{ data, setStateValue }} = component;
  const KEY = {json.dumps(STORAGE_KEY)};
  let kept = "";
  try {{ kept = window.localStorage.getItem(KEY) || ""; }} catch (e) {{ kept = ""; }}
  // this session's record is the one to keep: the script has read what was kept, or this session wrote it (a
  // server restart starts a new session in the same page: its empty record must not overwrite the learner's)
  if (data.read || window.__vitlabOwn === data.session || !kept) {{
    if (typeof data.save === "string") {{
      try {{ window.localStorage.setItem(KEY, data.save); window.__vitlabOwn = data.session; }} catch (e) {{ }}
    }}
  }} else {{  // a learner coming back: what the browser kept, to the script (one rerun, only then)
    setStateValue("saved", kept);
  }}
}}
"""


def _config_type():
    """GeneralizationConfig, imported only where a setting is kept or read back: it imports torch, and every page runs
    this module, the home page too, which a sleeping app's wake shows before torch is imported (docs/performance.md).
    A session holds a setting only once a lesson page has imported it, and a record is read back after the first
    page is drawn."""
    from core.engine.setting.run_config import GeneralizationConfig

    return GeneralizationConfig


def _is_value(v) -> bool:
    """A widget value worth keeping: a pick (text), a list of picks, a flag, or none."""
    return v is None or isinstance(v, (str, bool)) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def record(state: MutableMapping) -> dict:
    """What this session keeps in the browser (JSON-able): the last record, updated with what the session holds
    now. Widgets of a page not shown in this run are gone from the session but stay in the record."""
    old = state.get(RECORD) or {"v": VERSION, "progress": {}, "widgets": {}, "judged": []}
    widgets = dict(old["widgets"])
    widgets.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in state.items()
                    if isinstance(k, str) and WIDGETS.match(k) and _is_value(list(v) if isinstance(v, tuple) else v)})
    kept = {json.dumps(c, sort_keys=True): p for c, p in old["judged"]}
    settings = state.get("judged", {})
    config_type = _config_type() if settings else ()  # no setting judged yet: torch not imported for nothing
    for cfg, pick in settings.items():
        if isinstance(cfg, config_type) and _is_value(list(pick) if isinstance(pick, tuple) else pick):
            kept[json.dumps(cfg.to_json(), sort_keys=True)] = list(pick) if isinstance(pick, tuple) else pick
    judged_list = [[json.loads(c), p] for c, p in list(kept.items())[-MAX_JUDGED:]]
    return {"v": VERSION, "progress": {**old["progress"], **state.get("progress", {})}, "widgets": widgets,
            "judged": judged_list}


def restore(saved: str) -> dict | None:
    """The record in ``saved`` (what the browser sent back), checked entry by entry; None if it is not one."""
    if not isinstance(saved, str) or not saved or len(saved) > MAX_BYTES:
        return None
    try:
        raw = json.loads(saved)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("v") != VERSION:
        return None
    out = {"v": VERSION, "progress": {}, "widgets": {}, "judged": []}
    if isinstance(raw.get("progress"), dict):
        out["progress"] = {k: v for k, v in raw["progress"].items() if isinstance(k, str) and isinstance(v, bool)}
    if isinstance(raw.get("widgets"), dict):
        out["widgets"] = {k: v for k, v in raw["widgets"].items() if isinstance(k, str) and WIDGETS.match(k)
                          and _is_value(v)}
    for entry in raw.get("judged", [])[-MAX_JUDGED:] if isinstance(raw.get("judged"), list) else []:
        try:
            cfg_json, pick = entry
            _config_type().from_json(cfg_json)  # validated as a link's setting is: a bad one is dropped
        except (TypeError, ValueError, KeyError):
            continue
        if _is_value(pick):
            out["judged"].append([cfg_json, pick])
    return out


def apply(state: MutableMapping, saved: dict) -> None:
    """Put a restored record into a new session, before any widget is drawn; a pick the session already holds
    (made since the reload) wins, an empty widget (drawn before the record came back) takes the record's."""
    for k, v in saved["widgets"].items():
        if state.get(k) in (None, [], (), False):
            state[k] = v
    for k, v in saved["progress"].items():
        state.setdefault("progress", {}).setdefault(k, v)
    done = state.setdefault("judged", {})
    for cfg_json, pick in saved["judged"]:
        done.setdefault(_config_type().from_json(cfg_json), tuple(pick) if isinstance(pick, list) else pick)
    state[RECORD] = record(state)


def before_page() -> None:
    """At the top of every run (app.py): apply a record read back in the last run, before the page's widgets."""
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        apply(st.session_state, pending)


_component = None


def after_page() -> None:
    """At the end of every run (app.py): send this session's record to the browser, once what the browser kept
    has been read; on the run that reads it, restore it and run again so every widget shows it."""
    global _component
    if _component is None:
        _component = st.components.v2.component("vitlab_browser_store", js=JS)
    progress(), judged()  # both exist from the first run on
    read = st.session_state.get(READ, False)
    rec = st.session_state[RECORD] = record(st.session_state)
    text = json.dumps(rec, separators=(",", ":"))
    session = st.session_state.setdefault(SESSION, uuid.uuid4().hex)
    result = _component(data={"save": text if len(text) <= MAX_BYTES else None, "read": read, "session": session},
                        key="vitlab_browser_store", on_saved_change=lambda: None)
    saved = getattr(result, "saved", None)
    if not read and saved:
        st.session_state[READ] = True
        restored = restore(saved)
        if restored is not None:
            st.session_state[PENDING] = restored
            st.rerun()
