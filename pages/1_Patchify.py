"""Lesson 1: a strided convolution is flatten + one linear map, checked live on any image and patch size."""

import streamlit as st

from core.images import SYNTHETIC_IMAGES
from core.patch_embed import ConvPatchEmbed, LinearPatchEmbed, compare_embeddings, conv_weight_from_linear
from core.patchify import patchify, valid_patch_sizes
from core.patchify_demo import PatchifyConfig, run_patchify
from ui import charts
from ui.widgets import page_header, show_source

page_header("Patchify", "🧩")
st.markdown(
    "A Transformer reads a **sequence of vectors**. ViT makes one from an image by cutting it into P×P patches, "
    "flattening each patch to a row of C·P·P numbers, and mapping every row through **one shared linear layer**. "
    "In practice that is written as `Conv2d(C, D, kernel_size=P, stride=P)`: the windows never overlap, so each "
    "output position is a dot product of one patch with each kernel. Below, both are computed with the same "
    "weights and their difference is measured."
)

IMAGE_SIZES = [8, 12, 16, 24, 32, 48, 64]


@st.cache_data(max_entries=128, show_spinner=False)
def cached_run(config: PatchifyConfig, upload: bytes | None) -> dict:
    return run_patchify(config, upload)


with st.sidebar:
    st.header("Image")
    source = st.radio("Source", ["Synthetic", "Upload"], horizontal=True, key="source")
    upload = None
    kind = st.selectbox("Synthetic image", SYNTHETIC_IMAGES, key="kind", disabled=source == "Upload")
    if source == "Upload":
        file = st.file_uploader("Your PNG or JPEG (resized and converted)", type=["png", "jpg", "jpeg"])
        upload = file.getvalue() if file is not None else None
        if upload is None:
            st.info("Upload an image; until then the synthetic one is shown.")
    size = st.select_slider("Image size (H = W)", IMAGE_SIZES, value=16, key="size")
    channels = st.radio("Channels", [1, 3], index=1, horizontal=True, key="channels")
    st.header("Embedding")
    sizes = valid_patch_sizes(size, size)
    # Only sizes that divide the image are offered; the widget's key includes the image size, so a new
    # size starts from a sensible default instead of a value that no longer exists.
    patch_size = st.select_slider("Patch size P (divisors of the image size)", sizes,
                                  value=4 if 4 in sizes else sizes[len(sizes) // 2], key=f"patch_{size}")
    embed_dim = st.slider("Embedding width D", 1, 64, 16, key="embed_dim")
    seed = st.number_input("Weight seed", 0, 10_000, 0, key="seed")
    dtype = st.radio("Precision", ["float64", "float32"], horizontal=True, key="dtype")
    st.header("Break it")
    wrong_order = st.toggle("Flatten pixels-then-channels (wrong order)", key="wrong_order")
    overlap = st.toggle("Stride smaller than the kernel (overlapping)", key="overlap", disabled=patch_size == 1)
    stride = None
    if overlap and patch_size > 1:
        stride = st.slider("Conv stride", 1, patch_size - 1, max(1, patch_size // 2), key=f"stride_{patch_size}")

config = PatchifyConfig(
    image="upload" if upload is not None else kind, image_size=size, channels=channels, patch_size=patch_size,
    embed_dim=embed_dim, seed=int(seed), dtype=dtype, wrong_flatten_order=wrong_order, conv_stride=stride,
)
try:
    r = cached_run(config, upload)
except ValueError as exc:
    st.error(str(exc))
    st.stop()

n, k, grid = r["n_patches"], r["patch_dim"], r["grid"]
broken = wrong_order or stride is not None

m1, m2, m3, m4 = st.columns(4)
m1.metric("Patches N", n, help=f"(H/P)·(W/P) = {grid}·{grid}")
m2.metric("Values per patch", k, help=f"C·P·P = {channels}·{patch_size}·{patch_size}")
m3.metric("Tokens with [CLS]", r["n_tokens_with_cls"])
m4.metric("max |linear − conv|", f"{r['max_abs_diff']:.2e}",
          delta=f"{r['max_abs_diff'] / r['eps']:.1f} × eps({dtype})", delta_color="inverse" if broken else "off")

st.subheader("1 · The image and its patch grid")
chosen = st.slider("Patch to follow", 0, n - 1, min(5, n - 1), key=f"chosen_{n}")
c1, c2 = st.columns([1, 1])
c1.plotly_chart(charts.image_with_patch_grid(r["image"], patch_size, chosen, "Patches, numbered in sequence order"),
                width="stretch")
c2.plotly_chart(charts.matrix_figure(r["tokens"], f"Token sequence: {n} rows × {k} columns",
                                     "value index (channel, row, col)", "patch", colorscale="gray",
                                     symmetric=False, highlight_row=chosen, zmin=0, zmax=1),
                width="stretch")

st.subheader("2 · One patch, in place and flattened")
row, col = divmod(chosen, grid)
P = patch_size
patch_img = r["image"][:, row * P:(row + 1) * P, col * P:(col + 1) * P]
c1, c2 = st.columns([1, 2])
c1.plotly_chart(charts.image_figure(patch_img, f"Patch {chosen} (grid row {row}, col {col})"), width="stretch")
fig = charts.matrix_figure(r["tokens"][chosen:chosen + 1], f"Patch {chosen} as row {chosen} of the sequence: "
                           f"{channels} channel block(s) of {P}×{P} pixels", "value index", "",
                           colorscale="gray", symmetric=False, height=200, zmin=0, zmax=1)
for ch in range(1, channels):
    fig.add_vline(x=ch * P * P - 0.5, line=dict(color="#ef4444", width=2))
c2.plotly_chart(fig, width="stretch")

st.subheader("3 · Two embeddings with the same weights")
c1, c2, c3 = st.columns(3)
c1.plotly_chart(charts.matrix_figure(r["linear"], f"Flatten + Linear: {r['linear'].shape[0]}×{embed_dim}",
                                     "feature", "token", highlight_row=chosen), width="stretch")
c2.plotly_chart(charts.matrix_figure(r["conv"], f"Conv2d(k={P}, s={stride or P}): {r['conv'].shape[0]}×{embed_dim}",
                                     "feature", "token"), width="stretch")
c3.plotly_chart(charts.matrix_figure(r["abs_diff"], f"|difference| (max {r['max_abs_diff']:.2e})", "feature", "token",
                                     colorscale="Reds", symmetric=False, zmin=0), width="stretch")

st.markdown(
    f"**Shape walk** &nbsp; image `(B, C, H, W) = {tuple(r['shapes']['image'])}` → patches "
    f"`(B, N, C·P·P) = {tuple(r['shapes']['patches'])}` → tokens `(B, N, D) = {tuple(r['shapes']['embedded'])}` "
    f"→ with the class token `(B, N+1, D) = (1, {n + 1}, {embed_dim})`."
)

st.subheader("What to notice")
eps = r["eps"]
notes = []
if not broken:
    notes.append(f"The two embeddings differ by at most **{r['max_abs_diff']:.2e}**, which is "
                 f"**{r['max_abs_diff'] / eps:.1f}×** the {dtype} machine epsilon ({eps:.1e}): rounding from "
                 f"adding {k} products in a different order, nothing more. They are the same linear map.")
    if dtype == "float32":
        notes.append("Switch to float64: the difference shrinks by roughly eight orders of magnitude, like eps does.")
if wrong_order:
    if channels == 1:
        notes.append("With **one channel**, pixels-then-channels and channels-then-pixels are the same order, so the "
                     "wrong flatten order changes nothing here. Switch to 3 channels to see it break.")
    else:
        notes.append(f"**Wrong flatten order**: the row lists each pixel's {channels} channels together, but the "
                     f"conv weight `(D, C, P, P)` expects all of channel 0, then channel 1, … Each weight now "
                     f"multiplies the wrong value; the difference jumps to **{r['max_abs_diff']:.2e}**.")
if stride is not None:
    notes.append(f"**Stride {stride} < kernel {P}**: the windows overlap, so the conv produces "
                 f"**{r['n_conv_tokens']}** tokens instead of {n}, and its token *i* no longer covers patch *i*. "
                 f"Comparing the first {min(n, r['n_conv_tokens'])} tokens in raster order, the difference is "
                 f"**{r['max_abs_diff']:.2e}**. This is no longer a patch embedding.")
notes.append(f"Patch size {P} turns a {size}×{size} image into **{n}** tokens of **{k}** values: halving P "
             f"quadruples the sequence length, and attention's cost grows with its square ({n + 1}² = {(n + 1) ** 2} "
             f"pairs with the class token).")
for note in notes:
    st.markdown(f"- {note}")

show_source(patchify, LinearPatchEmbed, ConvPatchEmbed, conv_weight_from_linear, compare_embeddings)
