"""Predict first: the gate every experiment page puts before its results (``predict_first``), and before a
section's own result (``predict_before``); what a lesson's prediction is and how it is judged is
``core.lessons.prediction``. A result is shown only for a setting
whose prediction was made (or explicitly skipped) before it was run or revealed, and the prediction is judged
against that result (ui.result_sections)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:  # names only: every run imports this module (app.py's browser store), and these import torch
    from core.engine.results.run_result import RunResult
    from core.engine.setting.run_config import GeneralizationConfig


def judged() -> dict:
    """config -> the prediction made before its result was run or revealed (None: the learner skipped). A
    result is shown only for a config in here: nothing answers a prediction before it is made."""
    return st.session_state.setdefault("judged", {})


def judge(cfg: GeneralizationConfig, prediction: str | None) -> None:
    """A run of ``cfg`` is judged against the prediction made before it. Without one it stays to be made
    (or skipped) after the run: a run never reveals a result by itself."""
    if prediction is not None:
        judged()[cfg] = prediction
    else:
        judged().pop(cfg, None)


def revealed_only(lookup: Callable[[GeneralizationConfig], RunResult | None]):
    """``lookup`` limited to the settings whose prediction was made or skipped: what an exercise's check may read
    (its explanation quotes the run's numbers, so it must not answer a prediction before it is made)."""
    return lambda cfg: lookup(cfg) if cfg in judged() else None


def one_of(options: Sequence[str]) -> Callable[[str], str | None]:
    """A prediction that is one of ``options`` (a radio, nothing picked at first)."""
    return lambda prediction_key: st.radio("Your prediction", list(options), index=None, key=prediction_key,
                                           label_visibility="collapsed")


def some_of(options: Sequence[str], label: str, format_func: Callable[[str], str] = str) -> Callable[[str], tuple | None]:
    """A prediction that is a set of ``options`` (a multiselect; none picked is no prediction yet)."""
    def ask(prediction_key: str) -> tuple | None:
        return tuple(st.multiselect(label, list(options), format_func=format_func, key=prediction_key,
                                    wrap=True)) or None
    return ask


def predict_first(cfg: GeneralizationConfig, result: RunResult | None, question: str, ask: Callable[[str], object],
                  prediction_key: str, describe: Callable[[object], str] = str) -> bool:
    """The learner's prediction before any result (in the Run and *Re-run live* too): whether the result of
    ``cfg`` may be shown, i.e. a prediction for it was made or explicitly skipped. ``question``: what to predict
    (markdown); ``ask(key)``: draws the widget and returns the pick or None (``one_of``, ``some_of``);
    ``prediction_key``: the widget's key (its buttons' keys follow it): a learner's own answer, never in a link;
    ``describe``: a pick in words."""
    st.markdown(f"**Predict first.** {question}")
    choice = ask(prediction_key)
    done = judged()
    if cfg in done:
        said = "skipped" if done[cfg] is None else describe(done[cfg])
        st.caption(f"Your prediction for the setting shown: **{said}**. A new pick is judged at your next Run.")
        return True
    if result is None:
        st.caption("Then press **Run** below: your pick is judged against the run.")
        return False
    # one above the other, each as wide as the box: side by side, a narrow column cuts their labels
    if st.button("Check it against the result", key=f"{prediction_key}_check", type="primary", disabled=choice is None,
                 width="stretch"):
        done[cfg] = choice
        st.rerun()
    if st.button("Show the result without predicting", key=f"{prediction_key}_skip", width="stretch"):
        done[cfg] = None
        st.rerun()
    return False


def predict_before(name: str, question: str, options: tuple[str, ...], skip: str) -> bool:
    """The gate before a section's own result that no setting of the form decides (lesson 3's *What broke the
    ViT?*: a shipped sweep, a test of the run on screen): True once a prediction is made or skipped (``skip``: the
    button's label). The learner's own answer, under ``predict_<name>``: never in the link."""
    key = f"predict_{name}"
    choice = st.radio(question, options, index=None, key=f"predict_{name}")
    if choice is not None or st.session_state.get(f"{key}_skipped"):
        return True
    if st.button(skip, key=f"{key}_skip"):
        st.session_state[f"{key}_skipped"] = True
        st.rerun()
    return False


def ready_to_show(result: RunResult | None, revealed: bool) -> bool:
    """Whether a result may be shown now; if not, say why (not run yet, or waiting for the prediction)."""
    if result is None:
        st.info("This setting has not been run yet (or its run was interrupted). Press **Run** to train it.")
    elif not revealed:
        st.info("The results are ready: make your prediction above (or skip it) to see them.")
    return result is not None and revealed
