"""A setting's link text: what is sealed reads back, and anything else (cut short, edited, another version, made up)
is refused in one sentence, never another exception."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.data.link_text import LINK_ALPHABET, LinkReader, packed_bits, sealed, unsealed

WHAT = "the test's link text"


def test_what_is_sealed_reads_back_and_is_url_safe():
    for payload in (b"", b"\x00", bytes(range(256)), b"abc" * 100):
        text = sealed("t1", payload)
        assert text.startswith("t1.") and set(text[3:]) <= LINK_ALPHABET
        assert unsealed("t1", text, WHAT, 10_000) == payload


def test_text_cut_short_edited_or_of_another_kind_is_refused_in_one_sentence():
    text = sealed("t1", b"hello, link")
    edited = text[:-3] + ("A" if text[-3] != "A" else "B") + text[-2:]
    for bad, said in ((text[:-1], "cut short or edited"), (edited, "cut short or edited"),
                      (text[:5], "cut short or edited"), ("t2" + text[2:], "does not start with t1."),
                      (text.replace(".", ":"), "does not start with t1."), (text + "=", "never has"),
                      (text[:4] + "+" + text[5:], "never has"), ("t1.", "cut short or edited"), ("", "does not start"),
                      ("t1." + "A" * 5000, "more than the 100"), (None, "must be text"), (b"t1.", "must be text")):
        with pytest.raises(ValueError, match=said) as caught:
            unsealed("t1", bad, WHAT, 100)
        assert str(caught.value).startswith(WHAT) and "\n" not in str(caught.value)


def test_the_spare_bits_of_the_last_character_are_part_of_the_check():
    text = sealed("t1", b"\x01")  # 5 bytes: 7 characters, the last holding 2 spare bits
    last = sorted(LINK_ALPHABET - {text[-1]})
    same_bytes = [c for c in last if unsealed_bytes(text[:-1] + c) == unsealed_bytes(text)]
    assert same_bytes  # another last character decodes to the same bytes...
    with pytest.raises(ValueError, match="edited by hand"):
        unsealed("t1", text[:-1] + same_bytes[0], WHAT, 100)  # ...and is refused: one meaning, one text


def unsealed_bytes(text: str) -> bytes:
    import base64

    packed = text.split(".", 1)[1]
    return base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))


def test_a_reader_refuses_a_payload_that_ends_early_leaves_bytes_over_or_sets_spare_bits():
    r = LinkReader(bytes([2, 0b1010_0000]), WHAT)
    assert r.byte() == 2 and r.bits(3).tolist() == [True, False, True]
    r.finish()
    with pytest.raises(ValueError, match="passed its check but is malformed .it ends too early."):
        LinkReader(b"\x01", WHAT).take(2)
    with pytest.raises(ValueError, match="1 bytes left over"):
        LinkReader(b"\x01", WHAT).finish()
    with pytest.raises(ValueError, match="spare bits are set"):
        LinkReader(bytes([0b1010_0001]), WHAT).bits(3)
    assert packed_bits(np.array([[True, False], [True, True]])) == bytes([0b1011_0000])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.text(alphabet="".join(sorted(LINK_ALPHABET)) + ".t1", max_size=200))
def test_any_text_is_read_or_refused_in_one_sentence(text):
    try:
        unsealed("t1", text, WHAT, 150)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
