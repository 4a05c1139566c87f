"""Lesson 5, "Real handwriting": lesson 3's experiment on real images. A handwritten digit (the UCI digits,
``core/data/digits.py``) is placed on a 16×16 canvas at a centre; the models train at centres 6..12 and are
tested at 4..5, never seen in training, on digits never seen in training either (the split is by image as well
as by position). Ten classes, and the two-class 0 vs 1 that matches lesson 3's plus vs circle.

The engine is lesson 3's (``run(GeneralizationConfig)``): only the config's ``data.dataset`` differs. The
models are lesson 3's ViT and CNN and four of lesson 4's remedies (random shifts,
2-D and relative positions, no positions with a mean pool), with the CNN whose head is a flatten + linear layer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.data.data_config import DataConfig, make_data
from core.engine.results.behaviour import split_structure
from core.engine.results.run_result import RunResult, mean_grid, summary
from core.engine.results.verdict import BANDS, CHANCE, Verdict, difference, margin, paired, points, verdicts
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig, TrainConfig
from core.inspect.census import ink_baseline
from core.lessons.controls import Control
from core.lessons.exercise import Answer
from core.lessons.experiment_parts import (
    FITS,
    FORM_SEEDS,
    OPTIONS,
    OUTCOME,
    Lookup,
    PresetExercise,
    compared,
    first_seeds,
    from_full_run,
    on_bench,
    phases_control,
)
from core.lessons.model_cards import BENCH as BENCH_MODELS
from core.lessons.model_cards import label
from core.lessons.prediction import Prediction
from core.lessons.why_below_chance import ink_baseline_notes
from core.models.registry import spec

# What the learner predicts before the run: the ViT's outcome at the unseen positions, as verdict bands
PREDICTION = Prediction(
    (("Near the best model's accuracy", ("top",)),
     ("Clearly above chance, clearly below the best", ("between",)),
     ("At chance, or below it", ("chance", "below"))),
    about="the lesson's ViT")

MODELS = ("vit", "cnn", "vit-shift", "vit-nopos-avg", "vit-sincos2d", "vit-relpos", "cnn-flatten")
REMEDIES = ("vit-shift", "vit-nopos-avg", "vit-sincos2d", "vit-relpos")
SEEDS = (0, 1, 2, 3, 4)
TASKS = ("digits", "digits-0-1")  # names in core.data.datasets
DIGITS = GeneralizationConfig(
    models=MODELS, data=DataConfig(dataset="digits", n_train=1000, train_range=(6, 12), n_test=500, test_range=(4, 5)),
    train=TrainConfig(NOTEBOOK_SETUP.train.epochs, NOTEBOOK_SETUP.train.lr, SEEDS))
PRESETS: dict[str, GeneralizationConfig] = {
    "ten digits": DIGITS,
    # lesson 3's sizes (300 training and 150 test images) on two classes: the toy's task on real images
    "0 vs 1": replace(DIGITS, data=replace(DIGITS.data, dataset="digits-0-1", n_train=300, n_test=150)),
    # within one click's cap: what a learner can re-run live (tens of seconds)
    "small": replace(DIGITS, models=("vit", "cnn"), train=replace(DIGITS.train, seeds=(0, 1))),
}
PRESET_NOTES = {
    "ten digits": "The lesson's setting: ten digits, 1000 training images at centres 6..12, 500 test images at 4..5, "
                  "7 models × 5 seeds (shipped).",
    "0 vs 1": "Two classes, as lesson 3: 300 training images of 0s and 1s, 150 test images (shipped).",
    "small": "The ViT and the CNN on ten digits, 2 seeds: small enough to re-run live.",
}
CENTRES = (4, 20)  # every centre a digit can have on the largest canvas (24x24); a smaller canvas refuses more
CONTROLS: tuple[Control, ...] = (
    Control("digits_task", "data.dataset", "Task", "radio", TASKS, flag_name="--task",
            format={"digits": "ten digits (0–9)", "digits-0-1": "two digits (0 vs 1)"}.get, extra={"horizontal": True}),
    Control("digits_models", "models", "Models", "multiselect", BENCH_MODELS, format=label,
            from_config=list, to_config=on_bench, cli_nargs="+", flag_name="--models",
            cli_help="default: the ViT, the CNN and the remedies that worked on shapes"),
    Control("digits_n_train", "data.n_train", "Training images", "slider", bounds=(100, 3000, 100), flag_name="--n-train"),
    Control("digits_train_range", "data.train_range", "Training centres (cx and cy)", "slider", bounds=CENTRES,
            cli_nargs=2, flag_name="--train-range", cli_help="inclusive centre range, e.g. 6 12"),
    Control("digits_test_range", "data.test_range", "Test centres (unseen)", "slider", bounds=CENTRES, cli_nargs=2,
            flag_name="--test-range", cli_help="inclusive centre range, e.g. 4 5"),
    phases_control("digits_phases", "--phases"),  # lesson 3's phase split, on real digits
    Control("digits_n_test", "data.n_test", "Test images", "slider", bounds=(50, 1000, 50), flag_name="--n-test"),
    Control("digits_canvas", "data.img_size", "Canvas (pixels a side)", "select_slider", (16, 24), flag_name="--canvas",
            help="A digit is 8×8: on 16×16 its centre can be 4..12, on 24×24 4..20 (and the ViTs see 36 patches)"),
    Control("digits_epochs", "train.epochs", "Epochs (full-batch Adam steps)", "slider", bounds=(50, 400, 10),
            flag_name="--epochs"),
    Control("digits_seeds", "train.seeds", "Seeds (0, 1, …)", "slider", bounds=(1, FORM_SEEDS), to_config=first_seeds,
            from_config=len, flag_name="--seeds", cli_help=f"seeds 0..N-1 (default {len(SEEDS)})"),
)


def lookup_in(lookup: Lookup, cfg: GeneralizationConfig) -> RunResult | None:
    """The result for ``cfg``, or its models' part of a stored run of every model of the lesson (same data, seeds
    and epochs): a selection of the shipped run trains nothing."""
    return from_full_run(lookup, cfg, MODELS)


# ---------------------------------------------------------------- seen and unseen, read from the map
@dataclass(frozen=True)
class SeenUnseen:
    seen: float  # mean map accuracy at the training centres (test digits: never trained on)
    unseen: float  # at the test centres


def seen_unseen(result: RunResult, model: str) -> SeenUnseen:
    """A model's map accuracy at the training centres and at the test centres, every class, mean over seeds: how
    much of its test score is lost to the digits themselves, and how much to their position."""
    d = result.config.data
    index = {c: i for i, c in enumerate(d.kind.centres(d.img_size))}
    grid = mean_grid(result, model)

    def at(positions) -> float:
        return float(np.nanmean([grid[index[cy], index[cx]] for cx, cy in positions]))

    return SeenUnseen(at(d.train_positions), at(d.test_positions))


# ---------------------------------------------------------------- exercises, answered from the shipped runs
def _run(lookup: Lookup, preset: str) -> tuple[RunResult | None, dict[str, Verdict]]:
    result = lookup_in(lookup, PRESETS[preset])
    return result, ({} if result is None else verdicts(result, {m: label(m) for m in result.config.models}))


def _missing(preset: str) -> Answer:
    return Answer(None, f"The answer is read from the **{preset}** run: pick that preset, press *Run*, and make your "
                        "prediction for it (or skip it).")


def ten_digits_vit(lookup: Lookup) -> Answer:
    result, v = _run(lookup, "ten digits")
    if result is None or "vit" not in v or "cnn" not in v:
        return _missing("ten digits")
    s, cnn = seen_unseen(result, "vit"), seen_unseen(result, "cnn")
    return Answer(OUTCOME[v["vit"].band], (
        f"{v['vit'].text} The CNN: {v['cnn'].interval}. Chance is 10 %. The "
        f"map separates the two things a test digit can be new in: the ViT gets {s.seen:.0%} of new digits right "
        f"at the *training* centres and {s.unseen:.0%} at the test centres (the CNN: {cnn.seen:.0%} and "
        f"{cnn.unseen:.0%}). The first number is what new scans cost it (new scans by the same 13 writers); the drop "
        "to the second, what a new position costs."))


def two_digits_vs_shapes(lookup: Lookup) -> Answer:
    result, v = _run(lookup, "0 vs 1")
    shapes = lookup(NOTEBOOK_SETUP)
    if result is None or "vit" not in v:
        return _missing("0 vs 1")
    if shapes is None:
        return Answer(None, "The answer also reads lesson 3's run: open lesson 3, and make your prediction there (or skip it).")
    toy = verdicts(shapes, measure="unseen map")["vit"].interval
    mine = verdicts(result, measure="unseen map")["vit"].interval
    d, lo, hi = difference(mine, toy)
    correct = compared(mine, toy, result.config.data.kind.chance, same_run=False)
    return Answer(correct, (
        f"On the unseen map: 0 vs 1 on real digits, the ViT scored {mine}; plus vs circle in lesson "
        f"3, {toy}. The difference is {d * 100:+.0f} points (95 % interval {lo * 100:+.0f} to {hi * 100:+.0f}): "
        + {0: "better. ", 1: f"as good, within {points(margin(0.5))}. ", 2: "worse. ",
           3: "can't tell yet: the interval holds both a gain and a loss. "}[correct]
        + "One explanation, not tested here: a 0 and a 1 differ in how much ink there is and how wide it spreads, "
        "which a patch's contents show wherever it sits, while a plus and a circle of one size share most pixels."))


def best_remedy(lookup: Lookup) -> Answer:
    result, v = _run(lookup, "ten digits")
    shown = [m for m in REMEDIES if m in v]
    if result is None or len(shown) < len(REMEDIES):
        return _missing("ten digits")
    best = max(shown, key=lambda m: v[m].interval.mean)
    ranked = "; ".join(f"{label(m)} {v[m].interval}" for m in sorted(shown, key=lambda m: -v[m].interval.mean))
    fit = summary(result)
    unfit = [f"{label(m)} ({fit[m].train_mean:.0%} train)" for m in shown if fit[m].train_mean < FITS]
    below = "cnn" in v and all(paired(v[m].interval, v["cnn"].interval)[2] < 0 for m in shown)
    return Answer(REMEDIES.index(best), (
        f"On the test set of ten digits: {ranked}. The CNN: {v['cnn'].interval}."
        + (" Every remedy is below the CNN (each difference's interval lies below 0)." if below else "")
        + (f" Not judged fairly yet, since they did not fit their own training images: {', '.join(unfit)}."
           if unfit else "")))


DIGIT_OPTIONS = ("Better than on plus vs circle", f"As good (within {points(margin(CHANCE))} of it)", "Worse than on plus vs circle",
                 "Can't tell yet")
EXERCISES: tuple[PresetExercise, ...] = (  # each answered from its preset's run (``preset``)
    PresetExercise("ten-digits", "Ten digits, tested at centres never seen in training: the lesson's ViT is…",
                   "Pick the preset *ten digits* (the default) and compare the ViT's metric with the CNN's and with "
                   "chance (10 %).", OPTIONS, ten_digits_vit, preset="ten digits"),
    PresetExercise("zero-vs-one", "Two classes, 0 vs 1, as lesson 3 has two: on the unseen map the ViT does…",
                   "Pick the preset *0 vs 1* and compare the ViT's accuracy on the unseen map with lesson "
                   "3's.", DIGIT_OPTIONS,
                   two_digits_vs_shapes, preset="0 vs 1"),
    PresetExercise("best-remedy", "On ten digits, which change to the ViT does best on the test set?",
                   "On *ten digits*, read the ranking.", tuple(label(m) for m in REMEDIES), best_remedy,
                   preset="ten digits"),
)


# ---------------------------------------------------------------- what to notice, written from the run's numbers
def notes(result: RunResult, shapes: RunResult | None = None) -> list[str]:
    """What to notice in a run of this lesson: each model's verdict, how much of a test digit's newness is its
    handwriting and how much its position, which remedies helped, and (``shapes``: lesson 3's run) where real
    digits differ from the toy."""
    cfg = result.config
    labels = {m: label(m) for m in cfg.models}
    v = verdicts(result, labels)
    out = [f"Chance is {cfg.data.kind.chance * 100:.0f} % ({len(cfg.data.kind.classes)} classes). "
           + " ".join(f"{labels[m]}: {x.interval}." for m, x in v.items())]
    unfit = {m: s.train_mean for m, s in summary(result).items() if m in v and s.train_mean < FITS}
    if unfit:
        out.append("**Did not fit its own training images** in " + f"{cfg.train.epochs} epochs: "
                   + ", ".join(f"{labels[m]} ({acc:.0%} train)" for m, acc in unfit.items())
                   + ". A test score then mixes what the model could not learn with what it could not carry to new places: "
                   "more epochs (or a larger learning rate) before judging it.")
    out.append(split_structure(cfg.data, cfg.model.patch_size).sentence(cfg.data)
               + " The same structure as lesson 3's split: lesson 3's *What broke the ViT?* tests it.")
    splits = {m: seen_unseen(result, m) for m in v}
    out.append("Test digits at the **training** centres against the **test** centres (the map; every test digit is a scan "
               "the models never trained on, by the same 13 writers): " + "; ".join(f"{labels[m]} {s.seen:.0%} → {s.unseen:.0%}" for m, s in splits.items())
               + ". The first number is what new scans cost; the drop to the second is what a new position costs.")
    best = max(v, key=lambda m: v[m].interval.mean)
    by_band = {band: [m for m in REMEDIES if m in v and v[m].band == band and m not in unfit] for band in BANDS}
    if by_band["top"]:
        out.append(f"Remedies close to the best ({labels[best]}, within {points(margin(cfg.data.kind.chance))}): "
                   + ", ".join(f"**{labels[m]}** {v[m].interval.mean:.0%}" for m in by_band["top"]) + ".")
    if by_band["between"]:
        out.append(f"Remedies above chance but below the best ({labels[best]} {v[best].interval.mean:.0%}): "
                   + ", ".join(f"**{labels[m]}** {v[m].interval.mean:.0%}" for m in by_band["between"])
                   + ". Lesson 4 shows each of them on shapes.")
    if by_band["chance"] + by_band["below"]:
        out.append("**No better than guessing here**: " + ", ".join(labels[m] for m in by_band["chance"] + by_band["below"])
                   + ".")
    if by_band["unclear"] + by_band["above"]:
        out.append("**Not yet clear**: " + ", ".join(f"{labels[m]} {v[m].interval}"
                                                    for m in by_band["unclear"] + by_band["above"]) + ".")
    cnns = [m for m in v if not spec(m).transformer and v[m].band == "between"]
    if cnns:
        out.append("A CNN below the best: " + ", ".join(f"**{labels[m]}** {v[m].interval}" for m in cnns)
                   + ". A flatten head has a weight for every position of its last feature map.")
    if shapes is not None and "vit" in v:
        toy = verdicts(shapes, measure="unseen map").get("vit")
        mine = verdicts(result, measure="unseen map").get("vit")
        if toy is not None and mine is not None:
            said = (f"Against the toy, on the unseen map: lesson 3's ViT scored {toy.interval} on "
                    f"plus vs circle (chance 50 %); here {mine.interval} (chance {cfg.data.kind.chance * 100:.0f} %).")
            if len(cfg.data.kind.classes) == 2:
                said += " " + ("Better than on the toy.", f"As good, within {points(margin(0.5))}.",
                               "Worse than on the toy.", "Can't tell yet which is higher.")[
                    compared(mine.interval, toy.interval, same_run=False)]
            out.append(said)
    out += ink_count_notes(result)
    return out


def ink_count_notes(result: RunResult) -> list[str]:
    """What one position-free feature scores here: an image's total ink, thresholded on the training images (two
    classes only: one threshold splits two), beside each model's mean test accuracy on the same test images."""
    classes = result.config.data.kind.classes
    if len(classes) != 2:
        return []
    data = make_data(result.config.data)
    ink = ink_baseline(data.Xtr, data.ytr, data.Xte, data.yte, classes)
    return ink_baseline_notes(ink, {m: s.test_mean for m, s in summary(result).items()})

