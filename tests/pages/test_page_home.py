from tests.apptest_helpers import assert_clean, page
from ui.lesson_list import LESSONS


def test_home_has_a_card_per_lesson_in_order():
    at = page("app.py")
    assert_clean(at)
    assert "ViT Lab" in at.title[0].value
    cards = [(el.proto.label, el.proto.page) for el in at.get("page_link") if not el.proto.label.startswith("Find out")]
    assert cards == [(f"{n} · {lesson.title}", lesson.url_path) for n, lesson in enumerate(LESSONS, start=1)]


def test_home_shows_exercise_progress_from_the_session():
    at = page("app.py")
    first = LESSONS[0]
    right, wrong = (ex.key for ex in first.exercises[:2])
    at.session_state["progress"] = {f"{first.progress_key}/{right}": True, f"{first.progress_key}/{wrong}": False}
    at.run()
    assert any(c.value.startswith(f"Exercises: 1 of {len(first.exercises)} answered right") for c in at.caption)


def test_home_shows_the_finding_as_a_picture_without_giving_away_lesson_3():
    at = page("app.py")
    assert_clean(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 2  # the lesson's two models' accuracy maps, from the shipped run
    titles = [md.value for md in at.markdown if md.value.startswith("**Model ")]
    assert titles == ["**Model A: accuracy at each centre (%)**", "**Model B: accuracy at each centre (%)**"]
    # which map is which model is lesson 3's question: neither the maps nor the cards answer it
    assert not any(name in spec.proto.spec for spec in charts for name in ("ViT", "CNN"))
    card = next(md.value for md in at.markdown if "plus-vs-circle" in md.value)
    assert "generalizes" not in card and "chance" not in card and "Which one" in card
    assert ("Find out in lesson 3", "ViT_vs_CNN") in [(el.proto.label, el.proto.page) for el in at.get("page_link")]
