"""The lab's pages, declared once: the navigation (``st.navigation`` in app.py), the home page's cards, each
page's title and exercises, the browser tests' page list and the check that ``pages/`` holds exactly these all
come from here. Adding a lesson = its core module (with its ``EXERCISES``), its page file, its tests and one
``Lesson(...)`` below."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from core.lessons.exercise import Exercise


@dataclass(frozen=True)
class Lesson:
    page: str  # the page file, relative to the app's root
    title: str  # the page's title (st.title) and its navigation label
    icon: str
    blurb: str = ""  # what the home page says about it
    min_charts: int = 0  # charts the page draws on first view, its first section (the browser test waits for them)
    module: str = ""  # its core.lessons module, whose EXERCISES the page asks ("": a page without exercises)
    home: bool = False  # the page the server's root URL opens

    @property
    def url_path(self) -> str:
        """The page's own URL under the server root: its file name without the number ("" for the home page)."""
        return "" if self.home else Path(self.page).stem.split("_", 1)[1]

    @property
    def progress_key(self) -> str:
        """The page's name in the session's exercise progress (ui.exercise_panel) and its exercise widgets' keys."""
        return self.url_path

    @property
    def exercises(self) -> tuple[Exercise, ...]:
        return tuple(importlib.import_module(self.module).EXERCISES) if self.module else ()

    @property
    def exercise_count(self) -> int:
        """``len(self.exercises)``, without importing the lesson's module (it imports torch; the home page, which
        counts them on every card, is drawn before torch is imported: docs/performance.md)."""
        return declared_exercises(self.module) if self.module else 0


@functools.cache
def declared_exercises(module: str) -> int:
    """How many exercises ``module`` declares: the items of its ``EXERCISES = (...)``, counted in its source, which is
    read, not run. ``tests/ui/test_lesson_list.py`` checks the count against the imported module's."""
    source = Path(importlib.util.find_spec(module).origin).read_text()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "EXERCISES" for t in targets):
            items = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else None
            if items is None or any(isinstance(item, ast.Starred) for item in items):
                raise ValueError(f"{module}.EXERCISES is not a literal tuple of its exercises: they cannot be counted "
                                 "without running it")
            return len(items)
    raise ValueError(f"{module} declares no EXERCISES")


LESSONS: tuple[Lesson, ...] = (
    Lesson("pages/1_Patchify.py", "Patchify", "🧩",
           "An image becomes a sequence: cut into P×P patches, flatten, one linear map. See that "
           "`Conv2d(kernel=P, stride=P)` computes exactly the same numbers, for any patch size, then break it.", 2,
           "core.lessons.lesson1_patchify"),
    Lesson("pages/2_Permutation_symmetry.py", "Permutation symmetry", "🔀",
           "Without positional encodings a Transformer cannot tell where a patch was: shuffle the patches and the "
           "class output stays put. Add learned or sinusoidal positions and the symmetry breaks.", 5,
           "core.lessons.lesson2_symmetry"),
    Lesson("pages/3_ViT_vs_CNN.py", "ViT vs CNN", "⚖️",
           "Train both on plus-vs-circle images at some positions, test at unseen ones. Which one still tells a "
           "plus from a circle there? Predict, then see; then test [the notebook's](Glossary#the-notebook) explanation: what the test "
           "asks, the position table's size, a 1-pixel against a one-patch move; and run its exercises.", 1,
           "core.lessons.lesson3_vit_vs_cnn"),
    Lesson("pages/4_Fixing_the_ViT.py", "Fixing the ViT", "🩹",
           "Remedies from the literature (random shifts, 2-D or relative positions, overlapping or shifted "
           "patches, locality attention, pooling), 15 seeds over 3 training draws each, and CNNs with parts taken away. Predict which "
           "of them recognise shapes at unseen positions, then see the bench.", 1, "core.lessons.lesson4_fixing_the_vit"),
    Lesson("pages/5_Real_handwriting.py", "Real handwriting", "✍️",
           "The same test on real handwritten digits (the UCI scans, ten classes or 0 vs 1): new positions *and* "
           "new scans (by the same 13 writers). Does the ViT's blind spot survive, does the CNN hold, and do lesson 4's remedies "
           "still work? Five seeds each, with intervals.", 1, "core.lessons.lesson5_real_handwriting"),
    Lesson("pages/6_Your_own_experiment.py", "Your own experiment", "🎨",
           "Lesson 3's question of your own classes: draw them (or pick shipped digits), paint where the models train "
           "and where they are tested, and see which model carries them to places it never saw. The setting is one "
           "link, and one command line.", 1, "core.lessons.lesson6_own_experiment"),
)

# Pages that are not lessons: home first in the navigation, the glossary after the lessons; no home-page card
HOME = Lesson("pages/0_Home.py", "ViT Lab", "🔬", min_charts=2, home=True)
GLOSSARY = Lesson("pages/9_Glossary.py", "Glossary", "📖")
PAGES: tuple[Lesson, ...] = (HOME, *LESSONS, GLOSSARY)


def nav_label(page: Lesson) -> str:
    """The page's name in the navigation: "Home", the lessons numbered, the others by title."""
    if page.home:
        return "Home"
    return f"{LESSONS.index(page) + 1} · {page.title}" if page in LESSONS else page.title


def page_of(file: str) -> Lesson:
    """The declaration of the page whose script is ``file`` (a page passes its ``__file__``)."""
    name = Path(file).name
    try:
        return next(p for p in PAGES if Path(p.page).name == name)
    except StopIteration:
        raise ValueError(f"{name!r} is not declared in ui/lesson_list.py; pages: {[p.page for p in PAGES]}") from None


def lesson_of(module: str) -> Lesson:
    """The lesson whose core module is ``module`` (its ``__name__``)."""
    return next(lesson for lesson in LESSONS if lesson.module == module)
