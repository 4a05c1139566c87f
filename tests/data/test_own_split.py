"""A split of one's own: the presets are the lab's splits, a map's text and a link's text are one meaning, and every
bad input is one sentence (fuzzed)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.data.data_config import DataConfig
from core.data.link_text import sealed
from core.data.own_split import (
    SPLIT_LINK_LIMIT,
    SPLIT_PRESETS,
    Split,
    bounding_range,
    check_split_fits,
    checkerboard_split,
    decode_split,
    encode_split,
    make_split,
    notebook_split,
    phase_split,
    quadrant_split,
    ring_split,
    split_from_text,
    split_to_text,
)
from tests.data.test_own_classes import mutated, refused_in_one_sentence

FITS = range(3, 13)  # where the lesson's shapes fit a 16×16 canvas

MAP = """
................
................
................
...XX...........
...XX...........
.....TTTTTT.....
.....TTTTTT.....
.....TTTTTT.....
.....TTTTTT.....
.....TTTTTT.....
.....TTTTTT.....
"""


def test_the_presets_are_the_labs_splits():
    lesson, phase = DataConfig(), DataConfig(train_range=(3, 12), phases=(0, 1, 2))
    assert notebook_split(FITS) == (lesson.train_positions, lesson.test_positions)
    assert phase_split(FITS) == (phase.train_positions, phase.test_positions)
    board, corner, ring = checkerboard_split(FITS), quadrant_split(FITS), ring_split(FITS)
    assert (len(board.train), len(board.test)) == (50, 50) and (3, 3) in board.train and (4, 3) in board.test
    assert (len(corner.train), len(corner.test)) == (25, 75) and max(corner.train) == (7, 7)
    assert (len(ring.train), len(ring.test)) == (64, 36) and min(ring.test) == (5, 5) and max(ring.test) == (10, 10)
    for name, preset in SPLIT_PRESETS.items():  # every preset covers the map with no centre in both sets
        split = preset(FITS)
        assert not set(split.train) & set(split.test), name
        assert len(encode_split(split)) < 60, name


def test_a_map_and_a_link_are_one_meaning():
    split = split_from_text(MAP)
    assert split == notebook_split(FITS) and split == split_from_text(MAP.replace("\n", "/").lower())
    assert split_from_text(split_to_text(split, 16)) == split
    text = encode_split(split)
    assert text.startswith("s1.") and decode_split(text) == split and isinstance(decode_split(text), Split)
    # each set once, in row order: any order or repetition is the same split
    assert make_split(reversed(split.train + split.train[:3]), split.test) == split


@pytest.mark.parametrize(("train", "test", "said"), [
    ((), ((3, 3),), "this split has no training centre: mark at least one .T."),
    (((5, 5),), [], "this split has no test centre: mark at least one .X."),
    (((5, 5), (6, 6)), ((6, 6),), r"centre \(6, 6\) is marked both for training and for test"),
    (((5, 64),), ((3, 3),), r"centre \(5, 64\) is off every canvas: centres are in 0..63"),
    (((5, 5, 1),), ((3, 3),), r"a training centre is two whole numbers \(cx, cy\), got \(5, 5, 1\)"),
    (((5, True),), ((3, 3),), "a training centre is two whole numbers"),
    (((5, 5),), "33", "the test centres must be a list of .cx, cy., got str"),
])
def test_a_bad_split_is_refused_in_one_sentence(train, test, said):
    with pytest.raises(ValueError, match=said):
        make_split(train, test)


def test_a_centre_where_the_pattern_does_not_fit_is_named():
    with pytest.raises(ValueError, match=r"test centre \(2, 7\) does not fit a 16x16 image: a plus reaches 3 pixels, "
                                         r"so centres must be in 3..12"):
        check_split_fits(make_split([(5, 5)], [(2, 7)]), FITS, 16, "a plus reaches 3 pixels")
    assert bounding_range(((5, 9), (7, 4))) == (4, 9)


@pytest.mark.parametrize(("text", "said"), [
    ("..T..\n..Y..", "row 1 of the map holds 'Y': a split's map is T for a training centre, X for a test centre"),
    ("T" * 65 + "\nX", "the map is larger than 64×64"),
    ("....\n....", "this split has no training centre"),
    ("TTTT", "this split has no test centre"),
    ("T" * 30_000, "the file is 30,000 characters long"),
])
def test_a_bad_map_is_refused_in_one_sentence(text, said):
    with pytest.raises(ValueError, match=said):
        split_from_text(text)


def test_a_split_too_irregular_for_a_link_is_refused_saying_what_fits():
    scattered = make_split([(x, y) for y in range(40) for x in range(40) if (x * 7 + y * 3) % 5 == 0],
                           [(x, y) for y in range(40) for x in range(40) if (x * 7 + y * 3) % 5 == 1])
    with pytest.raises(ValueError, match=rf"more than the {SPLIT_LINK_LIMIT} it holds: mark centres within a smaller "
                                         r"area \(it spans 40×40\)"):
        encode_split(scattered)
    every = [(x, y) for y in range(16) for x in range(16)]  # any split of a 16×16 canvas fits a link
    assert len(encode_split(make_split(every[::2], every[1::2]))) < 100


LINKS = [encode_split(preset(FITS)) for preset in SPLIT_PRESETS.values()]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_link_text_is_read_or_refused_in_one_sentence(data):
    text = data.draw(st.text(max_size=400) | st.builds(lambda t: "s1." + t, st.text("ABCDEFab01-_", max_size=400))
                     | st.sampled_from(LINKS).map(lambda t: mutated(t, data)))
    refused_in_one_sentence(decode_split, text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_payload_that_passes_the_check_is_read_or_refused_in_one_sentence(payload):
    refused_in_one_sentence(decode_split, sealed("s1", payload))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="TtXx./\n ", max_size=500) | st.text(max_size=200))
def test_any_map_is_read_or_refused_in_one_sentence(text):
    refused_in_one_sentence(split_from_text, text)
