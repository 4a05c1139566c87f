"""Honest verdicts: what a run's accuracies allow us to say, and no more.

**What is random.** A model's accuracy depends on its seed (starting weights, data order) and its training draw
(which images the training set holds). The test images are not random: a measure's images are every image there
is at its centres, so each unit (one model at one seed and one training draw, ``core.engine.results.units``) is
scored exactly. Statistics are over units, never over images: the interval is about the **mean over units**, what
the same setting averages over seeds and training draws, not a range for the next unit. Each unit's score is
shown first (``Interval.outcomes``): seeds that split (some 100 %, some answering one class for everything) read
as split before any mean.

**The interval** (``unit_interval``): the union of Student's t interval over the units' scores and Wilson's score
interval at their mean, counting units as trials. A score in [0, 1] varies at most as a coin flip with the same
mean does, so the Wilson part is the widest the spread could be: five units at 100 % do not claim the sixth,
and units that agree closely do not hide a failure mode that five draws can miss. Its coverage, simulated for
truths with known means (bimodal ones among them), is in docs/statistics.md (``scripts/interval_coverage.py``).

**Comparisons** (``paired``): two models of one run, over the units they share: the union of the t interval of
the per-unit differences and the difference of their two intervals (Newcombe's method, ``difference``, which
alone compares two runs, whose seeds are not the same units). A model with the same score as the best on every
unit is *tied* with it: a description, not an inference.

**Bands.** Against chance: *below* or *above* only where the 95 % interval excludes chance; *at chance* where the
90 % interval lies within chance ± the margin (two one-sided tests at 5 %); otherwise *can't tell yet*. The margin
is a fifth of chance (10 points for two classes, 2 for ten), so ten classes are judged as fairly as two. Against
the run's best model: *as good as* where the 90 % interval of the paired difference lies within ± the margin;
*below the best* where its 95 % interval excludes 0, or where the model scores lower than the best on more of
their shared units than a fair coin would explain (an exact sign test: "lower unit by unit", whatever the size of
the gaps; in a run's verdicts Holm-adjusted over its models, since the best is one of many); otherwise *can't
tell yet*. A model whose band against chance is undecided is still said lower than the best where it is. The bands: ``below``, ``chance``,
``unclear`` (can't tell yet against chance), ``between`` (above chance, below the best), ``above`` (above chance,
can't tell yet against the best) and ``top`` (the best, or as good as it).

Two measures: the test set (the notebook's), or every centre of the map never trained on (``unseen map``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from core.data.data_config import DataConfig, distinct, make_data
from core.engine.results.behaviour import map_scores
from core.engine.results.run_result import RunResult, summary
from core.engine.results.units import run_units, scores

CHANCE = 0.5  # two balanced classes; a run's own is its dataset's (``Dataset.chance``)
MARGIN_SHARE = 0.2  # the equivalence margin, as a share of chance: "at chance" and "as good as" mean within it
LEVELS = {0.95: 1.959964, 0.90: 1.644854}  # two-sided level -> the normal quantile
# Student's t quantile by two-sided level and degrees of freedom; beyond the table the next smaller one (conservative)
T_TABLE = {
    0.95: {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
           11: 2.201, 12: 2.179, 13: 2.16, 14: 2.145, 15: 2.131, 16: 2.12, 17: 2.11, 18: 2.101, 19: 2.093, 20: 2.086,
           25: 2.06, 30: 2.042, 40: 2.021, 60: 2.0},
    0.90: {1: 6.314, 2: 2.92, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.86, 9: 1.833, 10: 1.812,
           11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753, 16: 1.746, 17: 1.74, 18: 1.734, 19: 1.729, 20: 1.725,
           25: 1.708, 30: 1.697, 40: 1.684, 60: 1.671},
}
BANDS = ("below", "chance", "unclear", "between", "above", "top")
ABOVE_CHANCE = ("between", "above", "top")  # the bands whose interval excludes chance from above
CANT_TELL = ("unclear", "above")  # the bands that say "can't tell yet"

Key = tuple[int, int]  # a unit: (seed, training draw)


def margin(chance: float) -> float:
    """The equivalence margin: a fifth of chance (10 points for two classes, 2 for ten)."""
    return MARGIN_SHARE * chance


def t_quantile(df: int, level: float = 0.95) -> float:
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    table = T_TABLE[level]
    return table[max(d for d in table if d <= df)]


def wilson(p: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` measured on ``n`` trials."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    z = LEVELS[level]
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    units: int
    scores: tuple[tuple[Key, float], ...] = ()  # each unit's exact score, by (seed, training draw)
    level: float = 0.95

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def overlaps(self, other: Interval) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    @property
    def draws(self) -> int:
        return len({d for (_, d), _ in self.scores}) or 1

    def __str__(self) -> str:
        return f"{self.mean:.1%} ({self.level * 100:.0f} % interval {self.lo:.0%}–{self.hi:.0%})"

    @property
    def outcomes(self) -> str:
        """Each unit's score, before any summary: "seeds 51%, 51%, 26%", or for many "15 units: 3% to 40%" with
        how many sit at the extremes."""
        values = [s for _, s in self.scores]
        if not values:
            return ""
        if len(values) <= 5 and self.draws == 1:
            return ("seed " if len(values) == 1 else "seeds ") + ", ".join(f"{v:.0%}" for v in values)
        line = f"{len(values)} units ({self.counted}): {min(values):.0%} to {max(values):.0%}"
        ends = [f"{n} at {v:.0%}" for v in sorted({min(values), max(values)}) if (n := values.count(v)) > 1]
        return line + (f" ({', '.join(ends)})" if ends else "")

    @property
    def counted(self) -> str:
        """What the interval counts, in words: "15 seeds over 3 training draws", "3 seeds, one training draw"."""
        seeds = len({s for (s, _), _ in self.scores}) or self.units
        if self.draws > 1:
            return f"{seeds} seeds over {self.draws} training draws"
        return "one seed, so the spread between seeds is unknown" if seeds == 1 else f"{seeds} seeds, one training draw"


def unit_interval(scores: Mapping[Key, float] | list[float], level: float = 0.95) -> Interval:
    """The interval of the mean over units (module docstring): the union of a t interval over the scores and
    Wilson's interval at their mean with the units as trials."""
    keyed = tuple(scores.items()) if isinstance(scores, Mapping) else tuple(((i, 0), s) for i, s in enumerate(scores))
    values = [s for _, s in keyed]
    if not values:
        raise ValueError("no scores to summarise")
    k, mean = len(values), sum(values) / len(values)
    lo, hi = wilson(mean, k, level)
    if k >= 2:
        sd = math.sqrt(sum((a - mean) ** 2 for a in values) / (k - 1))
        half = t_quantile(k - 1, level) * sd / math.sqrt(k)
        lo, hi = min(lo, mean - half), max(hi, mean + half)
    return Interval(mean, max(0.0, lo), min(1.0, hi), k, keyed, level)


def difference(a: Interval, b: Interval) -> tuple[float, float, float]:
    """(a - b, lo, hi): the interval of the difference of two means from their own intervals (Newcombe's method
    of recovering variance estimates; the two treated as independent)."""
    d = a.mean - b.mean
    lo = d - math.hypot(a.mean - a.lo, b.hi - b.mean)
    hi = d + math.hypot(a.hi - a.mean, b.mean - b.lo)
    return d, lo, hi


def paired(a: Interval, b: Interval, level: float = 0.95) -> tuple[float, float, float]:
    """(a - b, lo, hi) for two models of one run, over the units both hold (the same seeds and training draws):
    the union of the t interval of the per-unit differences and the two intervals' own difference at ``level``
    (``difference``). Each interval already allows its model the widest spread a score can have; the per-unit
    differences add what the two share (a seed that fails both), so the union is never narrower than either."""
    a_level, b_level = (x if x.level == level else unit_interval(dict(x.scores), level) for x in (a, b))
    d, lo, hi = difference(a_level, b_level)
    sa, sb = dict(a.scores), dict(b.scores)
    diffs = [sa[k] - sb[k] for k in sa if k in sb]
    if len(diffs) >= 2:
        mean = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1))
        half = t_quantile(len(diffs) - 1, level) * sd / math.sqrt(len(diffs))
        lo, hi = min(lo, mean - half), max(hi, mean + half)
    return d, max(-1.0, lo), min(1.0, hi)


def sign_test(a: Interval, b: Interval) -> float:
    """The exact two-sided p-value that, on the units both hold, ``a`` beats ``b`` as often as ``b`` beats ``a``
    (ties left out): whether one model tends to score higher than the other unit by unit, whatever the size of
    the gaps. Valid for any distribution of units; with 5 units it can never fall below 0.0625."""
    sa, sb = dict(a.scores), dict(b.scores)
    wins = sum(sa[k] > sb[k] for k in sa if k in sb)
    losses = sum(sa[k] < sb[k] for k in sa if k in sb)
    n, k = wins + losses, min(wins, losses)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0


def rank_test(a: Interval, b: Interval) -> float:
    """The two-sided p-value of the Mann–Whitney rank test that ``a``'s units and ``b``'s come from one
    distribution: for two runs whose units do not pair (another architecture starts from other weights at the
    same seed), whether one tends to score higher. Normal approximation with the tie correction (15 + 15 units:
    close to exact); 1.0 when every score is the same."""
    xs, ys = [s for _, s in a.scores], [s for _, s in b.scores]
    n, m = len(xs), len(ys)
    if not n or not m:
        return 1.0
    pooled = sorted(xs + ys)
    ranks, counts, i = {}, [], 0
    while i < len(pooled):  # mid-ranks for ties
        j = i
        while j < len(pooled) and pooled[j] == pooled[i]:
            j += 1
        ranks[pooled[i]] = (i + 1 + j) / 2
        counts.append(j - i)
        i = j
    u = sum(ranks[x] for x in xs) - n * (n + 1) / 2
    total = n + m
    var = n * m / 12 * ((total + 1) - sum(t**3 - t for t in counts) / (total * (total - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - n * m / 2) - 0.5) / math.sqrt(var)  # with the continuity correction
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def wins_and_losses(a: Interval, b: Interval) -> tuple[int, int, int]:
    """(units where ``a`` scores higher than ``b``, lower, shared)."""
    sa, sb = dict(a.scores), dict(b.scores)
    shared = [k for k in sa if k in sb]
    return sum(sa[k] > sb[k] for k in shared), sum(sa[k] < sb[k] for k in shared), len(shared)


def lower_on_most_units(a: Interval, b: Interval, alpha: float = 0.05) -> bool:
    """``a`` scores lower than ``b`` on more units than higher, beyond what chance splits explain (sign test)."""
    wins, losses, _ = wins_and_losses(a, b)
    return losses > wins and sign_test(a, b) < alpha


def holm(p_values: dict[str, float], alpha: float = 0.05) -> dict[str, bool]:
    """Holm's step-down: which of a family of tests reject at family-wise level ``alpha``."""
    out, m = {}, len(p_values)
    for i, (name, p) in enumerate(sorted(p_values.items(), key=lambda kv: kv[1])):
        if p > alpha / (m - i):
            break
        out[name] = True
    return {name: out.get(name, False) for name in p_values}


def tied(a: Interval, b: Interval) -> bool:
    """The same score on every unit both hold (at least two): a description, not an inference."""
    sa, sb = dict(a.scores), dict(b.scores)
    shared = [k for k in sa if k in sb]
    return len(shared) >= 2 and all(sa[k] == sb[k] for k in shared) and len(shared) == len(sa) == len(sb)


@lru_cache(maxsize=64)
def distinct_test_images(d: DataConfig) -> int:
    """How many different images the test set holds (the lesson's: 8 of 150 drawn)."""
    data = make_data(d)
    return len(distinct(data.Xte, data.yte)[0])


def map_interval(result: RunResult, model: str, keep) -> Interval | None:
    """The model's accuracy over the map centres ``keep(cx, cy)`` selects (``map_scores``), each seed's exact,
    with the interval of their mean; None when no such centre was measured."""
    found = map_scores(result, model, keep)
    draw = result.config.data.data_seed
    return unit_interval({(seed, draw): s for seed, s in found.items()}) if found else None


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


def band_of(interval: Interval, best: Interval, chance: float = CHANCE, is_best: bool = False,
            lower: bool | None = None) -> str:
    """The interval's band against chance and against the best model's interval (module docstring); ``lower``:
    whether the model is lower than the best unit by unit, decided over a family of comparisons (default: this
    one comparison's sign test at 5 %)."""
    m = margin(chance)
    if interval.hi < chance:
        return "below"
    if interval.contains(chance):
        at90 = unit_interval(dict(interval.scores), 0.90) if interval.scores else interval
        return "chance" if chance - m <= at90.lo and at90.hi <= chance + m else "unclear"
    if is_best or tied(interval, best):
        return "top"
    _, lo90, hi90 = paired(interval, best, 0.90)
    if -m <= lo90 and hi90 <= m:
        return "top"
    _, _, hi = paired(interval, best, 0.95)
    lower = lower_on_most_units(interval, best) if lower is None else lower
    return "between" if hi < 0 or lower else "above"


def phrase(band: str, chance: float, best_label: str, is_best: bool = False) -> str:
    """What a band says, in words."""
    at, within = f"{chance * 100:.0f} %", f"{margin(chance) * 100:.0f} points"
    return {"below": f"below chance ({at})",
            "chance": f"at chance ({at}, within {within})",
            "unclear": f"can't tell yet whether above or below chance ({at}): the interval is too wide",
            "between": f"above chance, and below the {best_label}",
            "above": f"above chance; can't tell yet whether as good as the {best_label}",
            "top": ("the best here (or tied with it on every unit)" if is_best else
                    f"as good as the {best_label} (within {within}, or the same score on every unit)"),
            }[band]


MEASURES = {"test": "test", "unseen map": "unseen"}  # a verdict's measure -> the units' measure


def intervals(result: RunResult, measure: str = "test") -> dict[str, Interval]:
    """Each model's interval on ``measure`` over its units (the run's replicates over seeds and training draws
    where it has them, else its own seeds), in the config's model order; models with no score are left out."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {tuple(MEASURES)}, got {measure!r}")
    units = run_units(result)
    found = {m: scores(units, m, MEASURES[measure]) for m in summary(result)}
    return {m: unit_interval(s) for m, s in found.items() if s}


def verdicts(result: RunResult, labels: dict[str, str] | None = None, measure: str = "test") -> dict[str, Verdict]:
    """Every model's verdict on ``measure`` (the test set, or the map's unseen centres), in the config's model
    order, against the best model of the run on the same measure: each unit's score first, then the mean."""
    labels = labels or {}
    chance = result.config.data.kind.chance
    found = intervals(result, measure)
    if not found:
        return {}
    best_name = max(found, key=lambda m: found[m].mean)
    best = found[best_name]
    # "lower than the best unit by unit": one sign test per model against the best, Holm-adjusted over the run's
    # models (the more models, the more a few lower units are expected by chance)
    lower = holm({m: sign_test(iv, best) for m, iv in found.items() if m != best_name
                  and wins_and_losses(iv, best)[1] > wins_and_losses(iv, best)[0]})
    where = "test set" if measure == "test" else "map's unseen centres"
    out = {}
    for m, iv in found.items():
        band = band_of(iv, best, chance, is_best=m == best_name, lower=lower.get(m, False))
        words = phrase(band, chance, labels.get(best_name, best_name), m == best_name)
        if band in ("below", "chance", "unclear") and lower.get(m, False):  # a loss the band against chance hides
            _, losses, shared = wins_and_losses(iv, best)
            words += (f"; against the {labels.get(best_name, best_name)}: lower on {losses} of {shared} units (sign "
                      "test, Holm-adjusted over this run's models)")
        out[m] = Verdict(m, iv, band, f"{iv.outcomes}; mean {iv}, {iv.counted}, on the {where}: {words}", best,
                         chance)
    return out
