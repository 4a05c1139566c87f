"""Lesson 3's "What broke the ViT?" section: the notebook's conclusion tested by the split's structure, the
position table's scale (the shipped α sweep, predict first) and the shift test (forward passes of the run's own
models). Every sentence comes from ``core.lessons.what_broke``, written from the numbers drawn here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.engine.results.behaviour import split_structure
from core.engine.results.run_result import RunResult
from core.engine.results.verdict import verdicts
from core.inspect.census import census
from core.inspect.equivariance import shift_consistency, shift_responses
from core.inspect.position_scale import bias_rms, scales
from core.inspect.trained_model import run_data, shared_model, untrained_model
from core.lessons.lesson3_vit_vs_cnn import POS_SCALE_SEEDS, PRESETS, pos_scale_base
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.what_broke import (
    alike_notes,
    answers_changed,
    by_region,
    held_out_words,
    region_notes,
    scale_notes,
    scale_points,
    shift_notes,
    split_notes,
    split_rows,
    stride_notes,
    stride_rows,
    tradeoff_notes,
)
from core.lessons.why_below_chance import notes as census_notes
from ui.figures import model_figures
from ui.glossary import term
from ui.prediction_gate import predict_before
from ui.server_runs import run_id
from ui.widgets import bullets, chart, static_table

ALPHA_OPTIONS = ("Near chance, as at α = 1", "Clearly above chance", "Clearly below chance")
STRIDE_OPTIONS = ("Both families drop, and the blur brings each back", "Only the ViTs drop",
                  "Only the CNNs drop", "Neither drops")
SPLIT_OPTIONS = ("Both stay near their whole-patch accuracy", "The CNN holds, the ViT drops",
                 "The ViT holds, the CNN drops", "Both drop")


@st.cache_data(show_spinner=False, max_entries=8)
def _shifts(cfg, identity: tuple, seed: int, _result: RunResult) -> list:
    return shift_responses(_result, seed)


@st.cache_data(show_spinner=False, max_entries=8)
def _consistency(cfg, identity: tuple, _result: RunResult) -> pd.DataFrame:
    """Each model's shift consistency (the share of answers unchanged by a 1-pixel move), per phase of its own
    stride, over its seeds and both axes, as text."""
    got: dict[tuple[str, int], dict[int, list[float]]] = {}
    for r in shift_consistency(_result):
        if r.same is not None:
            got.setdefault((r.model, r.stride), {}).setdefault(r.phase, []).extend([r.same] * r.pairs)
    return pd.DataFrame([{"model": f"{model_figures.label(m)} (stride {s})",
                          **{f"offset {k}→{(k + 1) % s}": f"{np.mean(v):.0%}" for k, v in sorted(phases.items())}}
                         for (m, s), phases in got.items()]).set_index("model").fillna("")


@st.cache_data(show_spinner=False, max_entries=8)
def _census_notes(cfg, identity: tuple, _result: RunResult) -> list[str]:
    accuracies = {r.model: float(np.mean([q.test_acc for q in _result.rows if q.model == r.model]))
                  for r in _result.rows if r.test_acc is not None}
    try:
        return census_notes(census(_result), accuracies, cfg.data.kind.chance)
    except ValueError:  # no patch-based model in the run: nothing is cut into patches
        return []


@st.cache_data(show_spinner=False, max_entries=8)
def _scales(cfg, identity: tuple, seed: int, _result: RunResult) -> list[dict]:
    images = run_data(cfg.data).Xte
    rows = []
    for name in cfg.models:
        if f"{name}/{seed}" not in _result.weights:
            continue
        for when, model in (("at the start", untrained_model(_result, name, seed)),
                            ("after training", shared_model(_result, name, seed))):
            s, bias = scales(model, images), bias_rms(model)
            if s is not None and (s.table is not None or bias is not None):
                rows.append({"model": model_figures.label(name), "when": when, "inked patch token": f"{s.inked:.2f}",
                             "blank patch token": f"{s.blank:.2f}",
                             "table row": "—" if s.table is None else f"{s.table:.2f}",
                             "table / inked token": "—" if s.ratio is None else f"{s.ratio:.1f}×",
                             "attention bias (RMS)": "—" if bias is None else f"{bias:.3f}"})
    return rows


def what_broke(result: RunResult, lookup) -> None:
    """The section: ``result`` is the run on screen; ``lookup`` finds the shipped bench (for the learned table)."""
    cfg = result.config
    d, P = cfg.data, cfg.model.patch_size
    st.markdown(f"{term('the notebook', 'The notebook')} concludes that its ViT fails at new positions because it "
                f"lacks the CNN's built-in {term('translation invariance')}. Three measurements test that conclusion.")
    st.markdown("**1 · What the test asks.** " + split_structure(d, P).sentence(d))

    st.markdown(f"**2 · The position table's size.** The lesson's ViT adds a fixed 1-D sin-cos table to its patch "
                "tokens. The sweep below trained it again at several scales α of that table, nothing else changed, "
                f"{POS_SCALE_SEEDS} {term('seed', 'seeds')} each.")
    if predict_before("alpha", "Predict: at α = 0.02 (a table 50 times smaller), the lesson's ViT at the unseen "
                 "test centres will score…", ALPHA_OPTIONS, "Show the sweep without predicting"):
        points = scale_points()
        if points is None:
            st.info("The α sweep did not come with this copy of the lab, and this page does not train it.")
        else:
            chart(model_figures.scale_figure([p.alpha for p in points], [p.interval.mean for p in points],
                                             [p.interval.lo for p in points], [p.interval.hi for p in points],
                                             [p.seeds for p in points],
                                             "The lesson's ViT at the unseen test centres, by the scale α of its table"))
            bench = lookup(BENCH)
            learned = None if bench is None else verdicts(bench).get("vit-learned")
            bullets(scale_notes(points, None if learned is None else learned.interval, d.kind.chance))
            where = scale_points("where")
            if where:
                by = {p.alpha: p for p in where}
                both = [p for p in points if p.alpha in by]
                chart(model_figures.tradeoff_figure([p.alpha for p in both], [p.interval for p in both],
                                                    [by[p.alpha].interval for p in both],
                                                    f"Which shape against where: the same ViT at each α, {len(points[0].seeds)} seeds"))
                bullets(tradeoff_notes(points, where, d.kind.chance, pos_scale_base("where").train.epochs))
        rows = _scales(cfg, run_id(result), cfg.train.seeds[0], result)
        if rows:
            st.markdown(f"Why the size could matter: the norms of the tokens and of the table's rows (seed "
                        f"{cfg.train.seeds[0]}, on the test images), for each model with a table.")
            static_table(pd.DataFrame(rows).set_index("model"), "Patch tokens against the position table")

    st.markdown(f"**3 · Moves by a pixel and by a patch.** Every model of this run answers the map's images, then "
                f"the same images moved right by 1 pixel and by {P} (one patch): forward passes only "
                f"({term('translation equivariance')}).")
    seed = cfg.train.seeds[0]
    responses = _shifts(cfg, run_id(result), seed, result)
    changed = answers_changed(responses, P)  # the figure and the notes read the same shares
    if changed:
        chart(model_figures.shift_figure(list(changed), [a for a, _ in changed.values()],
                                         [b for _, b in changed.values()], P,
                                         f"Answers changed by a move to the right (seed {seed})"))
    bullets(shift_notes(responses, P))
    consistency = _consistency(cfg, run_id(result), result)
    if not consistency.empty:
        st.markdown("*Shift consistency* (Zhang 2019): how often a model's answer stays the same when an image moves "
                    "by one pixel, from each offset within the model's own sampling stride to the next (every seed, "
                    "both axes, the map's images).")
        static_table(consistency, "Answers unchanged by a 1-pixel move, by offset within the stride")

    st.markdown(f"**4 · A move by part of a patch.** The notebook's test asks only for whole-patch moves. The *phase "
                f"split* trains {len(PRESETS['splits-phase'].models)} models only at centres whose offset within a "
                "4-pixel patch is 0, 1 or 2, anywhere on the canvas, and tests at every other centre: most of those "
                f"sit at offset 3, a move by part of a patch. Five {term('seed', 'seeds')} each, shipped with the app.")
    notebook, phase = lookup(PRESETS["splits-notebook"]), lookup(PRESETS["splits-phase"])
    if notebook is None or phase is None:
        st.info("The two splits' runs did not come with this copy of the lab: pick their presets above "
                "(*splits-notebook*, *splits-phase*) and press Run to train them.")
        return
    if not predict_before("split", "Predict: at offsets never trained, the lesson's CNN and the ViT without any "
                     "position table will…", SPLIT_OPTIONS, "Show the two splits without predicting"):
        return
    rows = split_rows(notebook, phase)
    chart(model_figures.split_figure([r.model for r in rows], [r.whole for r in rows], [r.part for r in rows],
                                     "Accuracy at whole-patch moves and at new offsets"))
    bullets(split_notes(rows, notebook.config.data, phase.config.data) + alike_notes(phase, "phase split"))
    sizes = _scales(phase.config, run_id(phase), phase.config.train.seeds[0], phase)
    if sizes:
        st.markdown(f"Are the position codes used there? Each table's rows and each relative bias, at the start and "
                    f"after training on the phase split (seed {phase.config.train.seeds[0]}, on its test images): a "
                    "code that stays near where it started leaves the model answering as one with no positions.")
        static_table(pd.DataFrame(sizes).set_index("model"), "Position tables and biases on the phase split")
    new_for_whom(phase, lookup(PRESETS["splits-odd"]))


def new_for_whom(phase: RunResult, odd: RunResult | None) -> None:
    """Part 5: the held-out offsets against each model's own sampling stride, with and without a blur."""
    st.markdown(f"**5 · New for whom?** A ViT samples its image every {phase.config.model.patch_size} pixels (its "
                "patches); the CNN every 2 (its max pool). Offset 3 is new for the first, but for the second it is "
                "offset 1 moved by one pool step. The *odd split* holds out offsets 1 and 3: new for both. Each "
                f"family also comes {term('anti-aliasing', 'anti-aliased')}: a fixed blur before it subsamples, the "
                "same weights otherwise.")
    if odd is None:
        st.info("The odd split's run did not come with this copy of the lab: pick its preset above (*splits-odd*) "
                "and press Run to train it.")
        return
    if not predict_before("stride", "Predict: with the odd offsets held out (new for both strides), the ViT, the CNN "
                          "and their blurred twins…", STRIDE_OPTIONS, "Show both phase splits without predicting"):
        return
    runs = [stride_rows(phase), stride_rows(odd)]
    models = [r.model for r in runs[1] if r.model in {q.model for q in runs[0]}]
    by = [{r.model: r for r in rows} for rows in runs]
    names = [f"{model_figures.label(m)} (stride {by[1][m].stride})" for m in models]
    series = tuple(f"{held_out_words(rows[0].held_out)} held out" for rows in runs)
    chart(model_figures.split_figure(models, [by[0][m].accuracy for m in models], [by[1][m].accuracy for m in models],
                                     "Accuracy at the held-out offsets, by each model's sampling stride",
                                     phase.config.data.kind.chance, series,
                                     [n.replace(" (stride", "<br>(stride") for n in names]))  # two lines: a phone's plot keeps its width
    table = pd.DataFrame([{"model": n, **{f"{s}: new for its stride?": "yes" if b[m].new else "no"
                                          for s, b in zip(series, by, strict=True)}}
                          for m, n in zip(models, names, strict=True)]).set_index("model")
    static_table(table, "Which held-out offsets are new for which model")
    bullets(stride_notes(runs, phase.config.data.kind.chance))
    regions = by_region(odd)
    st.markdown(f"Where on the odd split each model fails: its held-out centres by which coordinates are new "
                f"(the range over its {len(odd.config.train.seeds)} seeds).")
    static_table(pd.DataFrame([{"model": model_figures.label(m), **{r: f"{round(100 * min(v))}–{round(100 * max(v))} %"
                                                                    for r, v in rs.items()}}
                               for m, rs in regions.items()]).set_index("model"),
                 "Accuracy on the odd split by region of the held-out centres")
    bullets(region_notes(odd))

    st.markdown("**6 · Why below chance?** On the phase split the lesson's ViT mostly gives the *other* shape's "
                "answer. What the test images offer a model that reads patches without their place, counted:")
    bullets(_census_notes(phase.config, run_id(phase), phase))
