"""The "Look inside" section of the training pages (lessons 3 to 5): probe any trained (model, seed) of the
run at any class (a shape or a digit) and centre, by controls or by clicking its generalization map; the same shape at the
nearest training centre beside it; attention distances; the position table and what shuffling it costs.
Each page passes its own key prefix, so no two pages share a control (their values live in the URL)."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import streamlit as st

from core.engine.results.run_result import RunResult, mean_grid, position_grid
from core.inspect.attention_maps import similarity_grid
from core.inspect.trained_model import (
    Probe,
    distances,
    load_every_model,
    position_similarity,
    probe,
    seen_centre,
    shared_model,
    shuffle_positions,
)
from core.models.registry import spec
from core.nn.pos_embed import sincos_1d, sincos_2d
from ui.figures import image_figures, model_figures
from ui.glossary import term
from ui.server_runs import run_id
from ui.url_state import named
from ui.widgets import URL, bullets, chart, plot, static_table

# Seconds after a run's results are sent before its models are rebuilt: started at once, the rebuilding took the
# cores from the browser drawing those results (docs/performance.md)
LOAD_DELAY = 1.5


@st.cache_resource(max_entries=32, show_spinner=False)
def _models_loading(cfg, identity: tuple, _result: RunResult) -> threading.Timer:
    """One thread per run, for every learner: it rebuilds the run's models (``load_every_model``) ``LOAD_DELAY``
    seconds later, no Streamlit call in it. Keyed by the run's config and identity (``_result`` is not hashed)."""
    timer = threading.Timer(LOAD_DELAY, load_every_model, (_result,))
    timer.daemon = True
    timer.start()
    return timer


def load_models_ahead(result: RunResult) -> None:
    """Rebuild the run's trained models while the learner reads its results, so that the first click into *Look
    inside* or *Draw your own* finds them built (the first on lesson 4's bench otherwise waits for 80 models:
    docs/performance.md). Once per run on the server; nothing when the run kept no weights."""
    if result.weights:
        _models_loading(result.config, run_id(result), result)


def _select_cell(prefix: str) -> None:
    """The map's click (a callback, so it runs before the sliders are drawn): probe at that cell."""
    points = st.session_state[f"{prefix}probe_click"].selection.points
    if points:
        st.session_state[f"{prefix}probe_cx"] = int(points[0]["x"])
        st.session_state[f"{prefix}probe_cy"] = int(points[0]["y"])


def controls(result: RunResult, prefix: str) -> tuple[str, int, str, int, int] | None:
    models = [m for m in result.config.models if any(k.startswith(f"{m}/") for k in result.weights)]
    if not models:
        st.info("This run kept no trained weights (it was stored before weights were kept): re-run it to look inside.")
        return None
    d = result.config.data
    centres = list(d.kind.centres(d.img_size))
    c1, c2, c3 = st.columns(3)
    name = named(c1.selectbox, "Model", models, models[0], format_func=model_figures.label, key=f"{prefix}probe_model",
                 labels="model")
    seed = c2.selectbox("Seed", list(result.config.train.seeds), key=f"{prefix}probe_seed", bind=URL)
    if d.kind.place is None:
        shape = c3.radio("Class drawn", d.kind.classes, horizontal=True, key=f"{prefix}probe_shape", bind=URL)
    # an unseen centre to start from: a split of one's own names its test centres (its ranges only span them)
    ux, uy = d.test_positions[0] if d.split else (d.test_range[0],) * 2
    c1, c2 = st.columns(2)
    cx = c1.select_slider("Centre cx", centres, ux, key=f"{prefix}probe_cx", bind=URL)
    cy = c2.select_slider("Centre cy", centres, uy, key=f"{prefix}probe_cy", bind=URL)
    if d.kind.place is not None:  # the label is the place: the class is the centre's
        shape = d.kind.classes[d.kind.place(int(cx), int(cy), d.img_size)]
        c3.markdown(f"Class: **{shape}** (where the centre is)")
    return name, int(seed), shape, int(cx), int(cy)


def clickable_map(result: RunResult, prefix: str, name: str, shape: str, cx: int, cy: int) -> None:
    d = result.config.data
    grid = position_grid(result, name, shape) if d.kind.place is None else mean_grid(result, name)
    fig = model_figures.probe_map_figure(grid, list(d.kind.centres(d.img_size)), d.train_range,
                                  d.test_range, (cx, cy), f"{model_figures.label(name)} · {shape}: click a cell to probe it "
                                  "(red box: probed now)", chance=d.kind.chance,
                                  trained=model_figures.phase_lattice(d))
    plot(fig, st, key=f"{prefix}probe_click", on_select=lambda: _select_cell(prefix))


def one_side(p: Probe, where, seen: bool, layers: bool) -> None:
    """One probed input: the model's answer, the input with what reaches the answer drawn over it, and with
    ``layers`` every layer's maps (attention per head, or the CNN's last feature maps)."""
    what = "seen in training" if seen else "the centre you chose"
    where.markdown(f"**{p.shape} at ({p.cx}, {p.cy})**: {what}")
    where.metric(f"{model_figures.label(p.model)} · p(right answer)", f"{p.p_true:.2f}")
    if p.rollout is not None:
        with where:
            chart(image_figures.image_with_map(p.image, p.rollout, f"Attention rollout at ({p.cx}, {p.cy}) over the "
                                        "image: an estimate of how much each patch reaches the class token (a heuristic)"))
            L, H = len(p.attention), p.attention[0].shape[0]
            maps = np.concatenate(p.attention)  # (L*H, G, G)
            if layers:
                chart(image_figures.small_maps_figure(maps, [f"layer {i // H}, head {i % H}" for i in range(L * H)],
                                               f"Class-token attention to each patch, every layer and head, at "
                                               f"({p.cx}, {p.cy})", cols=H, zmin=0, hover="weight"))
    elif p.features is not None:
        with where:
            chart(image_figures.image_with_peaks(p.image, p.peaks, f"Where each channel's maximum fires at ({p.cx}, {p.cy}) "
                                          "(red boxes)"))
            if layers:
                chart(image_figures.small_maps_figure(p.features, [f"channel {c}" for c in range(len(p.features))],
                                               f"The last feature maps at ({p.cx}, {p.cy})", cols=4, height_per_row=110,
                                               hover="response"))
    else:  # neither: the input itself (the figures above each draw it under what they show)
        chart(image_figures.image_figure(p.image[None], f"Input at ({p.cx}, {p.cy})"), where)


def seen_vs_unseen(result: RunResult, name: str, seed: int, shape: str, cx: int, cy: int,
                   layers: bool) -> tuple[Probe, Probe]:
    sx, sy = seen_centre(result, cx, cy)
    here, there = probe(result, name, seed, shape, cx, cy), probe(result, name, seed, shape, sx, sy)
    # Every model's answer as one static table (a bench has 16 models: one metric each cost the tab's first
    # draw more than its charts; docs/performance.md)
    caption = f"Every model of the run, seed {seed}: probability of the right answer"
    st.markdown(f"**{caption}**")
    static_table(pd.DataFrame({f"at ({cx}, {cy})": [f"{here.p_right(m):.2f}" for m in here.probs],
                               f"at ({sx}, {sy}), seen": [f"{there.p_right(m):.2f}" for m in there.probs]},
                              index=pd.Index([model_figures.label(m) for m in here.probs], name="model")), caption)
    if here.rollout is not None:
        st.markdown(f"Below, for the chosen model: its {term('rollout', 'attention rollout')} over each input (and, "
                    f"with *Show every layer's maps*, the {term('class token')}'s {term('attention')} in every layer "
                    "and head).")
    if (sx, sy) == (cx, cy):  # a training centre itself: one side (its figures would be the other's twice)
        one_side(here, st, seen=True, layers=layers)
        return here, there
    c1, c2 = st.columns(2)
    one_side(here, c1, seen=False, layers=layers)
    one_side(there, c2, seen=True, layers=layers)
    return here, there


@st.cache_data(max_entries=64, show_spinner=False)
def cached_distances(cfg, identity: tuple, name: str, seed: int, _result: RunResult) -> tuple[np.ndarray, np.ndarray]:
    """A run's distances, once: keyed by its config and identity (``_result`` itself is not hashed)."""
    return distances(_result, name, seed)


def attention_distances(result: RunResult, name: str, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    if not spec(name).transformer:
        return None
    untrained, trained = cached_distances(result.config, run_id(result), name, seed, result)
    chart(model_figures.distance_bars(untrained, trained, f"{model_figures.label(name)}, seed {seed}: mean attention distance "
                                                  "(pixels) per layer and head, over 64 test images"))
    others = [m for m in result.config.models if spec(m).transformer and m != name and f"{m}/{seed}" in result.weights]
    if others:
        means = {m: float(cached_distances(result.config, run_id(result), m, seed, result)[1].mean()) for m in others}
        chart(model_figures.model_bars({name: float(trained.mean()), **means}, f"Trained mean attention distance, every "
                                f"transformer of the run (seed {seed}, layers and heads averaged)", "pixels"))
    return untrained, trained


def positions(result: RunResult, name: str, seed: int, prefix: str) -> None:
    if not spec(name).transformer:
        st.info(f"{model_figures.label(name)} has no position table (a CNN): pick a transformer.")
        return
    model = shared_model(result, name, seed)
    G = model.grid_size
    D = result.config.model.embed_dim
    tables = {"the lesson's 1-D sin-cos table": similarity_grid(sincos_1d(G * G + 1, D)[1:]).numpy(),
              "a 2-D sin-cos table": similarity_grid(sincos_2d(G, D, class_token=False)).numpy()}
    sim = position_similarity(model)
    if sim is not None:
        tables[f"{model_figures.label(name)}'s table after training (seed {seed})"] = sim
    for label, grid in tables.items():
        chart(image_figures.small_maps_figure(grid.reshape(G * G, G, G), [f"patch ({i // G}, {i % G})" for i in range(G * G)],
                                       f"Cosine similarity of each position's embedding with every other: {label}",
                                       cols=G, colorscale="RdBu_r", zmin=-1, zmax=1, height_per_row=120,
                                       hover="similarity"))
    if sim is not None and st.toggle("Shuffle the trained position table (a seeded permutation of its patch rows)",
                                     key=f"{prefix}probe_shuffle", bind=URL):
        effect = shuffle_positions(result, name, seed)
        c1, c2 = st.columns(2)
        c1.metric("Test accuracy (unseen centres)", f"{effect.test_after:.1%}",
                  delta=f"{effect.test_after - effect.test_before:+.1%} (was {effect.test_before:.1%})")
        c2.metric("Train accuracy (seen centres)", f"{effect.train_after:.1%}",
                  delta=f"{effect.train_after - effect.train_before:+.1%} (was {effect.train_before:.1%})")


VIEWS = ("Seen vs unseen", "Attention distance (the ViT paper's figure 7, right)",
         "Position embeddings (figure 7, centre)")


def distance_notes(dist: tuple[np.ndarray, np.ndarray] | None) -> list[str]:
    if dist is None:
        return []
    change = (dist[1] - dist[0]).mean(axis=1)  # per layer, heads averaged
    layer = int(np.abs(change).argmax())
    return [f"Training changed the mean attention distance most in layer {layer} "
            f"({dist[0][layer].mean():.1f} → {dist[1][layer].mean():.1f} pixels, heads averaged)."]


def notes(here: Probe, there: Probe, dist: tuple[np.ndarray, np.ndarray] | None) -> list[str]:
    out = [f"{model_figures.label(here.model)} gives the right answer with probability **{here.p_true:.2f}** at "
           f"({here.cx}, {here.cy}) and **{there.p_true:.2f}** at the training centre ({there.cx}, {there.cy})."]
    if here.attention:
        peak_here, peak_there = float(here.attention[-1].max()), float(there.attention[-1].max())
        out.append(f"In the last layer the strongest single attention weight on a patch is {peak_here:.2f} here and "
                   f"{peak_there:.2f} at the seen centre: " + ("more concentrated where it was trained."
                                                                if peak_there > peak_here else
                                                                "no more concentrated where it was trained."))
    return out + distance_notes(dist)


def look_inside(result: RunResult, prefix: str) -> None:
    """The whole section; ``prefix`` keeps its control keys unique to the page."""
    st.caption("The trained models themselves, from the weights the run kept: nothing is trained here. Pick a model, "
               "a seed, a class (a shape or a digit: its first map image) and a centre (or click a cell of the map), and "
               "compare it with the same image at the nearest training centre.")
    chosen = controls(result, prefix)
    if chosen is None:
        return
    name, seed, shape, cx, cy = chosen
    # One view at a time (only it is computed and drawn): a centre change then redraws only what depends on it
    view = st.radio("Show", VIEWS, horizontal=True, key=f"{prefix}probe_view", bind=URL)
    try:
        if view == VIEWS[0]:
            clickable_map(result, prefix, name, shape, cx, cy)
            # Every layer's maps on request: two more charts on each change of centre (the first view and a centre
            # change stay within the lab's half second: docs/performance.md)
            layers = st.toggle("Show every layer's maps (attention per head; a CNN's last feature maps)",
                               key=f"{prefix}probe_layers", bind=URL)
            here, there = seen_vs_unseen(result, name, seed, shape, cx, cy, layers)
            said = notes(here, there, None)
        elif view == VIEWS[1]:
            dist = attention_distances(result, name, seed)
            if dist is None:
                st.caption("A CNN has no attention: its reach is its receptive field, and its max pool reads "
                           "everywhere.")
            said = distance_notes(dist)
        else:
            positions(result, name, seed, prefix)
            said = []
    except ValueError as exc:
        st.error(f"Cannot look inside this model: {exc}")
        return
    if said:
        st.markdown("**What to notice inside**")
        bullets(said)
