"""Lesson 4, "Fixing the ViT": what each remedy changes, why it should help, where it comes from, and the
bench that tests them all on the lesson's split (train at centres 5..10, test at 3..4).

Each remedy is declared once in ``core/models/remedies.py`` (its model, its card, its place on the bench);
this module holds the bench's settings and the lesson's exercises. The
papers measured their remedies on their own data (ImageNet, CIFAR, Tiny-ImageNet), never on a split
whose test positions the training set never held: that is what the bench adds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from core.engine.run_config import LESSON, GeneralizationConfig, Sweep, TrainConfig
from core.engine.verdict import Verdict, verdicts
from core.lessons.exercise import Answer, Exercise
from core.lessons.lesson3_vit_vs_cnn import OPTIONS, OUTCOME, Lookup
from core.models.registry import spec
from core.models.remedies import CARDS

# The bench: every remedy, five seeds, on the lesson's data split
SEEDS = (0, 1, 2, 3, 4)
BENCH = replace(LESSON, models=tuple(CARDS), train=TrainConfig(LESSON.train.epochs, LESSON.train.lr, SEEDS))
# The data-efficiency view: from one training position to every centre from 5 to 12 (test stays 3..4)
POSITION_RANGES = ((5, 5), (5, 6), (5, 8), (5, 10), (5, 12))
POSITIONS_SWEEP = Sweep("data.train_range", POSITION_RANGES, "distinct training positions (cx, cy)", log_x=True)
# The models the data-efficiency view ships with (three seeds: 5 ranges x 3 models x 3 seeds = 45 runs)
POSITIONS_MODELS, POSITIONS_SEEDS = ("vit", "cnn", "vit-shift"), 3


def positions(train_range: tuple[int, int]) -> int:
    """Distinct training centres (cx, cy) a range allows."""
    lo, hi = train_range
    return (hi - lo + 1) ** 2


def bench(models: tuple[str, ...] | None = None, seeds: int = len(SEEDS)) -> GeneralizationConfig:
    """The bench's config for some of its models (default all) and the first ``seeds`` seeds."""
    chosen = BENCH.models if models is None else tuple(models)
    unknown = [m for m in chosen if m not in CARDS]
    if unknown:
        raise ValueError(f"not on the bench: {unknown}; choose from {list(CARDS)}")
    if not 1 <= seeds <= 10:
        raise ValueError(f"seeds must be in 1..10, got {seeds}")
    return replace(BENCH, models=chosen, train=replace(BENCH.train, seeds=tuple(range(seeds))))


def positions_base(models: tuple[str, ...] = POSITIONS_MODELS, seeds: int = POSITIONS_SEEDS) -> GeneralizationConfig:
    """The data-efficiency view's base config: the bench for ``models``, re-run at each training range."""
    return bench(models, seeds)


# ---------------------------------------------------------------- lesson 4's exercises, answered from the bench's run
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
