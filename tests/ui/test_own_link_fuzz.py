"""Hostile links to *Your own experiment*: whatever the address holds for the classes and the split (made up, cut
short, one character changed), the page opens with one sentence about it and no exception."""

import random

import pytest

from core.lessons.lesson6_own_experiment import CLASS_PRESETS, preset_split
from tests.apptest_helpers import assert_clean, page

PAGE = "pages/6_Your_own_experiment.py"


def _texts(seed: int) -> list[tuple[str, str]]:
    """(parameter, a hostile value): real texts cut short or with one character changed, and made-up ones."""
    rng = random.Random(seed)
    real = {"own_classes": CLASS_PRESETS["L vs mirrored L"], "own_split": preset_split("ring", "")}
    out = []
    for key, text in real.items():
        cut = rng.randrange(3, len(text) - 1)
        at = rng.randrange(3, len(text))
        changed = text[:at] + rng.choice([c for c in "AZaz09-_" if c != text[at]]) + text[at + 1:]
        junk = "".join(rng.choice("abcXYZ019._-~%€ ") for _ in range(rng.randrange(1, 40)))
        out += [(key, text[:cut]), (key, changed), (key, junk), (key, text.split(".")[0] + "." + junk)]
    return out


@pytest.mark.parametrize("seed", range(3))
def test_a_hostile_classes_or_split_text_is_one_link_note_and_the_default(seed):
    for key, value in _texts(seed):
        at = page(PAGE, timeout=60, query={key: value})
        assert_clean(at)
        notes = [w.value.replace("\\", "") for w in at.warning if "could not be read" in w.value]
        assert len(notes) == 1 and notes[0].startswith(f"{key}=") and notes[0].endswith("the form's default is used."), \
            (key, value, notes)
        assert not at.error, (key, value)  # the default setting is used: the form runs
