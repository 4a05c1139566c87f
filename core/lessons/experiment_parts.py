"""What the experiment lessons (3, 4 and 5) share, declared once: the forms' parts (the phase split's control,
the seeds, a selection of the bench's models), finding a selection in a stored run of more models, the four
outcomes lesson 5's exercises offer, the rule that judges a change against the model it changes and the one
it should reach (``against``), and the thresholds their notes judge by. Lesson modules
import these from here, never from each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from core.engine.results.run_result import RunResult
from core.engine.results.verdict import (
    Interval,
    difference,
    lower_on_most_units,
    margin,
    paired,
    rank_test,
    sign_test,
    tied,
    wins_and_losses,
)
from core.engine.setting.run_config import GeneralizationConfig
from core.lessons.controls import Control
from core.lessons.exercise import Exercise
from core.lessons.model_cards import BENCH as BENCH_MODELS

FITS = 0.95  # a model fits its training positions at this training accuracy: below it, generalization says nothing

Lookup = Callable[[GeneralizationConfig], "RunResult | None"]
# an outcome against chance and the best, mapped from the verdict's band (lesson 5's ten-digit exercise)
OPTIONS = ("Substantially: as good as the CNN", "Partially: above chance, below the CNN",
           "Not at all: at chance or below", "Can't tell yet: the interval spans more than one of these")
OUTCOME = {"top": 0, "between": 1, "chance": 2, "below": 2, "unclear": 3, "above": 3}


@dataclass(frozen=True)
class PresetExercise(Exercise):
    preset: str = "lesson"  # the preset that answers it (the page offers a button to run it)
    model: str = "vit"  # the model the question is about


def phases_control(key: str, flag: str | None = None) -> Control:
    """The phase split's control (lessons 3 and 5): the offsets within a 4-pixel patch training centres take."""
    return Control(key, "data.phases", "Phase split: train only at these offsets within a patch", "multiselect",
                   (0, 1, 2, 3), format=lambda p: f"offset {p}", from_config=list, to_config=tuple, cli_nargs="+",
                   flag_name=flag, cli_help="offsets (c mod 4) the training centres take; the test is every other centre",
                   help="Empty: the lesson's split (training and test ranges). Some offsets: training centres only "
                        "where cx and cy mod 4 are among them (within the training range); the test is every other "
                        "centre, so most test shapes sit at an offset within a patch never trained. The test range is "
                        "not used.")


FORM_SEEDS = 10  # the most seeds the bench's and lesson 5's forms offer (a run's own limit: run_config.MAX_SEEDS)


def on_bench(models) -> tuple[str, ...]:
    """``models`` as the bench's selection; a model without a card is refused."""
    unknown = [m for m in models if m not in BENCH_MODELS]
    if unknown:
        raise ValueError(f"not on the bench: {unknown}; choose from {list(BENCH_MODELS)}")
    return tuple(models)


def first_seeds(n: int) -> tuple[int, ...]:
    """Seeds 0..n-1, for 1 <= n <= FORM_SEEDS."""
    if not 1 <= n <= FORM_SEEDS:
        raise ValueError(f"seeds must be in 1..{FORM_SEEDS}, got {n}")
    return tuple(range(n))


def from_full_run(lookup: Callable[[GeneralizationConfig], RunResult | None], cfg: GeneralizationConfig,
                  full_models: tuple[str, ...]) -> RunResult | None:
    """The result for ``cfg``: ``lookup``'s own, or the models it selects from a looked-up run of every model of
    ``full_models`` with the same data, seeds and epochs (a selection trains nothing
    new)."""
    result = lookup(cfg)
    if result is None and set(cfg.models) <= set(full_models):
        full = lookup(replace(cfg, models=full_models))
        result = None if full is None else full.subset(cfg)
    return result


def compared(a: Interval, b: Interval, chance: float = 0.5, same_run: bool = True) -> int:
    """0 better, 1 as good (the 90 % interval of the difference within ± the margin), 2 worse, 3 can't tell yet:
    ``a`` against ``b``. Two models of one run are paired over the units both have (worse or better also where one
    is lower unit by unit: ``verdict.lower_on_most_units``); two runs (``same_run=False``: their seeds are not the
    same units) are compared by their two intervals."""
    if same_run:
        (_, lo, hi), (_, lo90, hi90) = paired(a, b), paired(a, b, 0.90)
        if lower_on_most_units(a, b):  # lower unit by unit (one comparison: the sign test at 5 %)
            return 2
        if lower_on_most_units(b, a):
            return 0
    else:
        (_, lo, hi), (_, lo90, hi90) = difference(a, b), difference(a.at(0.90), b.at(0.90))
    return 0 if lo > 0 else 2 if hi < 0 else 1 if -margin(chance) <= lo90 and hi90 <= margin(chance) else 3


# ``against``'s four outcomes, in this order: each exercise words them for its own question
REACHES, BETTER, NOT_BETTER, OPEN = range(4)


def versus(new: Interval, b: Interval, b_name: str, chance: float = 0.5, same_run: bool = True) -> tuple[int, str]:
    """``new`` against ``b`` as ``compared`` judges it (0 better, 1 as good, 2 worse, 3 can't tell), with the
    sentence that says what decided it. Two models of one run pair by unit (a seed and a training draw: the same
    data, the same seed); two runs do not (another model starts from other weights at the same seed): those are
    compared by their intervals, and where those cannot tell, by a rank test over their units (Mann–Whitney)."""
    how = 1 if tied(new, b) else compared(new, b, chance, same_run=same_run)
    d, lo, hi = paired(new, b) if same_run else difference(new, b)
    mean = f"mean difference {d * 100:+.1f} points, 95 % interval {lo * 100:+.0f} to {hi * 100:+.0f}"
    if not same_run:
        p = rank_test(new, b)
        if how == 3 and p < 0.05:
            how = 0 if d > 0 else 2
            said = "higher than" if how == 0 else "lower than"
            return how, (f"{said} {b_name} by rank ({len(new.scores)} units against {len(b.scores)}, Mann–Whitney "
                         f"p = {p:.2g}; {mean})")
        said = {0: "better than", 1: "as good as", 2: "below", 3: "not shown different from"}[how]
        return how, f"{said} {b_name} ({mean}; Mann–Whitney over the units p = {p:.2g})"
    wins, losses, n = wins_and_losses(new, b)
    units = (f"higher on {wins} of {n} units, lower on {losses}, the same on {n - wins - losses}: sign test p = "
             f"{sign_test(new, b):.2g}")
    if how in (0, 2) and lo <= 0 <= hi:  # decided unit by unit (the sign test), not by the mean
        said = "higher than" if how == 0 else "lower than"
        return how, f"{said} {b_name} unit by unit ({units}; {mean})"
    said = {0: "better than", 1: "as good as", 2: "below", 3: "not shown different from"}[how]
    return how, f"{said} {b_name} ({mean}; {units})"


def against(new: Interval, base: Interval, top: Interval, names: tuple[str, str, str],
            chance: float = 0.5, base_same_run: bool = True) -> tuple[int, str]:
    """A change judged as the question "did it help?" asks: ``new`` (the changed model, ``names[0]``) against
    ``base`` (the model it changes; ``base_same_run``: from the same run, so their units pair) and ``top`` (the
    one it should reach, the CNN of its run). REACHES: as good as ``top`` (better, or the same within the margin,
    or the same score on every unit); BETTER: better than ``base`` and below ``top``; NOT_BETTER: not shown better
    than ``base`` (as good, worse, or not distinguishable on these units); OPEN: better than ``base``, and whether
    it reaches ``top`` is open. Returns the outcome and the sentence that decides it, with the numbers: the key
    and its explanation come from one rule."""
    to_base, base_line = versus(new, base, names[1], chance, same_run=base_same_run)
    to_top, top_line = versus(new, top, names[2], chance)
    if to_top in (0, 1):
        outcome = REACHES
    elif to_base != 0:
        outcome = NOT_BETTER
    else:
        outcome = BETTER if to_top == 2 else OPEN
    return outcome, f"The {names[0]} is {base_line}, and {top_line}."
