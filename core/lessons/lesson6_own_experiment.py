"""Your own experiment: lesson 3's question asked of the learner's own classes, trained where they choose and tested
everywhere else they mark. The engine is lesson 3's (``run(GeneralizationConfig)``); only the data differ: the
dataset ``own`` (``core/data/own_dataset.py``), whose classes are ``DataConfig.own_classes``, and a split of one's
own (``DataConfig.split``). The page's form is this module's ``CONTROLS``; its classes and split are two of them,
held as their link texts, which the page's editor and painter set (``ui/own_classes_editor.py``,
``ui/split_painter.py``). The command line reads the same texts or files (``core/lessons/own_experiment.py``).

An editor's state that is no setting yet (an empty class, two classes alike, a split with no test centre) is held
as ``DRAFT`` + the sentence that refuses it: the form's setting is then refused with that sentence, never run with
the last good one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from core.data.data_config import DataConfig, make_data
from core.data.datasets import dataset
from core.data.own_classes import DEFAULT_CLASSES, OwnClass, decode_classes, encode_classes
from core.data.own_dataset import centres_tested
from core.data.own_split import SPLIT_PRESETS, Split, decode_split, encode_split
from core.engine.results.run_result import RunResult
from core.engine.results.verdict import ABOVE_CHANCE, Verdict, margin, verdicts
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig
from core.inspect.census import InkBaseline, ink_baseline
from core.lessons.controls import Control
from core.lessons.exercise import Answer, Exercise
from core.lessons.experiment_parts import FITS, FORM_SEEDS, first_seeds
from core.lessons.model_cards import label
from core.lessons.prediction import Prediction
from core.lessons.split_moves import split_moves
from core.models.registry import REGISTRY

DRAFT = "!"  # an editor's state that is no setting: DRAFT + the sentence that refuses it


def undrafted(text: str) -> str:
    """``text``, or the sentence of a draft raised as the ValueError that refuses the form's setting."""
    if isinstance(text, str) and text.startswith(DRAFT):
        raise ValueError(text[len(DRAFT):])
    return text


def classes_text(text: str) -> str:
    """The form's classes (their link text), read and written again: a text that is no setting is refused here."""
    return encode_classes(decode_classes(undrafted(text)))


def split_of(text: str) -> tuple:
    """The form's split (its link text) as ``DataConfig.split`` holds it."""
    return tuple(decode_split(undrafted(text)))


def split_text(split: tuple) -> str:
    """``DataConfig.split`` as its link text (the form's value)."""
    return encode_split(Split(*split))


def preset_split(name: str, classes_text: str, img_size: int = 16) -> str:
    """The split preset ``name`` (``own_split.SPLIT_PRESETS``) over the centres where the classes fit, as link text."""
    kind = dataset("own").with_classes(classes_text)
    return encode_split(SPLIT_PRESETS[name](kind.centres(img_size)))


def _classes(*classes: OwnClass) -> str:
    return encode_classes(classes)


# Two mirror images: the same ink, the same strokes, only their arrangement differs (the ink count cannot tell them)
L_SHAPE = ("#....", "#....", "#....", "#....", "#####")
MIRRORED_L = tuple(row[::-1] for row in L_SHAPE)

LESSON_CLASSES = _classes(*DEFAULT_CLASSES)
CLASS_PRESETS: dict[str, str] = {
    "plus vs circle": LESSON_CLASSES,
    "3 vs 8": _classes(OwnClass("three", digit=3), OwnClass("eight", digit=8)),
    "L vs mirrored L": _classes(OwnClass("L", (L_SHAPE,)), OwnClass("mirrored L", (MIRRORED_L,))),
}

BASE = GeneralizationConfig(
    models=("vit", "cnn"),
    data=DataConfig(dataset="own", own_classes=LESSON_CLASSES,
                    split=split_of(preset_split("notebook", LESSON_CLASSES)), n_train=300, n_test=150),
    # five seeds, as lesson 5's runs: fewer leave most verdicts open
    train=replace(NOTEBOOK_SETUP.train, seeds=first_seeds(5)))


def _preset(classes: str, split: str, models: tuple[str, ...] = BASE.models) -> GeneralizationConfig:
    return replace(BASE, models=models,
                   data=replace(BASE.data, own_classes=classes, split=split_of(preset_split(split, classes))))


PRESETS: dict[str, GeneralizationConfig] = {
    "the lesson's shapes": BASE,
    "3 vs 8, phase split": _preset(CLASS_PRESETS["3 vs 8"], "phase"),
    "mirrored Ls, checkerboard": _preset(CLASS_PRESETS["L vs mirrored L"], "checkerboard"),
}
PRESET_NOTES = {
    "the lesson's shapes": "The lesson's plus and circle, drawn as your own classes, at the notebook's centres (5..10, "
                           "tested at 3..4) as a split of your own: other draws than lesson 3's, so other numbers.",
    "3 vs 8, phase split": "Every shipped scan of a 3 and of an 8, trained at offsets 0-2 within a 4-pixel patch and "
                           "tested at every other centre.",
    "mirrored Ls, checkerboard": "An L and its mirror image (the same ink), trained on one colour of a checkerboard of "
                                 "centres and tested on the other.",
}

CONTROLS: tuple[Control, ...] = (
    Control("own_classes", "data.own_classes", "Your classes", "text", to_config=classes_text,
            help="Set by the class editor above the form; in the link as its text (c1.…)"),
    Control("own_split", "data.split", "Your split", "text", to_config=split_of, from_config=split_text,
            help="Painted on the map above the form; in the link as its text (s1.…)"),
    Control("own_models", "models", "Models to train", "multiselect", tuple(REGISTRY), format=label, from_config=list),
    Control("own_n_train", "data.n_train", "Training images", "slider", bounds=(20, 3000, 20)),
    Control("own_n_test", "data.n_test", "Test images", "slider", bounds=(20, 600, 10)),
    Control("own_patch_size", "model.patch_size", "Patch size (ViTs, pixels)", "select_slider", (2, 4, 8)),
    Control("own_epochs", "train.epochs", "Epochs (full-batch Adam steps)", "slider", bounds=(10, 400, 10)),
    Control("own_seeds", "train.seeds", "Seeds (0, 1, …)", "slider", bounds=(1, FORM_SEEDS), to_config=first_seeds,
            from_config=len),
)

def command_words(cfg: GeneralizationConfig) -> list[str]:
    """The command that trains ``cfg`` from the command line (the same config: the same numbers), word by word."""
    d, t = cfg.data, cfg.train
    return ["python", "-m", "core", "generalization", "--dataset", "own", "--drawings", d.own_classes, "--split",
            split_text(d.split), "--models", *cfg.models, "--n-train", str(d.n_train), "--n-test", str(d.n_test),
            "--patch-size", str(cfg.model.patch_size), "--epochs", str(t.epochs), "--seeds", *map(str, t.seeds)]


# What the learner predicts before the run: the lesson's ViT at their test centres, against chance and the best model
PREDICTION = Prediction(
    (("Near the best model's accuracy", ("top",)),
     ("Clearly above chance, clearly below the best", ("between",)),
     ("At chance, or below it", ("chance", "below"))),
    about="the lesson's ViT")


# ---------------------------------------------------------------- the exercises, checked from the learner's own run
# "Shown above chance": the verdict's 95 % interval excludes chance from above. Its negation includes "can't tell
# yet": with a handful of seeds the lab's intervals rarely show a model *at* chance (docs/statistics.md), so the
# exercises ask what the run shows, and say so.
def _shown_above(v: Verdict) -> bool:
    return v.band in ABOVE_CHANCE


NEED_RUN = Answer(None, "Run your own setting first (the form above), and make your prediction.")


def cnn_not_vit(current: Callable[[], RunResult | None]) -> Answer:
    """Which of the lesson's CNN and ViT the run shows above chance at its test centres, from their verdicts."""
    result = current()
    if result is None:
        return NEED_RUN
    v = verdicts(result, {m: label(m) for m in result.config.models})
    if "vit" not in v or "cnn" not in v:
        return Answer(None, "This exercise reads the lesson's ViT and CNN: add both to *Models to train*, then Run.")
    cnn, vit = _shown_above(v["cnn"]), _shown_above(v["vit"])
    correct = 0 if cnn and not vit else 1 if cnn else 3 if vit else 2
    said = f"{v['cnn'].text} {v['vit'].text}"
    if correct == 0:
        return Answer(0, f"{said} Found: at your test centres the run shows the CNN above chance and not the ViT.")
    # only a run that shows it answers the exercise: a run that does not is no answer to "find", whatever is picked
    return Answer(None, f"{said} Not found in this run: change the classes, or test where the ViT's patches meet "
                        "your shapes at offsets its training centres never had (the map above the form colours them).")


def _ink(result: RunResult) -> InkBaseline | None:
    data = make_data(result.config.data)  # the run's own images, drawn again
    return ink_baseline(data.Xtr, data.ytr, data.Xte, data.yte, result.config.data.kind.classes)


def _commonest_share(result: RunResult) -> float:
    labels = make_data(result.config.data).yte.long()
    return float(labels.bincount().max()) / len(labels)


def ink_cannot(current: Callable[[], RunResult | None]) -> Answer:
    """The ink-count baseline on the run's test images against chance, and whether the run shows a model above it."""
    result = current()
    if result is None:
        return NEED_RUN
    ink = _ink(result)
    if ink is None:
        return Answer(None, "The ink count is a two-class baseline: draw two classes.")
    chance = result.config.data.kind.chance
    v = verdicts(result, {m: label(m) for m in result.config.models})
    above = [m for m, x in v.items() if _shown_above(x)]
    # one exact score, against what answering the test set's commonest class scores (chance on a balanced test
    # set), within the verdicts' margin
    floor = max(chance, _commonest_share(result))
    at_chance = ink.accuracy <= floor + margin(chance)
    said = (f"The total ink alone scores {ink.accuracy:.0%} on your test images (the commonest class alone: "
            f"{floor:.0%}; up to {margin(chance):.0%} above that counts as at chance). Shown above chance: "
            + (", ".join(label(m) for m in above) if above else "no model") + ".")
    if not (at_chance and above):  # not found: no answer to "draw …", whatever is picked
        return Answer(None, f"{said} Not found in this run: give both classes the same number of inked pixels, and "
                            "shapes a model can still tell apart.")
    return Answer(0, said)


EXERCISES: tuple[Exercise, ...] = (
    Exercise("cnn-not-vit", "Find two classes that the run shows the CNN telling apart at your test centres, and not "
             "the lesson's ViT. In your last run…",
             "Draw or pick two classes, paint a split, Run with the ViT and the CNN, and read their verdicts.",
             ("the CNN is shown above chance, the ViT is not (found)", "both are shown above chance",
              "neither is shown above chance", "the ViT is shown above chance, the CNN is not"), cnn_not_vit),
    Exercise("ink", "Draw two classes the total ink alone cannot tell apart, that a model still can. In your last "
             "run…",
             "Give both classes the same number of inked pixels (the preset *mirrored Ls* does), Run, and compare the "
             "ink count's score in *What to notice* with the models' verdicts.",
             ("the ink count is at chance and a model is shown above chance (found)",
              "the ink count is at chance, and no model is shown above chance",
              "the ink count is above chance, and no model is shown above chance",
              "the ink count is above chance, and a model is shown above chance too"), ink_cannot),
)


# ---------------------------------------------------------------- what to notice, written from the run's numbers
def notes(result: RunResult) -> list[str]:
    """What to notice in a run of the learner's own: each model's verdict on their test set, what their split asks
    of each model, what the draws leave out, models that did not fit their training images, and the ink count."""
    cfg = result.config
    d, kind = cfg.data, cfg.data.kind
    labels = {m: label(m) for m in cfg.models}
    v = verdicts(result, labels)
    k, n_centres = len(kind.classes), len(d.test_positions)
    tested = centres_tested(d.n_test, n_centres, k)
    where = (f"every class at each of your {n_centres} test centres" if d.n_test >= k * n_centres else
             f"{tested} of your {n_centres} test centres (fewer images than centres × classes)")
    out = [f"Chance is {kind.chance * 100:.0f} % ({k} classes). The verdicts' test set is every class at each of your "
           f"{n_centres} test centres once; the run's own test draw, {d.n_test} images, holds {where}, the classes "
           "balanced. " + " ".join(x.text for x in v.values())]
    out += [m.sentence() for m in split_moves(cfg)]
    if d.n_train < k * len(d.train_positions):
        out.append(f"Your {d.n_train} training images cannot hold every class at each of your "
                   f"{len(d.train_positions)} training centres ({k * len(d.train_positions)} pairs): some centre marked "
                   "for training holds no training image of some class.")
    if any(c.digit is not None for c in decode_classes(d.own_classes)):
        out.append("A digit class's test scans are never its training scans: even where a model's grid lines up as at "
                   "a training centre, the test image is a new scan.")
    rows = [r for r in result.rows if r.train_acc is not None]
    unfit = sorted({labels[r.model] for r in rows if r.train_acc < FITS})
    if unfit:
        out.append(f"**Did not fit every training image** (below {FITS:.0%} at some seed): {', '.join(unfit)}. A test "
                   "score then mixes what it could not learn with what it could not carry: more epochs first.")
    ink = _ink(result)
    if ink is not None:
        out.append(f"The total ink of an image alone (one threshold chosen on the training images) scores "
                   f"{ink.accuracy:.0%} on your test images: a classifier that ignores where and how the ink lies.")
    return out
