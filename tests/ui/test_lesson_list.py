from pathlib import Path

import pytest

from tests.apptest_helpers import page
from ui.lesson_list import GLOSSARY, HOME, LESSONS, PAGES, declared_exercises, lesson_of, nav_label, page_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_pages_folder_holds_exactly_the_declared_pages():
    assert sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")) == sorted(p.page for p in PAGES)
    assert len({p.url_path for p in PAGES}) == len(PAGES) and HOME.url_path == ""


def test_the_navigation_is_built_from_the_declaration_home_first():
    at = page("app.py")
    registered = list(at._registered_pages.values())
    assert [(p["page_name"], p["url_pathname"], Path(p["script_path"]).name) for p in registered] == [
        (nav_label(p), p.url_path, Path(p.page).name) for p in PAGES]
    assert registered[0]["page_name"] == "Home" and registered[-1]["page_name"] == GLOSSARY.title


@pytest.mark.parametrize("declared", PAGES, ids=lambda p: p.url_path or "home")
def test_every_page_finds_its_own_declaration(declared):
    source = (ROOT / declared.page).read_text()
    assert page_of(str(ROOT / declared.page)) is declared
    if not declared.home:
        assert "PAGE = page_of(__file__)" in source and "page_header(PAGE," in source


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.url_path)
def test_every_lesson_asks_its_modules_exercises(lesson):
    assert len(lesson.exercises) >= 2 and lesson_of(lesson.module) is lesson
    assert "exercise_panel(PAGE" in (ROOT / lesson.page).read_text()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.url_path)
def test_the_exercises_counted_in_a_lessons_source_are_its_modules(lesson):
    assert lesson.exercise_count == len(lesson.exercises)  # the home page's cards count them without torch


def test_exercises_that_cannot_be_counted_without_running_the_module_are_refused(tmp_path, monkeypatch):
    (tmp_path / "built_lesson.py").write_text("EXERCISES = (*BASE, 'one')\n")
    (tmp_path / "silent_lesson.py").write_text("QUESTIONS = ()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="not a literal tuple"):
        declared_exercises("built_lesson")
    with pytest.raises(ValueError, match="declares no EXERCISES"):
        declared_exercises("silent_lesson")


def test_an_undeclared_page_is_refused_by_name():
    with pytest.raises(ValueError, match="'7_Secret.py' is not declared"):
        page_of("pages/7_Secret.py")
