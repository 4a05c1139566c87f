"""ViT Lab's home page: the lab's finding as a puzzle, and a card per lesson (from ui/lesson_list.py)."""

import streamlit as st

from core.lessons.shipped_files import shipped_maps
from ui.exercise_panel import progress
from ui.figures import model_figures
from ui.glossary import term
from ui.lesson_list import LESSONS, lesson_of
from ui.widgets import chart, sidebar

# The lab's finding as a puzzle: the lesson's two models, unnamed (naming them would answer lesson 3's question)
PUZZLE = {"Model A": "cnn", "Model B": "vit"}
PUZZLE_RUN = "lesson"  # lesson 3's preset, whose shipped run the maps are
PUZZLE_LESSON = "core.lessons.lesson3_vit_vs_cnn"  # named, not imported: it imports torch


@st.cache_resource(show_spinner=False)
def puzzle_maps():
    """The maps of the shipped lesson run, read once per server from its file without torch: nothing on this page
    imports torch, so a sleeping app's wake draws it without waiting for it (docs/performance.md)."""
    return shipped_maps(PUZZLE_RUN)


def finding() -> None:
    """Two accuracy maps from the shipped lesson run, side by side, and the question they pose. Drawn before the
    cards: on a sleeping app's wake the browser fetches and starts its chart code (Plotly) while they are sent."""
    maps = puzzle_maps()
    if maps is None:  # no shipped run for this code: the home page still works without its picture
        return
    cols = st.columns([1.4, 2, 2])  # the question first: on a phone the columns stack, its link stays in view
    for col, (name, model) in zip(cols[1:], PUZZLE.items(), strict=True):
        chart(model_figures.position_map_figure(maps.grids[model], maps.centres, maps.train_range, maps.test_range,
                                                f"{name}: accuracy at each centre (%)"), col, key=f"home_{model}")
    cols[0].markdown(
        "**Two models, one task: plus or circle?** Both learned from shapes centred inside the solid square and "
        "were tested inside the dashed one, at places they never saw. Blue: right; orange: wrong; white: half "
        "right, which may be one answer given to every image. **One is a Vision Transformer, the other a CNN. Which "
        "is which, and what makes the difference?**")
    answer = lesson_of(PUZZLE_LESSON)
    cols[0].page_link(answer.page, label=f"Find out in lesson {LESSONS.index(answer) + 1}", icon=answer.icon)

sidebar()
st.title("ViT Lab")
st.markdown(
    "**How does a Vision Transformer turn an image into a sequence of tokens, and what does it give up "
    f"against a CNN?** {len(LESSONS)} short lessons answer it with experiments you can change and re-run."
)
finding()

st.subheader("The lessons")
CARDS_PER_ROW = 3  # five side by side cut their titles ("2 · Permutation symme") at 1400 px
cards = [col for start in range(0, len(LESSONS), CARDS_PER_ROW) for col in st.columns(CARDS_PER_ROW)]
for col, (number, lesson) in zip(cards, enumerate(LESSONS, start=1), strict=False):
    with col:
        st.page_link(lesson.page, label=f"{number} · {lesson.title}", icon=lesson.icon)
        st.markdown(lesson.blurb)
        done = {k: v for k, v in progress().items() if k.startswith(f"{lesson.progress_key}/")}
        st.caption(f"Exercises: {sum(done.values())} of {lesson.exercise_count} answered right in this session")

st.subheader("How to read the pages")
st.markdown(
    "- **Each page opens on its figure** and its main controls; more controls are in the sidebar or in a form. "
    "Every change re-runs the experiment (cheap ones at once, training only when you press *Run*).\n"
    "- **Predict first**: lessons 3 to 5 show their results once you have predicted them (or chosen to skip).\n"
    "- **Exercises** (below the first figure) ask the lesson's questions; *Check my answer* checks yours against the "
    "numbers the page computes, and explains.\n"
    "- **A link keeps the settings**: every control is in the page's address, and the sidebar shows it with a copy "
    "button. Send it, and it opens the same experiment, on any server.\n"
    "- **Show numbers under every chart** (sidebar) puts each chart's values in a table beneath it.\n"
    "- **Metrics** give the lesson's key numbers for the current settings.\n"
    "- **Words you may not know** link to the [glossary](Glossary).\n"
    "- **Break it** switches remove the property being taught, so you can see that the check can fail.\n"
    "- **What to notice** is written from this run's numbers, not canned text.\n"
    "- **The code that ran** (a switch at the bottom) is the lab's own source, read from the running program: "
    "the very functions that computed the page. The same experiments run from a terminal: `python -m core --help`."
)
st.caption("Based on the lesson notebook “Lesson 46: Vision Transformers” and "
           f"{term('the seed module', 'its reduced ViT teaching module')}.")
