"""Lesson 1: a strided convolution is flatten + one linear map, checked live on any image and patch size."""

import streamlit as st

from core.data.images import decode_upload
from core.lessons.controls import config_from
from core.lessons.lesson1_patchify import CONTROLS, PatchifyConfig, PatchifyResult, notes, run_patchify
from core.nn.patch_embed import ConvPatchEmbed, LinearPatchEmbed, compare_embeddings, conv_weight_from_linear
from core.nn.patchify import patchify
from ui.exercise_panel import exercise_panel, show_me
from ui.figures import image_figures, plots
from ui.form_controls import live_control
from ui.glossary import term
from ui.lesson_list import page_of
from ui.page_rerun import fragment
from ui.widgets import (
    URL,
    as_text,
    background,
    bullets,
    chart,
    page_header,
    sections,
    share_link,
    show_link_notes,
    show_source,
)

PAGE = page_of(__file__)


@st.cache_data(max_entries=128, show_spinner=False)
def cached_run(config: PatchifyConfig, upload: bytes | None) -> PatchifyResult:
    return run_patchify(config, upload)


def intro() -> None:
    page_header(PAGE, "Cut an image into P×P patches, flatten each, map it through one linear layer: is "
                "that the same as a strided convolution? Move the sizes; the difference is measured below.")


def key_controls(values: dict) -> None:
    """The page's key controls, above its first figure (on a phone too, where the sidebar starts closed): image size
    and patch size (into ``values``)."""
    c1, c2 = st.columns(2)
    for c, where in zip(CONTROLS[:2], (c1, c2), strict=True):  # the image size, then its divisors
        live_control(c, PatchifyConfig(), values, where)


def patch_to_follow(n: int) -> int:
    """The patch every section follows (a red box), of ``n``."""
    if n == 1:  # a slider that cannot move only confuses
        st.markdown("Patch to follow (red box): **0** (the only choice here)")
        return 0
    # its key holds the patch count: a new grid starts afresh
    return st.slider("Patch to follow (red box)", 0, n - 1, min(5, n - 1), key=f"chosen_{n}", bind=URL)


@fragment
def figures(r: PatchifyResult) -> None:
    """The patch to follow and the page's three sections: a fragment (``ui.page_rerun``), so following another
    patch or opening a tab re-runs them alone, not the embedding."""
    chosen = patch_to_follow(r.n_patches)
    sections("patchify_view", {
        "grid": ("1 · The image and its patch grid", lambda: patch_grid(r, chosen)),
        "patch": ("2 · One patch, in place and flattened", lambda: one_patch(r, chosen)),
        "embeddings": ("3 · Two embeddings with the same weights", lambda: embeddings(r, chosen)),
    })


def readable(upload: bytes) -> bytes | None:
    """The upload, or None where it cannot be shown (not an image, damaged, too large), said in one sentence
    beside the uploader: the synthetic image is shown and the rest of the page draws as usual."""
    try:
        decode_upload(upload)  # decoded once (cached): the lesson's run reads the same
    except ValueError as exc:
        st.warning(f"That file cannot be shown ({as_text(exc)}): the synthetic image is used instead.")
        return None
    return upload


def controls(values: dict) -> tuple[PatchifyConfig, bytes | None]:
    """The other settings, in the sidebar; the config from every control's value, validated once."""
    base, by_key = PatchifyConfig(), {c.key: c for c in CONTROLS}
    with st.sidebar:
        st.header("Image")
        source = st.radio("Source", ["Synthetic", "Upload"], horizontal=True, key="source", bind=URL)
        upload = None
        live_control(by_key["kind"], base, values, disabled=source == "Upload")
        if source == "Upload":
            st.caption("An uploaded image stays in this browser session: a link carries the other settings, "
                       "not the image.")
            file = st.file_uploader("Your image (PNG, JPEG, GIF, BMP, TIFF or WebP; cropped to a square, resized "
                                    "and converted)",
                                    type=["png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp"])
            upload = readable(file.getvalue()) if file is not None else None
            if file is None:
                st.info("Upload an image; until then the synthetic one is shown.")
        live_control(by_key["channels"], base, values)
        st.header("Embedding")
        for key in ("width", "weight_seed", "dtype"):
            live_control(by_key[key], base, values)
        st.header("Break it")
        live_control(by_key["wrong_order"], base, values)
        overlap = st.toggle("Stride smaller than the kernel (overlapping)", key="overlap",
                            disabled=values["patch"] == 1, bind=URL)
        if overlap and values["patch"] > 1:  # else the lesson's stride: the patch size
            live_control(by_key["stride"], base, values)
    if upload is not None:
        values["kind"] = "upload"
    return config_from(base, CONTROLS, values), upload


def metrics(r: PatchifyResult) -> None:
    c = r.config
    broken = c.wrong_flatten_order or c.conv_stride is not None
    if r.upload_notes:
        st.caption("Your image: " + "; ".join(r.upload_notes) + ".")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Patches N", r.n_patches, help=f"(H/P)·(W/P) = {r.grid}·{r.grid}")
    m2.metric("Values per patch", r.patch_dim, help=f"C·P·P = {c.in_chans}·{c.patch_size}·{c.patch_size}")
    m3.metric("Tokens with [CLS]", r.n_tokens_with_cls)
    ratio = r.max_abs_diff / r.eps
    rounding = ratio < 1e3
    m4.metric("max |linear − conv|", f"{r.max_abs_diff:.2e}", delta="rounding only" if rounding else "not rounding",
              delta_color="inverse" if broken and not rounding else "off", delta_arrow="off",
              help=f"eps = {r.eps:.1e}, the gap between 1 and the next {c.dtype}")
    st.markdown(f"The largest difference is **{ratio:.3g} × {term('epsilon')}** of {c.dtype}: "
               + ("rounding, so the two maps compute the same numbers." if rounding else
                  "far beyond rounding, so the two compute a different map."))


def patch_grid(r: PatchifyResult, chosen: int) -> None:
    n, k = r.n_patches, r.patch_dim
    order = "(row, col, channel): the WRONG order" if r.config.wrong_flatten_order else "(channel, row, col)"
    c1, c2 = st.columns([1, 1])
    chart(image_figures.image_with_patch_grid(r.image, r.config.patch_size, chosen, "Patches, numbered in sequence order"),
          c1)
    chart(plots.matrix_figure(r.tokens, f"Token sequence: {n} rows × {k} columns, flattened {order}",
                               f"value index {order}", "patch", colorscale="gray", symmetric=False,
                               highlight_row=chosen, zmin=0, zmax=1), c2)


def one_patch(r: PatchifyResult, chosen: int) -> None:
    P, C = r.config.patch_size, r.config.in_chans
    row, col = divmod(chosen, r.grid)
    patch_img = r.image[:, row * P:(row + 1) * P, col * P:(col + 1) * P]
    c1, c2 = st.columns([1, 2])
    chart(image_figures.image_figure(patch_img, f"Patch {chosen} (grid row {row}, col {col})"), c1)
    wrong = r.config.wrong_flatten_order and C > 1
    title = (f"Patch {chosen} as row {chosen} of the sequence, flattened pixel by pixel: each pixel's {C} channels "
             "side by side (the conv weight expects channel blocks)" if wrong else
             f"Patch {chosen} as row {chosen} of the sequence: {C} channel block(s) of {P}×{P} pixels")
    chart(image_figures.patch_row_figure(r.tokens[chosen], title, C, P, pixels_first=r.config.wrong_flatten_order), c2)


def embeddings(r: PatchifyResult, chosen: int) -> None:
    c, P, D = r.config, r.config.patch_size, r.config.embed_dim
    c1, c2, c3 = st.columns(3)
    chart(plots.matrix_figure(r.linear, f"Flatten + Linear: {r.linear.shape[0]}×{D}", "feature", "token",
                               highlight_row=chosen), c1)
    chart(plots.matrix_figure(r.conv, f"Conv2d(k={P}, s={c.conv_stride or P}): {r.conv.shape[0]}×{D}",
                               "feature", "token"), c2)
    chart(plots.matrix_figure(r.abs_diff, f"|difference| (max {r.max_abs_diff:.2e})", "feature", "token",
                               colorscale="Reds", symmetric=False, zmin=0), c3)
    sh = r.shapes
    st.markdown(
        f"**Shape walk** &nbsp; image `(B, C, H, W) = {tuple(sh['image'])}` → patches "
        f"`(B, N, C·P·P) = {tuple(sh['patches'])}` → tokens `(B, N, D) = {tuple(sh['embedded'])}` "
        f"→ with the class token `(B, N+1, D) = (1, {r.n_patches + 1}, {D})`."
    )


def what_to_notice(r: PatchifyResult) -> None:
    st.subheader("What to notice")
    bullets(notes(r))  # written from the numbers (core: lesson1_patchify.notes)


# What each exercise's "Show me" button sets: the controls that display its answer
EXERCISE_SETTINGS = {
    "tokens": {"size": 32, "patch_32": 2},
    "grey-order": {"channels": 1, "wrong_order": True},
    "precision": {"dtype": "float32", "channels": 3, "wrong_order": False, "size": 16, "patch_16": 4},
}


BACKGROUND = (
    f"A Transformer reads a **sequence of vectors**. ViT makes one from an image by cutting it into P×P "
    f"{term('patch', 'patches')}, flattening each patch to a row of C·P·P numbers, and mapping every row through "
    f"**one shared linear layer** (the patch {term('embedding')}). In practice that is written as "
    "`Conv2d(C, D, kernel_size=P, stride=P)`: the windows never overlap, so each output position is a dot product "
    "of one patch with each kernel. This page computes both with the same weights and measures their difference."
)


def main() -> None:
    intro()
    link_box = st.empty()  # what the link named that the page could not use, once the controls have read it
    values: dict = {}  # each control's value, by key
    key_controls(values)
    try:
        config, upload = controls(values)
        r = cached_run(config, upload)
    except ValueError as exc:
        st.error(f"Cannot show this image: {exc}")
        show_link_notes(link_box)
        return
    figures(r)
    metrics(r)
    background(BACKGROUND)
    exercise_panel(PAGE, (config, upload), show_me(EXERCISE_SETTINGS))  # answered on the page's setting
    what_to_notice(r)
    share_link()
    show_source(patchify, LinearPatchEmbed, ConvPatchEmbed, conv_weight_from_linear, compare_embeddings)
    show_link_notes(link_box)  # last: every control and tab has read the link


main()
