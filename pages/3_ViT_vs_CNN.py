"""Lesson 3: train a ViT and a CNN at some positions, test at unseen ones, and re-run the lesson's exercises."""

from __future__ import annotations

import json
import time
from dataclasses import asdict

import numpy as np
import pandas as pd
import streamlit as st

from core.cnn import CNNClassifier
from core.generalization.config import (
    PRESET_NOTES,
    PRESETS,
    SWEEPS,
    DataConfig,
    GeneralizationConfig,
    ModelConfig,
    TrainConfig,
)
from core.generalization.data import distinct_training_images
from core.generalization.model_config import POS_EMBEDS
from core.generalization.models import REGISTRY, spec
from core.generalization.planning import check_cost
from core.generalization.results import RunResult, position_grid, summary
from core.generalization.run import check_sweep_cost, run, sweep
from core.lesson_vit import LessonViT
from core.shapes import make_dataset, make_image, possible_images, valid_centres
from core.train import train
from ui import charts
from ui.results_store import result_store
from ui.widgets import bullets, page_header, show_source

CENTRES = list(valid_centres(16))
# session-state keys of the form, filled from a config
FORM = {
    "f_models": lambda c: list(c.models), "f_n_train": lambda c: c.data.n_train,
    "f_train_range": lambda c: c.data.train_range, "f_n_test": lambda c: c.data.n_test,
    "f_test_range": lambda c: c.data.test_range, "f_patch": lambda c: c.model.patch_size,
    "f_embed": lambda c: c.model.embed_dim, "f_heads": lambda c: c.model.num_heads, "f_depth": lambda c: c.model.depth,
    "f_pos": lambda c: c.model.pos_embed, "f_pool": lambda c: c.model.global_pool,
    "f_stem": lambda c: c.model.stem_channels, "f_epochs": lambda c: c.train.epochs, "f_lr": lambda c: c.train.lr,
    "f_seeds": lambda c: len(c.train.seeds),
}


def fill_form(cfg: GeneralizationConfig) -> None:
    for key, get in FORM.items():
        st.session_state[key] = get(cfg)


def config_from_form() -> GeneralizationConfig:
    """The form's values as a config: validated and canonical (raises ValueError with the reason)."""
    s = st.session_state
    return GeneralizationConfig(
        models=tuple(s.f_models),
        data=DataConfig(n_train=s.f_n_train, train_range=tuple(s.f_train_range), n_test=s.f_n_test,
                        test_range=tuple(s.f_test_range)),
        model=ModelConfig(patch_size=s.f_patch, embed_dim=s.f_embed, num_heads=s.f_heads, depth=s.f_depth,
                          pos_embed=s.f_pos, global_pool=s.f_pool, stem_channels=s.f_stem),
        train=TrainConfig(epochs=s.f_epochs, lr=s.f_lr, seeds=tuple(range(s.f_seeds))),
    )


@st.cache_data(show_spinner=False)
def n_distinct(data: DataConfig) -> int:
    return distinct_training_images(data)


def unseen(cfg: GeneralizationConfig) -> str:
    return "test (overlaps training)" if cfg.data.overlap else "test (unseen)"


# ---------------------------------------------------------------- sections
def intro() -> None:
    page_header("ViT vs CNN", "⚖️")
    st.markdown(
        "Lesson 33's test, with a Vision Transformer in the place of the MLP. Both models learn **plus vs circle** "
        "from images whose shape sits at centres in the *training* range, and are tested at centres they never "
        "saw. A CNN applies the same filters everywhere and keeps only the strongest response (global max pooling): "
        "translation invariance is **built in**. A ViT's patch embedding and position table are tied to absolute "
        "places: it must **learn** invariance from data, and 300 images are not enough."
    )


def presets() -> None:
    st.subheader("Presets: the lesson and its exercises")
    for col, name in zip(st.columns(len(PRESETS)), PRESETS, strict=True):
        col.button(name, key=f"preset_{name}", help=PRESET_NOTES[name], on_click=fill_form, args=(PRESETS[name],),
                   width="stretch")


def form() -> tuple[bool, str | None]:
    """The experiment's controls; (submitted, prediction)."""
    with st.form("experiment"):
        st.multiselect("Models to train", list(REGISTRY), format_func=charts.label, key="f_models")
        c1, c2, c3 = st.columns(3)
        c1.slider("Training images", 20, 3000, step=20, key="f_n_train")
        c2.slider("Training centres (cx and cy)", CENTRES[0], CENTRES[-1], key="f_train_range")
        c3.slider("Test centres (unseen)", CENTRES[0], CENTRES[-1], key="f_test_range")
        c1.slider("Test images", 20, 600, step=10, key="f_n_test")
        c2.select_slider("Patch size (ViTs)", [2, 4, 8, 16], key="f_patch",
                         help="2 gives 64 tokens per image. 1 (256 tokens) is left out: 16x the attention of patch "
                              "size 2, beyond what one click may cost on a shared server")
        c3.select_slider("Embedding width (ViTs)", [8, 16, 32, 64], key="f_embed")
        c1.select_slider("Heads", [1, 2, 4, 8], key="f_heads")
        c2.slider("Layers", 1, 4, key="f_depth")
        c3.select_slider("Hybrid stem channels", [2, 4, 8, 16], key="f_stem")
        c1.selectbox("Positional encoding (configurable ViT)", POS_EMBEDS, key="f_pos")
        c2.radio("Pooling (configurable ViT)", ["token", "avg"], key="f_pool", horizontal=True,
                 format_func={"token": "class token", "avg": "mean of patches"}.get)
        c3.slider("Epochs (full-batch Adam steps)", 10, 400, step=10, key="f_epochs")
        c1.select_slider("Learning rate", [1e-4, 3e-4, 1e-3, 3e-3, 1e-2], key="f_lr")
        c2.slider("Seeds (0, 1, …)", 1, 5, key="f_seeds")
        prediction = c3.radio("Before you run: the ViT at unseen positions will score…",
                              ["≈100 %, like the CNN", "in between", "≈50 % (chance) or worse"], index=None,
                              key="f_predict")
        submitted = st.form_submit_button("Run", type="primary")
    return submitted, prediction


def train_live(cfg: GeneralizationConfig) -> RunResult:
    """Train with live progress. Every progress call is a Streamlit call, so a stale run (the visitor moved
    on, or pressed Cancel) stops there, its workers ended and its place in the budget given back."""
    st.button("Cancel", key="cancel_run", help="Stop this run (nothing is kept)")
    bar = st.progress(0.0, text="Starting…")
    chart = st.empty()
    curves: list[dict] = []
    start, last_bar, drawn = time.perf_counter(), 0.0, 0

    def on_wait(position: int) -> None:
        ahead = "you are next" if position == 0 else f"{position} run(s) ahead of you"
        bar.progress(0.0, text=f"Waiting for the server (other learners are training): {ahead}…")

    def progress(model, seed, stats, done, total):
        nonlocal last_bar, drawn
        if stats.test_acc is not None:
            curves.append({"model": model, "seed": seed, "epoch": stats.epoch, "test_acc": stats.test_acc})
        elapsed = time.perf_counter() - start
        # At most ten updates a second: enough for the eye, and a stale run still stops within 0.1 s
        if elapsed - last_bar < 0.1 and done < total:
            return
        last_bar = elapsed
        eta = elapsed / done * (total - done)
        bar.progress(done / total, text=f"{charts.label(model)}, seed {seed}: epoch {stats.epoch}/{cfg.train.epochs} · "
                                        f"loss {stats.loss:.3f} · {elapsed:.0f} s elapsed, about {eta:.0f} s left")
        # Redraw only when new points arrived: the same figure twice in one run is a duplicate element
        if len(curves) > drawn and (len(curves) - drawn >= 3 * len(cfg.models) or done == total):
            drawn = len(curves)
            chart.plotly_chart(charts.curves_figure(curves, "test_acc", "Test accuracy at unseen positions, live"),
                               width="stretch")

    result = run(cfg, progress, eval_every=max(1, cfg.train.epochs // 50), on_wait=on_wait)
    bar.empty()
    chart.empty()
    return result


def results_header(cfg: GeneralizationConfig, result: RunResult, prediction: str | None) -> None:
    s = summary(result)
    st.subheader("Results")
    origin = ("precomputed with this code and shipped with the app (press *Re-run this setting live* to train it "
              "now)" if result.origin == "shipped" else "trained on this server")
    d = cfg.data
    st.caption(f"Config: {len(cfg.train.seeds)} seed(s) × {len(cfg.models)} model(s), {d.n_train} training images at "
               f"centres {d.train_range[0]}..{d.train_range[1]}, {d.n_test} test images at {d.test_range[0]}.."
               f"{d.test_range[1]}, {cfg.train.epochs} epochs; {origin}, in {result.seconds:.1f} s.")
    if d.overlap:
        st.warning("The test centres overlap the training centres: some test images sit at positions the models "
                   "were trained on, so this test is not all *unseen*.")
    for r in result.diverged:
        st.error(f"{charts.label(r.model)}, seed {r.seed}: training **diverged at epoch {r.diverged_at}** (the loss "
                 "exploded or was not finite), so it has no accuracy. Lower the learning rate.")
    transformers = [m for m in cfg.models if spec(m).transformer and m in s]
    if transformers:
        v = transformers[0]
        per_seed = ", ".join(f"{r.test_acc:.1%}" for r in result.rows if r.model == v and r.test_acc is not None)
        st.markdown(f"**Your prediction:** {prediction or '(none given)'} &nbsp;→&nbsp; **Outcome:** {charts.label(v)} "
                    f"scored **{s[v].test_mean:.1%}** at unseen positions (seeds: {per_seed}).")
    for col, (m, v) in zip(st.columns(max(1, len(s))), s.items(), strict=False):
        col.metric(f"{charts.label(m)} · {unseen(cfg)}", f"{v.test_mean:.1%}",
                   delta=f"± {v.test_std:.1%} over seeds", delta_color="off")


def results_table(cfg: GeneralizationConfig, result: RunResult) -> None:
    rows = [asdict(r) for r in result.rows if r.diverged_at is None]
    if not rows:
        return
    table = pd.DataFrame(rows).pivot(index="seed", columns="model", values=["train_acc", "test_acc"])
    table.index = [f"seed {i}" for i in table.index]
    table.columns = [f"{charts.label(m)} · {'train' if k == 'train_acc' else 'test'}" for k, m in table.columns]
    table.loc["mean"], table.loc["spread (std)"] = table.mean(), table.std(ddof=0)
    st.dataframe(table.style.format("{:.1%}"), width="stretch")
    c1, c2 = st.columns(2)
    c1.plotly_chart(charts.accuracy_bars(rows), width="stretch")
    curves = [asdict(c) for c in result.curves]
    c2.plotly_chart(charts.curves_figure(curves, "loss", "Training loss"), width="stretch")
    evaluated = [c for c in curves if c["test_acc"] is not None]
    if evaluated:
        st.plotly_chart(charts.curves_figure(evaluated, "test_acc", "Test accuracy at unseen positions, per epoch"),
                        width="stretch")


def generalization_maps(cfg: GeneralizationConfig, result: RunResult) -> None:
    st.subheader("Generalization map: accuracy at every position")
    st.caption("Both shapes at every centre where they fit, classified by the trained models (mean over seeds). "
               "Solid outline: training centres. Dashed: the test centres.")
    for m in cfg.models:
        if not any(p.model == m for p in result.position_map):
            continue
        for col, shape in zip(st.columns(2), ("plus", "circle"), strict=True):
            col.plotly_chart(charts.position_map_figure(position_grid(result, m, shape), CENTRES, cfg.data.train_range,
                                                        cfg.data.test_range, f"{charts.label(m)} · {shape}"),
                             width="stretch")


def misclassified(cfg: GeneralizationConfig, result: RunResult) -> None:
    st.subheader("Misclassified test images")
    who = st.selectbox("Model", list(cfg.models), format_func=charts.label, key="mis_model")
    seed0 = cfg.train.seeds[0]
    wrong = [p for p in result.test_predictions if p.model == who and p.seed == seed0 and not p.correct]
    if not wrong:
        st.success(f"{charts.label(who)} (seed {seed0}) classified every one of the {cfg.data.n_test} test images "
                   "correctly.")
        return
    shown = wrong[:18]
    imgs = [make_image("circle" if p.label else "plus", p.cx, p.cy, cfg.data.img_size) for p in shown]
    caps = [f"{'circle' if p.label else 'plus'} @({p.cx},{p.cy}) p={p.p_circle:.2f}" for p in shown]
    st.plotly_chart(charts.image_gallery(imgs, caps, title=f"{len(wrong)} of {cfg.data.n_test} wrong for "
                                         f"{charts.label(who)}, seed {seed0} (first {len(shown)}; p = predicted "
                                         "probability of circle)"), width="stretch")


def downloads(result: RunResult) -> None:
    st.subheader("Download")
    c1, c2 = st.columns(2)
    c1.download_button("Per-seed results (CSV)", pd.DataFrame([asdict(r) for r in result.rows]).to_csv(index=False),
                       "vit_vs_cnn_results.csv", "text/csv")
    full = {"summary": {m: asdict(v) for m, v in summary(result).items()}, **result.to_json()}
    c2.download_button("Config, results, curves and predictions (JSON)", json.dumps(full, indent=1, allow_nan=False),
                       "vit_vs_cnn_run.json", "application/json")


def what_to_notice(cfg: GeneralizationConfig, result: RunResult) -> None:
    st.subheader("What to notice")
    s = summary(result)
    transformers = [m for m in cfg.models if spec(m).transformer and m in s]
    convolutional = [m for m in cfg.models if not spec(m).transformer and m in s]
    notes = []
    for m in convolutional:
        c = s[m]
        notes.append(f"The {charts.label(m)} scored **{c.test_mean:.1%}** at centres it never saw (range "
                     f"{c.test_min:.1%}–{c.test_max:.1%} over seeds)"
                     + (": its global max pool makes position irrelevant." if c.test_min >= 0.95 else "."))
    for m in transformers:
        v = s[m]
        verdict = ("at or below chance" if v.test_mean <= 0.55 else "well above chance but short of the CNN"
                   if v.test_mean < 0.95 else "as well as the CNN")
        fit = "fit the training positions" if v.train_mean >= 0.95 else "did not even fit the training positions"
        notes.append(f"{charts.label(m)} {fit} ({v.train_mean:.1%} train) and scored **{v.test_mean:.1%}** at unseen "
                     f"ones: {verdict}." + (" More epochs or a larger learning rate may help it fit first."
                                            if v.train_mean < 0.95 else ""))
    if convolutional and transformers:
        gap = s[convolutional[0]].test_mean - s[transformers[0]].test_mean
        notes.append(f"The gap between the {charts.label(convolutional[0])} and {charts.label(transformers[0])} is "
                     f"**{gap:+.1%}**.")
    d, ex1 = cfg.data, PRESETS["exercise-1"].data
    notes.append(f"The {d.n_train} training images hold only **{n_distinct(d)} distinct** ones: an image is fixed by "
                 f"its shape and centre, and centres {d.train_range[0]}..{d.train_range[1]} allow "
                 f"{possible_images(d.train_range)}. More images at the same positions only repeat them, so they give "
                 f"a ViT no new positions to learn from (exercise 1: {ex1.n_train} images, {n_distinct(ex1)} distinct). "
                 "Training computes each distinct image once, weighted by how often it was drawn: the same loss for a "
                 "fraction of the work.")
    falls_off = [m for m in cfg.models if m in s and np.nanmean(position_grid(result, m, "plus")) < 0.9]
    if falls_off:
        notes.append("In the generalization map, look where accuracy falls off for "
                     + ", ".join(charts.label(m) for m in falls_off) + ": inside the solid training square it is "
                     "high, outside it the model has never seen a shape and guesses.")
    bullets(notes)


def sweeps(form_cfg: GeneralizationConfig | None) -> None:
    st.subheader("Sweeps: one setting, several runs")
    st.caption("Re-runs the form's setting at several values of one setting (uses the models and seeds above).")
    c1, c2 = st.columns([2, 1])
    which = c1.selectbox("Sweep", list(SWEEPS), key="sweep_name",
                         format_func=lambda k: f"test accuracy vs {k} {SWEEPS[k].values}")
    if c2.button("Run sweep", key="sweep_run", disabled=form_cfg is None):
        try:
            check_sweep_cost(form_cfg, which)
        except ValueError as exc:
            st.error(f"Cannot run this sweep: {exc}")
            return
        bar = st.progress(0.0, text="Starting sweep…")
        rows = sweep(form_cfg, which, progress=lambda frac, text: bar.progress(frac, text=f"Training {text}…"),
                     on_wait=lambda pos: bar.progress(0.0, text=f"Waiting for the server: {pos} run(s) ahead…"))
        bar.empty()
        if rows is not None:
            st.session_state.sweep_rows = (which, [asdict(r) for r in rows])
    if "sweep_rows" in st.session_state:
        name, rows = st.session_state.sweep_rows
        ok = [r for r in rows if r["test_acc"] is not None]
        st.plotly_chart(charts.sweep_figure(ok, name, SWEEPS[name].axis_title, SWEEPS[name].log_x), width="stretch")
        st.download_button("Sweep results (CSV)", pd.DataFrame(rows).to_csv(index=False), "vit_vs_cnn_sweep.csv",
                           "text/csv")


# ---------------------------------------------------------------- the page
def main() -> None:
    intro()
    if "f_models" not in st.session_state:
        fill_form(PRESETS["lesson"])
    store = result_store()
    presets()
    submitted, prediction = form()
    try:
        form_cfg = config_from_form()
        check_cost(form_cfg)
    except ValueError as exc:
        st.error(f"Cannot run this setting: {exc}")
        form_cfg, submitted = None, False
    if submitted:
        st.session_state.active = form_cfg
        st.session_state.active_prediction = prediction
    cfg: GeneralizationConfig = st.session_state.get("active", PRESETS["lesson"])
    result = store.get(cfg)
    rerun = result is not None and st.button("Re-run this setting live", key="rerun",
                                             help="Train again now, with live progress, instead of the stored result")
    if (result is None and submitted) or rerun:
        result = train_live(cfg)
        if result.complete:
            store.put(cfg, result)
        else:
            result = None
    if result is None:
        st.info("This setting has not been run yet (or its run was interrupted). Press **Run** to train it.")
    else:
        results_header(cfg, result, st.session_state.get("active_prediction") if "active" in st.session_state else None)
        results_table(cfg, result)
        generalization_maps(cfg, result)
        misclassified(cfg, result)
        downloads(result)
        what_to_notice(cfg, result)
    sweeps(form_cfg)
    show_source(LessonViT, CNNClassifier, train, make_dataset)


main()
