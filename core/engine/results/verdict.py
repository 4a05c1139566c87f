"""Honest verdicts: what a run's accuracies allow us to say, with a 95 % interval, and no more.

Two things make a test accuracy uncertain. The **seeds**: one seed can train and the next not, so with three
seeds the mean moves a lot (a t-interval over the seeds' accuracies). The **test images**: what a test set
measures depends on how many *different* images it holds, not on how many it draws. The lesson's test set
draws 150 images from 4 centres × 2 shapes: 8 distinct images, each about 19 times; a model right on all 8
is measured at 68–100 %, not 98–100 %. So the test-set part is Wilson's interval over the distinct test
images (``distinct_test_images``), and the interval is the union of the two parts. A 95 % interval is a
procedure that covers the true accuracy in 95 % of repetitions of the experiment; it is not a range the
accuracy lies in with 95 % probability.

A verdict never turns width into a finding. Against chance: *below* or *above* only where the interval
excludes chance; *at chance* only where it lies within ``MARGIN`` of chance; otherwise *can't tell yet*.
Against the run's best model: *as good as* only where the difference's interval (Newcombe's method, from the
two intervals) lies within ±``MARGIN``; *below the best* only where it excludes 0; otherwise *can't tell yet*.
Overlapping intervals alone show neither. The bands: ``below`` (under chance), ``chance`` (at chance, within the
margin), ``unclear`` (can't tell yet against chance), ``between`` (above chance, below the best), ``above`` (above
chance, can't tell yet against the best) and ``top`` (the best, or as good as it within the margin).

Two measures: the test set (the notebook's), or every centre of the map never trained on (``unseen map``: the
lesson's 64 centres × 2 shapes, 128 distinct images), which decides far more often.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from core.data.data_config import DataConfig, distinct, make_data
from core.engine.results.behaviour import REGIONS, map_images_per_cell, map_scores, region
from core.engine.results.run_result import RunResult, summary

CHANCE = 0.5  # two balanced classes; a run's own is its dataset's (``Dataset.chance``)
MARGIN = 0.10  # the equivalence margin: "at chance" and "as good as" mean within 10 points, shown on the pages
Z95 = 1.959964  # the normal quantile for a two-sided 95 % interval
# Student's t quantile (two-sided 95 %) by degrees of freedom; beyond the table the normal one is close
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
BANDS = ("below", "chance", "unclear", "between", "above", "top")
BAND_WORDS = {"below": "below chance", "chance": "at chance", "unclear": "can't tell yet",
              "between": "above chance, below the best", "above": "above chance; can't tell yet against the best",
              "top": "as good as the best"}
ABOVE_CHANCE = ("between", "above", "top")  # the bands whose interval excludes chance from above
CANT_TELL = ("unclear", "above")  # the bands that say "can't tell yet"

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
    images: int  # distinct test images per seed: what the test-set part counts
    drawn: int = 0  # test images drawn per seed (repeats included); 0: as many as distinct

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def overlaps(self, other: Interval) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    def __str__(self) -> str:
        return f"{self.mean:.1%} (95 % interval {self.lo:.0%}–{self.hi:.0%})"

    @property
    def counted(self) -> str:
        """What the interval counts, in words: "3 seeds × 8 distinct test images (150 drawn)"."""
        drawn = f" ({self.drawn} drawn)" if self.drawn and self.drawn != self.images else ""
        seeds = "one seed, so the spread between seeds is unknown" if self.seeds == 1 else f"{self.seeds} seeds"
        return f"{seeds} × {self.images} distinct test images{drawn}"


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` measured on ``n`` trials."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def accuracy_interval(accs: list[float], images: int, drawn: int = 0) -> Interval:
    """The 95 % interval of the mean of per-seed accuracies, each measured on the same ``images`` distinct test
    images (``drawn`` with repeats)."""
    if not accs:
        raise ValueError("no accuracies to summarise")
    k, mean = len(accs), sum(accs) / len(accs)
    lo, hi = wilson(mean, images)  # the seeds share one test set: it holds `images` images, not k * images
    if k >= 2:
        sd = math.sqrt(sum((a - mean) ** 2 for a in accs) / (k - 1))
        half = t95(k - 1) * sd / math.sqrt(k)
        lo, hi = min(lo, mean - half), max(hi, mean + half)
    return Interval(mean, max(0.0, lo), min(1.0, hi), k, images, drawn)


def difference(a: Interval, b: Interval) -> tuple[float, float, float]:
    """(a - b, lo, hi): the 95 % interval of the difference of two means from their own intervals (Newcombe's
    method of recovering variance estimates; the two treated as independent)."""
    d = a.mean - b.mean
    lo = d - math.hypot(a.mean - a.lo, b.hi - b.mean)
    hi = d + math.hypot(a.hi - a.mean, b.mean - b.lo)
    return d, lo, hi


@lru_cache(maxsize=64)
def distinct_test_images(d: DataConfig) -> int:
    """How many different images the test set holds (the lesson's: 8 of 150 drawn)."""
    data = make_data(d)
    return len(distinct(data.Xte, data.yte)[0])


def unseen_map_interval(result: RunResult, model: str) -> Interval | None:
    """The model's accuracy over every map centre never trained on, with its 95 % interval over the seeds and
    the distinct images those centres hold (the lesson's: 64 centres × 2 shapes); None without a map."""
    d = result.config.data
    return map_interval(result, model, lambda cx, cy: region(d, cx, cy) != REGIONS[0])


def map_interval(result: RunResult, model: str, keep) -> Interval | None:
    """The model's accuracy over the map centres ``keep(cx, cy)`` selects (``map_scores``), with its 95 % interval
    over the seeds and the distinct images those centres hold; None when no such centre was measured."""
    scores = map_scores(result, model, keep)
    if not scores:
        return None
    cells = {(p.cx, p.cy) for p in result.position_map if p.model == model and keep(p.cx, p.cy)}
    return accuracy_interval(list(scores.values()), len(cells) * map_images_per_cell(result.config.data))


@dataclass(frozen=True)
class Verdict:
    model: str
    interval: Interval
    band: str  # one of BANDS
    text: str  # one line that says it with the numbers
    best: Interval  # the best model's interval, which "top", "between" and "above" are measured against
    chance: float = CHANCE  # the accuracy of guessing on this run's classes

    @property
    def cant_tell(self) -> bool:
        return self.band in CANT_TELL


def band_of(interval: Interval, best: Interval, chance: float = CHANCE, is_best: bool = False) -> str:
    """The interval's band against chance and against the best model's interval (module docstring)."""
    if interval.hi < chance:
        return "below"
    if interval.contains(chance):
        return "chance" if chance - MARGIN <= interval.lo and interval.hi <= chance + MARGIN else "unclear"
    if is_best:
        return "top"
    _, lo, hi = difference(interval, best)
    if -MARGIN <= lo and hi <= MARGIN:
        return "top"
    return "between" if hi < 0 else "above"


def phrase(band: str, chance: float, best_label: str, is_best: bool = False) -> str:
    """What a band says, in words."""
    at = f"{chance * 100:.0f} %"
    return {"below": f"below chance ({at})",
            "chance": f"at chance ({at}, within {MARGIN * 100:.0f} points)",
            "unclear": f"can't tell yet whether above or below chance ({at}): the interval is too wide",
            "between": f"above chance, and below the {best_label}",
            "above": f"above chance; can't tell yet whether as good as the {best_label}",
            "top": "the best here" if is_best else f"as good as the {best_label} (within {MARGIN * 100:.0f} points)",
            }[band]


MEASURES = ("test", "unseen map")  # the test set (the notebook's measure), or every unseen centre of the map


def intervals(result: RunResult, measure: str = "test") -> dict[str, Interval]:
    """Each model's accuracy interval on ``measure``, in the config's model order (models whose every seed
    diverged, or with no map, are left out)."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
    d = result.config.data
    if measure == "test":
        images = distinct_test_images(d)
        return {m: accuracy_interval([r.test_acc for r in result.rows if r.model == m and r.test_acc is not None],
                                     images, d.n_test) for m in summary(result)}
    return {m: iv for m in summary(result) if (iv := unseen_map_interval(result, m)) is not None}


def verdicts(result: RunResult, labels: dict[str, str] | None = None, measure: str = "test") -> dict[str, Verdict]:
    """Every model's verdict on ``measure`` (the test set, or the map's unseen centres), in the config's model
    order, against the best model of the run on the same measure."""
    labels = labels or {}
    chance = result.config.data.kind.chance
    found = intervals(result, measure)
    if not found:
        return {}
    best_name = max(found, key=lambda m: found[m].mean)
    best = found[best_name]
    out = {}
    for m, iv in found.items():
        band = band_of(iv, best, chance, is_best=m == best_name)
        words = phrase(band, chance, labels.get(best_name, best_name), m == best_name)
        what = iv.counted if measure == "test" else f"{iv.seeds} seed(s) × {iv.images} distinct images at the map's unseen centres"
        out[m] = Verdict(m, iv, band, f"{iv}, {what}: {words}", best, chance)
    return out
