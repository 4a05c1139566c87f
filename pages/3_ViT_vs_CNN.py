"""Lesson 3: train a ViT and a CNN at some positions, test at unseen ones, and re-run the lesson's exercises."""

import json
import time

import numpy as np
import pandas as pd
import streamlit as st

from core.cnn import CNNClassifier
from core.experiments import (
    MODELS,
    PRESET_NOTES,
    PRESETS,
    SWEEPS,
    GeneralizationConfig,
    distinct_training_images,
    position_grid,
    run,
    summary,
    sweep,
)
from core.shapes import make_dataset, make_image, possible_images, valid_centres
from core.tiny_vit import LessonViT
from core.train import train
from core.vit import POS_EMBEDS
from ui import charts
from ui.results_store import result_store
from ui.widgets import page_header, show_source

page_header("ViT vs CNN", "⚖️")
st.markdown(
    "Lesson 33's test, with a Vision Transformer in the place of the MLP. Both models learn **plus vs circle** "
    "from images whose shape sits at centres in the *training* range, and are tested at centres they never saw. "
    "A CNN applies the same filters everywhere and keeps only the strongest response (global max pooling): "
    "translation invariance is **built in**. A ViT's patch embedding and position table are tied to absolute "
    "places: it must **learn** invariance from data, and 300 images are not enough."
)

FORM_DEFAULTS = {  # session-state keys of the form, filled from a config
    "f_models": lambda c: list(c.models), "f_n_train": lambda c: c.n_train,
    "f_train_range": lambda c: (c.train_range[0], c.train_range[1] - 1), "f_n_test": lambda c: c.n_test,
    "f_test_range": lambda c: (c.test_range[0], c.test_range[1] - 1), "f_patch": lambda c: c.patch_size,
    "f_embed": lambda c: c.embed_dim, "f_heads": lambda c: c.num_heads, "f_depth": lambda c: c.depth,
    "f_pos": lambda c: c.pos_embed, "f_pool": lambda c: c.global_pool, "f_stem": lambda c: c.stem_channels,
    "f_epochs": lambda c: c.epochs, "f_lr": lambda c: c.lr, "f_seeds": lambda c: len(c.seeds),
}


def fill_form(cfg: GeneralizationConfig) -> None:
    for key, get in FORM_DEFAULTS.items():
        st.session_state[key] = get(cfg)


def config_from_form() -> GeneralizationConfig:
    s = st.session_state
    return GeneralizationConfig(
        models=tuple(m for m in MODELS if m in s.f_models), n_train=s.f_n_train,
        train_range=(s.f_train_range[0], s.f_train_range[1] + 1), n_test=s.f_n_test,
        test_range=(s.f_test_range[0], s.f_test_range[1] + 1), patch_size=s.f_patch, embed_dim=s.f_embed,
        num_heads=s.f_heads, depth=s.f_depth, pos_embed=s.f_pos, global_pool=s.f_pool, stem_channels=s.f_stem,
        epochs=s.f_epochs, lr=s.f_lr, seeds=tuple(range(s.f_seeds)),
    )


if "f_models" not in st.session_state:
    fill_form(PRESETS["lesson"])
store = result_store()

st.subheader("Presets: the lesson and its exercises")
cols = st.columns(len(PRESETS))
for col, name in zip(cols, PRESETS, strict=True):
    col.button(name, key=f"preset_{name}", help=PRESET_NOTES[name], on_click=fill_form, args=(PRESETS[name],),
               width="stretch")

centres = list(valid_centres(16))
with st.form("experiment"):
    st.multiselect("Models to train", list(MODELS), format_func=MODELS.get, key="f_models")
    c1, c2, c3 = st.columns(3)
    c1.slider("Training images", 20, 3000, step=20, key="f_n_train")
    c2.slider("Training centres (cx and cy)", centres[0], centres[-1], key="f_train_range")
    c3.slider("Test centres (unseen)", centres[0], centres[-1], key="f_test_range")
    c1.slider("Test images", 20, 600, step=10, key="f_n_test")
    c2.select_slider("Patch size (ViTs)", [2, 4, 8, 16], key="f_patch",
                     help="2 gives 64 tokens per image. 1 (256 tokens) is left out: on a 2-core CPU it takes ~0.8 s "
                          "per epoch per seed at the lesson's width (minutes per run), hours at the widest settings")
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
                          ["≈100 %, like the CNN", "in between", "≈50 % (chance) or worse"], index=None, key="f_predict")
    submitted = st.form_submit_button("Run", type="primary")

try:
    form_cfg = config_from_form()
    form_cfg.validate()
except ValueError as exc:
    st.error(f"Cannot run this setting: {exc}")
    st.stop()

if submitted:
    st.session_state.active = form_cfg
    st.session_state.active_prediction = prediction
cfg: GeneralizationConfig = st.session_state.get("active", PRESETS["lesson"])
names = MODELS


@st.cache_data(show_spinner=False)
def n_distinct(cfg: GeneralizationConfig) -> int:
    return distinct_training_images(cfg)


def train_live(cfg: GeneralizationConfig):
    """Train with live progress; the progress calls also let a stale run stop when the user moves on."""
    bar = st.progress(0.0, text="Starting…")
    chart = st.empty()
    curves: list[dict] = []
    start, last_bar, last_draw = time.perf_counter(), 0.0, 0.0

    def progress(model, seed, stats, done, total):
        nonlocal last_bar, last_draw
        if stats.test_acc is not None:
            curves.append({"model": model, "seed": seed, "epoch": stats.epoch, "test_acc": stats.test_acc,
                           "train_acc": stats.train_acc})
        elapsed = time.perf_counter() - start
        # At most ten updates a second: enough for the eye, and a stale run still stops within 0.1 s
        # (Streamlit stops a script at its next Streamlit call once the user has moved on).
        if elapsed - last_bar < 0.1 and done < total:
            return
        last_bar = elapsed
        eta = elapsed / done * (total - done)
        bar.progress(done / total, text=f"{names[model]}, seed {seed}: epoch {stats.epoch}/{cfg.epochs} · "
                                         f"loss {stats.loss:.3f} · {elapsed:.0f} s elapsed, about {eta:.0f} s left")
        if elapsed - last_draw > 0.7 or done == total:
            last_draw = elapsed
            chart.plotly_chart(charts.curves_figure(curves, names, "test_acc", "Test accuracy at unseen positions, live"),
                               width="stretch")

    result = run(cfg, progress, eval_every=max(1, cfg.epochs // 50))
    bar.empty()
    chart.empty()
    return result


result = store.get(cfg)
rerun = result is not None and st.button("Re-run this setting live", key="rerun",
                                         help="Train again now, with live progress, instead of showing the stored result")
if (result is None and submitted) or rerun:
    result = train_live(cfg)
    if result.complete:
        store[cfg] = result
if result is None:
    st.info("This setting has not been run yet (or its run was interrupted). Press **Run** to train it.")
    st.stop()

# ---------------------------------------------------------------- results
s = summary(result)
rows = result.rows
st.subheader("Results")
origin = ("precomputed with this code and shipped with the app (press *Re-run this setting live* to train it now)"
          if result.origin == "shipped" else "trained on this server")
st.caption(f"Config: {len(cfg.seeds)} seed(s) × {len(cfg.models)} model(s), {cfg.n_train} training images at centres "
           f"{cfg.train_range[0]}..{cfg.train_range[1] - 1}, {cfg.n_test} test images at "
           f"{cfg.test_range[0]}..{cfg.test_range[1] - 1}, {cfg.epochs} epochs; {origin}, in {result.seconds:.1f} s.")
pred = st.session_state.get("active_prediction") if "active" in st.session_state else None
vit_names = [m for m in cfg.models if m != "cnn"]
if vit_names:
    v = vit_names[0]
    per_seed = ", ".join(f"{r['test_acc']:.1%}" for r in rows if r["model"] == v)
    st.markdown(f"**Your prediction:** {pred or '(none given)'} &nbsp;→&nbsp; **Outcome:** {names[v]} scored "
                f"**{s[v]['test_mean']:.1%}** at unseen positions (seeds: {per_seed}).")

metric_cols = st.columns(len(s))
for col, (m, v) in zip(metric_cols, s.items(), strict=True):
    col.metric(f"{names[m]} · test (unseen)", f"{v['test_mean']:.1%}", delta=f"± {v['test_std']:.1%} over seeds",
               delta_color="off")

table = pd.DataFrame(rows).pivot(index="seed", columns="model", values=["train_acc", "test_acc"])
table.index = [f"seed {i}" for i in table.index]
table.columns = [f"{names[m]} · {'train' if k == 'train_acc' else 'test'}" for k, m in table.columns]
mean, std = table.mean(), table.std(ddof=0)
table.loc["mean"], table.loc["spread (std)"] = mean, std
st.dataframe(table.style.format("{:.1%}"), width="stretch")

c1, c2 = st.columns(2)
c1.plotly_chart(charts.accuracy_bars(rows, names), width="stretch")
full_curves = [c for c in result.curves if c.get("test_acc") is not None] or result.curves
c2.plotly_chart(charts.curves_figure(result.curves, names, "loss", "Training loss"), width="stretch")
if any(c.get("test_acc") is not None for c in result.curves):
    st.plotly_chart(charts.curves_figure(full_curves, names, "test_acc", "Test accuracy at unseen positions, per epoch"),
                    width="stretch")

st.subheader("Generalization map: accuracy at every position")
st.caption("Both shapes at every centre where they fit, classified by the trained models (mean over seeds). "
           "Solid outline: training centres. Dashed: the test centres.")
for m in cfg.models:
    c1, c2 = st.columns(2)
    for col, shape in zip((c1, c2), ("plus", "circle"), strict=True):
        col.plotly_chart(charts.position_map_figure(position_grid(result, m, shape, cfg.image_size), centres,
                                                    cfg.train_range, cfg.test_range, f"{names[m]} · {shape}"),
                         width="stretch")

st.subheader("Misclassified test images")
who = st.selectbox("Model", list(cfg.models), format_func=names.get, key="mis_model")
seed0 = cfg.seeds[0]
wrong = [p for p in result.test_predictions if p["model"] == who and p["seed"] == seed0 and not p["correct"]]
if not wrong:
    st.success(f"{names[who]} (seed {seed0}) classified every one of the {cfg.n_test} test images correctly.")
else:
    shown = wrong[:18]
    imgs = [make_image("circle" if p["label"] else "plus", p["cx"], p["cy"], cfg.image_size) for p in shown]
    caps = [f"{'circle' if p['label'] else 'plus'} @({p['cx']},{p['cy']}) p={p['p_circle']:.2f}" for p in shown]
    st.plotly_chart(charts.image_gallery(imgs, caps, title=f"{len(wrong)} of {cfg.n_test} wrong for {names[who]}, "
                                         f"seed {seed0} (first {len(shown)}; p = predicted probability of circle)"),
                    width="stretch")

st.subheader("Download")
c1, c2 = st.columns(2)
c1.download_button("Per-seed results (CSV)", pd.DataFrame(rows).to_csv(index=False), "vit_vs_cnn_results.csv",
                   "text/csv")
c2.download_button("Config, results, curves and predictions (JSON)",
                   json.dumps({"config": result.config, "summary": s, **result.to_json()}, indent=1),
                   "vit_vs_cnn_run.json", "application/json")

st.subheader("What to notice")
notes = []
if "cnn" in s:
    c = s["cnn"]
    notes.append(f"The CNN scored **{c['test_mean']:.1%}** at centres it never saw (range {c['test_min']:.1%}–"
                 f"{c['test_max']:.1%} over seeds)" + (": its global max pool makes position irrelevant."
                                                       if c["test_min"] >= 0.95 else "."))
for m in vit_names:
    v = s[m]
    verdict = ("at or below chance" if v["test_mean"] <= 0.55 else "well above chance but short of the CNN"
               if v["test_mean"] < 0.95 else "as well as the CNN")
    fit = "fit the training positions" if v["train_mean"] >= 0.95 else "did not even fit the training positions"
    notes.append(f"{names[m]} {fit} ({v['train_mean']:.1%} train) and scored **{v['test_mean']:.1%}** at unseen "
                 f"ones: {verdict}." + (" More epochs or a larger learning rate may help it fit first."
                                        if v["train_mean"] < 0.95 else ""))
if "cnn" in s and vit_names:
    gap = s["cnn"]["test_mean"] - s[vit_names[0]]["test_mean"]
    notes.append(f"The gap between the CNN and {names[vit_names[0]]} is **{gap:+.1%}** (CNN minus ViT).")
k, lo, hi = n_distinct(cfg), cfg.train_range[0], cfg.train_range[1] - 1
ex1 = PRESETS["exercise-1"]
notes.append(f"The {cfg.n_train} training images hold only **{k} distinct** ones: an image is fixed by its shape "
             f"and centre, and centres {lo}..{hi} allow {possible_images(cfg.train_range)}. More images at the "
             "same positions only repeat them, so they give a ViT no new positions to learn from (exercise 1: "
             f"{ex1.n_train} images, {n_distinct(ex1)} distinct). Training computes each distinct image once, "
             "weighted by how often it was drawn: the same loss for a fraction of the work.")
train_only = [m for m in cfg.models if np.nanmean(position_grid(result, m, "plus", cfg.image_size)) < 0.9]
if train_only:
    notes.append("In the generalization map, look where accuracy falls off for "
                 + ", ".join(names[m] for m in train_only) + ": inside the solid training square it is high, "
                 "outside it the model has never seen a shape and guesses.")
for note in notes:
    st.markdown(f"- {note}")

# ---------------------------------------------------------------- sweeps
st.subheader("Sweeps: one knob, several runs")
st.caption("Re-runs the form's setting at several values of one knob (uses the models and seeds above).")
c1, c2 = st.columns([2, 1])
which = c1.selectbox("Sweep", list(SWEEPS), key="sweep_name",
                     format_func=lambda k: f"test accuracy vs {k} {SWEEPS[k][1]}")
if c2.button("Run sweep", key="sweep_run"):
    bar = st.progress(0.0, text="Starting sweep…")
    rows_sweep = sweep(form_cfg, which, progress=lambda frac, label: bar.progress(frac, text=f"Training {label}…"))
    bar.empty()
    st.session_state.sweep_rows = (which, form_cfg, rows_sweep)
if "sweep_rows" in st.session_state:
    sw_name, sw_cfg, sw_rows = st.session_state.sweep_rows
    knob = SWEEPS[sw_name][0]
    df = pd.DataFrame(sw_rows)
    fig = charts.go.Figure()
    for m in dict.fromkeys(df["model"]):
        d = df[df["model"] == m].groupby(knob)["test_acc"].agg(["mean", "min", "max"]).reset_index()
        fig.add_trace(charts.go.Scatter(x=d[knob], y=d["mean"], mode="lines+markers", name=names[m],
                                        line=dict(color=charts.PALETTE.get(m)),
                                        error_y=dict(type="data", symmetric=False, array=d["max"] - d["mean"],
                                                     arrayminus=d["mean"] - d["min"])))
    fig.update_layout(title=f"Test accuracy at unseen positions vs {sw_name}", height=360,
                      yaxis=dict(range=[0, 1.05], tickformat=".0%"), xaxis=dict(type="log" if knob == "n_train" else "-",
                                                                                 title=knob))
    st.plotly_chart(fig, width="stretch")
    st.download_button("Sweep results (CSV)", df.to_csv(index=False), "vit_vs_cnn_sweep.csv", "text/csv")

show_source(LessonViT, CNNClassifier, train, make_dataset)
