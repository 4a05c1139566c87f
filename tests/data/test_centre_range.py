import pytest

from core.data.centre_range import check_range


def test_a_range_inside_where_the_pattern_fits_passes():
    check_range((5, 10), range(3, 13), 16, "a plus reaches 3 pixels")
    check_range((3, 3), range(3, 13), 16, "a plus reaches 3 pixels")


@pytest.mark.parametrize("bad,match", [
    ((5,), "must be two numbers LO HI, got \\(5,\\)"),
    ((9, 4), "9..4 is empty"),
    ((2, 6), "2..6 does not fit a 16x16 image: a plus reaches 3 pixels, so centres must be in 3..12"),
    ((5, 13), "5..13 does not fit"),
])
def test_a_bad_range_is_refused_naming_its_values_and_what_fits(bad, match):
    with pytest.raises(ValueError, match=match):
        check_range(bad, range(3, 13), 16, "a plus reaches 3 pixels", "training position range")
