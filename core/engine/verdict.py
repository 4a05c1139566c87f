"""Honest verdicts: what a run's accuracies allow us to say, with a 95 % interval.

Two things make a test accuracy uncertain. The **seeds**: one seed can train and the next not, so with
three seeds the mean moves a lot (a t-interval over the seeds' accuracies). The **test set**: 150
images measure an accuracy to a few percent even when every seed agrees (a Wilson interval on all the
test predictions of one seed: every seed is tested on the same images). We report the union of the two, which is never narrower than either, and
call a model "not distinguishable from chance" when its interval contains chance (50 % for two classes,
10 % for ten digits), and "as good as" the
best model when their intervals overlap. With one seed only the test-set part is known, and the
verdict says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.engine.results import RunResult, summary

CHANCE = 0.5  # two balanced classes; a run's own is its dataset's (``Dataset.chance``)
Z95 = 1.959964  # the normal quantile for a two-sided 95 % interval
# Student's t quantile (two-sided 95 %) by degrees of freedom; beyond the table the normal one is close
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}

# The prediction a learner makes before pressing Run, and the band of outcomes each one names
PREDICTIONS = {"≈100 %, like the CNN": ("top",), "in between": ("between",),
               "≈50 % (chance) or worse": ("chance", "below")}


def t95(df: int) -> float:
    """The t quantile for ``df`` degrees of freedom (the next smaller tabulated df: conservative)."""
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    return T95[max(d for d in T95 if d <= df)] if df <= 30 else Z95


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    seeds: int
    images: int  # test images per seed

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def overlaps(self, other: Interval) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    def __str__(self) -> str:
        return f"{self.mean:.1%} (95 % interval {self.lo:.0%}–{self.hi:.0%})"


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` measured on ``n`` trials."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def accuracy_interval(accs: list[float], n_test: int) -> Interval:
    """The 95 % interval of the mean of per-seed accuracies, each measured on ``n_test`` images."""
    if not accs:
        raise ValueError("no accuracies to summarise")
    k, mean = len(accs), sum(accs) / len(accs)
    lo, hi = wilson(mean, n_test)  # the seeds share one test set: it holds n_test images, not k * n_test
    if k >= 2:
        sd = math.sqrt(sum((a - mean) ** 2 for a in accs) / (k - 1))
        half = t95(k - 1) * sd / math.sqrt(k)
        lo, hi = min(lo, mean - half), max(hi, mean + half)
    return Interval(mean, max(0.0, lo), min(1.0, hi), k, n_test)


@dataclass(frozen=True)
class Verdict:
    model: str
    interval: Interval
    band: str  # "below" chance, "chance", "between" chance and the best model, or "top" (as good as the best)
    text: str  # one line that says it with the numbers
    best: Interval  # the best model's interval, which "top" and "between" are measured against
    chance: float = CHANCE  # the accuracy of guessing on this run's classes


def band_of(interval: Interval, best: Interval, chance: float = CHANCE) -> str:
    if interval.hi < chance:
        return "below"
    if interval.contains(chance):
        return "chance"
    return "top" if interval.overlaps(best) else "between"


def verdicts(result: RunResult, labels: dict[str, str] | None = None) -> dict[str, Verdict]:
    """Every model's test-accuracy verdict, in the config's model order, against the best model of the run."""
    labels = labels or {}
    n_test, chance = result.config.data.n_test, result.config.data.kind.chance
    intervals = {m: accuracy_interval([r.test_acc for r in result.rows if r.model == m and r.test_acc is not None],
                                      n_test) for m in summary(result)}
    if not intervals:
        return {}
    best_name = max(intervals, key=lambda m: intervals[m].mean)
    best = intervals[best_name]
    out = {}
    for m, iv in intervals.items():
        band = band_of(iv, best, chance)
        ref = labels.get(best_name, best_name)
        phrase = {"below": f"below chance ({chance * 100:.0f} %)", "chance": f"not distinguishable from chance ({chance * 100:.0f} %)",
                  "between": f"above chance but below the {ref}",
                  "top": "the best here" if m == best_name else f"not distinguishable from the {ref}"}[band]
        spread = ("one seed, so the spread between seeds is unknown" if iv.seeds == 1
                  else f"{iv.seeds} seeds × {n_test} test images")
        out[m] = Verdict(m, iv, band, f"{iv}, {spread}: {phrase}", best, chance)
    return out


def judge_prediction(prediction: str, verdict: Verdict, predictions: dict[str, tuple[str, ...]] = PREDICTIONS) -> str:
    """"right" when the prediction (one of ``predictions``) names the outcome's band; "possible" when it does
    not, but the interval still reaches into the predicted band (more seeds would decide); else "wrong"."""
    if prediction not in predictions:
        raise ValueError(f"prediction must be one of {list(predictions)}, got {prediction!r}")
    bands = predictions[prediction]
    if verdict.band in bands:
        return "right"
    iv, best, chance = verdict.interval, verdict.best, verdict.chance
    reaches = {"below": iv.lo < chance, "chance": iv.contains(chance),
               "between": iv.hi > chance and iv.lo < best.lo, "top": iv.overlaps(best)}
    return "possible" if any(reaches[b] for b in bands) else "wrong"
