"""Your own experiment: lesson 3's question asked of the learner's own classes, trained at the centres they paint,
tested at the centres they mark. The flow is the shared experiment page's (``ui.experiment_page``)."""

from __future__ import annotations

import shlex

import streamlit as st

from core.data import own_classes, own_split
from core.engine.results.run_result import RunResult
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.controls import config_from
from core.lessons.lesson6_own_experiment import (
    BASE,
    CONTROLS,
    PREDICTION,
    PRESET_NOTES,
    PRESETS,
    command_words,
    notes,
)
from ui.exercise_panel import exercise_panel
from ui.experiment_page import Experiment, Shown, presets, run_experiment
from ui.form_controls import control_widget
from ui.glossary import term
from ui.lesson_list import page_of
from ui.look_inside import load_models_ahead
from ui.own_classes_editor import class_editor
from ui.prediction_gate import one_of
from ui.result_sections import (
    downloads,
    model_sections,
    results_header,
)
from ui.server_runs import run_id
from ui.split_painter import split_painter
from ui.widgets import background, bullets, page_header, sections, share_link, show_source

PAGE = page_of(__file__)

EXPERIMENT = Experiment(
    base=BASE, controls=CONTROLS, prefix="own_", ask=one_of(PREDICTION.names), columns=3,
    question=f"At your test centres ({term('seen and unseen positions', 'unseen positions')}), the lesson's ViT will "
             "score…",
    presets=PRESETS, preset_notes=PRESET_NOTES, presets_title="Start from a whole setting",
    presets_caption="A preset fills the classes, the split and the form; press **Run** to train it.",
    picture_caption="Your classes as the models see them, at one of your training centres and at one of your test "
                    "centres.")

BACKGROUND = (
    "Lesson 3 asks whether a model trained on shapes at some positions still tells them apart at positions it never "
    "saw. Here the classes are yours: draw them (or pick shipped digits), paint where the models train and where "
    f"they are tested, and every model of the lab answers. Each {term('seed', 'seed')}'s score is shown, then their "
    f"mean with a 95 % {term('interval')} judged against {term('chance')}. A setting is one link: the classes and the "
    "split travel in the address, and the same setting trains the same numbers on any server and on the command line."
)


def intro() -> None:
    page_header(PAGE, "Your classes, trained where you choose, tested everywhere else you mark: which model carries "
                "them to places it never saw? Draw, paint, predict, then see.")


def form_setting() -> GeneralizationConfig | None:
    """The form's setting as it stands (the painter colours the map by it), None where it is refused (the form says
    why)."""
    try:
        return config_from(EXPERIMENT.base, CONTROLS, {k: st.session_state.get(k, d)
                                                        for k, d in EXPERIMENT.defaults.items()})
    except ValueError:
        return None


def above_form() -> None:
    presets(EXPERIMENT)
    for c in CONTROLS[:2]:  # the link's classes and split, read before the editor and the painter draw them
        control_widget(c, EXPERIMENT.defaults[c.key])
    class_editor()
    split_painter(BASE, form_setting())
    st.subheader("3. The models and their training")


@st.cache_data(max_entries=16, show_spinner=False)
def cached_notes(cfg: GeneralizationConfig, identity: tuple, _result: RunResult) -> list[str]:
    """``notes`` once per run (the run is not hashed, its identity is)."""
    return notes(_result)


def show_results(shown: Shown) -> None:
    cfg, result = shown.cfg, shown.result
    results_header(cfg, result, shown.prediction, PREDICTION)
    sections("own_view", model_sections(cfg, result, "own_", first="maps"))  # what the learner came to see
    st.subheader("What to notice")
    bullets(cached_notes(cfg, run_id(result), result))
    load_models_ahead(result)


def command_line(cfg: GeneralizationConfig | None) -> None:
    """The form's setting as the command that trains it (the same numbers: one config, one key)."""
    if cfg is None:
        return
    with st.expander("This setting on the command line"):
        st.code(shlex.join(command_words(cfg)), language="bash", wrap_lines=True)
        st.caption("The texts after --drawings and --split are your classes and split (a file of drawings or of a "
                   "split's map works too: `python -m core generalization --help`).")


def main() -> None:
    intro()
    shown = run_experiment(EXPERIMENT, show_results, above_form)
    command_line(shown.form_cfg)
    background(BACKGROUND)
    exercise_panel(PAGE, (lambda: shown.result if shown.revealed else None,))
    link = share_link()
    if shown.result is not None and shown.revealed:
        downloads(shown.result, link)
    show_source(own_classes.encode_classes, own_split.encode_split)


main()
