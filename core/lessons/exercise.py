"""The one exercise type of every lesson: a question, how to find the answer on the page, and a check that computes the
right answer from the numbers the lesson's own code gives, never from a stored answer key.

An exercise's ``answer`` is a function: ``answer(*context) -> Answer``. Lesson 1's needs nothing and lesson 2's the
page's setting (each runs the lesson's core function on the setting the question names, which is cheap); lessons 3
to 5 take a way to look up a run's result. Each lesson's module holds its own ``EXERCISES``, which its page asks
(``ui.lesson_list.Lesson.exercises``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Answer:
    correct: int | None  # index into the exercise's options; None: cannot be checked yet
    explanation: str  # with the numbers it was decided by (or what to do first)


@dataclass(frozen=True)
class Exercise:
    key: str
    question: str
    how: str  # what to do on the page to see the answer for oneself
    options: tuple[str, ...]
    answer: Callable[..., Answer]
