"""Honest verdicts: what a run's accuracies allow us to say, with the power to say it.

**What is random.** A model's accuracy depends on its seed (starting weights, data order) and its training draw
(which images the training set holds). The seeds of one draw share its training set, so they do not repeat the
experiment independently: the **unit** is the training draw, scored by the mean of its seeds. A run of one draw
(a learner's own, the digits) has only its seeds to go on: there the seeds are the units, and what the interval
covers is the spread between seeds, not between draws (the pages say so). The measures' images are not random: a
measure is every class at every centre it names, once each (``core.engine.results.units``), so a unit's score
is exact.

**The interval** (``interval_of``): the Korn–Graubard interval, Clopper–Pearson's exact binomial interval at the
units' *effective number*, ``mean (1 - mean) / (sd² / n)``: as many coin flips as would spread as little as the
units' mean does, with the t quantile's allowance for a spread estimated from few units (``scipy.stats``). Units
that agree closely are many coin flips' worth: five units near 72 % (sd 3 points) give an interval about 7 points
wide. Units that split (all-or-nothing, 100 % or 50 %) are few: the interval is as wide as their coin flips'. Two
cases a spread cannot speak for:

- **Every unit the same score**: no spread to measure, yet a failure that hits a few units may not have come up.
  The interval is the exact bound on the share of units that could score otherwise (Clopper–Pearson at 0 of n:
  under 52 % of units with 5, 31 % with 10), which could score anything: ``Interval.unseen`` says it in a sentence.
- **Fewer than four units**: their spread is too poorly known to trust; the effective number is capped at the
  number of units (the cap Korn and Graubard apply at every size, applied here below four units only), and the
  verdict says that so few decide nothing.

Its coverage, width and power, simulated for truths with known means (bimodal ones and a draw effect among them),
are in docs/statistics.md (``scripts/interval_coverage.py``).

**Comparisons** (``paired``): two models of one run, over the units both hold: the same interval over the per-unit
differences (mapped onto 0..1). Two runs (``difference``) do not pair: their two intervals combined (Newcombe).

**Bands.** Against chance: *below* or *above* only where the 95 % interval excludes chance; *no better than
chance* (``chance``) where it holds chance and its 90 % upper end lies within the margin above chance (a one-sided
test at 5 % that the model is not better than guessing by more than the margin); otherwise *can't tell yet*. The
margin is a quarter of chance (12.5 points for two classes, 2.5 for ten): with it, 15 units that spread around chance
as the lesson's ViT does (sd 14 points) are judged no better than chance in nine experiments of ten (docs/statistics.md:
at a fifth of chance, four in five). Against the run's best model: *as good as* where
the 90 % interval of the paired difference lies within ± the margin (or the same score on every unit); *below the
best* where its interval excludes 0 at 5 % over all the run's models compared with the best (Bonferroni: level
1 − 0.05 / (m − 1)), or the model scores lower on more units than a fair coin explains (the sign test,
Holm-adjusted over the run's models); otherwise *can't tell yet*. The bands: ``below``, ``chance``,
``unclear``, ``between`` (above chance, below the best), ``above`` (above chance, can't tell yet against the best)
and ``top`` (the best, or as good as it).

**Words.** A verdict opens with one plain sentence (``Verdict.text``: what the model got right, and what that
means against guessing and the best model); the statistics (units, interval, tests) are ``Verdict.detail``, for a
fold-out. The measures' names are ``MEASURE_NAMES``, the same on every page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from statistics import variance

from scipy import stats

from core.data.data_config import DataConfig, distinct, make_data
from core.engine.results.behaviour import map_scores
from core.engine.results.run_result import RunResult, summary
from core.engine.results.units import run_units, scores

CHANCE = 0.5  # two balanced classes; a run's own is its dataset's (``Dataset.chance``)
MARGIN_SHARE = 0.25  # the equivalence margin, a share of chance: "no better than chance" and "close to the best" within it
MIN_SPREAD_UNITS = 4  # fewer units than this: their spread is not trusted (the effective number is capped)
BANDS = ("below", "chance", "unclear", "between", "above", "top")
ABOVE_CHANCE = ("between", "above", "top")  # the bands whose interval excludes chance from above
CANT_TELL = ("unclear", "above")  # the bands that say "can't tell yet"

# A verdict's measure -> the units' measure; its one name on every page; what it holds
MEASURES = {"test": "test", "unseen map": "unseen"}
MEASURE_NAMES = {"test": "test set", "unseen map": "unseen map"}
MEASURE_HOLDS = {"test": "every class at every test centre of the split, once each",
                 "unseen map": "every class at every centre of the map never trained on, once each"}

Key = tuple[int, int]  # a run: (seed, training draw)


def margin(chance: float) -> float:
    """The equivalence margin: a quarter of chance (12.5 points for two classes, 2.5 for ten)."""
    return MARGIN_SHARE * chance


def points(x: float) -> str:
    """A share as percentage points: "12.5 points", "10 points"."""
    return f"{x * 100:.3g} points"


def interval_of(values: list[float], level: float = 0.95) -> tuple[float, float, str]:
    """``_interval_of`` once per distinct units and level: a page asks for the same verdicts on every rerun."""
    return _interval_of(tuple(values), level)


@lru_cache(maxsize=4096)
def _interval_of(values: tuple[float, ...], level: float) -> tuple[float, float, str]:
    """(lo, hi, how) for the mean of independent units, each a score in [0, 1] (module docstring). ``how``: "spread"
    (Korn–Graubard at the units' effective number), "few" (capped at the number of units) or "all equal" (the
    exact bound on the share of units that could score otherwise)."""
    n = len(values)
    if not n:
        raise ValueError("no scores to summarise")
    mean, tail = sum(values) / n, (1 - level) / 2
    if max(values) == min(values):
        share = 1 - tail ** (1 / n)  # Clopper–Pearson's upper bound at 0 of n
        return mean * (1 - share), mean + share * (1 - mean), "all equal"
    var = variance(values)  # the sample variance (n - 1)
    effective = mean * (1 - mean) / (var / n) if var > 0 else math.inf
    # Korn–Graubard's allowance for a variance from n units: the effective number shrunk by (z / t_{n-1})²
    effective *= (stats.norm.ppf(1 - tail) / stats.t.ppf(1 - tail, n - 1)) ** 2
    how = "spread"
    if n < MIN_SPREAD_UNITS and effective > n:
        effective, how = n, "few"
    x = mean * effective
    lo = float(stats.beta.ppf(tail, x, effective - x + 1)) if mean > 0 else 0.0
    hi = float(stats.beta.ppf(1 - tail, x + 1, effective - x)) if mean < 1 else 1.0
    return min(lo, mean), max(hi, mean), how


def by_unit(scores: Mapping[Key, float]) -> dict[tuple[int | None, int], float]:
    """The independent units of a model's runs: each training draw's mean over its seeds, keyed (None, draw), or,
    with one draw, each seed, keyed (seed, draw): two models' units pair only where they are the same kind."""
    draws: dict[int, list[float]] = {}
    for (_, d), s in scores.items():
        draws.setdefault(d, []).append(s)
    if len(draws) > 1:
        return {(None, d): sum(v) / len(v) for d, v in sorted(draws.items())}
    return dict(sorted(scores.items()))


@dataclass(frozen=True)
class Interval:
    mean: float  # the mean over units
    lo: float
    hi: float
    units: int  # how many independent units: training draws, or seeds where there is one draw
    scores: tuple[tuple[Key, float], ...] = ()  # each run's exact score, by (seed, training draw)
    level: float = 0.95
    how: str = "spread"  # interval_of's: "spread", "few" or "all equal"

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def overlaps(self, other: Interval) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    @property
    def draws(self) -> int:
        return len({d for (_, d), _ in self.scores}) or 1

    @property
    def runs(self) -> int:
        """How many trainings the scores come from (seeds × draws)."""
        return len(self.scores) or self.units

    @property
    def unit_scores(self) -> dict[tuple[int | None, int], float]:
        """Each independent unit's score (``by_unit``)."""
        return by_unit(dict(self.scores)) if self.scores else {}

    def at(self, level: float) -> Interval:
        """The same units at another level."""
        return self if level == self.level else unit_interval(dict(self.scores), level)

    def __str__(self) -> str:
        return f"{self.mean:.1%} ({self.level * 100:.0f} % interval {pct(self.lo)}–{pct(self.hi)})"

    @property
    def outcomes(self) -> str:
        """Each run's score, before any summary: "seeds 51%, 51%, 26%", or for many "30 runs: 3% to 40%" with how
        many sit at the extremes."""
        values = [s for _, s in self.scores]
        if not values:
            return ""
        if len(values) <= 5 and self.draws == 1:
            return ("seed " if len(values) == 1 else "seeds ") + ", ".join(f"{v:.0%}" for v in values)
        line = f"{len(values)} runs ({self.counted}): {min(values):.0%} to {max(values):.0%}"
        ends = [f"{n} at {v:.0%}" for v in sorted({min(values), max(values)}) if (n := values.count(v)) > 1]
        return line + (f" ({', '.join(ends)})" if ends else "")

    @property
    def counted(self) -> str:
        """What the interval counts, in words: "3 seeds on each of 10 training draws", "3 seeds, one training
        draw"."""
        seeds = len({s for (s, _), _ in self.scores}) or self.units
        if self.draws > 1:
            each = seeds // self.draws
            return (f"{each} seeds on each of {self.draws} training draws" if each * self.draws == seeds else
                    f"{seeds} seeds over {self.draws} training draws")
        return "one seed, so the spread between seeds is unknown" if seeds == 1 else f"{seeds} seeds, one training draw"

    @property
    def unit_name(self) -> str:
        return "training draws" if self.draws > 1 else "seeds"

    @property
    def method(self) -> str:
        """How the interval was found, in a sentence: the statistics fold-out's last line."""
        n, name = self.units, self.unit_name
        if self.how == "all equal":
            share = 1 - ((1 - self.level) / 2) ** (1 / n)
            return (f"All {n} {name} scored the same, so there is no spread to measure: the interval allows up to "
                    f"{share:.0%} of {name} (the exact bound from {n}) to score anything else, since a failure that "
                    "hits only a few would not have come up yet.")
        extra = (f" With fewer than {MIN_SPREAD_UNITS} {name} their spread is not trusted: the interval is as wide as "
                 f"{n} coin flips'." if self.how == "few" else "")
        per_draw = (" Each training draw counts once, scored by the mean of its seeds: seeds that share a training "
                    "set do not repeat the experiment." if self.draws > 1 else
                    " One training draw: the interval covers the spread between seeds, not between training sets.")
        return (f"The {self.level * 100:.0f} % interval is over {n} {name} (Korn–Graubard: exact binomial at the "
                f"units' effective number).{per_draw}{extra}")


def unit_interval(scores: Mapping[Key, float] | list[float], level: float = 0.95) -> Interval:
    """The interval of the mean over units (module docstring), from each run's score by (seed, training draw); a
    plain list is one draw's seeds."""
    keyed = tuple(scores.items()) if isinstance(scores, Mapping) else tuple(((i, 0), s) for i, s in enumerate(scores))
    if not keyed:
        raise ValueError("no scores to summarise")
    units = list(by_unit(dict(keyed)).values())
    lo, hi, how = interval_of(units, level)
    return Interval(sum(units) / len(units), max(0.0, lo), min(1.0, hi), len(units), keyed, level, how)


def difference(a: Interval, b: Interval) -> tuple[float, float, float]:
    """(a - b, lo, hi): the interval of the difference of two means from their own intervals (Newcombe's method
    of recovering variance estimates; the two treated as independent)."""
    d = a.mean - b.mean
    lo = d - math.hypot(a.mean - a.lo, b.hi - b.mean)
    hi = d + math.hypot(a.hi - a.mean, b.mean - b.lo)
    return d, lo, hi


def shared_units(a: Interval, b: Interval) -> list[tuple[float, float]]:
    """(a's score, b's score) on each unit both hold."""
    ua, ub = a.unit_scores, b.unit_scores
    return [(ua[k], ub[k]) for k in ua if k in ub]


def paired(a: Interval, b: Interval, level: float = 0.95) -> tuple[float, float, float]:
    """(a - b, lo, hi) for two models of one run, over the units both hold (the same training draws, or seeds): the
    units' interval (``interval_of``) over the per-unit differences, each mapped from -1..1 onto 0..1. Fewer than
    two shared units: the two intervals' own ``difference``."""
    pairs = shared_units(a, b)
    if len(pairs) < 2:
        return difference(a.at(level), b.at(level))
    lo, hi, _ = interval_of([(x - y + 1) / 2 for x, y in pairs], level)
    d = sum(x - y for x, y in pairs) / len(pairs)
    return d, max(-1.0, 2 * lo - 1), min(1.0, 2 * hi - 1)


def wins_and_losses(a: Interval, b: Interval) -> tuple[int, int, int]:
    """(units where ``a`` scores higher than ``b``, lower, shared)."""
    pairs = shared_units(a, b)
    return sum(x > y for x, y in pairs), sum(x < y for x, y in pairs), len(pairs)


def sign_test(a: Interval, b: Interval) -> float:
    """The exact two-sided p-value that, on the units both hold, ``a`` beats ``b`` as often as ``b`` beats ``a``
    (ties left out; ``scipy.stats.binomtest``): whether one tends to score higher unit by unit, whatever the gaps."""
    wins, losses, _ = wins_and_losses(a, b)
    return float(stats.binomtest(wins, wins + losses).pvalue) if wins + losses else 1.0


def rank_test(a: Interval, b: Interval) -> float:
    """The two-sided p-value of the Mann–Whitney rank test that ``a``'s units and ``b``'s come from one
    distribution (``scipy.stats.mannwhitneyu``): for two runs whose units do not pair. 1.0 when every score is the
    same."""
    xs, ys = list(a.unit_scores.values()), list(b.unit_scores.values())
    if not xs or not ys or len(set(xs + ys)) == 1:
        return 1.0
    return float(stats.mannwhitneyu(xs, ys, alternative="two-sided").pvalue)


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
    """The same score on every run both hold (at least two): a description, not an inference."""
    sa, sb = dict(a.scores), dict(b.scores)
    shared = [k for k in sa if k in sb]
    return len(shared) >= 2 and all(sa[k] == sb[k] for k in shared) and len(shared) == len(sa) == len(sb)


def map_interval(result: RunResult, model: str, keep) -> Interval | None:
    """The model's accuracy over the map centres ``keep(cx, cy)`` selects (``map_scores``), each seed's exact,
    with the interval of their mean; None when no such centre was measured."""
    found = map_scores(result, model, keep)
    draw = result.config.data.data_seed
    return unit_interval({(seed, draw): s for seed, s in found.items()}) if found else None


@lru_cache(maxsize=64)
def distinct_test_images(d: DataConfig) -> int:
    """How many different images the notebook's test draw holds (the lesson's: 8 of 150 drawn)."""
    data = make_data(d)
    return len(distinct(data.Xte, data.yte)[0])


@dataclass(frozen=True)
class Verdict:
    model: str
    interval: Interval
    band: str  # one of BANDS
    text: str  # the plain sentence a learner reads first: what the model got right, and what that means
    best: Interval  # the best model's interval, which "top", "between" and "above" are measured against
    chance: float = CHANCE  # the accuracy of guessing on this run's classes
    detail: str = ""  # the statistics behind it, for the fold-out "How sure is this?"

    @property
    def cant_tell(self) -> bool:
        return self.band in CANT_TELL


def band_of(interval: Interval, best: Interval, chance: float = CHANCE, is_best: bool = False,
            lower: bool | None = None, others: int = 1) -> str:
    """The interval's band against chance and against the best model's interval (module docstring); ``lower``:
    whether the model is lower than the best unit by unit, decided over a family of comparisons (default: this
    one comparison's sign test at 5 %); ``others``: how many models are compared with the best, so that "behind
    the best" is said at 5 % over all of them (Bonferroni), not at 5 % each."""
    m = margin(chance)
    if interval.hi < chance:
        return "below"
    if interval.lo <= chance:
        return "chance" if interval.at(0.90).hi <= chance + m else "unclear"
    if is_best or tied(interval, best):
        return "top"
    _, lo90, hi90 = paired(interval, best, 0.90)
    if -m <= lo90 and hi90 <= m:
        return "top"
    _, _, hi = paired(interval, best, 1 - 0.05 / max(1, others))
    lower = lower_on_most_units(interval, best) if lower is None else lower
    return "between" if hi < 0 or lower else "above"


def phrase(band: str, chance: float, best_label: str, is_best: bool = False) -> str:
    """What a band says, in plain words, with what guessing scores on these classes."""
    at, within = f"guessing scores {chance * 100:.0f} %", points(margin(chance))
    return {"below": f"worse than guessing ({at})",
            "chance": f"no better than guessing ({at}; within {within} of it)",
            "unclear": f"not yet clearly better than guessing ({at}): the runs spread too widely to tell, more would",
            "between": f"better than guessing ({at}), and behind the {best_label}",
            "above": f"better than guessing ({at}); not yet clear whether as good as the {best_label}",
            "top": ("the best here" if is_best else f"close to the {best_label} (within {within})"),
            }[band]


def pct(x: float) -> str:
    """A share as a percentage, with a decimal where a whole number would hide it: 99.9 %, not 100 %."""
    return f"{x:.1%}" if 0 < x < 0.005 or 0.995 <= x < 1 else f"{x:.0%}"


def got_right(interval: Interval, where: str) -> str:
    """What the runs got right, in words: "was right on every image of the test set, in all 30 runs"."""
    values = [s for _, s in interval.scores]
    n = len(values)
    runs = "the one run" if n == 1 else f"all {n} runs"
    if min(values) == max(values) == 1:
        return f"was right on every image of the {where}, in {runs}"
    if min(values) == max(values) == 0:
        return f"was wrong on every image of the {where}, in {runs}"
    if n == 1 or max(values) - min(values) < 0.005:
        return f"was right on {pct(values[0])} of the {where}'s images, in {runs}"
    return (f"was right on {pct(interval.mean)} of the {where}'s images on average ({pct(min(values))} to "
            f"{pct(max(values))} over {n} runs)")


def plain_sentence(label: str, interval: Interval, band: str, chance: float, best_label: str, is_best: bool,
                   where: str) -> str:
    """The sentence a learner reads first: what the model did, then what it means, with no statistics' words. Where
    every run scored the same and that is still too few to decide (coverage against power), it says so."""
    if band in CANT_TELL and interval.how == "few":
        return (f"The {label} {got_right(interval, where)}; but so few runs decide nothing: train at least "
                f"{MIN_SPREAD_UNITS} seeds for a verdict.")
    if band in CANT_TELL and interval.how == "all equal":
        return (f"The {label} {got_right(interval, where)}; they all agree, but they are too few to rule out a "
                "failure that shows up only now and then, so this is not yet a verdict: more would tell.")
    return f"The {label} {got_right(interval, where)}: {phrase(band, chance, best_label, is_best)}."


def statistics(interval: Interval, band: str, chance: float, best_label: str, lower: tuple[int, int] | None,
               is_best: bool = False) -> str:
    """The fold-out's lines: each run's score, the interval and what it counts, how it was found, the band's test."""
    m = points(margin(chance))
    rule = {"below": f"its interval lies under chance ({chance:.0%})",
            "chance": f"its interval holds chance ({chance:.0%}) and its 90 % interval ends within {m} above it "
                      "(the margin)",
            "unclear": f"its interval holds chance ({chance:.0%}) and reaches more than {m} above it",
            "between": f"its interval lies above chance, and the interval of its difference from the {best_label} "
                       "(unit by unit) lies below 0",
            "above": f"its interval lies above chance; the interval of its difference from the {best_label} holds 0 "
                     f"and reaches beyond ±{m}",
            "top": "the highest mean here" if is_best else
                   f"its interval lies above chance, and its difference from the {best_label} lies within ±{m} "
                   "(90 % interval) or is 0 on every run"}[band]
    if band in CANT_TELL and interval.how == "all equal":
        rule += ("; every unit scored the same, which does not mean it might be guessing: only that so few cannot "
                 "promise every further one would")
    line = (f"{interval.outcomes}. Mean {interval}, over {interval.units} {interval.unit_name}. Band: {rule}. "
            f"{interval.method}")
    if lower:
        losses, shared = lower
        line += (f" Against the {best_label}: lower on {losses} of {shared} {interval.unit_name} (sign test, "
                 "Holm-adjusted over this experiment's models).")
    return line


def lower_than_best(found: Mapping[str, Interval], best_name: str) -> dict[str, bool]:
    """Which models are lower than the best unit by unit: one sign test per model against the best, Holm-adjusted
    over the run's models (the more models, the more a few lower units are expected by chance)."""
    best = found[best_name]
    return holm({m: sign_test(iv, best) for m, iv in found.items() if m != best_name
                 and wins_and_losses(iv, best)[1] > wins_and_losses(iv, best)[0]})


def intervals(result: RunResult, measure: str = "test") -> dict[str, Interval]:
    """Each model's interval on ``measure`` over its units (the run's replicates over seeds and training draws
    where it has them, else its own seeds), in the config's model order; models with no score are left out."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {tuple(MEASURES)}, got {measure!r}")
    units = run_units(result)
    found = {m: scores(units, m, MEASURES[measure]) for m in summary(result)}
    return {m: unit_interval(s) for m, s in found.items() if s}


def verdicts(result: RunResult, labels: dict[str, str] | None = None, measure: str = "test") -> dict[str, Verdict]:
    """Every model's verdict on ``measure`` (``MEASURE_NAMES``), in the config's model order, against the best
    model of the run on the same measure: a plain sentence first, the statistics in ``detail``."""
    labels = labels or {}
    chance = result.config.data.kind.chance
    found = intervals(result, measure)
    if not found:
        return {}
    best_name = max(found, key=lambda m: found[m].mean)
    best, best_label = found[best_name], labels.get(best_name, best_name)
    lower = lower_than_best(found, best_name)
    where = MEASURE_NAMES[measure]
    out = {}
    for m, iv in found.items():
        band = band_of(iv, best, chance, is_best=m == best_name, lower=lower.get(m, False), others=len(found) - 1)
        losses = wins_and_losses(iv, best)[1:] if lower.get(m, False) else None
        text = plain_sentence(labels.get(m, m), iv, band, chance, best_label, m == best_name, where)
        if band == "top" and losses:  # close to the best, and lower on more units than chance explains
            text = text[:-1] + (", though lower than it every time." if losses[0] == losses[1] else
                                ", though lower than it most of the time.")
        out[m] = Verdict(m, iv, band, text, best, chance,
                         statistics(iv, band, chance, best_label, losses, m == best_name))
    return out
