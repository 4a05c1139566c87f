"""Lesson 4: which remedy restores the ViT at unseen positions, and which CNN fails too: a bench, tested."""

from __future__ import annotations

from functools import partial

import streamlit as st

from core.data.shapes import valid_centres
from core.engine.planning import check_cost
from core.engine.run import warm
from core.engine.run_config import GeneralizationConfig, with_value
from core.engine.run_result import RunResult
from core.engine.verdict import Verdict, verdicts
from core.lessons.controls import config_from
from core.lessons.lesson4_fixing_the_vit import (
    BENCH,
    CONTROLS,
    POSITIONS_SEEDS,
    POSITIONS_SWEEP,
    REMEDIES,
    bench_verdicts,
    from_bench,
    notes,
    positions,
    positions_base,
    prediction_against_bench,
)
from core.lessons.model_cards import CARDS, GROUPS
from core.lessons.shipped import load_shipped_rows
from core.models.postnorm_vit import PostNormViT
from core.nn.augment import RandomShift
from core.nn.lsa import diagonal_mask
from core.nn.rel_pos_bias import RelativePositionBias
from core.nn.spt import ShiftedPatchTokens
from ui.downloads import results_csv
from ui.draw_your_own import draw_your_own
from ui.exercise_panel import exercise_panel
from ui.figures import model_figures
from ui.form_controls import control_grid
from ui.glossary import term
from ui.lesson_list import page_of
from ui.look_inside import load_models_ahead, look_inside
from ui.prediction import judged, predict_first, ready_to_show, some_of
from ui.result_sections import behaviour_table, maps_grid, ranking_table, the_split
from ui.server_runs import result_store
from ui.training import WARM_DELAY, live_curve_toggle, stored_or_trained, sweep_live
from ui.widgets import background, bullets, chart, page_header, sections, share_link, show_source

PAGE = page_of(__file__)

CENTRES = list(valid_centres(16))
DEFAULT = {c.key: c.value(BENCH) for c in CONTROLS}  # the bench's controls, declared once in core


@st.cache_data(show_spinner=False, max_entries=16)
def shipped_positions(base) -> list[dict] | None:
    return load_shipped_rows("remedies-positions", base)


def intro() -> None:
    page_header(PAGE, "Which change to the ViT lets it recognise shapes at positions it never saw, "
                "and what makes a CNN lose that? Predict, then see the bench.")


BACKGROUND = (
    "Lesson 3 asks whether a ViT trained at some positions still recognises shapes at unseen ones. **What "
    f"changes the answer, and why?** Each {term('remedy')} from the literature changes *one* thing of the "
    "lesson's ViT (its data, its positions, its tokens, its attention or its pooling) and is trained on the "
    f"lesson's split: shapes at centres 5..10, tested at 3..4, five {term('seed', 'seeds')} each, every result "
    f"with its 95 % {term('interval')} against {term('chance')}. The {term('CNN')} side is tested too: CNNs with "
    "one part changed. Most of these remedies were measured on ImageNet or CIFAR accuracy, not on positions never "
    "seen in training (the CNN-side cards cite studies that did test untrained positions, on CNNs). That is what "
    "this bench adds for the ViT. Its verdicts count every unseen centre of the map (128 distinct images), since the "
    "test set's 8 distinct images cannot tell most remedies apart."
)



def cards() -> None:
    with st.expander("The remedies: what each changes, why it should help, and where it comes from"):
        for group in GROUPS:
            st.markdown(f"**{group.capitalize()}**")
            for c in (c for c in CARDS.values() if c.group == group):
                st.markdown(f"- **{c.label}.** {c.what} *Why:* {c.why} *Source:* {c.source} "
                            f"*Reported there:* {c.reported}")


def predict(cfg: GeneralizationConfig, result: RunResult | None) -> bool:
    """The learner's pick of the remedies that work, before the bench's result: whether it may be shown."""
    return predict_first(
        cfg, result, f"Which {term('remedy', 'remedies')} work? Each is one change to the lesson's ViT; the cards "
        "below say what it changes. Pick those that will be **above chance** (the whole 95 % interval above it) at "
        "the unseen centres.", some_of(REMEDIES, "Remedies that will work", model_figures.label), "bench_pick",
        describe=lambda picks: " · ".join(map(model_figures.label, picks)))


def form() -> bool:
    """The bench's settings (in the link); whether Run was pressed."""
    with st.form("bench"):
        control_grid(CONTROLS, DEFAULT, columns=2)
        return st.form_submit_button("Run", type="primary")


def data_efficiency(cfg) -> list[dict] | None:
    st.caption("Test accuracy at the unseen centres 3..4 as the training centres grow from one position (5, 5) "
               "to every centre from 5 to 12 (the test centres stay unseen). Shipped for the ViT, the CNN and the "
               f"random-shift ViT ({POSITIONS_SEEDS} seeds); any selection runs from here.")
    chosen = [m for m in cfg.models if m in BENCH.models]
    base = positions_base(tuple(chosen), min(POSITIONS_SEEDS, len(cfg.train.seeds)))
    base = with_value(base, "train.epochs", cfg.train.epochs)
    # The shipped rows serve any selection of their models and seeds at the bench's epochs
    shipped = shipped_positions(positions_base()) if base.train.epochs == BENCH.train.epochs else None
    rows = [r for r in shipped or [] if r["model"] in chosen and r["seed"] < len(base.train.seeds)] or None
    key = ("bench_positions", base)
    if rows is None or not {r["model"] for r in rows} >= set(chosen):
        rows = st.session_state.get(key, rows)
    if st.button(f"Run the data-efficiency view for the {len(chosen)} selected model(s)", key="bench_positions_run"):
        new = sweep_live(base, POSITIONS_SWEEP, "Cannot run this view: {reason}. Select fewer models on the bench.")
        if new is not None:
            rows = st.session_state[key] = new
    if not rows:
        st.info("Not run yet for this selection: press the button above.")
        return None
    plotted = [{**r, "value": positions(tuple(r["value"]))} for r in rows if r["test_acc"] is not None]
    chart(model_figures.sweep_figure(plotted, POSITIONS_SWEEP.axis_title, log_x=True))
    return plotted


def names(models) -> str:
    """Model names, each in bold: a name with a comma in it stays one name."""
    return " · ".join(f"**{model_figures.label(m)}**" for m in models) or "none"


def compare(picked: tuple[str, ...] | None, v: dict[str, Verdict]) -> None:
    if not picked:
        return
    hit, wrong, missed = prediction_against_bench(picked, v)
    unsure = [m for m in picked if m not in hit and m not in wrong]
    st.markdown(f"**Your prediction against the bench** (over every unseen centre of the map).\n- ✅ Right: "
                f"{names(hit)}\n- ❌ Picked, but at chance or below it: {names(wrong)}\n- 🤔 Not picked, but above "
                f"chance: {names(missed)}" + (f"\n- ❔ Picked, and can't tell yet: {names(unsure)}" if unsure else ""))


def show(cfg, result: RunResult, picked: tuple[str, ...] | None) -> None:
    st.subheader("Results")
    origin = "precomputed and shipped with the app" if result.origin == "shipped" else "trained on this server"
    st.caption(f"{len(cfg.models)} model(s) × {len(cfg.train.seeds)} seed(s), {cfg.train.epochs} epochs, "
               f"{cfg.data.n_train} training images, " + ("trained at offsets 0-2 within a patch, tested at every other "
               "centre (the phase split)" if cfg.data.phases else "at centres 5..10, tested at 3..4") + f"; {origin}.")
    v = bench_verdicts(result)  # over every unseen centre of the map: the test set's 8 distinct images decide little
    compare(picked, v)
    with st.expander("Each model's test accuracy, its accuracy at every unseen centre, and what it answers"):
        behaviour_table(result, verdicts(result, {m: model_figures.label(m) for m in cfg.models}))
    plotted = sections("bench_view", {
        "Ranking and table": lambda: ranking_table(result, v, {m: CARDS[m].group for m in v},
                                                   "every unseen centre of the map"),
        "Generalization maps": lambda: maps_grid(cfg, result, v),
        "Data efficiency": lambda: data_efficiency(cfg),
        "Look inside the models": lambda: look_inside(result, "bench_"),
        "Draw your own": lambda: draw_your_own(result, "bench_"),
    })
    st.subheader("What to notice")
    bullets(notes(v, plotted))  # written from the bench's numbers (core: lesson4_fixing_the_vit.notes)
    load_models_ahead(result)  # for the first click into Look inside or Draw your own


def main() -> None:
    intro()
    store = result_store()
    lookup = partial(from_bench, store.get)  # the shipped bench serves any selection of its models and seeds
    picture, prediction_box = st.columns([3, 2])  # the first screen: the experiment as a picture, the prediction
    results_area = st.container()  # the results, once predicted, right below the prediction
    cards()
    submitted = form()
    curve = live_curve_toggle()
    try:
        form_cfg = config_from(BENCH, CONTROLS, {key: st.session_state.get(key, d) for key, d in DEFAULT.items()})
        if lookup(form_cfg) is None:
            check_cost(form_cfg)  # only a run that would train must fit the server's limits; the shipped bench is free
    except ValueError as exc:
        st.error(f"Cannot run this setting: {exc}")
        form_cfg, submitted = None, False
    with picture:
        the_split(form_cfg or BENCH)
    if form_cfg is not None and not submitted and lookup(form_cfg) is None:
        warm(form_cfg, delay=WARM_DELAY)  # workers ready before Run
    cfg, result = stored_or_trained(store, form_cfg, submitted, tuple(st.session_state.get("bench_pick") or ()) or None,
                                    curve, BENCH, [c.key for c in CONTROLS], lookup=lookup, prefix="bench_")
    with prediction_box:
        revealed = predict(cfg, result)
    with results_area:
        if ready_to_show(result, revealed):
            show(cfg, result, judged()[cfg])
    link = share_link()
    if result is not None and revealed:
        st.download_button("Per-seed results (CSV, with the link)", lambda: results_csv(result, link),
                           "vit_remedies_results.csv", "text/csv")  # built when clicked (ui.downloads)
    background(BACKGROUND)
    exercise_panel(PAGE, (store.get,))
    show_source(PostNormViT, RandomShift, RelativePositionBias, ShiftedPatchTokens, diagonal_mask)


main()
