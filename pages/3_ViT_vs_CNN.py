"""Lesson 3: train a ViT and a CNN at some positions, test at unseen ones, and re-run the lesson's exercises."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd
import streamlit as st

from core.data.position_split import DataConfig, distinct_training_images
from core.data.shapes import make_dataset, make_image, possible_images, valid_centres
from core.engine.planning import check_cost
from core.engine.results import RunResult, position_grid, summary
from core.engine.run import check_sweep_cost, sweep, warm
from core.engine.run_config import GeneralizationConfig
from core.engine.train import train
from core.engine.verdict import PREDICTIONS, judge_prediction, verdicts
from core.lessons.controls import config_from
from core.lessons.lesson3_vit_vs_cnn import CONTROLS, EXERCISES, PRESET_NOTES, PRESETS, SWEEPS
from core.models.cnn import CNNClassifier
from core.models.lesson_vit import LessonViT
from core.models.registry import spec
from ui import charts
from ui.downloads import results_csv, rows_csv, run_json
from ui.exercise_panel import exercise_panel
from ui.form_controls import control_grid
from ui.look_inside import look_inside
from ui.results_store import result_store
from ui.training import live_curve_toggle, train_live
from ui.widgets import URL, bullets, chart, page_header, sections, share_link, show_source

CENTRES = list(valid_centres(16))
WARM_DELAY = 5.0  # seconds after the page opens: its first draw takes about that long on a 2-core machine
LESSON = PRESETS["lesson"]
# The form's controls are declared once, in core (lesson3_vit_vs_cnn.CONTROLS): widget, URL key, config
# field and command-line flag. Each control's default is the lesson's value, so a link names only what differs.
DEFAULT = {c.key: c.value(LESSON) for c in CONTROLS}


def config_from_form() -> GeneralizationConfig:
    """The form's values as a config: validated and canonical (raises ValueError with the reason)."""
    return config_from(LESSON, CONTROLS, {key: st.session_state.get(key, d) for key, d in DEFAULT.items()})


@st.cache_data(show_spinner=False)
def n_distinct(data: DataConfig) -> int:
    return distinct_training_images(data)


# ---------------------------------------------------------------- sections
def intro() -> None:
    page_header("ViT vs CNN", "⚖️")
    st.markdown(
        "Lesson 33's test, with a Vision Transformer in the place of the MLP. Both models learn **plus vs circle** "
        "from images whose shape sits at centres in the *training* range, and are tested at centres they never "
        "saw. A CNN applies the same filters everywhere and keeps only the strongest response (global max pooling): "
        "translation invariance is **built in**. A ViT's patch embedding and position table are tied to absolute "
        "places: it must **learn** invariance from data. In the lesson's setting (300 images at centres 5..10) it "
        "does not; the exercises test what changes that."
    )


def load_preset(name: str) -> None:
    """Fill the form with a preset (a button's callback: it runs before the page, so the widgets show it)."""
    for c in CONTROLS:
        st.session_state[c.key] = c.value(PRESETS[name])


def presets() -> None:
    st.subheader("Presets: the lesson and its exercises")
    st.caption("A preset fills the form; press **Run** to see its result (instantly for the lesson and its "
               "exercises, which ship precomputed).")
    for col, name in zip(st.columns(len(PRESETS)), PRESETS, strict=True):
        col.button(name, key=f"preset_{name}", help=PRESET_NOTES[name], on_click=load_preset, args=(name,),
                   width="stretch")


def exercises(store) -> None:
    def do(ex) -> None:
        st.button(f"Fill the form with {ex.preset}", key=f"do_{ex.key}", on_click=load_preset, args=(ex.preset,),
                  help=f"{PRESET_NOTES[ex.preset]} Then press Run below.")

    exercise_panel("vit-vs-cnn", EXERCISES, (store.get,), do)


def form() -> tuple[bool, str | None]:
    """The experiment's controls; (submitted, prediction)."""
    with st.form("experiment"):
        cols, free = control_grid(CONTROLS, DEFAULT)
        prediction = cols[free].radio("Before you run: the ViT at unseen positions will score…", list(PREDICTIONS),
                                      index=None, key="predict")
        submitted = st.form_submit_button("Run", type="primary")
    return submitted, prediction


PREDICTION_WORDS = {"right": "✅ **right**", "possible": "🤔 **not ruled out, not confirmed**: the interval reaches "
                    "into your band, more seeds would decide", "wrong": "❌ **not what happened**"}


def results_header(cfg: GeneralizationConfig, result: RunResult, prediction: str | None) -> None:
    st.subheader("Results")
    origin = ("precomputed with this code and shipped with the app (press *Re-run this setting live* to train it "
              "now)" if result.origin == "shipped" else "trained on this server")
    d = cfg.data
    st.caption(f"Config: {len(cfg.train.seeds)} seed(s) × {len(cfg.models)} model(s), {d.n_train} training images at "
               f"centres {d.train_range[0]}..{d.train_range[1]}, {d.n_test} test images at {d.test_range[0]}.."
               f"{d.test_range[1]}, {cfg.train.epochs} epochs; {origin}, in {result.seconds:.1f} s.")
    for r in result.diverged:
        st.error(f"{charts.label(r.model)}, seed {r.seed}: training **diverged at epoch {r.diverged_at}** (the loss "
                 "exploded or was not finite), so it has no accuracy. Lower the learning rate.")
    v = verdicts(result, {m: charts.label(m) for m in cfg.models})
    transformers = [m for m in cfg.models if spec(m).transformer and m in v]
    if transformers and prediction is not None:
        m = transformers[0]
        st.markdown(f"**Your prediction:** {prediction} → {PREDICTION_WORDS[judge_prediction(prediction, v[m])]}. "
                    f"{charts.label(m)}: {v[m].text}.")
    for col, (m, verdict) in zip(st.columns(max(1, len(v))), v.items(), strict=False):
        iv = verdict.interval
        col.metric(f"{charts.label(m)} · test (unseen)", f"{iv.mean:.1%}", delta=f"95 % interval {iv.lo:.0%}–{iv.hi:.0%}",
                   delta_color="off", delta_arrow="off",
                   help=f"Mean over {iv.seeds} seed(s), each tested on {iv.images} images. {verdict.text}.")


def scored_rows(result: RunResult) -> list[dict]:
    """The per-seed rows that have accuracies (a diverged seed has none), or [] after saying so."""
    rows = [asdict(r) for r in result.rows if r.diverged_at is None]
    if not rows:
        st.info("Every seed diverged: there are no accuracies to show.")
    return rows


def results_table(cfg: GeneralizationConfig, result: RunResult) -> None:
    rows = scored_rows(result)
    if not rows:
        return
    v = verdicts(result)
    models = [m for m in cfg.models if m in v]  # the order of the metrics above
    table = pd.DataFrame(rows).pivot(index="seed", columns="model", values=["train_acc", "test_acc"])
    table = table.reindex(columns=[(k, m) for m in models for k in ("train_acc", "test_acc")])
    table.index = [f"seed {i}" for i in table.index]
    table.columns = [f"{charts.label(m)} · {'train' if k == 'train_acc' else 'test'}" for k, m in table.columns]
    table.loc["mean"] = table.mean()
    for bound in ("lo", "hi"):
        table.loc[f"test, 95 % interval {'low' if bound == 'lo' else 'high'}"] = [
            getattr(v[m].interval, bound) if k == "test" else np.nan
            for m in models for k in ("train", "test")]
    # a static table: a real HTML <table> for screen readers, and no data grid to load on the first view
    st.table(table.astype(float).style.format("{:.1%}", na_rep="—"))
    st.caption("The same accuracies as bars, with the training curves, are in the next section, "
               "*Accuracy and curves*.")


def accuracy_and_curves(result: RunResult) -> None:
    rows = scored_rows(result)
    if not rows:
        return
    c1, c2 = st.columns(2)
    chart(charts.accuracy_bars(rows), c1)
    curves = [asdict(c) for c in result.curves]
    chart(charts.curves_figure(curves, "loss", "Training loss"), c2)
    evaluated = [c for c in curves if c["test_acc"] is not None]
    if evaluated:
        chart(charts.curves_figure(evaluated, "test_acc", "Test accuracy at unseen positions, per epoch"))
    else:
        st.caption("No test accuracy per epoch for this run: it is measured only while the live curve is drawn, "
                   "and this run was precomputed or trained with the curve switched off. Re-run it live with the "
                   "curve on to see how the accuracy at unseen positions moved during training.")


def generalization_maps(cfg: GeneralizationConfig, result: RunResult) -> None:
    st.caption("Both shapes at every centre where they fit, classified by the trained models (mean over seeds; the "
               "number in each cell is the accuracy there). Solid outline: training centres. Dashed: the test "
               "centres. Blue: right, orange: wrong, white: chance.")
    for m in cfg.models:
        if not any(p.model == m for p in result.position_map):
            continue
        for col, shape in zip(st.columns(2), ("plus", "circle"), strict=True):
            chart(charts.position_map_figure(position_grid(result, m, shape), CENTRES, cfg.data.train_range,
                                             cfg.data.test_range, f"{charts.label(m)} · {shape}"), col)


def misclassified(cfg: GeneralizationConfig, result: RunResult) -> None:
    c1, c2 = st.columns(2)
    who = c1.selectbox("Model", list(cfg.models), format_func=charts.label, key="mis_model", bind=URL)
    seed = c2.selectbox("Seed", list(cfg.train.seeds), key="mis_seed", bind=URL)
    wrong = [p for p in result.test_predictions if p.model == who and p.seed == seed and not p.correct]
    n = sum(1 for p in result.test_predictions if p.model == who and p.seed == seed)
    if not n:
        st.info(f"{charts.label(who)}, seed {seed}: no test predictions (training diverged).")
        return
    if not wrong:
        st.success(f"{charts.label(who)}, seed {seed}: every one of the {n} test images classified correctly.")
        return
    shown = wrong[:12]
    imgs = [make_image("circle" if p.label else "plus", p.cx, p.cy, cfg.data.img_size) for p in shown]
    caps = [f"{'circle' if p.label else 'plus'} ({p.cx},{p.cy})<br>p(circle) {p.p_circle:.2f}" for p in shown]
    chart(charts.image_gallery(imgs, caps, title=f"{charts.label(who)}, seed {seed}: {len(wrong)} of {n} test images "
                               f"wrong ({1 - len(wrong) / n:.1%} right); the first {len(shown)}, with the true shape, "
                               "its centre (cx, cy) and the predicted probability of circle",
                               table=[{"shape": "circle" if p.label else "plus", "cx": p.cx, "cy": p.cy,
                                       "p(circle)": round(p.p_circle, 3)} for p in wrong]))


def downloads(result: RunResult, link: str) -> None:
    """The results as files, in a popover: it draws its buttons only when opened, two widgets fewer on the
    page's first draw (benchmarks/browser_latency.py). Each file is built when clicked (ui.downloads)."""
    box = st.popover("⬇️ Download the results (CSV, JSON)")
    box.caption("Both files carry the link that reopens this experiment.")
    box.download_button("Per-seed results (CSV)", lambda: results_csv(result, link), "vit_vs_cnn_results.csv",
                        "text/csv")
    box.download_button("Config, results, curves and predictions (JSON)", lambda: run_json(result, link),
                        "vit_vs_cnn_run.json", "application/json")


def model_notes(cfg: GeneralizationConfig, result: RunResult) -> list[str]:
    """One note per model: what it scored at unseen positions, said no more strongly than the interval allows."""
    v = verdicts(result, {m: charts.label(m) for m in cfg.models})
    s = summary(result)
    notes = []
    for m, verdict in v.items():
        fit = ("fit its training positions" if s[m].train_mean >= 0.95
               else "**did not fit its training positions**")
        note = f"The {charts.label(m)} {fit} ({s[m].train_mean:.1%} train) and scored {verdict.text}."
        if s[m].train_mean < 0.95:
            note += " A model that has not learned the task says nothing about generalization: more epochs first."
        elif not spec(m).transformer and verdict.band == "top":
            note += " Its global max pool makes position irrelevant."
        if s[m].seeds > 1 and s[m].test_max - s[m].test_min > 0.2:
            per_seed = ", ".join(f"{r.test_acc:.0%}" for r in result.rows if r.model == m and r.test_acc is not None)
            note += (f" Its seeds disagree ({per_seed}): whether a seed generalizes can hang on its initial weights, "
                     "and even on float rounding (a different thread count can change a seed's outcome). Add seeds "
                     "before trusting the mean.")
        notes.append(note)
    return notes


def what_to_notice(cfg: GeneralizationConfig, result: RunResult) -> None:
    st.subheader("What to notice")
    notes = model_notes(cfg, result)
    d, ex1 = cfg.data, PRESETS["exercise-1"].data
    notes.append(f"The {d.n_train} training images hold only **{n_distinct(d)} distinct** ones: an image is fixed by "
                 f"its shape and centre, and centres {d.train_range[0]}..{d.train_range[1]} allow "
                 f"{possible_images(d.train_range)}. More images at the same positions only repeat them, so they give "
                 f"a ViT no new positions to learn from (exercise 1: {ex1.n_train} images, {n_distinct(ex1)} distinct). "
                 "Training computes each distinct image once, weighted by how often it was drawn: the same loss for a "
                 "fraction of the work.")
    if cfg.model.patch_size == 2 and any(spec(m).transformer for m in cfg.models):
        notes.append("With 2×2 patches each token holds a small piece of a stroke, and the same pieces occur at the "
                     "training positions, so content alone can separate the shapes: this is why exercise 2 can work. "
                     "How often it works is the question the seeds answer.")
    falls_off = [m for m in cfg.models if m in summary(result) and np.nanmean(position_grid(result, m, "plus")) < 0.9]
    if falls_off:
        notes.append("In the generalization map, look where accuracy falls off for "
                     + ", ".join(charts.label(m) for m in falls_off) + ": inside the solid training square it is "
                     "high, outside it the model has never seen a shape and guesses.")
    bullets(notes)


def sweeps(form_cfg: GeneralizationConfig | None) -> None:
    st.subheader("Sweeps: one setting, several runs")
    st.caption("Re-runs the form's setting at several values of one setting (uses the models and seeds above).")
    c1, c2 = st.columns([2, 1])
    which = c1.selectbox("Sweep", list(SWEEPS), key="sweep_name", bind=URL,
                         format_func=lambda k: f"test accuracy vs {SWEEPS[k].axis_title}: "
                                               + ", ".join(map(str, SWEEPS[k].values)))
    if c2.button("Run sweep", key="sweep_run", disabled=form_cfg is None):
        try:
            check_sweep_cost(form_cfg, SWEEPS[which])
        except ValueError as exc:
            st.error(f"Cannot run this sweep: {exc}")
            return
        bar = st.progress(0.0, text="Starting sweep…")
        rows = sweep(form_cfg, SWEEPS[which], progress=lambda frac, text: bar.progress(frac, text=f"Training {text}…"),
                     on_wait=lambda pos: bar.progress(0.0, text=f"Waiting for the server: {pos} run(s) ahead…"))
        bar.empty()
        if rows is not None:
            st.session_state.sweep_rows = (which, [asdict(r) for r in rows])
    if "sweep_rows" in st.session_state:
        name, rows = st.session_state.sweep_rows
        ok = [r for r in rows if r["test_acc"] is not None]
        chart(charts.sweep_figure(ok, SWEEPS[name].axis_title, SWEEPS[name].log_x))
        st.download_button("Sweep results (CSV)", lambda: rows_csv(rows), "vit_vs_cnn_sweep.csv",
                           "text/csv")


# ---------------------------------------------------------------- the page
def choose_run(store, form_cfg: GeneralizationConfig | None, submitted: bool, prediction: str | None, curve: bool):
    """(config, result or None) to show. A Run shows the form's setting; a link opened anywhere shows the
    setting it names, training it first if this server has not run it yet."""
    if submitted:
        st.session_state.active = form_cfg
        st.session_state.active_prediction = prediction
    opened_from_link = "active" not in st.session_state and any(c.key in st.query_params for c in CONTROLS)
    if "active" not in st.session_state and form_cfg is not None:
        st.session_state.active = form_cfg
    cfg: GeneralizationConfig = st.session_state.get("active", LESSON)
    result = store.get(cfg)
    rerun = result is not None and st.button("Re-run this setting live", key="rerun",
                                             help="Train again now, with live progress, instead of the stored result")
    if (result is None and (submitted or opened_from_link)) or rerun:
        if opened_from_link:
            st.info("This link names a setting this server has not run yet: training it now.")
        result = train_live(cfg, curve)
        if result.complete:
            store.put(cfg, result)
        else:
            result = None
    return cfg, result


def main() -> None:
    intro()
    store = result_store()
    exercises(store)
    presets()
    submitted, prediction = form()
    curve = live_curve_toggle()
    try:
        form_cfg = config_from_form()
        check_cost(form_cfg)
    except ValueError as exc:
        st.error(f"Cannot run this setting: {exc}")
        form_cfg, submitted = None, False
    if form_cfg is not None and not submitted:
        # Start the training workers while the visitor reads (each imports torch): Run then
        # starts at once. A few seconds late, so they do not slow the page's first draw; idle workers end
        # after VITLAB_IDLE_SECONDS, and any rerun of the page starts them again.
        warm(form_cfg, delay=WARM_DELAY)
    cfg, result = choose_run(store, form_cfg, submitted, prediction, curve)
    if result is None:
        st.info("This setting has not been run yet (or its run was interrupted). Press **Run** to train it.")
    else:
        results_header(cfg, result, st.session_state.get("active_prediction"))
        # The first section holds no chart: a page's first Plotly chart makes the browser load and evaluate Plotly's
        # module, the larger part of this page's first draw (docs/performance.md). The
        # verdict is in the numbers above and the table; the charts are one click away.
        sections("results_view", {
            "Per-seed results": lambda: results_table(cfg, result),
            "Accuracy and curves": lambda: accuracy_and_curves(result),
            "Generalization map": lambda: generalization_maps(cfg, result),
            "Misclassified test images": lambda: misclassified(cfg, result),
            "Look inside the models": lambda: look_inside(result, "vc_"),
        })
        what_to_notice(cfg, result)
    sweeps(form_cfg)
    link = share_link()
    if result is not None:
        downloads(result, link)
    show_source(LessonViT, CNNClassifier, train, make_dataset)


main()
