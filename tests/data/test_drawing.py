"""A learner's drawing: its link text round-trips, its text form reads and refuses, it moves and has a centre."""

import numpy as np
import pytest

from core.data import drawing
from core.data.digits import load, place
from core.data.shapes import make_image


def test_a_drawing_round_trips_through_its_link_text_compactly():
    plus = make_image("plus", 4, 9, 16)
    digit = place(load()[0][5], 10, 8, 16)  # grey levels k/16
    for d in (plus, digit, np.zeros((16, 16), np.float32)):
        text = drawing.encode(d)
        assert np.array_equal(drawing.decode(text, 16), d)
        assert len(text) < 120 and text.replace("-", "").replace("_", "").isalnum()  # URL-safe, short
    with pytest.raises(ValueError, match="16x16 canvas, not 24x24"):
        drawing.decode(drawing.encode(plus), 24)
    with pytest.raises(ValueError, match="not a drawing"):
        drawing.decode("16-garbage!!", 16)


def test_the_text_form_reads_what_it_writes_and_refuses_the_rest():
    plus = make_image("plus", 4, 9, 16)
    assert np.array_equal(drawing.from_text(drawing.to_text(plus), 16), plus)
    assert np.array_equal(drawing.from_text(drawing.to_text(plus).replace("\n", "/"), 16), plus)
    with pytest.raises(ValueError, match="16 rows of 16 pixels"):
        drawing.from_text("#..#", 16)
    with pytest.raises(ValueError, match=r"with \. # and 0-9 only, got 'x'"):
        drawing.from_text("x" * 16, 16)


def test_a_drawing_moves_within_the_canvas_and_its_centre_of_mass_moves_with_it():
    plus = make_image("plus", 4, 9, 16)
    assert drawing.centre_of_mass(plus) == (4, 9) and drawing.centre_of_mass(np.zeros((16, 16))) is None
    xs, ys = drawing.offsets(plus)
    assert (xs.start, xs.stop - 1, ys.start, ys.stop - 1) == (-1, 8, -6, 3)  # ink reaches columns 1..7, rows 6..12
    moved = drawing.shift(plus, 8, -6)
    assert np.array_equal(moved, make_image("plus", 12, 3, 16)) and drawing.centre_of_mass(moved) == (12, 3)
    with pytest.raises(ValueError, match="push ink off the canvas"):
        drawing.shift(plus, 9, 0)
