"""The learner's classes drawn where the lesson draws its shapes: the default classes are the lesson's images bit for
bit, every pattern is placed by the middle of its box, and a digit class is split by scan as lesson 5 splits it."""

from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from core.data import digits
from core.data.data_config import DataConfig, make_data
from core.data.datasets import dataset
from core.data.own_classes import OwnClass, drawing_rows, encode_classes
from core.data.own_dataset import centres_tested, own_fields, place_pattern
from core.data.own_split import phase_split

TEE = ("###", ".#.", ".#.")
BAR = ("####",)
FIELDS = ("Xtr", "ytr", "Xte", "yte", "grid_X", "grid_y")


def same_data(a: DataConfig, b: DataConfig) -> bool:
    x, y = make_data(a), make_data(b)
    return all(torch.equal(getattr(x, f), getattr(y, f)) for f in FIELDS) and np.array_equal(x.grid_centres,
                                                                                              y.grid_centres)


def test_the_default_classes_draw_the_lessons_very_images():
    lesson = DataConfig()
    own = replace(lesson, dataset="own")
    assert own.kind.classes == ("plus", "circle") and own.kind.reach == (3, 3) and own.own_classes.startswith("c1.")
    assert same_data(own, lesson)


def same_training(a: DataConfig, b: DataConfig) -> bool:
    x, y = make_data(a), make_data(b)
    return all(torch.equal(getattr(x, f), getattr(y, f)) for f in ("Xtr", "ytr", "grid_X", "grid_y"))


@pytest.mark.parametrize("own", [DataConfig(dataset="own", train_range=(3, 12), phases=(0, 1, 2)),
                                 DataConfig(dataset="own", split=phase_split(range(3, 13)))], ids=["phases", "split"])
def test_at_given_centres_the_training_set_is_the_lessons_and_the_test_set_every_class_at_every_centre(own):
    phase = DataConfig(train_range=(3, 12), phases=(0, 1, 2))
    assert own.train_positions == phase.train_positions and same_training(own, phase)
    for n_test in (own.n_test, 2 * len(own.test_positions), 7):
        data = make_data(replace(own, n_test=n_test))
        counts = np.bincount(data.yte.long().numpy(), minlength=2)
        assert abs(int(counts[0]) - int(counts[1])) <= 1  # balanced within one image
        tested = {tuple(c) for c in data.test_centres.tolist()}
        assert tested <= set(own.test_positions)
        assert len(tested) == centres_tested(n_test, len(own.test_positions), 2)
        if n_test >= 2 * len(own.test_positions):  # every class at every centre
            pairs = {(tuple(c), int(y)) for c, y in zip(data.test_centres.tolist(), data.yte.tolist(), strict=True)}
            assert len(pairs) == 2 * len(own.test_positions)


def test_a_pattern_is_placed_by_the_middle_pixel_of_its_box_as_the_shapes_and_digits_are():
    scan = digits.load()[0][0]
    assert np.array_equal(place_pattern(scan, 6, 9, 16), digits.place(scan, 6, 9, 16))  # 8×8: 4 before, 3 after
    image = place_pattern(np.ones((3, 4), dtype=np.float32), 5, 5, 16)  # 4 wide: 2 before, 1 after; 3 tall: 1 and 1
    assert np.argwhere(image).min(axis=0).tolist() == [4, 3] and np.argwhere(image).max(axis=0).tolist() == [6, 6]
    with pytest.raises(ValueError, match="does not fit"):
        place_pattern(scan, 3, 8, 16)


def test_the_largest_pattern_decides_where_every_class_fits_and_is_named():
    fields = own_fields(encode_classes([OwnClass("tee", (TEE, BAR)), OwnClass("bar", (("#" * 9,),))]))
    assert fields["reach"] == (4, 4) and fields["classes"] == ("tee", "bar")
    assert fields["pattern"] == ("drawing 1 of class 'bar' (9×1 pixels), the largest, reaches 4 pixels before its "
                                 "centre and 4 after")
    with pytest.raises(ValueError, match=r"training position range 3..10 does not fit a 16x16 image: drawing 1 of "
                                         r"class 'bar' \(9×1 pixels\), the largest, .* centres must be in 4..11"):
        DataConfig(dataset="own", train_range=(3, 10), own_classes=encode_classes(
            [OwnClass("tee", (TEE,)), OwnClass("bar", (("#" * 9,),))]))
    with pytest.raises(ValueError, match=r"fits a 8x8 image at no centre"):
        DataConfig(dataset="own", img_size=8, own_classes=encode_classes(
            [OwnClass("tee", (TEE,)), OwnClass("bar", (("#" * 9,),))]))


def test_drawings_and_a_digit_mixed_each_draw_their_own_and_the_digit_is_split_by_scan():
    classes = encode_classes([OwnClass("tee", (TEE, BAR)), OwnClass("seven", digit=7)])
    d = DataConfig(dataset="own", own_classes=classes, n_train=400, n_test=200, train_range=(6, 12),
                   test_range=(4, 5))
    kind = d.kind
    assert kind.classes == ("tee", "seven") and kind.reach == digits.REACH and kind.outputs == 1
    assert kind.noun == "your own drawings and handwritten digits" and kind.name_of(1) == "seven"
    sevens = int((digits.load()[1] == 7).sum())
    assert kind.patterns() == 2 + sevens - round(sevens * digits.TEST_SHARE)
    data = make_data(d)
    assert 0.4 < data.ytr.mean().item() < 0.6  # classes drawn equally often
    train, test, _ = kind.draw(np.random.default_rng(d.data_seed), d.n_train, d.drawn_at[0], d.n_test, d.drawn_at[1], 16)
    assert np.array_equal(train.images, data.Xtr[:, 0].numpy())  # what make_data draws
    scans = digits.load()[0].reshape(len(digits.load()[0]), -1)

    def sevens(drawn) -> set[int]:  # the shipped scan behind each placed seven: its 8×8 box at its centre
        boxes = [image[cy - 4:cy + 4, cx - 4:cx + 4].ravel() for image, label, (cx, cy)
                 in zip(drawn.images, drawn.labels, drawn.centres, strict=True) if label == 1]
        return {int(np.flatnonzero((scans == box).all(axis=1))[0]) for box in boxes}

    assert sevens(train) and sevens(test) and not sevens(train) & sevens(test)  # a test scan is never trained on
    # the map: both drawings of the tee and five test sevens at every centre; a class's first image is its example
    assert len(data.grid_y) == (2 + digits.GRID_PER_CLASS) * len(kind.centres(16)) ** 2
    first = next(i for i, (c, y) in enumerate(zip(data.grid_centres.tolist(), data.grid_y.tolist(), strict=True))
                 if c == [5, 9] and y == 1)
    assert np.array_equal(data.grid_X[first, 0].numpy(), kind.example(d.data_seed, 1, 5, 9, 16))


def test_the_registry_holds_the_default_and_makes_any_classes_dataset():
    registered = dataset("own")
    assert registered.classes == ("plus", "circle") and registered.own is not None
    two = registered.with_classes(encode_classes([OwnClass("tee", (TEE,)), OwnClass("bar", (BAR,))]))
    assert two.classes == ("tee", "bar") and two.name == "own" and two is registered.with_classes(two.own_text)
    assert dataset("shapes").with_classes("anything") is dataset("shapes")


sides = st.integers(1, 7) | st.integers(1, 17)
bitmaps = sides.flatmap(lambda w: sides.flatmap(
    lambda h: st.lists(st.lists(st.booleans(), min_size=w, max_size=w), min_size=h, max_size=h)))


def own_class(names, drawings, digits):
    return st.one_of(st.builds(lambda name, d: (name, tuple(d)), names, drawings), st.tuples(names, digits))


fair = own_class(st.sampled_from(("tee", "ell", "seven", "x")), st.lists(bitmaps, min_size=1, max_size=3),
                 st.integers(0, 9))  # what a learner means to give
hostile = own_class(st.text(max_size=18), st.lists(bitmaps, max_size=9), st.integers(-1, 10))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fair, min_size=2, max_size=4, unique_by=lambda c: c[0]) | st.lists(hostile, max_size=5))
def test_any_classes_make_a_dataset_that_draws_or_are_refused_in_one_sentence(classes):
    """Whatever a learner draws: a config that draws images of its classes, or one sentence, never a crash."""
    made = [OwnClass(name, digit=what) if isinstance(what, int) else
            OwnClass(name, tuple(drawing_rows(np.array(b, dtype=float)) for b in what)) for name, what in classes]
    try:
        text = encode_classes(made)
        before, after = own_fields(text)["reach"]
        d = DataConfig(dataset="own", own_classes=text, train_range=(before, 14 - after), test_range=(15 - after,) * 2,
                       n_train=20, n_test=10)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        event("refused")
        return
    event("drawn")
    data = make_data(d)
    assert data.Xtr.shape == (20, 1, 16, 16) and set(data.ytr.long().tolist()) <= set(range(len(made)))
    assert len(data.grid_y) % len(d.kind.centres(16)) ** 2 == 0 and data.Xte.sum(dim=(1, 2, 3)).min() > 0
