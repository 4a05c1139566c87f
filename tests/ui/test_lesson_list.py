from pathlib import Path

from ui.lesson_list import GLOSSARY, LESSONS

ROOT = Path(__file__).resolve().parents[2]


def test_the_lesson_list_is_the_pages_folder():
    pages = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert sorted(lesson.page for lesson in (*LESSONS, GLOSSARY)) == pages
    assert [lesson.url_path for lesson in LESSONS] == ["Patchify", "Permutation_symmetry", "ViT_vs_CNN",
                                                       "Fixing_the_ViT", "Real_handwriting"]


def test_every_page_titles_itself_as_listed():
    for lesson in (*LESSONS, GLOSSARY):
        assert f'page_header("{lesson.title}"' in (ROOT / lesson.page).read_text(), lesson.page


def test_every_page_has_its_exercise_panel_with_as_many_exercises_as_listed():
    from core.lessons.lesson1_patchify import PATCHIFY_EXERCISES
    from core.lessons.lesson2_symmetry import SYMMETRY_EXERCISES
    from core.lessons.lesson3_vit_vs_cnn import EXERCISES
    from core.lessons.lesson4_fixing_the_vit import REMEDY_EXERCISES
    from core.lessons.lesson5_real_handwriting import EXERCISES as DIGIT_EXERCISES

    counts = {"patchify": len(PATCHIFY_EXERCISES), "symmetry": len(SYMMETRY_EXERCISES), "vit-vs-cnn": len(EXERCISES),
              "remedies": len(REMEDY_EXERCISES), "digits": len(DIGIT_EXERCISES)}
    for lesson in LESSONS:
        assert f'exercise_panel("{lesson.progress_key}"' in (ROOT / lesson.page).read_text(), lesson.page
        assert counts[lesson.progress_key] == lesson.exercises >= 2
