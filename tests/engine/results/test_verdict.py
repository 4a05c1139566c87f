"""core/engine/results/verdict.py: one interval procedure over units (seed × training draw), each unit's score
exact; bands that never turn width into a finding; comparisons paired over shared units."""

import math

import pytest

from core.engine.results.verdict import (
    band_of,
    difference,
    margin,
    paired,
    sign_test,
    t_quantile,
    unit_interval,
    verdicts,
    wilson,
)
from core.lessons.shipped import load_shipped
from scripts.interval_coverage import TRUTHS, all_or_nothing, simulated


def test_wilson_matches_the_textbook_values():
    lo, hi = wilson(0.5, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    lo, hi = wilson(1.0, 5)  # five units at 100 % do not claim the sixth
    assert hi == 1.0 and 0.56 < lo < 0.57


def test_t_quantiles_are_conservative_between_table_rows():
    assert t_quantile(2) == 4.303 and t_quantile(11) == 2.201 and t_quantile(27) == t_quantile(25)
    assert t_quantile(4, 0.90) == 2.132 and t_quantile(100) < t_quantile(30)
    with pytest.raises(ValueError):
        t_quantile(0)


def test_the_interval_is_the_union_of_the_seeds_spread_and_the_widest_spread_a_score_can_have():
    agree = unit_interval([1.0] * 5)  # units agree: the Wilson part is what is left
    assert agree.hi == 1.0 and agree.lo == pytest.approx(wilson(1.0, 5)[0])
    spread = unit_interval([0.507, 0.507, 0.26])  # the lesson's ViT: the t part is wider
    assert spread.lo < 0.1 and spread.hi > 0.8 and spread.contains(0.5)
    close = unit_interval([0.72, 0.70, 0.74, 0.71, 0.73])  # close seeds still do not hide a failure mode
    assert close.contains(0.5) and close.lo < 0.4 < 0.9 < close.hi


def test_each_units_score_comes_first():
    three = unit_interval({(0, 1): 0.507, (1, 1): 0.507, (2, 1): 0.26})
    assert three.outcomes == "seeds 51%, 51%, 26%" and three.counted == "3 seeds, one training draw"
    many = unit_interval({(s, d): 1.0 if s else 0.0 for s in range(5) for d in (1, 2, 3)})
    assert many.counted == "5 seeds over 3 training draws" and many.outcomes.startswith("15 units")
    assert "3 at 0%" in many.outcomes and "12 at 100%" in many.outcomes


@pytest.mark.parametrize(("k", "floor"), [(3, 0.915), (5, 0.925), (15, 0.93)])
def test_the_interval_covers_all_or_nothing_units_at_least_as_docs_statistics_says(k, floor):
    """The hardest truth: each unit 100 % or 0 % (a coin with the truth as its bias), counted exactly on a fine grid
    of shares: the worst cases docs/statistics.md tables (python -m scripts.interval_coverage)."""
    worst = min(all_or_nothing(p / 1000, k) for p in range(1, 1000))
    assert floor <= worst < floor + 0.01


@pytest.mark.parametrize("truth", TRUTHS, ids=lambda t: t[0])
def test_the_interval_covers_every_simulated_truth_at_least_93_percent(truth):
    for k in (3, 5, 15):
        coverage, _ = simulated(truth, k, 400, seed=k)
        assert coverage >= 0.93, (truth[0], k, coverage)


def test_the_margin_is_a_fifth_of_chance_so_ten_classes_are_judged_as_fairly_as_two():
    assert margin(0.5) == pytest.approx(0.1) and margin(0.1) == pytest.approx(0.02)


def iv(values: list[float]):
    return unit_interval({(s, 1): v for s, v in enumerate(values)})


BEST = iv([1.0] * 15)


@pytest.mark.parametrize(("interval", "band"), [
    (iv([1.0] * 15), "top"),  # the same as the best on every unit: tied
    (iv([0.0] * 15), "below"),  # all wrong
    (iv([0.5, 0.48, 0.52] * 27), "chance"),  # 81 units at chance: its 90 % interval within ± 10 points
    (iv([0.5, 0.48, 0.52] * 5), "unclear"),  # fifteen units at chance: too few to say "at chance"
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
    assert band_of(other, best) == "above" and sign_test(other, best) > 0.05


def test_the_sign_test_is_exact_and_needs_six_units_to_decide():
    lower = {(s, 1): 0.5 for s in range(6)}
    assert sign_test(unit_interval(lower), unit_interval({k: 1.0 for k in lower})) == pytest.approx(2 / 64)
    five = {(s, 1): 0.5 for s in range(5)}
    assert sign_test(unit_interval(five), unit_interval({k: 1.0 for k in five})) == pytest.approx(2 / 32)
    assert sign_test(unit_interval(five), unit_interval(five)) == 1.0  # all ties: nothing to test


def test_two_models_of_one_run_are_compared_over_their_shared_units_never_narrower_than_their_intervals():
    a = unit_interval({(s, d): 0.9 for s in range(5) for d in (1, 2, 3)})
    b = unit_interval({(s, d): 0.6 for s in range(5) for d in (1, 2, 3)})
    d, lo, hi = paired(a, b)
    assert d == pytest.approx(0.3) and (lo, hi) == pytest.approx(difference(a, b)[1:])  # no spread: the intervals
    noisy = unit_interval({(s, d): 0.6 + (0.3 if (s + d) % 2 else -0.3) for s in range(5) for d in (1, 2, 3)})
    assert paired(a, noisy)[1] <= difference(a, noisy)[1]  # never narrower than the two intervals
    same = paired(a, a)
    assert same[0] == 0 and same[1] < -margin(0.5) and same[2] > margin(0.5)  # identical units: no width claimed


def test_the_shipped_verdicts_say_each_unit_first_and_no_more_than_their_intervals():
    lesson, _ = load_shipped("lesson")
    v = verdicts(lesson)
    assert v["cnn"].interval.units == 15 and v["cnn"].interval.counted == "15 seeds over 3 training draws"
    assert v["cnn"].text.startswith("15 units") and v["vit"].band in ("unclear", "below", "chance")
    assert v["cnn"].interval.lo < 1.0 == v["cnn"].interval.mean or v["cnn"].interval.mean < 1.0
    with pytest.raises(ValueError, match="measure must be one of"):
        verdicts(lesson, measure="train")
