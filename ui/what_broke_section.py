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
from core.inspect.equivariance import shift_responses
from core.inspect.position_scale import scales
from core.inspect.trained_model import run_data, shared_model, untrained_model
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.what_broke import scale_notes, scale_points, shift_notes, split_notes, split_rows
from ui.figures import model_figures
from ui.glossary import term
from ui.prediction_gate import predict_before
from ui.server_runs import run_id
from ui.widgets import bullets, chart, static_table

ALPHA_OPTIONS = ("Near chance, as at α = 1", "Clearly above chance", "Clearly below chance")
SPLIT_OPTIONS = ("Both stay near their whole-patch accuracy", "The CNN holds, the ViT drops",
                 "The ViT holds, the CNN drops", "Both drop")


@st.cache_data(show_spinner=False, max_entries=8)
def _shifts(cfg, identity: tuple, seed: int, _result: RunResult) -> list:
    return shift_responses(_result, seed)


@st.cache_data(show_spinner=False, max_entries=8)
def _scales(cfg, identity: tuple, seed: int, _result: RunResult) -> list[dict]:
    images = run_data(cfg.data).Xte
    rows = []
    for name in cfg.models:
        if f"{name}/{seed}" not in _result.weights:
            continue
        for when, model in (("at the start", untrained_model(_result, name, seed)),
                            ("after training", shared_model(_result, name, seed))):
            s = scales(model, images)
            if s is not None and s.table is not None:
                rows.append({"model": model_figures.label(name), "when": when, "inked patch token": f"{s.inked:.2f}",
                             "blank patch token": f"{s.blank:.2f}", "table row": f"{s.table:.2f}",
                             "table / inked token": f"{s.ratio:.1f}×"})
    return rows


def what_broke(result: RunResult, lookup) -> None:
    """The section: ``result`` is the run on screen; ``lookup`` finds the shipped bench (for the learned table)."""
    cfg = result.config
    d, P = cfg.data, cfg.model.patch_size
    st.markdown("The notebook concludes that its ViT fails at new positions because it lacks the CNN's built-in "
                f"{term('translation invariance')}. Three measurements test that conclusion.")
    st.markdown("**1 · What the test asks.** " + split_structure(d, P).sentence(d))

    st.markdown(f"**2 · The position table's size.** The lesson's ViT adds a fixed 1-D sin-cos table to its patch "
                "tokens. The sweep below trained it again at several scales α of that table, nothing else changed, "
                f"five {term('seed', 'seeds')} each.")
    if predict_before("alpha", "Predict: at α = 0.02 (a table 50 times smaller), the lesson's ViT at the unseen "
                 "test centres will score…", ALPHA_OPTIONS, "Show the sweep without predicting"):
        points = scale_points()
        if points is None:
            st.info("The α sweep is not shipped with this version: `python -m scripts.precompute pos-scale` makes it.")
        else:
            chart(model_figures.scale_figure([p.alpha for p in points], [p.interval.mean for p in points],
                                             [p.interval.lo for p in points], [p.interval.hi for p in points],
                                             [p.seeds for p in points],
                                             "The lesson's ViT at the unseen test centres, by the scale α of its table"))
            bench = lookup(BENCH)
            learned = None if bench is None else verdicts(bench).get("vit-learned")
            bullets(scale_notes(points, None if learned is None else learned.interval, d.kind.chance))
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
    trained = [r for r in responses if r.trained and r.axis == "x"]
    models = list(dict.fromkeys(r.model for r in trained))
    if models:
        one = [float(np.mean([r.answer_changed for r in trained if r.model == m and r.pixels == 1])) for m in models]
        patch = [float(np.mean([r.answer_changed for r in trained if r.model == m and r.pixels == P])) for m in models]
        chart(model_figures.shift_figure(models, one, patch, P, f"Answers changed by a move to the right (seed {seed})"))
    bullets(shift_notes(responses, P))

    st.markdown(f"**4 · A move by part of a patch.** The notebook's test asks only for whole-patch moves. The *phase "
                "split* trains the same seven models only at centres whose offset within a 4-pixel patch is 0, 1 or "
                "2, anywhere on the canvas, and tests at every other centre: most of those sit at offset 3, a move "
                f"by part of a patch. Five {term('seed', 'seeds')} each, shipped with the app.")
    notebook, phase = lookup(PRESETS["splits-notebook"]), lookup(PRESETS["splits-phase"])
    if notebook is None or phase is None:
        st.info("The two splits' runs are not on this server: `python -m scripts.precompute splits-notebook "
                "splits-phase` makes them, or pick their presets above and press Run.")
        return
    if not predict_before("split", "Predict: at offsets never trained, the lesson's CNN and the ViT without any "
                     "position table will…", SPLIT_OPTIONS, "Show the two splits without predicting"):
        return
    rows = split_rows(notebook, phase)
    chart(model_figures.split_figure([r.model for r in rows], [r.whole for r in rows], [r.part for r in rows],
                                     "Accuracy at whole-patch moves and at new offsets, five seeds each"))
    bullets(split_notes(rows, notebook.config.data, phase.config.data))
