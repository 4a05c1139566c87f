"""The split painter's brush: a cell is one set's or neither's; a marked centre where the classes do not fit is only
erased."""

import pytest

from ui.split_painter import paint


def test_a_brush_moves_a_cell_between_the_sets_and_erases_it():
    train, test = {(5, 5)}, {(3, 3)}
    assert paint(train, test, [(3, 3, "test")], "train") == ({(5, 5), (3, 3)}, set())
    assert paint(train, test, [(5, 5, "seen"), (6, 6, "neither")], "test") == (set(), {(3, 3), (5, 5), (6, 6)})
    assert paint(train, test, [(5, 5, "seen"), (3, 3, "test")], "none") == (set(), set())
    assert (train, test) == ({(5, 5)}, {(3, 3)})  # the sets given are not changed


def test_where_the_classes_do_not_fit_only_the_eraser_works_and_a_bad_brush_is_named():
    assert paint({(1, 1)}, set(), [(1, 1, "unfit")], "test") == ({(1, 1)}, set())
    assert paint({(1, 1)}, set(), [(1, 1, "unfit")], "none") == (set(), set())
    with pytest.raises(ValueError, match="brush must be one of"):
        paint(set(), set(), [], "paint")
