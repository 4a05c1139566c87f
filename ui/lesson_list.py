"""The one list of lessons: the home page's cards, the browser test's pages and the check that the
``pages/`` folder (Streamlit's navigation) holds exactly these and the glossary come from here. Adding a
lesson = a core module, a page file and one entry below."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    page: str  # the page file, relative to the app's root
    title: str  # the page's title (st.title) and its navigation label
    icon: str
    blurb: str  # what the home page says about it
    min_charts: int  # charts the page draws on first view, its first section (the browser test waits for them)
    progress_key: str  # the lesson's name in the session's exercise progress (ui.exercise_panel)
    exercises: int  # how many exercises its page asks

    @property
    def url_path(self) -> str:
        """The page's own URL under the server root, as Streamlit derives it from the file name."""
        return self.page.removeprefix("pages/").removesuffix(".py").split("_", 1)[1]


LESSONS: tuple[Lesson, ...] = (
    Lesson("pages/1_Patchify.py", "Patchify", "🧩",
           "An image becomes a sequence: cut into P×P patches, flatten, one linear map. See that "
           "`Conv2d(kernel=P, stride=P)` computes exactly the same numbers, for any patch size, then break it.", 2, "patchify", 3),
    Lesson("pages/2_Permutation_symmetry.py", "Permutation symmetry", "🔀",
           "Without positional encodings a Transformer cannot tell where a patch was: shuffle the patches and the "
           "class output stays put. Add learned or sinusoidal positions and the symmetry breaks.", 5, "symmetry", 3),
    Lesson("pages/3_ViT_vs_CNN.py", "ViT vs CNN", "⚖️",
           "Train both on plus-vs-circle images at some positions, test at unseen ones. Which one still tells a "
           "plus from a circle there? Predict, then see; then test the notebook's explanation: what the test "
           "asks, the position table's size, a 1-pixel against a one-patch move; and run its exercises.", 1,
           "vit-vs-cnn", 3),
    Lesson("pages/4_Fixing_the_ViT.py", "Fixing the ViT", "🩹",
           "Remedies from the literature (random shifts, 2-D or relative positions, overlapping or shifted "
           "patches, locality attention, pooling), five seeds each, and CNNs with parts taken away. Predict which "
           "of them recognise shapes at unseen positions, then see the bench.", 1, "remedies", 3),
    Lesson("pages/5_Real_handwriting.py", "Real handwriting", "✍️",
           "The same test on real handwritten digits (the UCI scans, ten classes or 0 vs 1): new positions *and* "
           "new handwriting. Does the ViT's blind spot survive, does the CNN hold, and do lesson 4's remedies "
           "still work? Five seeds each, with intervals.", 1, "digits", 3),
)

# Pages that are not lessons: in the navigation after them, in the pages/ folder, not on the home page's cards
GLOSSARY = Lesson("pages/9_Glossary.py", "Glossary", "📖", "", 0, "", 0)
