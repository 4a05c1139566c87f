"""Every exercise's check computes its answer from the lesson's own code: a valid option, explained with
numbers, and it changes when the numbers would."""

from dataclasses import replace

import pytest

from core.lessons import lesson2_symmetry
from core.lessons.lesson1_patchify import EXERCISES as PATCHIFY_EXERCISES
from core.lessons.lesson2_symmetry import EXERCISES as SYMMETRY_EXERCISES
from core.lessons.lesson2_symmetry import SymmetryConfig


@pytest.mark.parametrize("ex", PATCHIFY_EXERCISES, ids=lambda e: e.key)
def test_patchify_answers_are_valid_and_explained(ex):
    a = ex.answer()
    assert 0 <= a.correct < len(ex.options) and "**" in a.explanation


@pytest.mark.parametrize("ex", SYMMETRY_EXERCISES, ids=lambda e: e.key)
def test_symmetry_answers_are_valid_for_every_preset(ex):
    for preset in ("seed", "two blocks, 4 heads, width 32"):
        a = ex.answer(SymmetryConfig(preset=preset))
        assert 0 <= a.correct < len(ex.options) and "**" in a.explanation


def test_known_answers():
    assert PATCHIFY_EXERCISES[0].options[PATCHIFY_EXERCISES[0].answer().correct] == "257"
    shift, one_patch, sincos = (ex.answer(SymmetryConfig()) for ex in SYMMETRY_EXERCISES)
    assert shift.correct == 0 and one_patch.correct == 1 and sincos.correct == 1


def test_the_check_follows_the_numbers(monkeypatch):
    """If changing one patch changed every embedding, the answer would say so: it is computed, not stored."""
    real = lesson2_symmetry.change

    def every_embedding_changes(cfg, patch):
        ch = real(cfg, patch)
        return replace(ch, embedding_change=ch.embedding_change + 1.0)

    monkeypatch.setattr(lesson2_symmetry, "change", every_embedding_changes)
    assert SYMMETRY_EXERCISES[1].answer(SymmetryConfig()).correct == 2
