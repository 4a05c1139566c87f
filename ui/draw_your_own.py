"""The "Draw your own" section of the training pages (lessons 3 to 5): a learner's drawing on the run's canvas,
every trained model's answer to it at every seed (beside the canvas: what the models were trained on, a training
image of each class to start from), one model followed through layer by layer (the logit lens,
attention or feature maps), and the shift sweep: the drawing moved to every place, each model's probability of
the drawn class there. The drawing is in the link (``<prefix>drawing``, compact text: ``core.data.drawing``).

The section is a fragment: a click on a pixel re-runs it alone, not the page.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
import torch

from core.data import drawing as drawings
from core.data.training_examples import describe, training_examples
from core.engine.results.run_result import RunResult
from core.inspect.logit_lens import logit_lens
from core.inspect.own_input import answers, shift_sweep, where
from core.inspect.trained_model import layer_feature_maps, probe_image, run_data, shared_model, trained_model
from core.models.registry import spec
from ui.figures import image_figures, model_figures
from ui.glossary import term
from ui.look_inside import one_side
from ui.page_rerun import fragment
from ui.server_runs import run_id
from ui.url_state import named
from ui.widgets import URL, chart, plot, static_table


def _key(prefix: str) -> str:
    return f"{prefix}drawing"


def current(result: RunResult, prefix: str) -> np.ndarray:
    """The drawing: this session's, else the link's, else the first test image."""
    key, size = _key(prefix), result.config.data.img_size
    if key not in st.session_state:
        text = st.query_params.get(key)
        try:
            st.session_state[key] = drawings.decode(text, size) if text else run_data(result.config.data).Xte[0, 0].numpy()
        except ValueError as exc:
            st.warning(f"The link's drawing could not be read ({exc}): starting from a test image.")
            st.session_state[key] = run_data(result.config.data).Xte[0, 0].numpy()
    return st.session_state[key]


def _store(prefix: str, d: np.ndarray) -> None:
    st.session_state[_key(prefix)] = d
    st.query_params[_key(prefix)] = drawings.encode(d)
    st.session_state[f"{prefix}draw_version"] = st.session_state.get(f"{prefix}draw_version", 0) + 1


def _clicked(prefix: str, chart_key: str) -> None:
    """A click on the canvas (a callback, before the fragment re-runs): that pixel's ink on or off."""
    points = st.session_state[chart_key].selection.points
    if points:
        d = st.session_state[_key(prefix)].copy()
        x, y = int(points[0]["x"]), int(points[0]["y"])
        d[y, x] = 0.0 if d[y, x] > 0 else 1.0
        _store(prefix, d)


def _moved(prefix: str, dx: int, dy: int) -> None:
    try:
        _store(prefix, drawings.shift(st.session_state[_key(prefix)], dx, dy))
    except ValueError as exc:
        st.session_state[f"{prefix}draw_refused"] = str(exc)


def _start(prefix: str, result: RunResult) -> None:
    choice = st.session_state[f"{prefix}draw_start"]
    if choice is None:  # the box emptied: the drawing stays
        return
    data = run_data(result.config.data)
    _store(prefix, data.Xte[choice, 0].numpy())
    st.session_state[f"{prefix}draw_class"] = result.config.data.kind.classes[int(data.yte[choice])]


def _from_training(prefix: str, result: RunResult, label: int) -> None:
    """The training image of class ``label`` shown beside the canvas (at a training centre) as the drawing; the
    test image's number is emptied, as it no longer names what is on the canvas."""
    example = next(e for e in training_examples(result.config.data) if e.label == label)
    _store(prefix, example.image.copy())
    st.session_state[f"{prefix}draw_class"] = result.config.data.kind.classes[label]
    st.session_state[f"{prefix}draw_start"] = None


def trained_on(result: RunResult, prefix: str, where) -> None:
    """What the run's models were trained on, beside the canvas: one training image of each class on the whole
    canvas (its true size there), what they are in a sentence, and a button per class that starts from it."""
    d = result.config.data
    kind, examples = d.kind, training_examples(d)
    few = len(examples) <= 3  # a button each, named in full; else rows of short ones (ten digits: two rows of five)
    names = [kind.name_of(e.label) if few else kind.classes[e.label] for e in examples]  # "plus"; "7" in a small tile
    per_row = len(examples) if few else 5
    chart(image_figures.image_gallery(
        [e.image for e in examples], [f"{n} at ({e.centre[0]}, {e.centre[1]})" for n, e in zip(names, examples, strict=True)],
        cols=per_row, tile_px=min(150, 320 // per_row),  # within the canvas's side column (about 330 px wide)
        title=f"What the models were trained on: a training image of each class, on the whole {d.img_size}×"
              f"{d.img_size} canvas"), where, key=f"{prefix}draw_trained")
    where.caption(f"**Trained on** {describe(d, examples)}")
    where.markdown("**Start from a training image** (the one shown above):")
    for row in range(0, len(examples), per_row):
        for col, e, name in zip(where.columns(per_row), examples[row:row + per_row], names[row:row + per_row],
                                strict=False):
            col.button(f"training {name}" if few else name, key=f"{prefix}draw_train_{e.label}",
                       on_click=_from_training, args=(prefix, result, e.label),
                       help=f"Put the training {kind.name_of(e.label)} shown above, at ({e.centre[0]}, {e.centre[1]}), "
                            "on the canvas")


def _cleared(prefix: str) -> None:
    """A blank canvas: a new drawing, so what it shows is unknown until the learner says (the last class stays
    behind otherwise, and every model would be judged against it)."""
    _store(prefix, np.zeros_like(st.session_state[_key(prefix)]))
    st.session_state[f"{prefix}draw_class"] = None


def _centres_said(d) -> str:
    """The run's training and test centres in words: two squares' ranges, or a lattice's or split's counts."""
    if d.phases or d.split:
        return f"({len(d.train_positions)} training centres, {len(d.test_positions)} test centres)"
    return f"(training centres {d.train_range[0]}..{d.train_range[1]}, test {d.test_range[0]}..{d.test_range[1]})"


def canvas(result: RunResult, prefix: str) -> np.ndarray:
    """The canvas and its controls; the drawing."""
    d = current(result, prefix)
    data, classes = run_data(result.config.data), result.config.data.kind.classes
    c1, c2 = st.columns([3, 2])
    fig = image_figures.drawing_figure(d, "Your input: click a pixel to put ink on it or take it off")
    chart_key = f"{prefix}draw_click_{st.session_state.get(f'{prefix}draw_version', 0)}"  # a fresh click each time
    plot(fig, c1, key=chart_key, on_select=lambda: _clicked(prefix, chart_key))
    trained_on(result, prefix, c2)
    # A number, not a list of every test image: a select box of 500 digits cost the tab's first draw more than its
    # charts (docs/performance.md). A blank canvas is the ✕ below.
    n = len(data.yte)
    start = c2.number_input(f"Start from test image (0 to {n - 1})", 0, n - 1, None, 1, key=f"{prefix}draw_start",
                            on_change=_start, args=(prefix, result), bind=URL, placeholder="a test image's number")
    if start is not None:
        c2.caption(f"Test image {start}: {classes[int(data.yte[start])]} at ({data.test_centres[start][0]}, "
                   f"{data.test_centres[start][1]}).")
    arrows = c2.columns(5)
    for col, (label, dx, dy, name) in zip(arrows, (("←", -1, 0, "left"), ("→", 1, 0, "right"), ("↑", 0, -1, "up"),
                                                   ("↓", 0, 1, "down"), ("✕", 0, 0, "clear")), strict=True):
        if name == "clear":
            col.button(label, key=f"{prefix}draw_clear", help="Clear the canvas (then say what you draw)",
                       on_click=_cleared, args=(prefix,))
        else:
            col.button(label, key=f"{prefix}draw_{name}", help=f"Move the drawing one pixel {name}",
                       on_click=_moved, args=(prefix, dx, dy))
    refused = st.session_state.pop(f"{prefix}draw_refused", None)
    if refused:
        c2.warning(f"Not moved: {refused}.")
    com = drawings.centre_of_mass(d)
    c2.markdown(f"**Centre of mass:** {com if com else '— (no ink)'}; **{where(result, d)}** "
                + _centres_said(result.config.data) + ".")
    return d


@st.cache_data(max_entries=256, show_spinner=False)
def cached_answers(cfg, identity: tuple, drawing: bytes, _result: RunResult) -> dict[tuple[str, int], np.ndarray]:
    """Every model's answer to a drawing (its float32 bytes), once per run and drawing, for every learner: the tab
    opens on the same test image for all of them (``_result`` itself is not hashed: ``identity`` names it)."""
    size = cfg.data.img_size
    return answers(_result, np.frombuffer(drawing, dtype=np.float32).reshape(size, size))


def answers_table(result: RunResult, d: np.ndarray, drawn: int) -> None:
    classes = result.config.data.kind.classes
    got = cached_answers(result.config, run_id(result), np.asarray(d, dtype=np.float32).tobytes(), result)
    seeds = list(result.config.train.seeds)
    rows = {}
    for (m, seed), p in got.items():
        k = int(np.argmax(p))
        rows.setdefault(model_figures.label(m), {})[f"seed {seed}"] = f"{classes[k]} {p[k]:.2f} · {p[drawn]:.2f}"
    st.markdown(f"**Every model, every seed: the class it gives and its probability · its probability of "
                f"*{classes[drawn]}***")
    static_table(pd.DataFrame(rows).T.reindex(columns=[f"seed {s}" for s in seeds]).rename_axis("model"),
                 "Every model's answer to your drawing, every seed")
    # in a popover: its grid is drawn when opened, not on every click (a data grid is costly to draw)
    with st.popover("Every class's probability, every model and seed"):
        st.dataframe(pd.DataFrame([{"model": model_figures.label(m), "seed": seed,
                                    **{c: round(float(v), 3) for c, v in zip(classes, p, strict=True)}}
                                   for (m, seed), p in got.items()]), hide_index=True, width="stretch")


def follow(result: RunResult, prefix: str, d: np.ndarray, drawn: int) -> None:
    """One model and seed, layer by layer."""
    c1, c2 = st.columns(2)
    models = [m for m in result.config.models if any(k.startswith(f"{m}/") for k in result.weights)]
    name = named(c1.selectbox, "Follow model", models, models[0], format_func=model_figures.label,
                 key=f"{prefix}draw_model", labels="model")
    seed = c2.selectbox("Seed", list(result.config.train.seeds), key=f"{prefix}draw_seed", bind=URL)
    classes = result.config.data.kind.classes
    com = drawings.centre_of_mass(d) or (0, 0)
    p = probe_image(result, name, seed, d, classes[drawn], com)
    if spec(name).transformer:
        m, size = result.config.model, result.config.data.img_size
        model = shared_model(result, name, seed)
        G, P, D = model.grid_size, model.patch_size, m.embed_dim
        T = G * G + int(model.class_token)
        st.markdown(f"**The path through {model_figures.label(name)}:** the {size}×{size} drawing is cut into "
                    f"{G}×{G} = {G * G} patches of {P}×{P} pixels, each flattened and mapped to a token of {D} "
                    f"numbers; with {'the class token in front' if model.class_token else 'no class token'}, the "
                    f"sequence is ({T}, {D}); {'its position table is added' if model.patch_position_table() is not None else 'no position table is added'}; "
                    f"then {m.depth} layer(s) of attention, each a ({T}, {D}) → ({T}, {D}) step, and the head.")
        lens = logit_lens(trained_model(result, name, seed), torch.from_numpy(p.image)[None, None])  # (1, 1, H, W)
        chart(model_figures.lens_figure(lens.probs, classes, f"Logit lens, {model_figures.label(name)} seed {seed}: "
                                        "the answer read after each layer (the last row is the model's answer)"))
        st.caption(f"An early row reads that layer through a head trained on the last layer only ({term('logit lens')}): "
                   "it shows what the head makes of the layer, not what the layer knows.")
    # every layer's maps on request, as in *Look inside*: each is a chart more to redraw on every click
    layers = st.toggle("Show every layer's maps (attention per head; a CNN's last feature maps)",
                       key=f"{prefix}draw_layers", bind=URL)
    if layers and p.features is not None:  # a CNN: its first layer's maps too (one_side draws the last's)
        first = layer_feature_maps(shared_model(result, name, seed), torch.from_numpy(p.image)[None, None])[0]
        chart(image_figures.small_maps_figure(first, [f"channel {c}" for c in range(len(first))],
                                              f"Layer 1's feature maps (before the 2×2 max pool), {model_figures.label(name)}",
                                              cols=4, height_per_row=110, hover="response"))
    one_side(p, st.container(), seen=where(result, d) == "seen", layers=layers)


def sweep(result: RunResult, prefix: str, d: np.ndarray, drawn: int) -> None:
    seed = st.session_state.get(f"{prefix}draw_seed", result.config.train.seeds[0])
    classes, data = result.config.data.kind.classes, result.config.data
    if not st.toggle(f"Shift sweep: move the drawing to every place it fits (seed {seed})", key=f"{prefix}draw_sweep",
                     bind=URL):
        return
    if drawings.centre_of_mass(d) is None:
        st.info("Draw something first.")
        return
    s = shift_sweep(result, seed, d, drawn)
    chart(model_figures.maps_grid_figure(s.maps, s.centres, data.train_range, data.test_range,
                                         f"p({classes[drawn]}) with the drawing's centre of mass at each place "
                                         "(blank: the ink would leave the canvas)", cols=2,
                                         chance=data.kind.chance, trained=model_figures.phase_lattice(data)), key=f"{prefix}draw_sweep_maps")


@fragment
def draw_your_own(result: RunResult, prefix: str) -> None:
    """The whole section; ``prefix`` keeps its keys (and its link parameter) the page's own."""
    if not result.weights:
        st.info("This run kept no trained weights: re-run it to draw your own input.")
        return
    st.caption("Draw any input on the run's canvas, or start from a training or test image and move it one pixel at a "
               "time: every trained model answers at once. The drawing is in the link.")
    d = canvas(result, prefix)
    classes = result.config.data.kind.classes
    first = int(run_data(result.config.data).yte[0])  # what the canvas starts with: the first test image
    said = st.radio("What you drew", classes, first, horizontal=True, key=f"{prefix}draw_class", bind=URL)
    if said is None:
        st.info("Say what you drew (above): each model's answer is judged against it.")
        return
    drawn = classes.index(said)
    answers_table(result, d, drawn)
    follow(result, prefix, d, drawn)
    sweep(result, prefix, d, drawn)
