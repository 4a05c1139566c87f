"""The results of a training run (lessons 3 to 5), as page sections: the header with each model's metric
and 95 % interval and the learner's prediction judged, the per-seed table, accuracies and curves, the
generalization maps, the misclassified test images and the downloads. Each takes the run's config and
result; the page decides which to show and where."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd
import streamlit as st

from core.engine.results.behaviour import answers
from core.engine.results.run_result import RunResult, mean_grid, position_grid, summary
from core.engine.results.units import units_of
from core.engine.results.verdict import MEASURE_HOLDS, MEASURE_NAMES, Verdict, margin, phrase, points, verdicts
from core.engine.setting.run_config import GeneralizationConfig
from core.inspect.trained_model import run_data
from core.lessons.model_cards import CARDS
from core.lessons.prediction import Prediction, judged_model
from core.models.model_config import ModelConfig
from core.models.registry import build
from ui.downloads import results_csv, run_json
from ui.draw_your_own import draw_your_own
from ui.figures import image_figures, model_figures
from ui.glossary import STATISTICS_WORDS, term
from ui.look_inside import look_inside
from ui.server_runs import run_id, trains_on_workers
from ui.url_state import named
from ui.widgets import URL, chart, static_table

PREDICTION_WORDS = {"right": "✅ **right**", "possible": "🤔 **not ruled out, not confirmed**: the interval reaches "
                    "into your band", "wrong": "❌ **not what happened**"}


def the_split(cfg: GeneralizationConfig) -> None:
    """The experiment as a picture, before any result: the first two classes (a plus and a circle; two digits)
    at a training centre and at an unseen test centre, as the models see them."""
    d = cfg.data
    kind = d.kind
    seen, unseen = (sum(d.train_range) // 2,) * 2, (d.test_range[0],) * 2
    if d.split:  # a split of one's own: a marked centre of each (its ranges only span them)
        seen, unseen = d.train_positions[len(d.train_positions) // 2], d.test_positions[len(d.test_positions) // 2]
    images, captions = [], []
    for (cx, cy), where, positions in ((seen, "in training", d.train_positions), (unseen, "unseen: test", d.test_positions)):
        for index in (0, 1):
            if kind.place is not None:  # the label is the place: a centre that gives this class
                cx, cy = next(c for c in positions if kind.place(*c, d.img_size) == index)
            images.append(kind.example(d.data_seed, index, cx, cy, d.img_size))
            captions.append(f"{kind.name_of(index)} at ({cx}, {cy})<br>{where}")
    chart(image_figures.image_gallery(
        images, captions, title=(f"Trained on {kind.noun} at {len(d.train_positions)} centres of your own, tested at "
                                 f"{len(d.test_positions)} others" if d.split else
                                 f"Trained on {kind.noun} centred at {d.train_range[0]}..{d.train_range[1]}, tested at "
                                 f"{d.test_range[0]}..{d.test_range[1]}: places never seen in training"),
        table=[{"image": c.replace("<br>", ", ")} for c in captions]), key="the_split")


def results_header(cfg: GeneralizationConfig, result: RunResult, prediction: str | None, asked: Prediction) -> None:
    """The run's origin, its diverged seeds, the learner's ``prediction`` (one of ``asked``'s options) judged
    against the model it is about, and every model's verdict."""
    st.subheader("Results")
    # a shipped run's training time was the machine's that made it, not something the learner waited for
    origin = ("precomputed with this code and shipped with the app (press *Re-run this setting live* to train it "
              "now)" if result.origin == "shipped" else
              f"trained by a training worker in {result.seconds:.1f} s" if trains_on_workers() else
              f"trained on this server in {result.seconds:.1f} s")
    d = cfg.data
    where = ((f"at {len(d.train_positions)} training centres of your own, {d.n_test} test images at "
              f"{len(d.test_positions)} test centres") if d.split else
             (f"at centres {d.train_range[0]}..{d.train_range[1]}, {d.n_test} test images at {d.test_range[0]}.."
              f"{d.test_range[1]}"))
    draws = {u.data_seed for u in result.replicates}
    st.caption(f"Setting: {len(cfg.train.seeds)} seed(s) × {len(cfg.models)} model(s), {d.n_train} training images "
               f"{where}, {cfg.train.epochs} epochs; {origin}."
               + (f" Its verdicts are over {len(draws)} training draws ({len({(u.seed, u.data_seed) for u in result.replicates})} "
                  "runs a model, shipped beside it); its curves, maps and answers over its own seeds."
                  if len(draws) > 1 else ""))
    for r in result.diverged:
        st.error(f"{model_figures.label(r.model)}, seed {r.seed}: training **diverged at epoch {r.diverged_at}** (the loss "
                 "exploded or was not finite), so it has no accuracy. Lower the learning rate.")
    v = verdicts(result, {m: model_figures.label(m) for m in cfg.models})
    m = judged_model(cfg.models, v)
    if m is not None and prediction is not None:
        st.markdown(f"**Your prediction:** {prediction} → {PREDICTION_WORDS[asked.judge(prediction, v[m])]}, judged "
                    f"against {model_figures.label(m)} ({asked.about}).")
    # the first thing read: what each model did, in plain words (the statistics are in the fold-out below)
    st.markdown(" ".join(verdict.text for verdict in v.values()))
    per_row = 3  # more side by side cut every model's name and interval at 1400 px (lesson 5 has seven)
    columns = [col for start in range(0, len(v), per_row) for col in st.columns(per_row)]
    for col, (m, verdict) in zip(columns, v.items(), strict=False):
        iv = verdict.interval
        col.metric(f"{model_figures.label(m)} · {MEASURE_NAMES['test']}", f"{iv.mean:.1%}",
                   delta=f"95 % interval {iv.lo:.0%}–{iv.hi:.0%}", delta_color="off", delta_arrow="off",
                   help=f"{verdict.text} Its {MEASURE_NAMES['test']}: {MEASURE_HOLDS['test']}.")
    with st.expander("How sure is this?"):
        how_sure(result, v)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_answers(cfg: GeneralizationConfig, identity: tuple, model: str, _result: RunResult):
    """``answers`` once per run and model, not on every rerun of the page (the run's identity keys it)."""
    return answers(_result, model)


def how_sure(result: RunResult, v: dict[str, Verdict]) -> None:
    """The statistics behind each verdict (units, interval, band, how it was found), then the behaviour table."""
    for m, verdict in v.items():
        st.markdown(f"**{model_figures.label(m)}.** {verdict.detail}")
    st.caption("The words, each in two sentences: " + ", ".join(term(w) for w in STATISTICS_WORDS) + ".")
    behaviour_table(result, v)


def behaviour_table(result: RunResult, v: dict[str, Verdict]) -> None:
    """Per model: the verdict on the test set, on the unseen map, and what it answered: an accuracy at chance can
    hide one answer given to every image."""
    if not v:  # every seed diverged: nothing was answered
        return
    unseen = verdicts(result, {m: model_figures.label(m) for m in result.config.models}, "unseen map")
    rows = {}
    for m, verdict in v.items():
        said = cached_answers(result.config, run_id(result), m, result)
        u = unseen.get(m)
        rows[model_figures.label(m)] = {
            MEASURE_NAMES["test"]: f"mean {verdict.interval} · {_said(verdict)}",
            MEASURE_NAMES["unseen map"]: "—" if u is None else f"mean {u.interval} · {_said(u)}",
            "what it answers on the notebook's test images": "—" if said is None else said.sentence()}
    static_table(pd.DataFrame.from_dict(rows, orient="index").rename_axis("model"),
                 f"Each model: its {MEASURE_NAMES['test']}, its {MEASURE_NAMES['unseen map']}, and what it answers")
    chance = result.config.data.kind.chance
    st.caption(f"The {MEASURE_NAMES['test']}: {MEASURE_HOLDS['test']}. The {MEASURE_NAMES['unseen map']}: "
               f"{MEASURE_HOLDS['unseen map']}. Each class counts equally, so one answer for every image scores "
               f"chance. *As good as* and *no better than guessing* mean within {points(margin(chance))} (a quarter "
               "of chance, on a 90 % interval); *not yet clear*: the interval reaches beyond it.")


def _said(v: Verdict) -> str:
    return phrase(v.band, v.chance, "best", v.interval is v.best)


def scored_rows(result: RunResult) -> list[dict]:
    """The per-seed rows that have accuracies (a diverged seed has none), or [] after saying so."""
    rows = [asdict(r) for r in result.rows if r.diverged_at is None]
    if not rows:
        st.info("Every seed diverged: there are no accuracies to show.")
    return rows


def per_seed_table(cfg: GeneralizationConfig, result: RunResult) -> None:
    rows = scored_rows(result)
    if not rows:
        return
    models = [m for m in cfg.models if m in summary(result)]
    own = {(u.model, u.seed): u.test for u in units_of(result)}
    for r in rows:
        r["test_set"] = own.get((r["model"], r["seed"]))
    # Static tables (a real HTML <table> for screen readers, no data grid to load: a grid's first draw cost a
    # section more than its charts, docs/performance.md). A lesson's few models: three columns each; more: a row each
    static_table(seeds_by_column(rows, models) if len(models) <= 3 else model_rows(rows, models),
                 "Train and test accuracy of every model and seed")
    draws = {u.data_seed for u in result.replicates}
    st.caption(f"This table is this run's own {len(cfg.train.seeds)} seed(s), one training draw. *{MEASURE_NAMES['test']}*: "
               f"{MEASURE_HOLDS['test']}; *notebook's test*: the notebook's own measure, the share right of its "
               f"{cfg.data.n_test} test images drawn at random (a model that answers one class everywhere scores that "
               "class's share of the draw, not chance)."
               + (f" The metrics and verdicts above are over {len(draws)} training draws "
                  f"({len({(u.seed, u.data_seed) for u in result.replicates})} runs a model)"
                  ", this one among them, so their means can differ from this table's." if len(draws) > 1 else ""))
    st.caption("The same accuracies as bars, with the training curves, are in the next section, "
               "*Accuracy and curves*.")


KINDS = {"train_acc": "train", "test_set": MEASURE_NAMES["test"], "test_acc": "notebook's test"}


def seeds_by_column(rows: list[dict], models: list[str]) -> pd.DataFrame:
    """A row per seed and the mean; a column per (model, measure); as text ("—": none)."""
    table = pd.DataFrame(rows).pivot(index="seed", columns="model", values=list(KINDS))
    table = table.reindex(columns=[(k, m) for m in models for k in KINDS])
    table.index = pd.Index([f"seed {i}" for i in table.index], name="seed")
    table.columns = [f"{model_figures.label(m)} · {KINDS[k]}" for k, m in table.columns]
    table.loc["mean"] = table.mean()
    return table.astype(float).map(lambda a: "—" if np.isnan(a) else f"{a:.1%}")


def model_rows(rows: list[dict], models: list[str]) -> pd.DataFrame:
    """A row per model: mean train accuracy, and each seed's test set and notebook's test accuracy."""
    seeds = {m: sorted((r for r in rows if r["model"] == m), key=lambda r: r["seed"]) for m in models}
    return pd.DataFrame({
        "train (mean)": [f"{np.mean([r['train_acc'] for r in seeds[m]]):.1%}" for m in models],
        f"{MEASURE_NAMES['test']}, each seed": [", ".join(f"{r['test_set']:.0%}" for r in seeds[m]
                                                          if r["test_set"] is not None) for m in models],
        "notebook's test, each seed": [", ".join(f"{r['test_acc']:.0%}" for r in seeds[m]) for m in models],
    }, index=pd.Index([model_figures.label(m) for m in models], name="model"))


def accuracy_and_curves(result: RunResult) -> None:
    rows = scored_rows(result)
    if not rows:
        return
    # side by side for the lesson's few models; a bench's many names need the page's width
    c1, c2 = st.columns(2) if len(result.config.models) <= 3 else (st.container(), st.container())
    chart(model_figures.accuracy_bars(rows, chance=result.config.data.kind.chance), c1)
    curves = [asdict(c) for c in result.curves]
    chart(model_figures.curves_figure(curves, "loss", "Training loss"), c2)
    evaluated = [c for c in curves if c["test_acc"] is not None]
    if evaluated:
        chart(model_figures.curves_figure(evaluated, "test_acc", "Notebook's test accuracy, per epoch"))
    else:
        st.caption("No test accuracy per epoch for this run: it is measured only while the live curve is drawn, "
                   "and this run was precomputed or trained with the curve switched off. Re-run it live with the "
                   "curve on to see how the accuracy at unseen positions moved during training.")


def generalization_maps(cfg: GeneralizationConfig, result: RunResult) -> None:
    kind = cfg.data.kind
    # two classes: a map each; more, or a label that is the place (each centre has one class): one map of every class
    two = len(kind.classes) == 2 and kind.place is None
    st.caption(("Each class" if two else f"Five test images of each of the {len(kind.classes)} classes")
               + " at every centre where it fits, classified by the trained models (mean over seeds; the "
               "number in each cell is the accuracy there). Solid outline: training centres. Dashed: the test "
               f"centres. Blue: right, orange: wrong, white: chance ({kind.chance * 100:.0f} %).")
    centres = list(kind.centres(cfg.data.img_size))
    for m in cfg.models:
        if not any(p.model == m for p in result.position_map):
            continue
        maps = ({kind.name_of(i): position_grid(result, m, c) for i, c in enumerate(kind.classes)} if two
                else {"every class": mean_grid(result, m)})
        for col, (title, grid) in zip(st.columns(2), maps.items(), strict=False):
            chart(model_figures.position_map_figure(grid, centres, cfg.data.train_range, cfg.data.test_range,
                                                    f"{model_figures.label(m)} · {title}", chance=kind.chance,
                                                    trained=model_figures.phase_lattice(cfg.data)), col)


def misclassified(cfg: GeneralizationConfig, result: RunResult, prefix: str = "") -> None:
    c1, c2 = st.columns(2)
    who = named(c1.selectbox, "Model", cfg.models, cfg.models[0], format_func=model_figures.label,
                key=f"{prefix}mis_model", labels="model")
    seed = c2.selectbox("Seed", list(cfg.train.seeds), key=f"{prefix}mis_seed", bind=URL)
    wrong = [p for p in result.test_predictions if p.model == who and p.seed == seed and not p.correct]
    n = sum(1 for p in result.test_predictions if p.model == who and p.seed == seed)
    if not n:
        st.info(f"{model_figures.label(who)}, seed {seed}: no test predictions (training diverged).")
        return
    if not wrong:
        st.success(f"{model_figures.label(who)}, seed {seed}: every one of the {n} test images classified correctly.")
        return
    shown = wrong[:12]
    Xte, name = run_data(cfg.data).Xte, cfg.data.kind.classes  # the test images themselves (real digits too)
    imgs = [Xte[p.index, 0].numpy() for p in shown]
    caps = [f"{name[p.label]} ({p.cx},{p.cy})<br>said {name[p.answer()[0]]}, p {p.answer()[1]:.2f}" for p in shown]
    chart(image_figures.image_gallery(imgs, caps, title=f"{model_figures.label(who)}, seed {seed}: {len(wrong)} of {n} test images "
                               f"wrong ({1 - len(wrong) / n:.1%} right); the first {len(shown)}, with the true class, "
                               "its centre (cx, cy), what the model said and its probability",
                               table=[{"class": name[p.label], "cx": p.cx, "cy": p.cy, "said": name[p.answer()[0]],
                                       "p": round(p.answer()[1], 3)} for p in wrong]))


def downloads(result: RunResult, link: str) -> None:
    """The results as files, in a popover: it draws its buttons only when opened, two widgets fewer on the
    page's first draw (docs/performance.md). Each file is built when clicked (ui.downloads)."""
    box = st.popover("⬇️ Download the results (CSV, JSON)")
    box.caption("Both files carry the link that reopens this experiment.")
    box.download_button("Per-seed results (CSV)", lambda: results_csv(result, link), "vit_vs_cnn_results.csv",
                        "text/csv")
    box.download_button("Config, results, curves and predictions (JSON)", lambda: run_json(result, link),
                        "vit_vs_cnn_run.json", "application/json")


@st.cache_data(show_spinner=False)
def parameters(name: str, model: ModelConfig, img_size: int, outputs: int = 1) -> int:
    """How many parameters the model ``name`` has at these settings."""
    return sum(p.numel() for p in build(name, model, img_size, 0, outputs).parameters())


RANKING = "Each model's accuracy, its interval and verdict, its size and its training time"


def ranking_table(result: RunResult, v: dict[str, Verdict], groups: dict[str, str],
                  measured: str = MEASURE_NAMES["test"]) -> None:
    """Every model ranked by its accuracy at unseen positions (``measured``: what ``v`` measured): a table (with its
    group, verdict, size and time) and the ranking's bars with their 95 % intervals. The table is a static one,
    every row and column in view (``static_table``): a data grid showed a bench of 16 models in a 10-row box and
    hid its last columns at 1400 px and on a phone."""
    cfg = result.config
    s = summary(result)
    seconds = {m: np.mean([r.seconds for r in result.rows if r.model == m]) for m in v}
    table = pd.DataFrame([{
        "model": model_figures.label(m), "group": groups[m], measured: f"{v[m].interval.mean:.1%}",
        "95 % interval": f"{v[m].interval.lo:.0%}–{v[m].interval.hi:.0%}", "verdict": phrase(v[m].band, v[m].chance, "best", v[m].interval is v[m].best),
        "train": f"{s[m].train_mean:.1%}", "parameters": f"{parameters(m, cfg.model, cfg.data.img_size, cfg.data.kind.outputs):,}",
        "seconds per seed": f"{seconds[m]:.1f}"} for m in v]).set_index("model")
    static_table(table, RANKING)
    chart(model_figures.ranking_figure([{"model": m, "mean": x.interval.mean, "lo": x.interval.lo, "hi": x.interval.hi,
                                         "group": groups[m]} for m, x in v.items()],
                                       f"{measured[0].upper()}{measured[1:]}: accuracy, best first (bars: 95 % interval)",
                                       chance=cfg.data.kind.chance))


def maps_grid(cfg: GeneralizationConfig, result: RunResult, v: dict[str, Verdict], columns: int = 4) -> None:
    """Every model's map at one colour scale, in ``columns`` columns read top to bottom (the bench's order). One
    figure per column, not one per model (a chart costs the browser far more than a subplot) and not one for
    all (on a phone Streamlit stacks columns, so each map is as wide as the screen, not a quarter of it)."""
    kind = cfg.data.kind
    st.caption(f"Accuracy at every centre, every class averaged ({kind.label}), mean over seeds (hover for the number; "
               "*Show numbers* in the sidebar lists them). "
               + ("Outlined: each training centre. " if cfg.data.phases or cfg.data.split else
                  "Solid square: training centres; dashed: the test centres. ") +
               f"Blue: right (100 %), orange: wrong (0 %), white: chance ({kind.chance * 100:.0f} %). One colour scale for "
               "every model.")
    grids = {m: mean_grid(result, m) for m in v}
    names = list(grids)
    columns = max(2, min(columns, len(names)))  # two models: two half-width maps, not two quarters and an empty half
    per = -(-len(names) // columns)
    for i, col in enumerate(st.columns(columns)):
        part = {m: grids[m] for m in names[i * per:(i + 1) * per]}
        if part:
            chart(model_figures.maps_grid_figure(part, list(cfg.data.kind.centres(cfg.data.img_size)), cfg.data.train_range,
                                                 cfg.data.test_range, None, cols=1, colorbar=False, chance=kind.chance,
                                                 trained=model_figures.phase_lattice(cfg.data)),
                  col, key=f"maps_grid_{i}")


def model_sections(cfg: GeneralizationConfig, result: RunResult, prefix: str, noun: str = "images",
                   first: str = "ranking") -> dict:
    """The sections of a run of many models (lessons 5 and 6), for ``ui.widgets.sections``: the ranking, every model's
    map, each seed, the curves, the misclassified test ``noun``, *Look inside* and *Draw your own* (their widgets'
    keys start with ``prefix``), the section named ``first`` opening."""
    v = verdicts(result, {m: model_figures.label(m) for m in cfg.models})
    every = {
        "ranking": ("Ranking and table", lambda: ranking_table(result, v, {m: CARDS[m].group for m in v})),
        "maps": ("Generalization maps", lambda: maps_grid(cfg, result, v)),
        "seeds": ("Per-seed results", lambda: per_seed_table(cfg, result)),
        "curves": ("Accuracy and curves", lambda: accuracy_and_curves(result)),
        "misclassified": (f"Misclassified test {noun}", lambda: misclassified(cfg, result, prefix)),
        "inside": ("Look inside the models", lambda: look_inside(result, prefix)),
        "draw": ("Draw your own", lambda: draw_your_own(result, prefix)),
    }
    return {first: every.pop(first), **every}
