import json
import subprocess
import sys

from tests.apptest_helpers import assert_clean, page
from tests.conftest import ROOT
from ui.lesson_list import LESSONS
from ui.warm_up import THREAD_NAME


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


# A fresh process: which thread first asks for torch (and pandas), the page's or the warm-up's started after it (ui/warm_up.py)
FIRST_DRAW = """
import json, sys, threading
asked = []

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ("torch", "pandas"):
            asked.append((name, threading.current_thread().name))

sys.meta_path.insert(0, Watch())
from streamlit.testing.v1 import AppTest
import ui.warm_up

at = AppTest.from_file("app.py", default_timeout=300).run()
drawn = len(at.get("plotly_chart")), [e.value for e in at.exception]
ui.warm_up._thread.join(300)
print(json.dumps({"drawn": drawn, "asked": asked, "imported": [m for m in ui.warm_up.WARMED if m not in sys.modules]}))
"""


def test_the_home_page_is_drawn_without_torch_which_is_imported_in_the_background_after_it():
    """A sleeping app's wake draws the home page without waiting for torch (docs/performance.md)."""
    done = subprocess.run([sys.executable, "-c", FIRST_DRAW], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["drawn"] == [2, []]  # the puzzle's two maps, no error
    # torch: only the warm-up asked for it, after the page; pandas: nobody
    assert seen["asked"] == [["torch", THREAD_NAME]], seen["asked"]
    assert seen["imported"] == []  # and torch is loaded
