"""An experiment page's flow, written once: lessons 3, 4 and 5 each declare an ``Experiment`` and call
``run_experiment`` with the sections only they have.

The flow, top to bottom: what the link named that the page could not use, a sentence each
(``ui.url_state``'s link notes); the experiment as a picture beside the prediction; the results right below them, once
predicted; what the page puts above its form (presets, cards); the form of the lesson's declared controls
(``core.lessons.controls``) with Run; the setting built and validated once, its cost checked only where it would
train (a stored or shipped result costs nothing); the training workers warmed while the learner reads; the
result stored or trained (``ui.training.stored_or_trained``: a Run or a link trains a setting not run yet); the
prediction gate (``ui.prediction_gate``); and the results, with a word when they are not the form's setting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st

from core.engine.results.run_result import RunResult
from core.engine.running.run import warm
from core.engine.setting.planning import check_cost
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.controls import Control, config_from
from ui.downloads import notebook_ipynb
from ui.form_controls import changed_since, control_grid, load_preset, preset_buttons
from ui.page_rerun import whole_page
from ui.prediction_gate import judged, predict_first, ready_to_show
from ui.result_sections import the_split
from ui.server_runs import result_store
from ui.training import WARM_DELAY, live_curve_toggle, stored_or_trained
from ui.widgets import show_link_notes

Lookup = Callable[[Callable[[GeneralizationConfig], RunResult | None], GeneralizationConfig], RunResult | None]


@dataclass(frozen=True, eq=False)
class Experiment:
    """What an experiment page declares; ``run_experiment`` does the rest."""

    base: GeneralizationConfig  # the form's defaults (a link names only what differs from it)
    controls: tuple[Control, ...]  # the form, declared in the lesson's module
    question: str  # markdown: what the learner predicts
    ask: Callable[[str], object]  # the prediction's widget under its key (``ui.prediction_gate.one_of``, ``some_of``)
    prefix: str = ""  # the page's own session and widget keys start with it
    lookup: Lookup | None = None  # how a setting's stored result is found (default: the store's own)
    columns: int = 3  # the form's columns
    describe: Callable[[object], str] = str  # a prediction in words
    presets: dict[str, GeneralizationConfig] = field(default_factory=dict)
    preset_notes: dict[str, str] = field(default_factory=dict)
    presets_title: str = "Presets"
    presets_caption: str = ""
    picture_caption: str = ""  # under the picture of the split

    @property
    def prediction_key(self) -> str:
        """The prediction widget's key: a learner's own answer, never in a link."""
        return f"{self.prefix}predict"

    @property
    def defaults(self) -> dict:
        return {c.key: c.value(self.base) for c in self.controls}


@dataclass
class Shown:
    """What ``run_experiment`` found: the setting shown and its result (None: not run yet), the form's setting
    (None: the form's values are refused), whether the result may be shown, and the store."""

    cfg: GeneralizationConfig
    result: RunResult | None
    form_cfg: GeneralizationConfig | None
    revealed: bool
    store: object

    @property
    def prediction(self):
        """The prediction made before the result shown (None: skipped)."""
        return judged().get(self.cfg)


def run_experiment(exp: Experiment, show: Callable[[Shown], None], above_form: Callable[[], None] | None = None) -> Shown:
    """The page's experiment, from the picture to the results (``show`` draws them once they may be shown);
    ``above_form``: what the page puts between the results and the form (its presets are drawn by default)."""
    store = result_store()
    lookup = (lambda c: exp.lookup(store.get, c)) if exp.lookup else store.get
    link_box = st.empty()  # what the link named that the page could not use: filled last, once all have read it
    picture, prediction_box = st.columns([3, 2])  # the first screen: the experiment as a picture, the prediction
    results_area = st.container()  # the results, once predicted, right below the prediction: where the learner looks
    (above_form or (lambda: presets(exp)))()
    with st.form(f"{exp.prefix}experiment"):
        control_grid(exp.controls, exp.defaults, columns=exp.columns)
        submitted = st.form_submit_button("Run", type="primary")
    curve = live_curve_toggle()
    form_cfg, submitted = _form_setting(exp, lookup, submitted)
    with picture:
        the_split(form_cfg or exp.base)
        if exp.picture_caption:
            st.caption(exp.picture_caption)
    if form_cfg is not None and not submitted and lookup(form_cfg) is None:
        # the training workers start while the visitor reads (each imports torch): Run then starts at once; a few
        # seconds late, so they do not slow the page's first draw
        warm(form_cfg, delay=WARM_DELAY)
    cfg, result = stored_or_trained(store, form_cfg, submitted, _pick(exp), curve, exp.base,
                                    [c.key for c in exp.controls], lookup=lookup, prefix=exp.prefix)
    with prediction_box:
        revealed = predict_first(cfg, result, exp.question, exp.ask, exp.prediction_key, exp.describe)
    shown = Shown(cfg, result, form_cfg, revealed, store)
    with results_area:
        if ready_to_show(result, revealed):
            changed_since(exp.controls, form_cfg, cfg)
            show(shown)
            st.download_button("Download as notebook (retrains this run)", lambda: notebook_ipynb(cfg),
                               "vitlab_run.ipynb", "application/x-ipynb+json",
                               help="This setting as a Jupyter notebook (torch, numpy, matplotlib): the lab's own data, "
                                    "models and training loop. In Jupyter or Colab it retrains every model and prints "
                                    "these accuracies (another processor or torch may round some differently).")
    show_link_notes(link_box)
    return shown


def _form_setting(exp: Experiment, lookup, submitted: bool) -> tuple[GeneralizationConfig | None, bool]:
    """The form's values as one validated setting, its cost checked where it would train; (None, False) with
    the reason on the page where it is refused."""
    try:
        cfg = config_from(exp.base, exp.controls, {k: st.session_state.get(k, d) for k, d in exp.defaults.items()})
        if lookup(cfg) is None:
            check_cost(cfg)  # only a run that would train must fit the server's limits; a stored one is free
    except ValueError as exc:
        st.error(f"Cannot run this setting: {exc}")
        return None, False
    return cfg, submitted


def _pick(exp: Experiment):
    """The prediction as it stands before this run's widgets are drawn (a multiselect's list as a tuple)."""
    value = st.session_state.get(exp.prediction_key)
    return (tuple(value) or None) if isinstance(value, list) else value


def presets(exp: Experiment) -> None:
    """The lesson's presets, a button each: it fills the form, and the run waits for Run."""
    if not exp.presets:
        return
    st.subheader(exp.presets_title)
    if exp.presets_caption:
        st.caption(exp.presets_caption)
    preset_buttons(exp.presets, exp.preset_notes, exp.controls, exp.prefix)


def preset_exercise(exp: Experiment) -> Callable[[object], None]:
    """An exercise's button that fills the form with its preset (for ``ui.exercise_panel``)."""
    def do(ex) -> None:
        st.button(f"Fill the form with {ex.preset}", key=f"{exp.prefix}do_{ex.key}", on_click=whole_page(load_preset),
                  args=(exp.controls, exp.presets[ex.preset]),
                  help=f"{exp.preset_notes[ex.preset]} Then press Run in the form above.")

    return do
