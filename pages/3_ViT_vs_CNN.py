"""Lesson 3: train a ViT and a CNN at some positions, test at unseen ones, and re-run the lesson's exercises."""

from __future__ import annotations

import streamlit as st

from core.data.shapes import make_dataset
from core.engine.planning import check_cost
from core.engine.run import warm
from core.engine.run_config import GeneralizationConfig
from core.engine.run_result import RunResult
from core.engine.train import train
from core.engine.verdict import PREDICTIONS
from core.lessons.controls import config_from
from core.lessons.lesson3_vit_vs_cnn import CONTROLS, PRESET_NOTES, PRESETS, SWEEPS, notes
from core.models.cnn import CNNClassifier
from core.models.postnorm_vit import PostNormViT
from ui.downloads import rows_csv
from ui.draw_your_own import draw_your_own
from ui.exercise_panel import exercise_panel
from ui.figures import model_figures
from ui.form_controls import changed_since, control_grid, load_preset, preset_buttons
from ui.glossary import term
from ui.lesson_list import page_of
from ui.look_inside import load_models_ahead, look_inside
from ui.prediction import judged, one_of, predict_first, ready_to_show
from ui.result_sections import (
    accuracy_and_curves,
    downloads,
    generalization_maps,
    misclassified,
    per_seed_table,
    results_header,
    the_split,
)
from ui.server_runs import result_store
from ui.training import (
    WARM_DELAY,
    live_curve_toggle,
    stored_or_trained,
    sweep_live,
)
from ui.what_broke_section import what_broke
from ui.widgets import URL, background, bullets, chart, page_header, sections, share_link, show_source

PAGE = page_of(__file__)

LESSON = PRESETS["lesson"]
# The form's controls are declared once, in core (lesson3_vit_vs_cnn.CONTROLS): widget, URL key, config
# field and command-line flag. Each control's default is the lesson's value, so a link names only what differs.
DEFAULT = {c.key: c.value(LESSON) for c in CONTROLS}


def config_from_form() -> GeneralizationConfig:
    """The form's values as a config: validated and canonical (raises ValueError with the reason)."""
    return config_from(LESSON, CONTROLS, {key: st.session_state.get(key, d) for key, d in DEFAULT.items()})


# ---------------------------------------------------------------- sections
def intro() -> None:
    page_header(PAGE, "Trained on shapes at some positions, tested at positions it never saw: which "
                "model still tells a plus from a circle there? Predict, then see.")


BACKGROUND = (
    f"A classic test of translation: both models learn **plus vs circle** from images whose shape sits at "
    f"centres in the *training* range, and are tested at centres they never saw ({term('seen and unseen positions')}). "
    f"A {term('CNN')} applies the same filters at every position and keeps each filter's strongest response "
    f"anywhere (global max pooling): an {term('inductive bias')} towards answering alike wherever a shape is. A ViT "
    "maps every patch with one linear map shared by all patches (lesson 1); what ties a token to a place is the "
    "position table added to it (lesson 2). The notebook concludes the ViT fails because it lacks the CNN's "
    "invariance; *What broke the ViT?* tests that. Each setting trains several "
    f"{term('seed', 'seeds')}; a result is their mean with a 95 % {term('interval')} that counts the distinct test "
    f"images, judged against {term('chance')}. The exercises test what changes the outcome."
)



def predict(cfg: GeneralizationConfig, result: RunResult | None) -> bool:
    """The learner's prediction before any result: whether the result of ``cfg`` may be shown."""
    return predict_first(cfg, result, f"At the {term('seen and unseen positions', 'unseen positions')}, the ViT will "
                         "score…", one_of(PREDICTIONS), "predict")


def presets() -> None:
    st.subheader("Presets: the lesson and its exercises")
    st.caption("A preset fills the form; press **Run** to see its result (instantly for the lesson and its "
               "exercises, which ship precomputed).")
    preset_buttons(PRESETS, PRESET_NOTES, CONTROLS)


def exercises(store) -> None:
    def do(ex) -> None:
        st.button(f"Fill the form with {ex.preset}", key=f"do_{ex.key}", on_click=load_preset,
                  args=(CONTROLS, PRESETS[ex.preset]), help=f"{PRESET_NOTES[ex.preset]} Then press Run in the form above.")

    exercise_panel(PAGE, (store.get,), do)


def form() -> bool:
    """The experiment's controls; whether Run was pressed."""
    with st.form("experiment"):
        control_grid(CONTROLS, DEFAULT)
        return st.form_submit_button("Run", type="primary")


def what_to_notice(result: RunResult) -> None:
    st.subheader("What to notice")
    bullets(notes(result))  # written from the run's numbers (core: lesson3_vit_vs_cnn.notes)


def sweeps(form_cfg: GeneralizationConfig | None) -> None:
    st.subheader("Sweeps: one setting, several runs")
    st.caption("Re-runs the form's setting at several values of one setting (uses the models and seeds above).")
    c1, c2 = st.columns([2, 1])
    which = c1.selectbox("Sweep", list(SWEEPS), key="sweep_name", bind=URL,
                         format_func=lambda k: f"test accuracy vs {SWEEPS[k].axis_title}: "
                                               + ", ".join(map(str, SWEEPS[k].values)))
    if c2.button("Run sweep", key="sweep_run", disabled=form_cfg is None):
        rows = sweep_live(form_cfg, SWEEPS[which], "Cannot run this sweep: {reason}")
        if rows is not None:
            st.session_state.sweep_rows = (which, rows)
    if "sweep_rows" in st.session_state:
        name, rows = st.session_state.sweep_rows
        ok = [r for r in rows if r["test_acc"] is not None]
        chart(model_figures.sweep_figure(ok, SWEEPS[name].axis_title, SWEEPS[name].log_x))
        st.download_button("Sweep results (CSV)", lambda: rows_csv(rows), "vit_vs_cnn_sweep.csv", "text/csv")


def show_results(cfg: GeneralizationConfig, result: RunResult, form_cfg: GeneralizationConfig | None, store) -> None:
    changed_since(CONTROLS, form_cfg, cfg)
    results_header(cfg, result, judged()[cfg])
    # The first section holds no chart: a page's first Plotly chart makes the browser load and evaluate Plotly's
    # module, the larger part of this page's first draw (docs/performance.md). The
    # verdict is in the numbers above and the table; the charts are one click away.
    sections("results_view", {
        "Per-seed results": lambda: per_seed_table(cfg, result),
        "Accuracy and curves": lambda: accuracy_and_curves(result),
        "Generalization map": lambda: generalization_maps(cfg, result),
        "Misclassified test images": lambda: misclassified(cfg, result),
        "Look inside the models": lambda: look_inside(result, "vc_"),
        "Draw your own": lambda: draw_your_own(result, "vc_"),
        "What broke the ViT?": lambda: what_broke(result, store.get),
    })
    what_to_notice(result)
    load_models_ahead(result)  # for the first click into Look inside or Draw your own


# ---------------------------------------------------------------- the page
def main() -> None:
    intro()
    store = result_store()
    picture, prediction_box = st.columns([3, 2])  # the first screen: the experiment as a picture, the prediction
    # the results, once predicted, right below the prediction: where the learner looks, not below the form
    results_area = st.container()
    presets()
    submitted = form()
    curve = live_curve_toggle()
    try:
        form_cfg = config_from_form()
        check_cost(form_cfg)
    except ValueError as exc:
        st.error(f"Cannot run this setting: {exc}")
        form_cfg, submitted = None, False
    with picture:
        the_split(form_cfg or LESSON)
    if form_cfg is not None and not submitted:
        # Start the training workers while the visitor reads (each imports torch): Run then
        # starts at once. A few seconds late, so they do not slow the page's first draw; idle workers end
        # after VITLAB_IDLE_SECONDS, and any rerun of the page starts them again.
        warm(form_cfg, delay=WARM_DELAY)
    cfg, result = stored_or_trained(store, form_cfg, submitted, st.session_state.get("predict"), curve, LESSON,
                                    [c.key for c in CONTROLS])
    with prediction_box:
        revealed = predict(cfg, result)
    with results_area:
        if ready_to_show(result, revealed):
            show_results(cfg, result, form_cfg, store)
    background(BACKGROUND)
    exercises(store)
    sweeps(form_cfg)
    link = share_link()
    if result is not None and revealed:
        downloads(result, link)
    show_source(PostNormViT, CNNClassifier, train, make_dataset)


main()
