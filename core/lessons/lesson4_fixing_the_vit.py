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

import numpy as np

from core.engine.results.run_result import RunResult
from core.engine.results.verdict import (
    ABOVE_CHANCE,
    BANDS,
    CHANCE,
    Verdict,
    holm,
    margin,
    paired,
    pct,
    points,
    sign_test,
    verdicts,
    wins_and_losses,
)
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig, Sweep, TrainConfig
from core.lessons.controls import Control
from core.lessons.exercise import Answer, Exercise
from core.lessons.experiment_parts import (
    FORM_SEEDS,
    Lookup,
    against,
    compared,
    first_seeds,
    from_full_run,
    on_bench,
    versus,
)
from core.lessons.model_cards import BENCH as BENCH_MODELS
from core.lessons.model_cards import CARDS, label
from core.models.registry import spec

# The bench: every remedy, five seeds, on the lesson's data split
SEEDS = (0, 1, 2, 3, 4)
BENCH = replace(NOTEBOOK_SETUP, models=BENCH_MODELS, train=TrainConfig(NOTEBOOK_SETUP.train.epochs, NOTEBOOK_SETUP.train.lr, SEEDS))
# The same bench on lesson 3's phase split (trained at offsets 0-2 within a patch, tested at every other centre):
# which remedies carry a shape to an offset within a patch never trained? Shipped beside the bench.
PHASE_DATA = replace(NOTEBOOK_SETUP.data, train_range=(3, 12), phases=(0, 1, 2))
BENCH_PHASE = replace(BENCH, data=PHASE_DATA)
SPLITS = {"notebook": NOTEBOOK_SETUP.data, "phase": PHASE_DATA}  # the bench's split, by name


def split_name(d) -> str:
    return "phase" if d.phases else "notebook"


def split_data(name: str) -> dict:
    """The data settings of the split called ``name``, as a config's JSON holds them."""
    if name not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)}, got {name!r}")
    return replace(NOTEBOOK_SETUP, data=SPLITS[name]).to_json()["data"]
# The data-efficiency view: from one training position to every centre from 5 to 12 (test stays 3..4)
POSITION_RANGES = ((5, 5), (5, 6), (5, 8), (5, 10), (5, 12))
POSITIONS_SWEEP = Sweep("data.train_range", POSITION_RANGES, "distinct training positions (cx, cy)", log_x=True)
# The models the data-efficiency view ships with (three seeds: 5 ranges x 3 models x 3 seeds = 45 runs)
POSITIONS_MODELS, POSITIONS_SEEDS = ("vit", "cnn", "vit-shift"), 3


def positions(train_range: tuple[int, int]) -> int:
    """Distinct training centres (cx, cy) a range allows."""
    lo, hi = train_range
    return (hi - lo + 1) ** 2


# The bench's controls, declared once: the page's form, its URL keys, and `python -m core remedies`'s flags
CONTROLS: tuple[Control, ...] = (
    Control("bench_models", "models", "Models on the bench", "multiselect", BENCH.models,
            format=label, from_config=list, to_config=on_bench, cli_nargs="+",
            flag_name="--models", cli_help="default: every model on the bench"),
    Control("bench_seeds", "train.seeds", "Seeds (0, 1, …)", "slider", bounds=(1, FORM_SEEDS), to_config=first_seeds,
            from_config=len, flag_name="--seeds", cli_help=f"seeds 0..N-1 (default {len(SEEDS)})"),
    Control("bench_epochs", "train.epochs", "Epochs (full-batch Adam steps)", "slider", bounds=(50, 400, 10),
            flag_name="--epochs"),
    Control("bench_split", "data", "Split", "radio", tuple(SPLITS), to_config=split_data, from_config=split_name,
            flag_name="--split", extra={"horizontal": True},
            format={"notebook": "lesson 3's (whole-patch moves)", "phase": "phase (new offsets within a patch)"}.get,
            help="Lesson 3's: trained at centres 5..10, tested at 3..4. Phase: trained at offsets 0-2 within a "
                 "4-pixel patch anywhere on the canvas, tested at every other centre. Both ship precomputed."),
)
# What `python -m core remedies` offers beyond the form: the data-efficiency view's settings
CLI_CONTROLS: tuple[Control, ...] = (
    Control("bench_train_range", "data.train_range", "Training centres", "slider", bounds=(3, 12), cli_nargs=2,
            flag_name="--train-range", cli_help="training centres (the data-efficiency view: 5 5, 5 6, 5 8, 5 10, 5 12)"),
    Control("bench_n_train", "data.n_train", "Training images", "slider", bounds=(1, 100_000), flag_name="--n-train"),
    Control("bench_lr", "train.lr", "Learning rate", "select_slider", (1e-3,), flag_name="--lr"),
)


def bench(models: tuple[str, ...] | None = None, seeds: int = len(SEEDS)) -> GeneralizationConfig:
    """The bench's config for some of its models (default all) and the first ``seeds`` seeds."""
    chosen = BENCH.models if models is None else on_bench(models)
    return replace(BENCH, models=chosen, train=replace(BENCH.train, seeds=first_seeds(seeds)))


def from_bench(lookup: Lookup, cfg: GeneralizationConfig) -> RunResult | None:
    """The result for ``cfg``: ``lookup``'s own, or the models it selects from a stored run of the whole bench
    (a selection trains nothing new)."""
    return from_full_run(lookup, cfg, BENCH.models)


def positions_base(models: tuple[str, ...] = POSITIONS_MODELS, seeds: int = POSITIONS_SEEDS) -> GeneralizationConfig:
    """The data-efficiency view's base config: the bench for ``models``, re-run at each training range."""
    return bench(models, seeds)


# ---------------------------------------------------------------- lesson 4's exercises, answered from the bench's run
def bench_verdicts(result: RunResult) -> dict[str, Verdict]:
    """The bench's verdicts on the unseen map (the lesson's split: 64 centres, where the test set has 4): what each
    unit scores at many more places than the test set's."""
    return verdicts(result, {m: label(m) for m in result.config.models}, "unseen map")


def _from_bench(key: str, question: str, how: str, options: tuple[str, ...],
                decide: Callable[[dict[str, Verdict]], tuple[int, str]]) -> Exercise:
    """An exercise answered from the bench's run (``BENCH``: shipped, or trained on this server)."""
    def answer(lookup: Lookup) -> Answer:
        result = lookup(BENCH)
        if result is None:
            return Answer(None, "The answer is read from the bench's run with every model: select them all, "
                                "press *Run*, and make your prediction for it (or skip it).")
        return Answer(*decide(bench_verdicts(result)))

    return Exercise(key, question, how, options, answer)


def learned_table(v: dict[str, Verdict]) -> tuple[int, str]:
    a, b = v["vit-learned"].interval, v["vit"].interval
    how, decided = versus(a, b, "the lesson's fixed 1-D sin-cos table")  # one run: the two share their units
    nopos = (f" The same ViT with no position table at all scored {v['vit-nopos'].interval}: compare the learned "
             "table with it before crediting the table with the gain." if "vit-nopos" in v else "")
    return how, (
        f"On the unseen map the learned table scored {a}, the lesson's fixed 1-D sin-cos table {b}: the learned "
        f"table is {decided}.{nopos} The learned table starts near zero (0.02 × random) and grows only as training "
        "asks; the fixed table's rows start about twice the size of an inked patch's token (lesson 3's *What broke "
        "the ViT?* measures both). Lesson 3's sweep of the fixed table's scale α, on the lesson's task and on a "
        "position task, shows what that size decides.")


def flatten_head(v: dict[str, Verdict]) -> tuple[int, str]:
    verdict = v["cnn-flatten"]
    how = compared(verdict.interval, v["cnn"].interval)
    said = {0: "better than", 1: "as good as", 2: "below", 3: "not yet distinguishable from"}[how]
    # the question is against the lesson's CNN: the key and the sentence both read ``compared``
    key = (2 if verdict.band in ("chance", "below") else 3 if verdict.band == "unclear" else
           {0: 0, 1: 0, 2: 1, 3: 3}[how])
    return key, (
        f"{verdict.text} On the unseen map it scored {verdict.interval}: {said} the lesson's CNN ({v['cnn'].interval}). Its head has a weight for every position of the last feature map, so where a "
        "feature fired can reach the answer; Biscione & Bowers found such heads fail at untrained locations. Here "
        "every unseen centre is a training centre moved by whole 4-pixel steps, and the convolutions with their "
        "stride-2 pooling answer such moves alike: read its map before concluding what its head costs.")


def overlapping(v: dict[str, Verdict]) -> tuple[int, str]:
    verdict = v["vit-overlap"]
    outcome, decided = against(verdict.interval, v["vit"].interval, v["cnn"].interval,
                               ("ViT with overlapping patches", "the lesson's ViT", "the lesson's CNN"))
    return outcome, (
        f"Overlapping patches scored {verdict.interval} on the unseen map (the lesson's ViT: "
        f"{v['vit'].interval}; the CNN: {v['cnn'].interval}). {decided} Each token sees more of its neighbours, but "
        "the same fixed 1-D table is still added to every token: lesson 3's sweep of the table's scale α tests "
        "whether the table is what holds it back.")


BENCH_OPTIONS = ("Better than the 1-D table", f"As good (within {points(margin(CHANCE))})", "Worse than the 1-D table",
                 "Can't tell yet")
OVERLAP_OPTIONS = ("Yes: as good as the lesson's CNN", "Part way: better than the lesson's ViT, still below the CNN",
                   "No: not shown better than the lesson's ViT",
                   "Better than the lesson's ViT; whether it reaches the CNN, can't tell yet")
CNN_OPTIONS = ("As good as the lesson's CNN", "Above chance, below the lesson's CNN", "At chance or below",
               "Can't tell yet")
EXERCISES: tuple[Exercise, ...] = (
    _from_bench("learned-table", "Replace the lesson's fixed 1-D sin-cos table with a learned one. At the unseen "
                "centres, the learned table does…", "Find *ViT, learned positions* and *ViT (lesson)* in the "
                "ranking: compare their intervals.", BENCH_OPTIONS, learned_table),
    _from_bench("flatten-head", "Replace the CNN's global max pool with a flatten + linear head. At the unseen "
                "centres the CNN is…", "Find *CNN, flatten + linear head* in the ranking and in the maps.",
                CNN_OPTIONS, flatten_head),
    _from_bench("overlap", "Overlapping patches: do they restore the ViT at the unseen centres?",
                "Find *ViT, overlapping patches* in the ranking.", OVERLAP_OPTIONS, overlapping),
)


# ---------------------------------------------------------------- what to notice, written from the bench's numbers
REMEDIES = tuple(m for m in BENCH.models if CARDS[m].group != "baseline")


# The prediction's options: the changes to the lesson's ViT (a CNN-side change is not asked against the ViT)
VIT_REMEDIES = tuple(m for m in REMEDIES if spec(m).transformer)


def better_than_vit(v: dict[str, Verdict]) -> set[str]:
    """The ViT remedies of a bench run that it shows better than the lesson's ViT at the unseen centres: the 95 %
    interval of the paired difference above 0, or higher unit by unit by a sign test Holm-adjusted over every
    remedy compared (one question asked of many remedies: a few p < 0.05 are expected by chance alone); empty
    without the lesson's ViT in the run."""
    if "vit" not in v:
        return set()
    vit, shown = v["vit"].interval, [m for m in VIT_REMEDIES if m in v]
    by_interval = {m for m in shown if paired(v[m].interval, vit)[1] > 0}
    higher = holm({m: sign_test(v[m].interval, vit) if wins_and_losses(v[m].interval, vit)[0] >
                   wins_and_losses(v[m].interval, vit)[1] else 1.0 for m in shown})
    return by_interval | {m for m, yes in higher.items() if yes}


def prediction_against_bench(picked, v: dict[str, Verdict]) -> tuple[list[str], list[str], list[str]]:
    """The learner's pick ("the bench will show these better than the lesson's ViT") against the run: (picked
    and shown better, picked but not shown better, shown better but not picked), over the ViT remedies the run
    holds. A pick not shown better is wrong as a prediction of what these units show, whatever more units
    might."""
    shown, better = [m for m in VIT_REMEDIES if m in v], better_than_vit(v)
    picked = [m for m in picked if m in shown]
    return ([m for m in picked if m in better], [m for m in picked if m not in better],
            [m for m in shown if m in better and m not in picked])


def notes(v: dict[str, Verdict], plotted: list[dict] | None = None) -> list[str]:
    """What to notice in a bench run (``v``: ``bench_verdicts``): which remedies are above chance at the unseen
    centres, which are not, which can't be told yet, how the CNNs fared, and (``plotted``: the data-efficiency
    rows, value = training positions) how much data each needed."""
    names = {m: label(m) for m in v}
    out = []
    vits = [m for m in REMEDIES if m in v and spec(m).transformer]
    works = [m for m in vits if v[m].band in ABOVE_CHANCE]
    fails = [m for m in vits if v[m].band in ("chance", "below")]
    unsure = [m for m in vits if v[m].band == "unclear"]
    if "vit" in v:
        out.append(f"{v['vit'].text} The lesson's ViT is the baseline every remedy is measured against.")
    if works:
        out.append("Better than guessing on the unseen map (95 % interval above chance): " + "; ".join(
            f"**{names[m]}** {v[m].interval.mean:.0%} ({v[m].interval.lo:.0%}–{v[m].interval.hi:.0%})"
            for m in sorted(works, key=lambda m: -v[m].interval.mean)) + ". Better than guessing is not as good as the CNN: "
            "compare each with it in the ranking.")
    if fails:
        out.append(f"**No better than guessing** (within {points(margin(0.5))} of chance, or under it): "
                   + ", ".join(names[m] for m in fails)
                   + ". A remedy that gains a few points on ImageNet need not give a ViT positions it never saw.")
    if unsure:
        out.append("**Not yet clear** (the interval holds chance and reaches well past it): "
                   + ", ".join(f"{names[m]}: {v[m].interval.outcomes}; mean {v[m].interval}" for m in unsure) + ".")
    if "vit-shift" in v:
        out.append(f"Random shifts scored {v['vit-shift'].interval.mean:.0%}, but they *showed* the model shapes at "
                   "the test centres: invariance from data, not from the architecture.")
    return out + _cnn_notes(v, names) + _data_notes(plotted or [], names)


def _cnn_notes(v: dict[str, Verdict], names: dict[str, str]) -> list[str]:
    cnns = [m for m in v if not spec(m).transformer]
    by_band = {band: [m for m in cnns if v[m].band == band] for band in BANDS}
    out = []
    if by_band["below"] + by_band["chance"]:
        out.append("A CNN can fail too: " + ", ".join(f"**{names[m]}** {v[m].interval}"
                                                   for m in by_band["below"] + by_band["chance"]) + ".")
    if by_band["between"]:
        out.append("A CNN can lose too: " + ", ".join(f"**{names[m]}** {v[m].interval}" for m in by_band["between"])
                   + ": above chance, and below the best.")
    if by_band["top"]:
        out.append(f"CNNs close to the best (within {points(margin(0.5))}, or tied): " + ", ".join(
            f"{names[m]} {pct(v[m].interval.mean)}" for m in by_band["top"]) + ".")
    if by_band["above"] + by_band["unclear"]:
        out.append("CNNs we can't place yet: " + ", ".join(f"{names[m]} {v[m].interval}"
                                                         for m in by_band["above"] + by_band["unclear"]) + ".")
    return out


def _data_notes(plotted: list[dict], names: dict[str, str]) -> list[str]:
    out = []
    for m in dict.fromkeys(r["model"] for r in plotted):
        by: dict[int, list[float]] = {}
        for r in plotted:
            if r["model"] == m:
                by.setdefault(r["value"], []).append(r["test_acc"])
        lo, hi = min(by), max(by)
        out.append(f"Data efficiency, {names.get(m, label(m))}: {np.mean(by[lo]):.0%} with {lo} training "
                   f"position(s), {np.mean(by[hi]):.0%} with {hi}.")
    return out
