"""Lesson 4: which remedy restores the ViT at unseen positions, and which CNN fails too: a bench, tested."""

from __future__ import annotations

import streamlit as st

from core.engine.results.verdict import MEASURE_NAMES, Verdict, verdicts
from core.engine.setting.run_config import with_value
from core.lessons.lesson4_fixing_the_vit import (
    BENCH,
    CONTROLS,
    POSITIONS_SEEDS,
    POSITIONS_SWEEP,
    VIT_REMEDIES,
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
from ui.experiment_page import Experiment, Shown, run_experiment
from ui.figures import model_figures
from ui.glossary import term
from ui.lesson_list import page_of
from ui.look_inside import load_models_ahead, look_inside
from ui.prediction_gate import revealed_only, some_of
from ui.result_sections import behaviour_table, maps_grid, ranking_table
from ui.training import sweep_live
from ui.widgets import background, bullets, chart, page_header, sections, share_link, show_source

PAGE = page_of(__file__)

EXPERIMENT = Experiment(
    base=BENCH, controls=CONTROLS, prefix="bench_", lookup=from_bench, columns=2,  # the shipped bench serves any
    # selection of its models and seeds
    question=f"Which {term('remedy', 'remedies')} help? Each is one change to the lesson's ViT; the cards below say "
             "what it changes. Pick those the bench will show **better than the lesson's ViT** at the unseen centres "
             "(higher unit by unit, or the 95 % interval of the difference above 0).",
    ask=some_of(VIT_REMEDIES, "Remedies that will beat the lesson's ViT", model_figures.label),
    describe=lambda picks: " · ".join(map(model_figures.label, picks)))


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
    f"lesson's split: shapes at centres 5..10, tested at 3..4, 3 {term('seed', 'seeds')} on each of 10 "
    f"{term('training draw', 'training draws')}, every result with its 95 % {term('interval')} against {term('chance')}. The {term('CNN')} side is tested too: CNNs with "
    "one part changed. Most of these remedies were measured on ImageNet or CIFAR accuracy, not on positions never "
    "seen in training (the CNN-side cards cite studies that did test untrained positions, on CNNs). That is what "
    f"this bench adds for the ViT. Its verdicts are on the {term('unseen map')} (64 centres), where the "
    f"{term('test set')} has 4."
)



def cards() -> None:
    with st.expander("The remedies: what each changes, why it should help, and where it comes from"):
        for group in GROUPS:
            st.markdown(f"**{group.capitalize()}**")
            for c in (c for c in CARDS.values() if c.group == group):
                st.markdown(f"- **{c.label}.** {c.what} *Why:* {c.why} *Source:* {c.source} "
                            f"*Reported there:* {c.reported}")


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


def scored(models, v: dict[str, Verdict]) -> str:
    """Model names, each in bold (a name with a comma in it stays one name) with its mean at the unseen centres."""
    return " · ".join(f"**{model_figures.label(m)}** ({v[m].interval.mean:.0%})" for m in models) or "none"


def compare(picked: tuple[str, ...] | None, v: dict[str, Verdict]) -> None:
    if not picked:
        return
    if "vit" not in v:
        st.info("Your prediction is judged against the lesson's ViT: select *ViT (lesson)* too and press Run.")
        return
    hit, wrong, missed = prediction_against_bench(picked, v)
    vit = v["vit"].interval.mean
    st.markdown(f"**Your prediction against the bench** (on the unseen map, against the lesson's "
                f"ViT at {vit:.0%}, training draw by training draw; Holm-adjusted over the remedies).\n- ✅ Right: {scored(hit, v)}\n"
                f"- ❌ Picked, but not shown better than the lesson's ViT: {scored(wrong, v)}\n- 🤔 Not picked, but "
                f"shown better: {scored(missed, v)}\n\nBetter than the lesson's ViT is not the same as good: a remedy "
                "can beat it and stay at or below chance. The ranking below gives each one's band.")


def what_to_notice(v: dict[str, Verdict], plotted) -> None:
    """Under the open section (its numbers are among them): drawn with it, so opening another tab updates it."""
    st.subheader("What to notice")
    bullets(notes(v, plotted))  # written from the bench's numbers (core: lesson4_fixing_the_vit.notes)


def show(shown: Shown) -> None:
    cfg, result = shown.cfg, shown.result
    st.subheader("Results")
    origin = "precomputed and shipped with the app" if result.origin == "shipped" else "trained on this server"
    st.caption(f"{len(cfg.models)} model(s) × {len(cfg.train.seeds)} seed(s), {cfg.train.epochs} epochs, "
               f"{cfg.data.n_train} training images, " + ("trained at offsets 0-2 within a patch, tested at every other "
               "centre (the phase split)" if cfg.data.phases else "at centres 5..10, tested at 3..4") + f"; {origin}."
               + (f" Its verdicts are over {len({u.data_seed for u in result.replicates})} training draws "
                  f"({len({(u.seed, u.data_seed) for u in result.replicates})} runs a model, shipped beside it); its "
                  "maps and answers over its own seeds." if result.replicates else ""))
    v = bench_verdicts(result)  # on the unseen map: many more places than the test set's 4
    compare(shown.prediction, v)
    with st.expander("How sure is this? Each model's test set, its unseen map, and what it answers"):
        behaviour_table(result, verdicts(result, {m: model_figures.label(m) for m in cfg.models}))
    sections("bench_view", {
        "ranking": ("Ranking and table", lambda: ranking_table(result, v, {m: CARDS[m].group for m in v},
                                                   MEASURE_NAMES["unseen map"])),
        "maps": ("Generalization maps", lambda: maps_grid(cfg, result, v)),
        "data-efficiency": ("Data efficiency", lambda: data_efficiency(cfg)),
        "inside": ("Look inside the models", lambda: look_inside(result, "bench_")),
        "draw": ("Draw your own", lambda: draw_your_own(result, "bench_")),
    }, after=lambda plotted: what_to_notice(v, plotted))
    load_models_ahead(result)  # for the first click into Look inside or Draw your own


def main() -> None:
    intro()
    shown = run_experiment(EXPERIMENT, show, above_form=cards)
    link = share_link()
    if shown.result is not None and shown.revealed:
        st.download_button("Per-seed results (CSV, with the link)", lambda: results_csv(shown.result, link),
                           "vit_remedies_results.csv", "text/csv")  # built when clicked (ui.downloads)
    background(BACKGROUND)
    exercise_panel(PAGE, (revealed_only(shown.store.get),))
    show_source(PostNormViT, RandomShift, RelativePositionBias, ShiftedPatchTokens, diagonal_mask)


main()
