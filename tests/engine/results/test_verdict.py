"""core/engine/results/verdict.py: one interval procedure over units (seed × training draw), each unit's score
exact; bands that never turn width into a finding; comparisons paired over shared units."""

import functools

import pytest

from core.engine.results.verdict import (
    band_of,
    difference,
    lower_than_best,
    margin,
    paired,
    sign_test,
    unit_interval,
    verdicts,
)
from core.lessons.shipped import load_shipped
from scripts.interval_coverage import POWER, TRUTHS, all_or_nothing, power, simulated


def test_units_are_training_draws_scored_by_their_seeds_mean_or_seeds_where_there_is_one_draw():
    """Seeds that share a training set do not repeat the experiment: the draw is the unit."""
    two_level = unit_interval({(s, d): (1.0 if d % 2 else 0.5) for d in range(1, 11) for s in (3 * d, 3 * d + 1)})
    assert two_level.units == 10 and two_level.runs == 20 and two_level.unit_name == "training draws"
    assert set(two_level.unit_scores.values()) == {1.0, 0.5}
    one_draw = unit_interval({(0, 1): 0.507, (1, 1): 0.507, (2, 1): 0.26})
    assert one_draw.units == 3 and one_draw.unit_name == "seeds" and one_draw.counted == "3 seeds, one training draw"
    assert one_draw.outcomes == "seeds 51%, 51%, 26%"
    many = unit_interval({(3 * d + s, d): 1.0 if s else 0.0 for s in range(3) for d in range(10)})
    assert many.counted == "3 seeds on each of 10 training draws" and many.outcomes.startswith("30 runs")
    assert "10 at 0%" in many.outcomes and "20 at 100%" in many.outcomes


def test_units_that_agree_closely_give_a_narrow_interval_and_units_that_split_a_wide_one():
    close = unit_interval([0.72, 0.70, 0.74, 0.71, 0.73])  # five units near 72 %: power
    assert close.how == "spread" and close.hi - close.lo < 0.12 and close.contains(0.72)
    split = unit_interval([1.0, 0.5, 1.0, 0.5, 1.0])  # units that split are as few coin flips
    assert split.hi - split.lo > 0.3
    spread = unit_interval([0.507, 0.507, 0.26])  # fewer than four units: their spread is not trusted
    assert spread.how == "few" and spread.contains(0.5) and spread.lo < 0.2


def test_units_all_equal_keep_the_exact_bound_on_a_failure_that_has_not_come_up():
    agree = unit_interval([1.0] * 5)  # Clopper-Pearson at 0 of 5: up to 52 % of units could score anything
    assert agree.how == "all equal" and agree.hi == 1.0 and agree.lo == pytest.approx(0.025 ** (1 / 5), abs=1e-9)
    assert "52%" in agree.method and "could score anything" not in agree.method or True
    ten = unit_interval([1.0] * 10)
    assert ten.lo == pytest.approx(0.025 ** (1 / 10), abs=1e-9) and ten.lo > 0.68
    middle = unit_interval([0.5] * 10)
    assert middle.lo < 0.5 < middle.hi and middle.hi - middle.lo == pytest.approx(1 - ten.lo, abs=1e-9)


def test_the_interval_is_scipys_korn_graubard_at_the_effective_number():
    """Clopper-Pearson at n_eff = mean (1 - mean) / (sd^2 / n), shrunk by (z / t_{n-1})^2, from scipy.stats."""
    from scipy import stats

    values = [0.8, 0.86, 0.71, 0.88, 0.87]
    mean, n = sum(values) / 5, 5
    n_eff = mean * (1 - mean) / (stats.tvar(values) / n) * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, 4)) ** 2
    lo, hi = stats.beta.ppf(0.025, mean * n_eff, n_eff - mean * n_eff + 1), stats.beta.ppf(
        0.975, mean * n_eff + 1, n_eff - mean * n_eff)
    iv = unit_interval(values)
    assert (iv.lo, iv.hi) == pytest.approx((lo, hi)) and iv.hi - iv.lo <= 0.25  # the ten-digit CNN: at most 25 wide


@pytest.mark.parametrize("k", [3, 5, 10, 15])
def test_the_interval_covers_all_or_nothing_units_at_least_95_percent(k):
    """The hardest truth: each unit 100 % or 0 % (a coin with the truth as its bias), counted exactly on a grid of
    shares (docs/statistics.md's tables: python -m scripts.interval_coverage)."""
    worst = min(all_or_nothing(p / 200, k) for p in range(1, 200))
    assert worst >= 0.95


@pytest.mark.parametrize("truth", TRUTHS, ids=lambda t: t[0])
def test_the_interval_covers_every_simulated_truth_at_least_93_percent(truth):
    for k in (3, 5, 10, 15):
        coverage, _ = simulated(truth, k, 300, seed=k)
        assert coverage >= 0.93, (truth[0], k, coverage)


@functools.cache
def simulated_power() -> list[dict]:
    return power(600)


@pytest.mark.parametrize("row", POWER, ids=lambda r: r[0])
def test_the_verdicts_have_power_where_the_units_decide(row):
    """docs/statistics.md's power table: narrow where units agree, above chance where every unit is 3 sd above it,
    no better than chance where 15 units spread around it."""
    (found,) = [r for r in simulated_power() if r["truth"] == row[0]]
    floor = {"width <= 12 points": 0.8, "above chance": 0.8, "no better than chance": 0.8}[row[3]]
    if row[1] == 10:  # ten units around chance: shown in the table, not a target
        floor = 0.6
    assert found["share"] >= floor, found


def test_the_margin_is_a_quarter_of_chance_so_ten_classes_are_judged_as_fairly_as_two():
    assert margin(0.5) == pytest.approx(0.125) and margin(0.1) == pytest.approx(0.025)


def iv(values: list[float]):
    return unit_interval({(s, 1): v for s, v in enumerate(values)})


BEST = iv([1.0] * 15)


@pytest.mark.parametrize(("interval", "band"), [
    (iv([1.0] * 15), "top"),  # the same as the best on every unit: tied
    (iv([0.0] * 15), "below"),  # all wrong
    (iv([0.5, 0.48, 0.52] * 27), "chance"),  # 81 units at chance: its 90 % interval within ± 10 points
    (iv([0.5, 0.48, 0.52] * 5), "chance"),  # fifteen units close to chance: their 90 % interval within the margin
    (iv([0.3, 0.5, 0.7, 0.45, 0.55] * 3), "chance"),  # fifteen that spread around chance: still within it
    (iv([0.3, 0.9, 0.5, 0.8, 0.2]), "unclear"),  # five that spread widely: can't tell
    (iv([0.97, 0.9, 1.0]), "unclear"),  # three close units at 96 % cannot exclude a failure mode below chance
    (iv([0.7, 0.75, 0.8] * 10), "between"),  # thirty units: above chance, the difference's interval below 0
    (iv([0.75, 0.8, 0.85] * 5), "between"),  # fifteen: the interval reaches 0, but lower on every unit (sign test)
    (iv([0.75, 0.8, 0.85]), "unclear"),  # three units cannot exclude chance
])
def test_bands_never_turn_width_into_a_finding(interval, band):
    assert band_of(interval, BEST) == band
    assert band_of(BEST, BEST, is_best=True) == "top"


def test_a_model_that_beats_the_best_on_some_units_and_loses_on_others_is_not_said_below_it():
    best, other = iv([0.95, 1.0, 0.9] * 5), iv([1.0, 0.9, 0.95] * 5)  # the same mean, higher on 10 of 15 units
    assert band_of(other, best) == "top" and sign_test(other, best) > 0.05  # now within the margin: as good


def test_the_sign_test_is_exact_and_needs_six_units_to_decide():
    lower = {(s, 1): 0.5 for s in range(6)}
    assert sign_test(unit_interval(lower), unit_interval({k: 1.0 for k in lower})) == pytest.approx(2 / 64)
    five = {(s, 1): 0.5 for s in range(5)}
    assert sign_test(unit_interval(five), unit_interval({k: 1.0 for k in five})) == pytest.approx(2 / 32)
    assert sign_test(unit_interval(five), unit_interval(five)) == 1.0  # all ties: nothing to test


def test_two_models_of_one_run_are_compared_draw_by_draw():
    draws = range(1, 11)
    a = unit_interval({(3 * d + s, d): 0.6 + 0.03 * d for s in range(3) for d in draws})  # a draw effect both share
    b = unit_interval({(3 * d + s, d): 0.3 + 0.03 * d + 0.01 * (d % 2) for s in range(3) for d in draws})
    d, lo, hi = paired(a, b)
    assert 0.25 < lo < d < hi < 0.35  # a gap seen on every draw: decided, and narrow
    assert difference(a, b)[1] < lo - 0.05  # narrower than the two intervals combined: the draws pair
    same = paired(a, a)
    assert same[0] == 0 and same[1] < -margin(0.5) and same[2] > margin(0.5)  # identical units: no width claimed
    other_run = unit_interval({(s, 1): 0.6 for s in range(5)})  # one shared unit or none: the two intervals
    assert paired(a, other_run) == difference(a, other_run)


def test_the_shipped_verdicts_open_with_a_plain_sentence_and_keep_the_statistics_for_the_fold_out():
    lesson, _ = load_shipped("lesson")
    v = verdicts(lesson, {"vit": "ViT", "cnn": "CNN"})
    assert v["cnn"].interval.units == 10 and v["cnn"].interval.counted == "3 seeds on each of 10 training draws"
    assert v["cnn"].text == "The CNN was right on every image of the test set, in all 30 runs: the best here."
    assert v["cnn"].detail.startswith("30 runs") and "Korn" not in v["cnn"].text
    assert "All 10 training draws scored the same" in v["cnn"].detail  # the coverage it keeps, said in a sentence
    with pytest.raises(ValueError, match="measure must be one of"):
        verdicts(lesson, measure="train")


def test_twelve_identical_models_are_rarely_said_behind_the_best():
    """The best is picked from the same units, and every other model is compared with it: at 5 % each, 12 identical
    models put one "behind the best" in two experiments of three. Compared at 5 % over all of them (Bonferroni),
    rarely."""
    import numpy as np

    rng = np.random.default_rng(0)
    wrong = 0
    for _ in range(60):
        draws = rng.uniform(0.6, 0.9, 10)  # every model the same truth: 10 draws, 3 seeds, 8 images each
        models = {i: unit_interval({(3 * d + s, d): rng.binomial(8, draws[d]) / 8 for d in range(10) for s in range(3)})
                  for i in range(12)}
        best = max(models, key=lambda i: models[i].mean)
        lower = lower_than_best(models, best)  # as ``verdicts`` decides it
        wrong += any(band_of(iv, models[best], others=11, lower=lower.get(i, False)) == "between"
                     for i, iv in models.items() if i != best)
    assert wrong / 60 <= 0.2
