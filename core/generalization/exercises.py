"""Lesson 3's exercises, the notebook's three, each answered from a run of its preset; and lesson 4's,
answered from the remedy bench's run.

``answer(lookup)`` takes ``lookup(config) -> RunResult | None`` (the page passes its result store), so
the check reads the very numbers the page shows for that preset, shipped or trained on this server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.exercises import Answer, Exercise
from core.generalization.config import PRESETS, GeneralizationConfig
from core.generalization.data import distinct_training_images
from core.generalization.models import spec
from core.generalization.remedies import BENCH
from core.generalization.results import RunResult
from core.generalization.verdict import Verdict, verdicts

Lookup = Callable[[GeneralizationConfig], "RunResult | None"]
# every lesson-3 exercise offers the same three outcomes, in this order, mapped from the verdict's band
OUTCOME = {"top": 0, "between": 1, "chance": 2, "below": 2}


@dataclass(frozen=True)
class PresetExercise(Exercise):
    preset: str = "lesson"  # the preset that answers it (the page offers a button to run it)
    model: str = "vit"  # the model the question is about


def _seeds(result: RunResult, model: str) -> str:
    return ", ".join(f"seed {r.seed} {r.test_acc:.0%}" for r in result.rows if r.model == model and r.test_acc is not None)


def _from_run(key: str, question: str, how: str, preset: str, explain: Callable[[Verdict, RunResult], str],
              model: str = "vit") -> PresetExercise:
    """An exercise answered by the verdict on ``model`` in the run of ``preset``, explained by ``explain``."""
    def answer(lookup: Lookup) -> Answer:
        result = lookup(PRESETS[preset])
        verdict = None if result is None else verdicts(result, {"cnn": spec("cnn").label}).get(model)
        if verdict is None:
            return Answer(None, f"Run the **{preset}** preset first (the button above): the answer is read from its "
                                "result.")
        return Answer(OUTCOME[verdict.band], explain(verdict, result))

    return PresetExercise(key, question, how, OPTIONS, answer, preset=preset, model=model)


def more_data(v: Verdict, result: RunResult) -> str:
    d, lesson = result.config.data, PRESETS["lesson"].data
    return (f"The ViT scored {v.text} ({_seeds(result, 'vit')}). Ten times the images bought "
            f"almost nothing new: {d.n_train} images at centres {d.train_range[0]}..{d.train_range[1]} hold "
            f"**{distinct_training_images(d)} distinct** ones, against {distinct_training_images(lesson)} among "
            f"{lesson.n_train}. More copies of the same positions cannot teach a model about other positions: a "
            "ViT needs *new positions* (or augmentation that shifts the shapes), not more of the same.")


def finer_patches(v: Verdict, result: RunResult) -> str:
    return (f"With 2×2 patches the ViT scored {v.text} ({_seeds(result, 'vit')}). Finer "
            "patches help here: each token now holds a small piece of a stroke, and the same pieces occur at "
            "the training positions, so the tokens' *contents* can tell a plus from a circle wherever it sits. "
            "But look at the seeds: the result is fragile. Whether a seed trains at all can hang on float "
            "rounding: the notebook's own loop leaves one of these seeds near chance when it runs on two "
            "threads and matches this page on one (README, *Exercise 2 and \"identical\"*). Three seeds cannot "
            "pin the mean down; add seeds before concluding.")


def hybrid(v: Verdict, result: RunResult) -> str:
    return (f"The hybrid scored {v.text} ({_seeds(result, 'hybrid')}). Its convolutions "
            "respond the same wherever a stroke is, but their feature map is then cut into patches, given a "
            "position table and read by a class token: nothing pools over positions, so where the shape was "
            "still reaches the classifier. The CNN's **global max pool** is what throws position away; a "
            "convolutional stem alone does not.")


OPTIONS = ("Substantially: as good as the CNN", "Partially: above chance, below the CNN",
           "Not at all: not distinguishable from chance")
EXERCISES: tuple[PresetExercise, ...] = (
    _from_run("more-data", "Ten times the training data (3000 images) at the same positions: does the ViT's "
              "accuracy at unseen positions improve substantially, partially, or not at all?",
              "Press *Fill the form with exercise-1*, then *Run*, and read the ViT's test accuracy.",
              "exercise-1", more_data),
    _from_run("finer-patches", "Patch size 4 → 2 (finer patches, 64 tokens): does the ViT generalize better to "
              "unseen positions, or is the failure unrelated to patch resolution?",
              "Press *Fill the form with exercise-2*, then *Run*, and read the ViT's test accuracy, seed by seed.",
              "exercise-2", finer_patches),
    _from_run("hybrid", "A hybrid: the transformer reads a small CNN's feature map instead of raw patches. Does "
              "that bring back the CNN's generalization?",
              "Press *Fill the form with exercise-3*, then *Run*, and compare the hybrid with both.",
              "exercise-3", hybrid, model="hybrid"),
)


# ---------------------------------------------------------------- lesson 4: the remedy bench
def _from_bench(key: str, question: str, how: str, options: tuple[str, ...],
                decide: Callable[[dict[str, Verdict]], tuple[int, str]]) -> Exercise:
    """An exercise answered from the bench's run (``remedies.BENCH``: shipped, or trained on this server)."""
    def answer(lookup: Lookup) -> Answer:
        result = lookup(BENCH)
        if result is None:
            return Answer(None, "The bench's result is not on this server yet: press *Run* with every model selected.")
        return Answer(*decide(verdicts(result, {m: spec(m).label for m in result.config.models})))

    return Exercise(key, question, how, options, answer)


def learned_table(v: dict[str, Verdict]) -> tuple[int, str]:
    a, b = v["vit-learned"].interval, v["vit"].interval
    correct = 1 if a.overlaps(b) else 0 if a.mean > b.mean else 2
    return correct, (f"Learned table {a} against the lesson's 1-D sin-cos table {b}. The learned table starts near "
                     "zero (0.02 × random), so at first nothing in a token says where it is, and training gives the "
                     "positions only what the task needs; the fixed 1-D table adds values of size 1 that differ for "
                     "every patch, including patches whose contents the model never saw there.")


def flatten_head(v: dict[str, Verdict]) -> tuple[int, str]:
    verdict = v["cnn-flatten"]
    return OUTCOME[verdict.band], (f"The CNN with a flatten + linear head scored {verdict.text} (the lesson's CNN: "
                                   f"{v['cnn'].interval}). Its head has a weight for every position of the last "
                                   "feature map, so where a feature fired reaches the classifier: convolution "
                                   "alone is not what made the lesson's CNN generalize, its global max pool is.")


def overlapping(v: dict[str, Verdict]) -> tuple[int, str]:
    verdict = v["vit-overlap"]
    return OUTCOME[verdict.band], (f"Overlapping patches scored {verdict.text}. Each token sees more of its "
                                   "neighbours, but the 1-D position table is still added to every token, and "
                                   "still differs at positions never trained: what a token sees is not the "
                                   "problem here, where it is said to be is.")


BENCH_OPTIONS = ("Better than the 1-D table", "No different (the intervals overlap)", "Worse than the 1-D table")
CNN_OPTIONS = ("As good as the lesson's CNN", "Above chance, below the lesson's CNN",
               "Not distinguishable from chance")
REMEDY_EXERCISES: tuple[Exercise, ...] = (
    _from_bench("learned-table", "Replace the lesson's fixed 1-D sin-cos table with a learned one. At the unseen "
                "centres, the learned table does…", "Find *ViT, learned positions* and *ViT (lesson)* in the "
                "ranking: compare their intervals.", BENCH_OPTIONS, learned_table),
    _from_bench("flatten-head", "Replace the CNN's global max pool with a flatten + linear head. At the unseen "
                "centres the CNN is…", "Find *CNN, flatten + linear head* in the ranking and in the maps.",
                CNN_OPTIONS, flatten_head),
    _from_bench("overlap", "Overlapping patches: do they restore the ViT at the unseen centres?",
                "Find *ViT, overlapping patches* in the ranking.", OPTIONS, overlapping),
)
