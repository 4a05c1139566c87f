"""The exercise panel every lesson page shows: the question, how to find out, the learner's answer, and
after "Check" whether it was right and why, with the numbers it was decided by. Progress is kept in the
session (``st.session_state.progress``), so the home page can show it too."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core.lessons.exercise import Exercise
from ui.lesson_list import Lesson
from ui.page_rerun import fragment, whole_page

FEEDBACK = {True: ("✅ Right.", st.success), False: ("❌ Not quite.", st.error)}


def progress() -> dict[str, bool]:
    """``"<lesson>/<exercise>" -> answered right`` for every exercise checked in this session."""
    return st.session_state.setdefault("progress", {})


def exercise_panel(page: Lesson, context: tuple = (), do: Callable[[Exercise], None] | None = None) -> None:
    """The lesson's declared exercises. ``context``: what each exercise's ``answer`` needs; ``do(ex)``: draws a
    control that sets the page up to answer ``ex`` (a preset button, say)."""
    _panel(page.progress_key, page.exercises, context, do)


@fragment
def _panel(lesson: str, exercises: tuple[Exercise, ...], context: tuple, do) -> None:
    """A fragment (``ui.page_rerun``): picking an answer re-runs the panel alone; *Check my answer* re-runs the page,
    whose count (here and on the home page) and stored progress include it."""
    done = progress()
    right = sum(done.get(f"{lesson}/{ex.key}", False) for ex in exercises)
    # Closed: the page's figure comes first; its title keeps the count, so progress shows without opening it
    # (the key keeps it open across the count's change of label, so a checked answer's feedback stays in view)
    with st.expander(f"Exercises: {right} of {len(exercises)} answered right", key=f"exercises_{lesson}"):
        for number, ex in enumerate(exercises, start=1):
            _exercise(lesson, number, ex, context, do)


def _exercise(lesson: str, number: int, ex: Exercise, context: tuple, do) -> None:
    key = f"{lesson}/{ex.key}"
    st.markdown(f"**{number}. {ex.question}**")
    st.caption(f"How to find out: {ex.how}")
    if do is not None:
        do(ex)
    choice = st.radio("Your answer", ex.options, index=None, key=f"answer_{lesson}_{ex.key}",
                      label_visibility="collapsed")
    checked = st.session_state.get(f"checked_{lesson}_{ex.key}")
    if st.button("Check my answer", key=f"check_{lesson}_{ex.key}", disabled=choice is None):
        answer = ex.answer(*context)
        checked = (choice, answer)
        st.session_state[f"checked_{lesson}_{ex.key}"] = checked
        if answer.correct is not None:
            progress()[key] = ex.options.index(choice) == answer.correct
        st.rerun()  # redraw from the top, so the panel's count includes this answer
    if checked and checked[0] == choice:  # a changed answer hides the old verdict until checked again
        answer = checked[1]
        if answer.correct is None:
            st.info(answer.explanation)
        else:
            head, box = FEEDBACK[ex.options.index(choice) == answer.correct]
            box(f"{head} The answer is **{ex.options[answer.correct]}**. {answer.explanation}")


def show_me(settings: dict[str, dict]) -> Callable[[Exercise], None]:
    """The ``do`` of a page whose exercises are answered by moving its own controls: a "Show me on this page"
    button that sets ``settings[ex.key]`` (control key -> value)."""
    def button(ex: Exercise) -> None:
        # the whole page: the controls it sets are outside the exercise panel
        st.button("Show me on this page", key=f"do_{ex.key}", on_click=whole_page(st.session_state.update),
                  args=(settings[ex.key],),
                  help="Sets the controls so the page shows the answer (after you have answered, ideally)")

    return button
