"""Lesson 3: train a ViT and a CNN at some positions, test at unseen ones, and re-run the lesson's exercises."""

from __future__ import annotations

import streamlit as st

from core.data.shapes import make_dataset
from core.engine.results.run_result import RunResult
from core.engine.running.train import train
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.lesson3_vit_vs_cnn import CONTROLS, PREDICTION, PRESET_NOTES, PRESETS, SWEEPS, notes
from core.models.cnn import CNNClassifier
from core.models.postnorm_vit import PostNormViT
from ui.downloads import rows_csv
from ui.draw_your_own import draw_your_own
from ui.exercise_panel import exercise_panel
from ui.experiment_page import Experiment, Shown, preset_exercise, run_experiment
from ui.figures import model_figures
from ui.glossary import term
from ui.lesson_list import page_of
from ui.look_inside import load_models_ahead, look_inside
from ui.page_rerun import fragment
from ui.prediction_gate import one_of, revealed_only
from ui.result_sections import (
    accuracy_and_curves,
    downloads,
    generalization_maps,
    misclassified,
    per_seed_table,
    results_header,
)
from ui.server_runs import run_id
from ui.training import sweep_live
from ui.url_state import named
from ui.what_broke_section import what_broke
from ui.widgets import background, bullets, chart, page_header, sections, share_link, show_source

PAGE = page_of(__file__)

EXPERIMENT = Experiment(
    base=PRESETS["lesson"], controls=CONTROLS, ask=one_of(PREDICTION.names),
    question=f"At the {term('seen and unseen positions', 'unseen positions')}, the ViT will score…",
    presets=PRESETS, preset_notes=PRESET_NOTES, presets_title="Presets: the lesson and its exercises",
    presets_caption="A preset fills the form; press **Run** to see its result (instantly for the lesson and its "
                    "exercises, which ship precomputed).")


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
    f"position table added to it (lesson 2). {term('the notebook', 'The notebook')} concludes the ViT fails because "
    "it lacks the CNN's invariance; *What broke the ViT?* tests that. The *mlp* preset sets "
    + term("Lesson 33's flatten MLP") + " beside both: the notebook says its ViT stands in for it. Each setting "
    "trains several "
    f"{term('seed', 'seeds')} (the shipped presets: 15 seeds over 3 training draws); each seed's score is shown, then "
    f"their mean with a 95 % {term('interval')}, judged against {term('chance')}. The exercises test what changes the outcome."
)



@st.cache_data(max_entries=16, show_spinner=False)
def cached_notes(cfg: GeneralizationConfig, identity: tuple, _result: RunResult) -> list[str]:
    """``notes`` once per run, not on every rerun of the page: the run is not hashed, its identity is."""
    return notes(_result)


def what_to_notice(result: RunResult) -> None:
    st.subheader("What to notice")
    bullets(cached_notes(result.config, run_id(result), result))  # from the run's numbers (lesson3_vit_vs_cnn.notes)


@fragment
def sweeps(shown: Shown) -> None:
    """A fragment (``ui.page_rerun``): picking a sweep or running it re-runs this section alone."""
    st.subheader("Sweeps: one setting, several runs")
    st.caption("Re-runs the form's setting at several values of one setting (uses the models and seeds above).")
    form_cfg = shown.form_cfg
    c1, c2 = st.columns([2, 1])
    which = named(c1.selectbox, "Sweep", list(SWEEPS), next(iter(SWEEPS)), key="sweep_name",
                  format_func=lambda k: f"test accuracy vs {SWEEPS[k].axis_title}: " + ", ".join(map(str, SWEEPS[k].values)))
    # a sweep's accuracies answer the prediction too: none before it is made or skipped
    if c2.button("Run sweep", key="sweep_run", disabled=form_cfg is None or not shown.revealed):
        rows = sweep_live(form_cfg, SWEEPS[which], "Cannot run this sweep: {reason}")
        if rows is not None:
            st.session_state.sweep_rows = (which, rows)
    if not shown.revealed:
        st.info("Make your prediction at the top of the page first (or skip it): a sweep shows the same models' "
                "accuracies.")
    elif "sweep_rows" in st.session_state:
        name, rows = st.session_state.sweep_rows
        ok = [r for r in rows if r["test_acc"] is not None]
        chart(model_figures.sweep_figure(ok, SWEEPS[name].axis_title, SWEEPS[name].log_x))
        st.download_button("Sweep results (CSV)", lambda: rows_csv(rows), "vit_vs_cnn_sweep.csv", "text/csv")


def show_results(shown: Shown) -> None:
    cfg, result = shown.cfg, shown.result
    results_header(cfg, result, shown.prediction, PREDICTION)
    # The first section holds no chart: a page's first Plotly chart makes the browser load and evaluate Plotly's
    # module, the larger part of this page's first draw (docs/performance.md). The
    # verdict is in the numbers above and the table; the charts are one click away.
    sections("results_view", {
        "seeds": ("Per-seed results", lambda: per_seed_table(cfg, result)),
        "curves": ("Accuracy and curves", lambda: accuracy_and_curves(result)),
        "map": ("Generalization map", lambda: generalization_maps(cfg, result)),
        "misclassified": ("Misclassified test images", lambda: misclassified(cfg, result)),
        "inside": ("Look inside the models", lambda: look_inside(result, "vc_")),
        "draw": ("Draw your own", lambda: draw_your_own(result, "vc_")),
        "what-broke": ("What broke the ViT?", lambda: what_broke(result, shown.store.get)),
    })
    what_to_notice(result)
    load_models_ahead(result)  # for the first click into Look inside or Draw your own


# ---------------------------------------------------------------- the page
def main() -> None:
    intro()
    shown = run_experiment(EXPERIMENT, show_results)
    background(BACKGROUND)
    exercise_panel(PAGE, (revealed_only(shown.store.get),), preset_exercise(EXPERIMENT))
    sweeps(shown)
    link = share_link()
    if shown.result is not None and shown.revealed:
        downloads(shown.result, link)
    show_source(PostNormViT, CNNClassifier, train, make_dataset)


main()
