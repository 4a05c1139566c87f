import math

import pytest

from core.engine.verdict import (
    PREDICTIONS,
    Interval,
    accuracy_interval,
    band_of,
    judge_prediction,
    t95,
    verdicts,
    wilson,
)
from core.lessons.shipped import load_shipped


def test_wilson_matches_the_textbook_values():
    lo, hi = wilson(0.5, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    lo, hi = wilson(1.0, 150)  # every image right still leaves room below 100 %
    assert hi == 1.0 and 0.97 < lo < 0.98


def test_t_quantiles_are_conservative_between_table_rows():
    assert t95(2) == 4.303 and t95(11) == t95(10) and t95(100) < t95(30)
    with pytest.raises(ValueError):
        t95(0)


def test_interval_joins_seed_spread_and_test_set_size():
    agree = accuracy_interval([1.0, 1.0, 1.0], 150)  # seeds agree: only the test set's size is left
    assert agree.hi == 1.0 and agree.lo == pytest.approx(wilson(1.0, 150)[0])
    spread = accuracy_interval([0.507, 0.507, 0.26], 150)  # the lesson's ViT
    assert spread.lo < 0.1 and spread.hi > 0.75 and spread.contains(0.5)
    one = accuracy_interval([0.6], 60)  # one seed: the test set alone
    assert (one.lo, one.hi) == pytest.approx(wilson(0.6, 60))


def test_bands():
    best = Interval(1.0, 0.97, 1.0, 3, 150)
    assert band_of(Interval(0.3, 0.2, 0.4, 3, 150), best) == "below"
    assert band_of(Interval(0.55, 0.4, 0.7, 3, 150), best) == "chance"
    assert band_of(Interval(0.8, 0.7, 0.9, 3, 150), best) == "between"
    assert band_of(Interval(0.95, 0.9, 0.99, 3, 150), best) == "top"


def test_the_shipped_runs_are_said_no_more_strongly_than_their_intervals():
    lesson, _ = load_shipped("lesson")
    v = verdicts(lesson)
    assert v["vit"].band == "chance" and v["cnn"].band == "top" and "not distinguishable from chance" in v["vit"].text
    ex1, _ = load_shipped("exercise-1")  # 56.9 %: not "well above chance"
    assert verdicts(ex1)["vit"].band == "chance"
    ex2, _ = load_shipped("exercise-2")  # 100 %, 100 %, 78 %: as good as the CNN within 3 seeds' uncertainty
    assert verdicts(ex2)["vit"].band == "top" and verdicts(ex2)["vit"].interval.lo < 0.8


def test_prediction_is_right_possible_or_wrong():
    lesson, _ = load_shipped("lesson")
    vit = verdicts(lesson)["vit"]
    assert [judge_prediction(p, vit) for p in PREDICTIONS] == ["wrong", "possible", "right"]
    with pytest.raises(ValueError):
        judge_prediction("50/50", vit)
