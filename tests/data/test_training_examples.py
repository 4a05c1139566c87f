"""What a run's models were trained on: one real training image of each class, and the sentence that says what
they are, read from the DataConfig and measured on the images."""

from dataclasses import replace

import numpy as np
import pytest

from core.data.data_config import DataConfig, make_data
from core.data.shapes import make_image
from core.data.training_examples import describe, filled, ink_box, stroke_width, training_examples

SHAPES = DataConfig()  # the lesson's: 300 images at centres 5..10 of a 16x16 canvas
DIGITS = DataConfig(dataset="digits", n_train=1000, train_range=(6, 12), n_test=500, test_range=(4, 5))


def thin_plus(cx: int, cy: int, size: int = 16) -> np.ndarray:
    """A plus drawn with one-pixel lines, 7 long: what a learner clicks in."""
    img = np.zeros((size, size), dtype=np.float32)
    img[cy, cx - 3:cx + 4] = 1.0
    img[cy - 3:cy + 4, cx] = 1.0
    return img


def assert_rows_of_the_training_set(d: DataConfig) -> None:
    data = make_data(d)
    for e in training_examples(d):
        assert np.array_equal(e.image, data.Xtr[e.index, 0].numpy()) and int(data.ytr[e.index]) == e.label
        assert e.centre in d.train_positions and not e.image.flags.writeable


def test_each_class_has_a_real_training_image_at_the_training_centre_nearest_the_middle():
    examples = training_examples(SHAPES)
    assert [e.label for e in examples] == [0, 1]
    assert_rows_of_the_training_set(SHAPES)
    for e, shape in zip(examples, ("plus", "circle"), strict=True):
        assert np.array_equal(e.image, make_image(shape, *e.centre))  # the lesson's shape, drawn where it trained
        assert all(7 <= c <= 8 for c in e.centre)  # 5..10's middle is 7.5: one of the four centres around it
    plus, circle = examples
    assert (plus.box, plus.stroke, filled(plus), plus.patterns) == ((7, 7), 3, False, 1)  # bars 3 pixels thick
    assert (circle.box, filled(circle), circle.patterns) == ((7, 7), True, 1)  # a disc 7 across


def test_strokes_are_measured_so_a_thin_plus_is_told_from_the_training_one():
    assert stroke_width(make_image("plus", 8, 8)) == 3 and stroke_width(thin_plus(8, 8)) == 1
    assert ink_box(thin_plus(8, 8)) == (7, 7)
    blank = np.zeros((16, 16), dtype=np.float32)
    assert stroke_width(blank) == 0 and ink_box(blank) == (0, 0)
    bar = np.zeros((16, 16), dtype=np.float32)
    bar[2:12, 5:7] = 1.0  # a line 2 pixels thick, 10 long (a handwritten 1): strokes, not a filled shape
    assert (stroke_width(bar), ink_box(bar)) == (2, (2, 10))


def test_the_sentence_says_size_thickness_and_centres_from_the_config():
    said = describe(SHAPES)
    assert said.startswith("300 images of shapes (plus vs circle) on a 16×16 canvas, white ink (value 1) on black, "
                           "centred at cx and cy in 5..10: ")
    assert "plus: 7×7 pixels, strokes 3 pixels thick (the same pattern every time, only moved)" in said
    assert "circle: 7×7 pixels, filled" in said
    bigger = replace(SHAPES, img_size=20, train_range=(6, 13), n_train=500)
    assert "500 images" in describe(bigger) and "20×20 canvas" in describe(bigger) and "in 6..13" in describe(bigger)
    phases = replace(SHAPES, train_range=(3, 12), phases=(0, 1, 2))
    assert "in 3..12 with offset 0, 1 or 2 within a 4-pixel patch" in describe(phases)


def test_real_digits_are_training_digits_in_grey_and_the_sentence_says_what_is_true_there():
    examples = training_examples(DIGITS)
    assert [e.label for e in examples] == list(range(10))
    assert_rows_of_the_training_set(DIGITS)
    assert all(e.patterns > 1 for e in examples)  # many hands per digit, not one pattern moved
    said = describe(DIGITS)
    assert said.startswith("1000 images of handwritten digits on a 16×16 canvas, grey ink (0 to 1) on black, "
                           "centred at cx and cy in 6..12, each within 8×8 pixels (the ones shown: ")
    assert "strokes about 2 pixels thick" in said and "different training images of each class" in said
    two = describe(replace(DIGITS, dataset="digits-0-1", n_train=300))
    assert "digit 0, the one shown: " in two and "digit 1, the one shown: " in two and "filled" not in two


@pytest.mark.parametrize("d", [replace(SHAPES, train_range=(3, 12), phases=(0, 1, 2), dataset="where"),
                               replace(SHAPES, train_range=(3, 12), phases=(0, 1, 2))])
def test_the_phase_split_and_the_position_task_show_training_images_at_training_positions(d):
    assert_rows_of_the_training_set(d)
    if d.kind.place is not None:  # left and right: a shape in each half, the class is the place
        assert [d.kind.place(*e.centre, d.img_size) for e in training_examples(d)] == [0, 1]
        assert "the class is where the shape is, not which shape it is" in describe(d)


def test_a_training_set_without_every_class_shows_the_classes_it_has():
    one = replace(SHAPES, n_train=1)
    assert len(training_examples(one)) == 1 and describe(one).startswith("1 image of shapes")


def test_a_split_of_ones_own_draws_its_examples_at_its_training_centres_and_says_so():
    from core.data.own_split import ring_split

    d = DataConfig(dataset="own", split=ring_split(range(3, 13)))
    examples = training_examples(d)
    assert [e.label for e in examples] == [0, 1] and all(e.centre in d.train_positions for e in examples)
    assert "centred at the 64 training centres of your own split" in describe(d, examples)
    assert "cx and cy in" not in describe(d, examples)  # the bounding range is not where a split trains
