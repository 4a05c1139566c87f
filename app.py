"""ViT Lab: home page. The lessons live in pages/ (one file each, listed in ui/lessons.py); their URLs work
on a fresh server."""

import streamlit as st

from ui.lessons import LESSONS

st.set_page_config(page_title="ViT Lab", page_icon="🔬", layout="wide")
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

st.subheader("How to read the pages")
st.markdown(
    "- **Controls** are in the sidebar or in a form; every change re-runs the experiment (cheap ones at once, "
    "training only when you press *Run*).\n"
    "- **Metrics** at the top give the lesson's key numbers for the current settings.\n"
    "- **Break it** switches remove the property being taught, so you can see that the check can fail.\n"
    "- **What to notice** is written from this run's numbers, not canned text.\n"
    "- **The code that ran** (an expander at the bottom) is the real source of the `core` functions, "
    "read live with `inspect`. The same experiments run from a terminal: `python -m core --help`."
)
st.caption("Based on the lesson notebook “Lesson 46: Vision Transformers” and a reduced ViT teaching module.")
