"""Lesson 2: without positions a ViT cannot tell where a patch was. Test the reference ViT's four claims live."""

import numpy as np
import streamlit as st

from core.lessons.controls import config_from
from core.lessons.lesson2_symmetry import (
    CONTROLS,
    PERMUTATIONS,
    SEED_CASES,
    SymmetryConfig,
    attention,
    attention_notes,
    change,
    change_notes,
    one_patch_change,
    permute_and_compare,
    shuffle,
    shuffle_notes,
    verify,
)
from core.models.prenorm_vit import Attention, PreNormViT
from ui.exercise_panel import exercise_panel, show_me
from ui.figures import image_figures, plots
from ui.form_controls import live_control
from ui.glossary import term
from ui.lesson_list import page_of
from ui.widgets import (
    URL,
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

# The lesson's functions, cached per setting (frozen configs and plain values: the cache keys)
cached_claims = st.cache_data(max_entries=64, show_spinner=False)(verify)
cached_shuffle = st.cache_data(max_entries=64, show_spinner=False)(shuffle)
cached_change = st.cache_data(max_entries=64, show_spinner=False)(change)
cached_attention = st.cache_data(max_entries=64, show_spinner=False)(attention)


# The page's three sections (tabs: only the open one runs)
SHUFFLE, CHANGE, ATTENTION = "1 · Shuffle the patches", "2 · Change one patch", "3 · Where does the class token look?"


def shown(image: np.ndarray) -> np.ndarray:
    """Random images are not in [0, 1]: stretch for display only."""
    lo, hi = image.min(), image.max()
    return (image - lo) / (hi - lo or 1.0)


def with_positions(pos_embed: str) -> str:
    return "with no positions either (none chosen)" if pos_embed == "none" else f"with {pos_embed} positions"


def intro() -> None:
    page_header(PAGE, "Shuffle an image's patches: does a Transformer's answer change? "
                "Pick a positional encoding, reorder the patches, and compare the class scores.")


BACKGROUND = (
    "Everything in a Transformer block acts on each token alone (LayerNorm, the MLP, the q/k/v maps) except "
    f"{term('attention')}, which mixes tokens by a weighted sum whose weights depend only on token *contents*. So "
    f"if you **shuffle the patch tokens**, every output is shuffled the same way ({term('equivariance')}), and "
    f"the {term('class token')}, which reads all of them, gives **the same answer** ({term('invariance')}). Only a "
    f"**position table** ({term('positional encoding')}) added to the tokens tells the model where a patch was. "
    f"The model is the {term('reference ViT')}, {term('untrained')}: its weights are drawn from a generator with "
    "the weight seed below."
)



def model_controls() -> SymmetryConfig:
    """The key control in the page (above the first figure, on a phone too); the model's others in the sidebar."""
    values: dict = {}
    positions, *others = CONTROLS
    live_control(positions, SymmetryConfig(), values)
    with st.sidebar:
        st.header("Model")
        for c in others:
            live_control(c, SymmetryConfig(), values)
    return config_from(SymmetryConfig(), CONTROLS, values)


def claims_table(cfg: SymmetryConfig) -> None:
    st.subheader("The four claims, measured now")
    st.caption(f"The claims of {term('the seed module')}, checked on this page's model with the settings above.")
    # One line per claim (text wraps on any screen; a table would be cut off or scroll sideways)
    lines = [f"{'✅ **PASS**' if c.passed else '❌ **FAIL**'} · {c.claim}: measured **{c.value:.3g}** "
             f"(tolerance {c.tolerance:g}). {c.detail}" for c in cached_claims(cfg)]
    st.markdown("\n\n".join(lines))  # one element, a paragraph per claim


def shuffle_section(cfg: SymmetryConfig) -> list[str]:
    vcfg = cfg.vit_config()
    N, G = vcfg.num_patches, vcfg.grid_size
    pos_embed = cfg.pos_embed
    c1, c2, c3 = st.columns(3)
    kind = c1.selectbox("Permutation", PERMUTATIONS, key="perm_kind", bind=URL,
                        help="reversal (the reference ViT's test) · random · swap two patches · cyclic shift of the grid (a translation)")
    perm_seed, swap, shift = 0, (0, 1), (0, 1)
    if kind == "random":
        perm_seed = c2.number_input("Permutation seed", 0, 10_000, 0, key="perm_seed", bind=URL)
    elif kind == "swap":
        swap = (c2.number_input("Swap patch", 0, N - 1, 0, key="swap_i", bind=URL), c3.number_input("with patch", 0, N - 1, 5, key="swap_j", bind=URL))
    elif kind == "shift":
        shift = (c2.slider("Shift down (patches)", -(G - 1), G - 1, 0, key="shift_r", bind=URL),
                 c3.slider("Shift right (patches)", -(G - 1), G - 1, 1, key="shift_c", bind=URL))
    p = cached_shuffle(cfg, kind, int(perm_seed), tuple(int(v) for v in swap), tuple(int(v) for v in shift))
    if p.perm == tuple(range(N)):
        st.warning("This permutation leaves every patch where it was: pick two different patches or a non-zero shift.")

    c1, c2 = st.columns(2)
    chart(image_figures.image_with_patch_grid(shown(p.image), vcfg.patch_size, title="Input (a random image)"),
          c1)
    chart(image_figures.image_with_patch_grid(shown(p.moved), vcfg.patch_size, labels=p.perm,
                                       title="Patches reordered (numbers: original patch)"), c2)
    st.markdown(f"How far the class token's {term('logit', 'logits')} (its raw class scores) and the patch outputs "
               "move when the patches are reordered:")
    m1, m2, m3 = st.columns(3)
    m1.metric("|Δ class logits| without positions", f"{p.compared.no_pos.class_change:.1e}", help="tolerance 1e-10 (float64)")
    m2.metric("patch-output equivariance error", f"{p.compared.no_pos.equivariance_error:.1e}",
              help="max |f(permuted)[patch outputs] − permute(f(x))[patch outputs]|, no positions")
    m3.metric(f"|Δ class logits| {with_positions(pos_embed)}",
              f"{p.compared.pos.class_change:.1e}" if vcfg.pos_embed != "none" else "—")
    labels = [f"class {k}" for k in range(vcfg.num_classes)]
    c1, c2 = st.columns(2)
    chart(plots.grouped_bars({"original": p.compared.no_pos.logits, "permuted": p.compared.no_pos.logits_permuted},
                              "Class logits without positions", labels), c1)
    chart(plots.grouped_bars({"original": p.compared.pos.logits, "permuted": p.compared.pos.logits_permuted},
                              f"Class logits {with_positions(pos_embed)}", labels), c2)
    chart(plots.log_strip({"without positions": p.random.no_pos, with_positions(pos_embed): p.random.pos},
                           "max |Δ logits| over 100 random permutations (log scale; exact zeros drawn at 1e-18)",
                           "max |Δ logits|"))
    return shuffle_notes(cfg, kind, p)


def change_section(cfg: SymmetryConfig) -> list[str]:
    vcfg = cfg.vit_config()
    N = vcfg.num_patches
    labels = [f"class {k}" for k in range(vcfg.num_classes)]
    patch = st.slider("Patch to brighten (+3 on every pixel)", 0, N - 1, 0, key="change_patch", bind=URL)
    ch = cached_change(cfg, patch)
    c1, c2, c3 = st.columns(3)
    chart(image_figures.image_with_patch_grid(shown(ch.image), vcfg.patch_size, patch, "Changed image (red box)"), c1)
    chart(plots.grid_map(ch.embedding_change, "‖Δ embedding‖ per patch, before attention", text_fmt=".2g"), c2)
    chart(plots.grid_map(ch.output_change, "‖Δ output‖ per patch, after the encoder", text_fmt=".2g"), c3)
    chart(plots.grouped_bars({"original": ch.logits, "changed": ch.logits_changed},
                              "Class logits before and after the change", labels))
    return change_notes(ch, patch)


def attention_section(cfg: SymmetryConfig) -> list[str]:
    vcfg = cfg.vit_config()
    N, G = vcfg.num_patches, vcfg.grid_size
    labels = [f"class {k}" for k in range(vcfg.num_classes)]
    st.info("The reference ViT's attention experiment. These attention weights come from an **untrained** model. They show how the architecture routes information, "
            "not what a trained model finds important: this is not a saliency map and not a detector.")
    case_names = [label for _, label, _, _ in SEED_CASES] + ["Any position"]
    case = st.radio("Bright 4×4 patch", case_names, horizontal=True, key="att_case", bind=URL)
    if case == "Any position":
        c1, c2 = st.columns(2)
        row = c1.slider("Row", 0, G - 1, 2, key="att_row", bind=URL)
        col = c2.slider("Column", 0, G - 1, 1, key="att_col", bind=URL)
    else:
        _, _, row, col = SEED_CASES[case_names.index(case)]
    a = cached_attention(cfg, row, col)
    cols = st.columns(1 + vcfg.num_heads)
    chart(image_figures.image_with_patch_grid(a.image, vcfg.patch_size, row * G + col, "Input image: the bright patch "
                                       "(white, red box) on black"), cols[0])
    vmax = float(a.class_to_patch.max())
    for h in range(vcfg.num_heads):
        chart(plots.grid_map(a.class_to_patch[h], f"Head {h}: class → patch", zmin=0, zmax=vmax), cols[1 + h])
    m = st.columns(2 + vcfg.num_heads)
    for h in range(vcfg.num_heads):
        m[h].metric(f"Head {h} class self-weight", f"{a.self_weight[h]:.4f}")
    m[-2].metric("Row sum (every head)", f"{a.row_sum.min():.6f}")
    m[-1].metric("Tokens", N + int(vcfg.class_token))
    c1, c2 = st.columns(2)
    chart(plots.bar_figure(a.patch_embedding, f"Bright patch embedding · {vcfg.embed_dim} features"), c1)
    chart(plots.bar_figure(a.logits, "Untrained class logits", labels), c2)
    return attention_notes(a, row, col)


def what_to_notice(notes: list[str]) -> None:
    st.subheader("What to notice")
    bullets(notes)


# What each exercise's "Show me" button sets: the controls that display its answer
EXERCISE_SETTINGS = {
    "shift": {"positions": "none", "symmetry_view": SHUFFLE, "perm_kind": "shift", "shift_r": 0, "shift_c": 1},
    "one-patch": {"symmetry_view": CHANGE, "change_patch": 0},
    "sincos": {"positions": "sincos", "symmetry_view": SHUFFLE, "perm_kind": "random"},
}


def main() -> None:
    intro()
    link_box = st.empty()  # what the link named that the page could not use, once the controls have read it
    cfg = model_controls()
    sections("symmetry_view", {
        "shuffle": (SHUFFLE, lambda: shuffle_section(cfg)),
        "change": (CHANGE, lambda: change_section(cfg)),
        "attention": (ATTENTION, lambda: attention_section(cfg)),
    }, after=what_to_notice)  # the open section's notes, under it
    claims_table(cfg)
    background(BACKGROUND)
    exercise_panel(PAGE, (cfg,), show_me(EXERCISE_SETTINGS))
    share_link()
    show_source(PreNormViT, Attention, permute_and_compare, one_patch_change, verify)
    show_link_notes(link_box)  # last: every control and tab has read the link


main()
