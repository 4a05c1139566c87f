"""core/lessons/exercise.py: what every lesson's EXERCISES must be for its page and its check to work."""

import pytest

from core.lessons.exercise import Exercise
from ui.lesson_list import LESSONS


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.url_path)
def test_every_lessons_exercises_are_distinct_questions_with_choices(lesson):
    exercises = lesson.exercises
    assert exercises and all(isinstance(ex, Exercise) for ex in exercises)
    assert len({ex.key for ex in exercises}) == len(exercises)
    for ex in exercises:
        assert ex.question.strip() and ex.how.strip() and len(ex.options) >= 2 and len(set(ex.options)) == len(ex.options)
        assert callable(ex.answer)
