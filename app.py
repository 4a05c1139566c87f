"""ViT Lab: home page. The lessons live in pages/ (one file each); their URLs work on a fresh server."""

import streamlit as st

st.set_page_config(page_title="ViT Lab", page_icon="🔬", layout="wide")
st.title("ViT Lab")
st.markdown(
    "**How does a Vision Transformer turn an image into a sequence of tokens, and what does it give up "
    "against a CNN?** Three short lessons answer it with experiments you can change and re-run. Every number "
    "on every page is computed live by the code shown beneath it."
)

st.subheader("The lessons")
c1, c2, c3 = st.columns(3)
with c1:
    st.page_link("pages/1_Patchify.py", label="1 · Patchify", icon="🧩")
    st.markdown(
        "An image becomes a sequence: cut into P×P patches, flatten, one linear map. See that "
        "`Conv2d(kernel=P, stride=P)` computes exactly the same numbers, for any patch size, then break it."
    )
with c2:
    st.page_link("pages/2_Permutation_symmetry.py", label="2 · Permutation symmetry", icon="🔀")
    st.markdown(
        "Without positional encodings a Transformer cannot tell where a patch was: shuffle the patches and the "
        "class output stays put. Add learned or sinusoidal positions and the symmetry breaks."
    )
with c3:
    st.page_link("pages/3_ViT_vs_CNN.py", label="3 · ViT vs CNN", icon="⚖️")
    st.markdown(
        "Train both on plus-vs-circle images at some positions, test at unseen ones. The CNN generalizes, the "
        "tiny ViT collapses. Then re-run the lesson's exercises: more data, smaller patches, a CNN stem."
    )

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
