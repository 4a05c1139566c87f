from pathlib import Path

from ui.lessons import LESSONS

ROOT = Path(__file__).resolve().parent.parent


def test_the_lesson_list_is_the_pages_folder():
    assert sorted(lesson.page for lesson in LESSONS) == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert [lesson.url_path for lesson in LESSONS] == ["Patchify", "Permutation_symmetry", "ViT_vs_CNN"]


def test_every_page_titles_itself_as_listed():
    for lesson in LESSONS:
        assert f'page_header("{lesson.title}"' in (ROOT / lesson.page).read_text(), lesson.page
