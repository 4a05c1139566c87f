import math

import pytest

from core.engine.results.verdict import (
    MARGIN,
    Interval,
    accuracy_interval,
    band_of,
    difference,
    distinct_test_images,
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


def test_the_test_set_part_counts_distinct_images_not_draws():
    """The lesson's test set draws 150 images from 4 centres × 2 shapes: 8 distinct. The CNN's 8 out of 8 right
    supports about 68-100 %, not 98-100 %."""
    lesson = load_shipped("lesson")[0]
    assert distinct_test_images(lesson.config.data) == 8
    cnn = verdicts(lesson)["cnn"].interval
    assert (cnn.images, cnn.drawn) == (8, 150) and cnn.hi == 1.0 and 0.67 < cnn.lo < 0.69
    assert "8 distinct test images (150 drawn)" in verdicts(lesson)["cnn"].text


def at(mean, lo, hi, seeds=5, images=128):
    return Interval(mean, lo, hi, seeds, images)


BEST = at(1.0, 0.97, 1.0)


@pytest.mark.parametrize(("interval", "band"), [
    (at(1.0, 0.97, 1.0), "top"),  # all right, narrow: as good as the best within the margin
    (at(0.0, 0.0, 0.03), "below"),  # all wrong
    (at(0.51, 0.45, 0.57), "chance"),  # narrow and equal to chance: at chance
    (at(0.42, 0.07, 0.78), "unclear"),  # overlapping chance but wide: can't tell yet
    (at(0.75, 0.65, 0.85), "between"),  # above chance, clearly below the best
    (at(0.94, 0.6, 1.0), "above"),  # above chance, overlapping the best but too wide to call it as good
    (at(0.6, 0.52, 0.68, seeds=1), "between"),  # one seed: the same rules on the test set alone
])
def test_bands_never_turn_width_into_a_finding(interval, band):
    assert band_of(interval, BEST) == band
    assert band_of(BEST, BEST, is_best=True) == "top"


def test_overlapping_intervals_alone_say_neither_alike_nor_different():
    a, b = at(0.9, 0.6, 1.0), at(1.0, 0.68, 1.0)
    assert a.overlaps(b) and band_of(a, b) == "above"  # overlap, yet not "as good as": can't tell yet
    d, lo, hi = difference(a, b)
    assert d == pytest.approx(-0.1) and lo < -MARGIN and hi > 0


def test_the_shipped_runs_are_said_no_more_strongly_than_their_intervals():
    lesson, _ = load_shipped("lesson")
    v = verdicts(lesson)
    assert v["vit"].band == "unclear" and v["cnn"].band == "top" and "can't tell yet" in v["vit"].text
    unseen = verdicts(lesson, measure="unseen map")
    assert unseen["vit"].interval.images == 64 * 2  # every unseen centre of the map, both shapes
    ex2, _ = load_shipped("exercise-2")  # 100 %, 100 %, 78 % on 8 distinct images: above chance, can't tell vs CNN
    assert verdicts(ex2)["vit"].band == "above"
    with pytest.raises(ValueError, match="measure must be one of"):
        verdicts(lesson, measure="train")
