"""The class editor's draft: made from the form's text and written back to it, a draft that is no setting as its
refusal."""

import numpy as np

from core.data.own_classes import decode_classes
from core.lessons.lesson6_own_experiment import CLASS_PRESETS, DRAFT, LESSON_CLASSES
from ui.own_classes_editor import SIDE, DraftClass, draft_of, on_canvas, text_of


def test_a_draft_made_from_a_text_writes_the_same_text_back():
    for text in (*CLASS_PRESETS.values(), ""):
        assert text_of(draft_of(text)) == (text or LESSON_CLASSES)


def test_a_drawing_sits_whole_in_the_middle_of_the_canvas():
    canvas = on_canvas(("#.", "##"))
    assert canvas.shape == (SIDE, SIDE) and canvas.sum() == 3 and canvas[7, 7] == 1 and canvas[7, 8] == 0


def test_a_draft_that_is_no_setting_becomes_its_refusal_and_a_move_is_the_same_drawing():
    plus = draft_of(LESSON_CLASSES)[0]
    blank = DraftClass("empty", drawings=[np.zeros((SIDE, SIDE), dtype=np.float32)])
    assert text_of([plus, blank]) == DRAFT + "drawing 1 of class 'empty' is empty: draw something in it or leave it out"
    moved = DraftClass("moved plus", drawings=[np.roll(plus.drawings[0], 2, axis=1)])
    assert text_of([plus, moved]).startswith(DRAFT) and "the same image: nothing to learn" in text_of([plus, moved])
    digit = DraftClass("seven", digit=7)
    assert decode_classes(text_of([plus, digit]))[1].digit == 7
