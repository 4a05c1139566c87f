"""Lesson 3, "ViT vs CNN": train both at some positions, test at unseen ones. The experiment is the engine's
``run(GeneralizationConfig)`` (``core.engine``); this module holds the lesson's presets (the notebook's setup
and its three exercises), its sweeps, and its exercises, each answered from a run of its preset.

``answer(lookup)`` takes ``lookup(config) -> RunResult | None`` (the page passes its result store), so
the check reads the very numbers the page shows for that preset, shipped or trained on this server.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from core.data.data_config import DataConfig, distinct_training_images
from core.data.shapes import possible_images, valid_centres
from core.engine.results.behaviour import answers, map_regions
from core.engine.results.run_result import RunResult, mean_grid, summary
from core.engine.results.verdict import Verdict, distinct_test_images, verdicts
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig, Sweep, TrainConfig, with_value
from core.lessons.controls import Control
from core.lessons.exercise import Answer
from core.lessons.experiment_parts import FITS, Lookup, PresetExercise, against, phases_control
from core.lessons.model_cards import label
from core.lessons.own_experiment import OWN_CONTROLS
from core.lessons.prediction import Prediction
from core.models.model_config import ATTN_IMPLS, GLOBAL_POOLS, POS_EMBEDS, ModelConfig
from core.models.registry import REGISTRY, spec

# What the learner predicts before the run: the ViT's outcome at the unseen positions, as verdict bands
PREDICTION = Prediction(
    (("≈100 %: near perfect", ("top",)),
     ("clearly above chance, clearly below 100 %", ("between",)),
     ("≈50 % (chance) or worse", ("chance", "below"))),
    about="the lesson's ViT")

# The models the two splits are compared on: the lesson's, the learned and no-position tables, relative bias, the
# CNN, its flatten-head variant and the notebook's MLP
SPLIT_MODELS = ("vit", "cnn", "mlp", "vit-nopos-avg", "vit-learned", "vit-relpos", "cnn-flatten",
                # each family anti-aliased (the same weights, a fixed blur before it subsamples), the ViT with no
                # position table, the CNN with an average pool, and a linear read of the pixels (no shared sampling)
                "vit-blur", "cnn-blurpool", "vit-nopos", "cnn-avg", "linear")
SPLIT_SEEDS = tuple(range(5))

# The position task (issue #49): the phase split's data, each image labelled by where its shape is (the left or right
# half of the canvas) instead of which shape. A ViT with no position table cannot tell where a shape is: beside
# the CNN and the ViTs that can, it shows whether a model uses position at all. (The notebook's split cannot pose
# it: its test centres 3..4 are all in the left half, and DataConfig refuses it.)
POSITION_TASK_DATA = replace(NOTEBOOK_SETUP.data, train_range=(3, 12), phases=(0, 1, 2), dataset="where")
POSITION_TASK_MODELS = ("vit", "cnn", "vit-learned", "vit-relpos", "vit-nopos", "vit-nopos-avg")
TASKS = ("shapes", "where")  # lesson 3's tasks, names in core.data.datasets

PRESETS: dict[str, GeneralizationConfig] = {
    "lesson": NOTEBOOK_SETUP,
    "exercise-1": with_value(NOTEBOOK_SETUP, "data.n_train", 3000),
    "exercise-2": with_value(NOTEBOOK_SETUP, "model.patch_size", 2),
    "exercise-3": replace(NOTEBOOK_SETUP, models=("vit", "cnn", "hybrid")),
    # The notebook's own sentence, "the ViT stands in for the MLP", tested: Lesson 33's flatten MLP beside them
    "mlp": replace(NOTEBOOK_SETUP, models=("vit", "cnn", "mlp")),
    # The splits side by side (shipped): the same models, five seeds, on the notebook's split and on the phase
    # split (trained at offsets 0-2 within a patch anywhere on the canvas, tested at every other centre)
    "splits-notebook": replace(NOTEBOOK_SETUP, models=SPLIT_MODELS, train=replace(NOTEBOOK_SETUP.train, seeds=SPLIT_SEEDS)),
    "splits-phase": replace(NOTEBOOK_SETUP, models=SPLIT_MODELS, train=replace(NOTEBOOK_SETUP.train, seeds=SPLIT_SEEDS),
                            data=replace(NOTEBOOK_SETUP.data, train_range=(3, 12), phases=(0, 1, 2))),
    # The stride-matched split: training at the even offsets, so the held-out odd ones are new for the CNN's stride-2
    # pool as well as for the ViT's 4-pixel patches (offset 3 alone is offset 1 moved by one pool step)
    "splits-odd": replace(NOTEBOOK_SETUP, models=SPLIT_MODELS, train=replace(NOTEBOOK_SETUP.train, seeds=SPLIT_SEEDS),
                          data=replace(NOTEBOOK_SETUP.data, train_range=(3, 12), phases=(0, 2))),
    "position-task": replace(NOTEBOOK_SETUP, models=POSITION_TASK_MODELS, data=POSITION_TASK_DATA,
                             train=replace(NOTEBOOK_SETUP.train, seeds=tuple(range(5)))),
    # Small enough for seconds, big enough to be the lesson: its ViT fits its training set (>= 95 % for
    # every seed) and still fails at unseen positions (tests/engine/test_run.py checks both).
    "tiny": GeneralizationConfig(data=DataConfig(n_train=120, n_test=100), train=TrainConfig(epochs=150),
                                 model=ModelConfig(embed_dim=16, num_heads=2, depth=1)),
}
PRESET_NOTES = {
    "lesson": "The notebook's exact setup: 300 images at centres 5..10, test at 3..4, seeds 0-2.",
    "exercise-1": "Exercise 1: ten times the data (3000 training images) at the same positions.",
    "exercise-2": "Exercise 2: finer 2x2 patches, 64 tokens instead of 16.",
    "exercise-3": "Exercise 3: a hybrid whose transformer reads a small CNN's feature map.",
    "mlp": "Lesson 33's flatten MLP, which the notebook says the ViT stands in for, beside the ViT and the CNN, on "
           "the same split.",
    "splits-notebook": f"{len(SPLIT_MODELS)} models, five seeds, on the notebook's split (shipped): the baseline of the "
                       "phase splits.",
    "splits-phase": "The phase split: the same models trained only at offsets 0-2 within a 4-pixel patch, tested at "
                    "every other centre (shipped).",
    "splits-odd": "The odd split: the same models trained only at the even offsets within a 4-pixel patch, tested at "
                  "every other centre: offsets new for the CNN's stride-2 pool too (shipped).",
    "position-task": "The position task: the phase split's images, each labelled by where its shape is (left or right "
                     "half of the canvas), not which shape. A model that cannot use position can only guess here.",
    "tiny": "A small, fast setting (seconds): a one-layer ViT that still fits its training images and still fails at unseen positions.",
}

# What broke the notebook's ViT: the scale α of its fixed 1-D sin-cos table (values in [-1, 1] at α = 1, added to
# patch tokens about half its size at the start). Shipped for the lesson's ViT (scripts/precompute).
POS_SCALES = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
POS_SCALE_SWEEP = Sweep("model.pos_scale", (0.0, 0.02, 0.1, 0.3, 1.0), "scale α of the fixed position table")
POS_SCALE_SEEDS = 15  # one training draw (the sweep's rows are seeds): 15 decide what 5 cannot


# The data each α sweep runs on: the lesson's task, and the position task (does a table this small still say where?)
POS_SCALE_DATA = {"shapes": NOTEBOOK_SETUP.data, "where": POSITION_TASK_DATA}


def pos_scale_base(dataset: str = "shapes") -> GeneralizationConfig:
    """The α sweep's base: the lesson's ViT alone, the lesson's training, POS_SCALE_SEEDS seeds, on the lesson's data or (``"where"``)
    the position task's."""
    if dataset not in POS_SCALE_DATA:
        raise ValueError(f"the α sweep runs on {list(POS_SCALE_DATA)}, got {dataset!r}")
    return replace(NOTEBOOK_SETUP, models=("vit",), data=POS_SCALE_DATA[dataset],
                   train=replace(NOTEBOOK_SETUP.train, seeds=tuple(range(POS_SCALE_SEEDS))))


SWEEPS: dict[str, Sweep] = {
    "training-set size": Sweep("data.n_train", (100, 300, 1000, 3000), "training images", log_x=True),
    "patch size": Sweep("model.patch_size", (2, 4, 8), "patch size P (pixels)"),
}

CENTRES = valid_centres(NOTEBOOK_SETUP.data.img_size)


CONTROLS: tuple[Control, ...] = (
    Control("models", "models", "Models to train", "multiselect", tuple(REGISTRY), format=label,
            from_config=list, cli_nargs="+"),
    Control("n_train", "data.n_train", "Training images", "slider", bounds=(20, 3000, 20)),
    Control("train_range", "data.train_range", "Training centres (cx and cy)", "slider",
            bounds=(CENTRES[0], CENTRES[-1]), cli_nargs=2, cli_help="inclusive centre range, e.g. 5 10"),
    Control("test_range", "data.test_range", "Test centres (unseen: must not overlap the training centres)", "slider",
            bounds=(CENTRES[0], CENTRES[-1]), cli_nargs=2, cli_help="inclusive centre range, e.g. 3 4"),
    Control("n_test", "data.n_test", "Test images", "slider", bounds=(20, 600, 10)),
    Control("task", "data.dataset", "Task: what the label says", "radio", TASKS,
            format={"shapes": "which shape (the lesson)", "where": "where: left or right half"}.get,
            extra={"horizontal": True},
            cli_help="shapes: plus or circle (the lesson); where: the shape's half of the canvas (needs --phases)",
            help="Which shape: plus or circle, wherever it is (the lesson). Where: the same images, labelled by the "
                 "half of the canvas the shape is in; a model that cannot use position can only guess. The position "
                 "task needs the phase split: the notebook's test centres are all in the left half."),
    phases_control("phases"),
    Control("patch_size", "model.patch_size", "Patch size (ViTs, pixels)", "select_slider", (2, 4, 8, 16),
            help="2 gives 64 tokens per image. 1 (256 tokens) is left out: 16x the attention of patch size 2, beyond "
                 "what one click may cost on a shared server"),
    Control("embed_dim", "model.embed_dim", "Embedding width (ViTs)", "select_slider", (8, 16, 32, 64)),
    Control("num_heads", "model.num_heads", "Heads", "select_slider", (1, 2, 4, 8)),
    Control("depth", "model.depth", "Layers", "slider", bounds=(1, 4)),
    Control("pos_scale", "model.pos_scale", "Position-table scale α (lesson ViT)", "select_slider", POS_SCALES,
            format=lambda a: f"{a:g}" + (" (the notebook's)" if a == 1 else ""),
            cli_help="the lesson ViT's fixed 1-D sin-cos table times this (1: the notebook's; 0: no positions)",
            help="The lesson's ViT adds a fixed sin-cos table (values in [-1, 1]) to patch embeddings that start far "
                 "smaller. α scales the table: 1 is the notebook's, 0 removes it."),
    Control("stem_channels", "model.stem_channels", "Hybrid stem channels", "select_slider", (2, 4, 8, 16),
            cli_help="hybrid only"),
    Control("pos_embed", "model.pos_embed", "Positional encoding (pre-norm ViT)", "selectbox", POS_EMBEDS,
            cli_help="pre-norm ViT only",
            help="Only for the model 'ViT (pre-norm, configurable)'. The lesson's ViT always adds its fixed 1-D sin-cos table "
                 "(times α, the control above)."),
    Control("global_pool", "model.global_pool", "Pooling (pre-norm ViT)", "radio", GLOBAL_POOLS,
            format={"token": "class token", "avg": "mean of patches"}.get, extra={"horizontal": True},
            cli_help="pre-norm ViT only"),
    Control("epochs", "train.epochs", "Epochs (full-batch Adam steps)", "slider", bounds=(10, 400, 10)),
    Control("lr", "train.lr", "Learning rate", "select_slider", (1e-4, 3e-4, 1e-3, 3e-3, 1e-2), format=lambda v: f"{v:g}"),
    Control("seeds", "train.seeds", "Seeds (0, 1, …)", "slider", bounds=(1, 5), to_config=lambda n: tuple(range(n)),
            from_config=len, cli_nargs="+", cli_to_config=tuple, cli_help="the seeds themselves, e.g. 0 1 2"),
)

# Settings the command line offers beyond the form (the page keeps the lesson's): declared like the form's, so
# ``python -m core generalization`` builds its flags from both and no flag is written twice
CLI_CONTROLS: tuple[Control, ...] = (
    Control("image_size", "data.img_size", "Image size (pixels)", "slider", bounds=(8, 64)),
    Control("data_seed", "data.data_seed", "Data seed (the lesson's images: 1)", "slider", bounds=(0, 2**32 - 1)),
    Control("attn_impl", "model.attn_impl", "Attention implementation", "selectbox", ATTN_IMPLS),
    *OWN_CONTROLS,  # your own classes and split: --dataset own --drawings FILE --split FILE
)

def judged_at_unseen(result: RunResult, model: str) -> tuple[Verdict, Verdict]:
    """(the verdict on the unseen map, the verdict on the test set) for ``model``: the map holds many more
    distinct unseen images (the lesson's: 128 against the test set's 8), so it decides; the test set is shown
    beside it."""
    names = {m: label(m) for m in result.config.models}
    return verdicts(result, names, "unseen map")[model], verdicts(result, names)[model]


def _from_run(key: str, question: str, how: str, options: tuple[str, ...], preset: str, who: str, explain: str,
              model: str = "vit", base: str = "lesson") -> PresetExercise:
    """An exercise whose question is "did this change help?": ``model`` in the run of ``preset`` against the
    lesson's ViT (in the run of ``base``: the lesson's preset, or the same run when ``base`` is ``preset``) and
    against that run's CNN, on the unseen map (``experiment_parts.against``); ``options``
    word ``against``'s four outcomes for this question; ``who``: the changed model in words; ``explain``: what the
    result means."""
    def answer(lookup: Lookup) -> Answer:
        result, before = lookup(PRESETS[preset]), lookup(PRESETS[base])
        missing = [p for p, r in ((preset, result), (base, before)) if r is None]
        if missing or model not in summary(result):
            return Answer(None, "The answer is read from the run" + ("s" if len(missing) > 1 else "") + " of "
                                + " and ".join(f"the **{p}** preset" for p in missing or [preset]) + ": run "
                                + ("them" if len(missing) > 1 else "it") + " first (the buttons above), and make "
                                "your prediction for " + ("each" if len(missing) > 1 else "it") + ".")
        new, test = judged_at_unseen(result, model)
        vit, cnn = judged_at_unseen(before, "vit")[0], judged_at_unseen(result, "cnn")[0]
        outcome, decided = against(new.interval, vit.interval, cnn.interval,
                                   (who, f"the lesson's ViT ({_short(vit.interval)})", f"the CNN ({_short(cnn.interval)})"),
                                   base_same_run=base == preset)
        return Answer(outcome, f"On the unseen map the {who} scored {new.interval}. {decided} On the test set "
                               f"alone: {test.interval} ({test.interval.outcomes}). {explain}")

    return PresetExercise(key, question, how, options, answer, preset=preset, model=model)


def _short(iv) -> str:
    return f"{iv.mean:.1%}, 95 % interval {iv.lo:.0%}–{iv.hi:.0%}"


def _distinct_note(cfg: GeneralizationConfig) -> str:
    d, lesson = cfg.data, PRESETS["lesson"].data
    return (f"Its {d.n_train} images held **{distinct_training_images(d)} distinct** ones, against "
            f"{distinct_training_images(lesson)} among {lesson.n_train}: an image is fixed by its shape and centre, so "
            "more draws at the same centres repeat the same images and show the model nothing it had not seen.")


EXERCISES: tuple[PresetExercise, ...] = (
    _from_run("more-data", "Ten times the training data (3000 images) at the same positions: does the ViT's "
              "accuracy at unseen positions improve substantially, partially, or not at all?",
              "Press *Fill the form with exercise-1*, then *Run*, and read the ViT's accuracy on the unseen map "
              "(the generalization map) beside the lesson's run.",
              ("Substantially: as good as the CNN", "Partially: better than the lesson's ViT, still below the CNN",
               "Not at all: not shown better than the lesson's ViT (a small gain is not ruled out)",
               "Better than the lesson's ViT; whether it reaches the CNN, can't tell yet"),
              "exercise-1", "ViT trained on 3000 images", _distinct_note(PRESETS["exercise-1"])),
    _from_run("finer-patches", "Patch size 4 → 2 (finer patches, 64 tokens): does the ViT generalize better to "
              "unseen positions, or is the failure unrelated to patch resolution?",
              "Press *Fill the form with exercise-2*, then *Run*, and read the ViT's accuracy on the unseen map, "
              "unit by unit, beside the lesson's run.",
              ("Finer patches close the gap: as good as the CNN", "Better than 4×4 patches, still below the CNN",
               "No better than 4×4 patches: unrelated to patch resolution",
               "Better than 4×4 patches; whether it reaches the CNN, can't tell yet"),
              "exercise-2", "ViT with 2×2 patches", "One explanation, not tested here: each token holds a smaller piece of a stroke, and those "
              "pieces occur at the training positions too. Read the units: whether a seed generalizes can hang on its "
              "initial weights."),
    _from_run("hybrid", "A hybrid: the transformer reads a small CNN's feature map instead of raw patches. Does "
              "that bring back the CNN's generalization?",
              "Press *Fill the form with exercise-3*, then *Run*, and compare the hybrid with both.",
              ("Yes: as good as the CNN", "Part way: better than the ViT, still below the CNN",
               "No: not shown better than the ViT", "Better than the ViT; whether it reaches the CNN, can't tell yet"),
              "exercise-3", "hybrid", "Its convolutions respond alike wherever a stroke is, but their map is then cut into "
              "patches and given the same fixed position table as the lesson's ViT. Whether pooling is what the CNN "
              "has and the hybrid lacks is lesson 4's question: there the ViT with a *learned* table and a class token "
              "(no pooling) and the ViT reading a mean or a max over its patches are tested side by side.",
              model="hybrid", base="exercise-3"),
)


# ---------------------------------------------------------------- what to notice, written from the run's numbers
SEEDS_DISAGREE = 0.2  # test accuracies of one model's seeds further apart than this are called out
FALLS_OFF = 0.9  # a model's mean accuracy over every position below this: its map shows where it falls off

_distinct = lru_cache(maxsize=64)(distinct_training_images)  # a frozen DataConfig: cheap to key, pure


ASYMMETRY = 0.1  # a gap this large between "only x new" and "only y new" on the map is called out


def model_notes(result: RunResult) -> list[str]:
    """One note per model: what it scored at unseen positions, said no more strongly than the interval allows,
    and what it answered."""
    names = {m: label(m) for m in result.config.models}
    v, s = verdicts(result, names), summary(result)
    unseen = verdicts(result, names, "unseen map")
    notes = []
    for m, verdict in v.items():
        fit = "fit its training positions" if s[m].train_mean >= FITS else "**did not fit its training positions**"
        note = f"{verdict.text} It {fit} ({s[m].train_mean:.1%} train)."
        if m in unseen:
            note += f" {unseen[m].text}"
        if (said := answers(result, m)) is not None:  # test predictions are kept for the run's own seeds
            note += f" On this run's own {len(result.config.train.seeds)} seed(s) it {said.sentence()}."
        if s[m].train_mean < FITS:
            note += " A model that has not learned the task says nothing about generalization: more epochs first."
        values = [score for _, score in verdict.interval.scores]
        if len(values) > 1 and max(values) - min(values) > SEEDS_DISAGREE:
            note += (f" Its runs disagree ({min(values):.0%} to {max(values):.0%}): whether a run generalizes can "
                     "hang on its initial weights, its training draw, and even on the last digit of a sum (another "
                     "computer can land a seed elsewhere). The mean hides that: read each run's score.")
        notes.append(note)
    return notes


def asymmetry_note(result: RunResult, model: str) -> str | None:
    """Where the map shows a model right when only the horizontal position is new and wrong when the vertical
    one is (or the reverse), by more than ASYMMETRY: the mark of a 1-D position table in raster order."""
    if result.config.data.kind.place is not None:  # the position task's label is cx's half: x and y differ by design
        return None
    parts = map_regions(result, model)
    x_new, y_new = parts.get("only x new"), parts.get("only y new")
    if x_new is None or y_new is None or abs(x_new - y_new) <= ASYMMETRY:
        return None
    return (f"On the map the {label(model)} is right {x_new:.0%} where only the horizontal position is new and "
            f"{y_new:.0%} where only the vertical one is ({parts.get('both new', float('nan')):.0%} where both are). "
            "That is what a 1-D table numbered row by row predicts: one patch sideways moves a token's position "
            "code one step, one patch down moves it a whole row. Lesson 4's ViT with a 2-D table is the check.")


def notes(result: RunResult) -> list[str]:
    """What to notice in a run of this lesson: each model's verdict and answers, what the training set really
    holds, and where on the map each model is right."""
    cfg = result.config
    out = model_notes(result)
    d, ex1 = cfg.data, PRESETS["exercise-1"].data
    where = (f"its {len(d.train_positions)} training positions allow {d.kind.patterns() * len(d.train_positions)}"
             if d.phases else f"centres {d.train_range[0]}..{d.train_range[1]} allow {possible_images(d.train_range)}")
    out.append(f"The {d.n_train} training images hold only **{_distinct(d)} distinct** ones: an image is fixed by "
               f"its shape and centre, and {where}. More images at the same positions only repeat them (exercise 1: "
               f"{ex1.n_train} images, {_distinct(ex1)} distinct). The notebook's test likewise draws {d.n_test} "
               f"images from **{distinct_test_images(d)} distinct** ones; the lab's test set scores each of those "
               "once, every class weighted equally, so a model that answers one class everywhere scores chance, and "
               "what varies is the seed and the training draw. The unseen map holds many more images, at many more "
               "places.")
    if cfg.model.patch_size == 2 and any(spec(m).transformer for m in cfg.models):
        out.append("With 2×2 patches each token holds a smaller piece of a stroke, and the same pieces occur at the "
                   "training positions: one reason exercise 2 can work, not tested here. How often it works is the "
                   "question the seeds answer.")
    scored = summary(result)
    out += [n for m in cfg.models if m in scored and (n := asymmetry_note(result, m))]
    falls_off = [m for m in cfg.models if m in scored and np.nanmean(mean_grid(result, m)) < FALLS_OFF]
    if falls_off:
        out.append("In the generalization map, look where accuracy falls off for "
                   + ", ".join(label(m) for m in falls_off) + ": at the training centres (the solid outline) it is high; "
                   "elsewhere, read each cell's colour and the answers above: a model at 50 % there may be giving "
                   "one answer to every image, not guessing.")
    return out
