"""ViT Lab: home page. The lessons live in pages/ (one file each, listed in ui/lesson_list.py); their URLs work
on a fresh server."""

import streamlit as st

from ui.exercise_panel import progress
from ui.lesson_list import LESSONS
from ui.widgets import navigation

st.set_page_config(page_title="ViT Lab", page_icon="🔬", layout="wide", initial_sidebar_state="auto")
navigation()
st.title("ViT Lab")
st.markdown(
    "**How does a Vision Transformer turn an image into a sequence of tokens, and what does it give up "
    f"against a CNN?** {len(LESSONS)} short lessons answer it with experiments you can change and re-run. Every "
    "number on every page is computed live by the code shown beneath it."
)

st.subheader("The lessons")
for col, (number, lesson) in zip(st.columns(len(LESSONS)), enumerate(LESSONS, start=1), strict=True):
    with col:
        st.page_link(lesson.page, label=f"{number} · {lesson.title}", icon=lesson.icon)
        st.markdown(lesson.blurb)
        done = {k: v for k, v in progress().items() if k.startswith(f"{lesson.progress_key}/")}
        st.caption(f"Exercises: {sum(done.values())} of {lesson.exercises} answered right in this session"
                   if lesson.exercises else "Predict first, then see the bench")

st.subheader("How to read the pages")
st.markdown(
    "- **Controls** are in the sidebar or in a form; every change re-runs the experiment (cheap ones at once, "
    "training only when you press *Run*).\n"
    "- **Exercises** at the top of each page ask the lesson's questions; *Check my answer* checks yours against the "
    "numbers the page computes, and explains.\n"
    "- **A link keeps the settings**: every control is in the page's address, and the sidebar shows it with a copy "
    "button. Send it, and it opens the same experiment, on any server.\n"
    "- **Show numbers under every chart** (sidebar) puts each chart's values in a table beneath it.\n"
    "- **Metrics** at the top give the lesson's key numbers for the current settings.\n"
    "- **Break it** switches remove the property being taught, so you can see that the check can fail.\n"
    "- **What to notice** is written from this run's numbers, not canned text.\n"
    "- **The code that ran** (a switch at the bottom) is the real source of the `core` functions, "
    "read live with `inspect`. The same experiments run from a terminal: `python -m core --help`."
)
st.caption("Based on the lesson notebook “Lesson 46: Vision Transformers” and a reduced ViT teaching module.")
