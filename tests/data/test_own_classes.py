"""A learner's own classes: one meaning in three forms (values, a file's text, a link's text), every bad input one
sentence naming what is wrong, and any text at all read or refused so (fuzzed)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.data import shapes
from core.data.own_classes import (
    CLASSES_LINK_LIMIT,
    DEFAULT_CLASSES,
    MAX_DRAWINGS,
    OwnClass,
    checked_classes,
    classes_from_text,
    classes_to_text,
    decode_classes,
    digit_drawings,
    drawing_bitmap,
    drawing_rows,
    encode_classes,
)

TEE = ("###", ".#.", ".#.")
ELL = ("#..", "#..", "###")
ARROW = ("..#..", ".###.", "#.#.#", "..#..")
MIXED = (OwnClass("tee", (TEE, ("####", ".#..", ".#.."))), OwnClass("seven", digit=7), OwnClass("arrow", (ARROW,)))

FILE = """
[tee]
###
.#.
.#.

1111 / 0100 / 0100

[seven]
digit 7

[arrow]
....0....
..#......
.###.....
#.#.#....
..#......
"""


def test_the_three_forms_are_one_meaning():
    assert classes_from_text(FILE) == MIXED  # "1"/"0" are ink and empty; margins are cut to the ink
    assert classes_from_text(classes_to_text(MIXED)) == MIXED
    text = encode_classes(MIXED)
    assert text.startswith("c1.") and len(text) < 80
    assert decode_classes(text) == MIXED and encode_classes(decode_classes(text)) == text
    assert encode_classes(classes_from_text(FILE)) == text


def test_a_drawing_is_kept_cut_to_its_ink_so_a_moved_drawing_is_the_same_drawing():
    canvas = np.zeros((16, 16))
    canvas[2:5, 9:12] = drawing_bitmap(TEE)
    moved = np.roll(canvas, (5, -6), axis=(0, 1))
    a, b = (checked_classes([OwnClass("t", (drawing_rows(c),)), OwnClass("l", (ELL,))]) for c in (canvas, moved))
    assert a == b and a[0].drawings == (TEE,)
    assert encode_classes(a) == encode_classes(b)


def test_the_default_classes_are_the_lessons_plus_and_circle():
    assert [c.name for c in DEFAULT_CLASSES] == list(shapes.SHAPES)
    for c in DEFAULT_CLASSES:
        image = np.zeros((16, 16), dtype=np.float32)
        image[5:12, 5:12] = drawing_bitmap(c.drawings[0])
        assert np.array_equal(image, shapes.make_image(c.name, 8, 8))


def test_digits_become_drawings_to_start_from():
    threes = digit_drawings(3, 4)
    assert len(threes) == 4 and all(len(rows) <= 8 and len(rows[0]) <= 8 for rows in threes)
    assert checked_classes([OwnClass("three", threes), OwnClass("eight", digit=8)])[0].drawings == threes


@pytest.mark.parametrize(("classes", "said"), [
    ([OwnClass("a", (TEE,))], "give 2 to 4 classes, got 1"),
    ([OwnClass(str(i), (("#" * (i + 1),),)) for i in range(5)], "give 2 to 4 classes, got 5"),
    ([OwnClass("a", ()), OwnClass("b", (ELL,))], "class 'a' has no drawing: give it 1 to 8 drawings, or a digit"),
    ([OwnClass(" ", (TEE,)), OwnClass("b", (ELL,))], "class 1 has no name"),
    ([OwnClass("x" * 17, (TEE,)), OwnClass("b", (ELL,))], "class 1's name is 17 characters long: at most 16"),
    ([OwnClass("a\nb", (TEE,)), OwnClass("b", (ELL,))], "class 1's name holds a character"),
    ([OwnClass("[a]", (TEE,)), OwnClass("b", (ELL,))], "class 1's name holds a character"),
    ([OwnClass("Cat", (TEE,)), OwnClass("cat", (ELL,))], "two classes are named 'cat'"),
    ([OwnClass("a", (TEE,)), OwnClass("b", (ELL, TEE))],
     "drawing 1 of class 'a' is drawing 2 of class 'b': these two classes are the same image: nothing to learn"),
    ([OwnClass("a", digit=3), OwnClass("b", digit=3)],
     "classes 'a' and 'b' are both digit 3: these two classes are the same image: nothing to learn"),
    ([OwnClass("a", (TEE, ("...", "...")),), OwnClass("b", (ELL,))],
     "drawing 2 of class 'a' is empty: draw something in it or leave it out"),
    ([OwnClass("a", (("#" * 17,),)), OwnClass("b", (ELL,))],
     "drawing 1 of class 'a' is 17×1 pixels of ink, more than the 16×16 of the canvas"),
    ([OwnClass("a", (("##", "#"),)), OwnClass("b", (ELL,))], "drawing 1 of class 'a' has rows of .1, 2. pixels"),
    ([OwnClass("a", (("#x",),)), OwnClass("b", (ELL,))], "drawing 1 of class 'a' holds 'x'"),
    ([OwnClass("a", (TEE, ("..###", "...#.", "...#."))), OwnClass("b", (ELL,))],
     "drawing 2 of class 'a' is its drawing 1 again"),
    ([OwnClass("a", (TEE,) + tuple(("#" * k,) for k in range(2, 10))), OwnClass("b", (ELL,))],
     f"class 'a' has 9 drawings: at most {MAX_DRAWINGS}"),
    ([OwnClass("a", (TEE,), digit=3), OwnClass("b", (ELL,))], "class 'a' has drawings and a digit"),
    ([OwnClass("a", digit=10), OwnClass("b", (ELL,))], "class 'a''s digit must be one of 0..9, got 10"),
    ([OwnClass("a", "###"), OwnClass("b", (ELL,))], "class 'a''s drawings must be a list of drawings"),
    ("ab", "classes must be a list of classes"),
])
def test_bad_classes_are_refused_in_one_sentence(classes, said):
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")) as caught:
        encode_classes(classes)
    assert "\n" not in str(caught.value)


def test_a_set_too_large_for_a_link_is_refused_saying_by_how_much():
    rng = np.random.default_rng(0)
    full = [OwnClass(f"class {k}", tuple(drawing_rows(np.pad(rng.random((14, 14)) < 0.5, 1, constant_values=1))
                                         for _ in range(MAX_DRAWINGS))) for k in range(4)]
    with pytest.raises(ValueError, match=rf"these drawings take 1,\d\d\d characters in a link, more than the "
                                         rf"{CLASSES_LINK_LIMIT:,} it holds: use fewer or smaller drawings"):
        encode_classes(full)
    assert len(encode_classes(full[:2])) <= CLASSES_LINK_LIMIT  # two such classes fit


@pytest.mark.parametrize(("text", "said"), [
    ("###\n", "line 2: a file of drawings starts with a class's name in brackets"),
    ("[a]\n#x#\n", "line 2: a drawing is written with . or 0 for empty and # or 1 for ink, got 'x'"),
    ("[a]\ndigit 3\n#\n", "line 3: a class is either drawings or one line 'digit N'"),
    ("[a]\n#\ndigit 3\n", "line 3: a class is either drawings or one line 'digit N'"),
    ("[a]\ndigit 12\n", "line 2: a class is either drawings"),
    ("[a]\n" + "#\n" * 65, "line 66: a drawing of more than 64 rows"),
    ("[a]\n#\n[b]\n", "class 'b' has no drawing"),
    ("[a]\n#\n[b]\n#\n", "these two classes are the same image: nothing to learn"),
    ("[a]\n" + "#" * 200_000, "the file is 200,004 characters long"),
])
def test_a_bad_file_is_refused_naming_its_line(text, said):
    with pytest.raises(ValueError, match=said) as caught:
        classes_from_text("\n" + text if said.startswith("line") and not text.startswith("[") else text)
    assert "\n" not in str(caught.value)


def test_a_link_cut_short_or_edited_is_refused_in_one_sentence():
    text = encode_classes(MIXED)
    for bad in (text[:-2], text[:10], text.replace("c1.", "c2."), text[:-1] + ("A" if text[-1] != "A" else "B")):
        with pytest.raises(ValueError, match="the classes' link text"):
            decode_classes(bad)


LINKS = [encode_classes(MIXED), encode_classes(DEFAULT_CLASSES)]


def mutated(text: str, data) -> str:
    """``text`` with a few characters changed, inserted, removed or cut off (a link edited or truncated)."""
    chars = list(text)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, max(len(chars) - 1, 0)))
        how = data.draw(st.sampled_from(["change", "insert", "delete", "cut"]))
        c = data.draw(st.characters(codec="utf-8") | st.sampled_from("AB_-.c1s0"))
        if how == "change" and chars:
            chars[i] = c
        elif how == "insert":
            chars.insert(i, c)
        elif how == "delete" and chars:
            del chars[i]
        elif how == "cut":
            chars = chars[:i]
    return "".join(chars)


def refused_in_one_sentence(decode, text) -> None:
    try:
        decode(text)
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 300, message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_link_text_is_read_or_refused_in_one_sentence(data):
    text = data.draw(st.text(max_size=300) | st.builds(lambda t: "c1." + t, st.text("ABCDEFab01-_", max_size=300))
                     | st.sampled_from(LINKS).map(lambda t: mutated(t, data)))
    refused_in_one_sentence(decode_classes, text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_payload_that_passes_the_check_is_read_or_refused_in_one_sentence(payload):
    from core.data.link_text import sealed

    refused_in_one_sentence(decode_classes, sealed("c1", payload))  # a link made on purpose, not by the lab


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]#.01 /\ndigt3abc", max_size=300) | st.text(max_size=300))
def test_any_file_is_read_or_refused_in_one_sentence(text):
    refused_in_one_sentence(classes_from_text, text)


drawings = st.integers(1, 16).flatmap(lambda w: st.integers(1, 16).flatmap(lambda h: st.lists(
    st.text("#.", min_size=w, max_size=w), min_size=h, max_size=h).map(tuple).filter(lambda rows: "#" in "".join(rows))))
fair_class = st.lists(drawings, min_size=1, max_size=3, unique=True) | st.integers(0, 9)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(fair_class, min_size=2, max_size=4), st.lists(st.text("abcé7 -", min_size=1, max_size=16), min_size=4,
                                                                  max_size=4, unique_by=lambda n: n.strip().casefold()))
def test_any_classes_read_back_the_same_from_a_file_and_from_a_link(what, names):
    classes = [OwnClass(name, digit=w) if isinstance(w, int) else OwnClass(name, tuple(tuple(d) for d in w))
               for name, w in zip(names, what, strict=False)]
    try:
        kept = checked_classes(classes)
    except ValueError as exc:  # a blank name, a drawing twice once cut, two classes alike
        assert "\n" not in str(exc)
        return
    assert classes_from_text(classes_to_text(kept)) == kept
    try:
        text = encode_classes(kept)
    except ValueError as exc:
        assert "characters in a link" in str(exc)
        return
    assert decode_classes(text) == kept
