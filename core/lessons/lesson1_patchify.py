"""Lesson 1, Patchify, as one function of a frozen config: what the page and ``python -m core patchify`` run."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from core.data.images import SYNTHETIC_IMAGES, as_batch, image_from_bytes, synthetic_image
from core.lessons.controls import Control
from core.lessons.exercise import Answer, Exercise
from core.nn.patch_embed import compare_embeddings, seeded_linear_embed
from core.nn.patchify import check_patch_size, patchify, unpatchify, valid_patch_sizes

DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class PatchifyConfig:
    image: str = "plus"  # one of SYNTHETIC_IMAGES, or "upload"
    img_size: int = 16
    in_chans: int = 3
    patch_size: int = 4
    embed_dim: int = 16
    seed: int = 0
    dtype: str = "float64"
    wrong_flatten_order: bool = False
    conv_stride: int | None = None  # None: stride == patch_size (the real patch embedding)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 2 <= self.img_size <= 256 or not 1 <= self.embed_dim <= 1024 or not 0 <= self.seed < 2**32:
            raise ValueError(f"need img_size in 2..256, embed_dim in 1..1024 and seed in 0..2**32-1, got "
                             f"img_size={self.img_size}, embed_dim={self.embed_dim}, seed={self.seed}")
        if self.patch_size < 1:
            raise ValueError(f"patch_size must be >= 1, got {self.patch_size}")
        if self.image not in SYNTHETIC_IMAGES + ("upload",):
            raise ValueError(f"unknown image {self.image!r}; choose one of {SYNTHETIC_IMAGES + ('upload',)}")
        if self.in_chans not in (1, 3):
            raise ValueError(f"in_chans must be 1 or 3, got {self.in_chans}")
        check_patch_size(self.patch_size, self.img_size)
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {list(DTYPES)}, got {self.dtype!r}")
        if self.conv_stride is not None and not 1 <= self.conv_stride <= self.patch_size:
            raise ValueError(f"conv_stride must be in 1..{self.patch_size}, got {self.conv_stride}")


IMAGE_SIZES = (8, 12, 16, 24, 32, 48, 64)  # the page's choices; the command line takes any size the config allows


# The lesson's controls, each declared once: the page's widget (its key is the URL's parameter), the config field
# and the command line's flag. The patch size's choices divide the image size, and the conv stride's are below the
# patch size: their widgets' keys hold that size (``patch_32``), the command line takes any number, and the
# config refuses one that does not fit, naming it.
CONTROLS: tuple[Control, ...] = (
    Control("size", "img_size", "Image size (H = W, pixels)", "select_slider", options=IMAGE_SIZES,
            flag_name="--image-size", cli_type=int, cli_help="image side in pixels (H = W)"),
    Control("patch", "patch_size", "Patch size P (divisors of the image size)", "select_slider",
            choices=lambda size: valid_patch_sizes(size, size), depends_on="size", cli_type=int,
            flag_name="--patch-size", cli_help="patch side P; it must divide the image size"),
    Control("kind", "image", "Synthetic image", "selectbox", options=SYNTHETIC_IMAGES, flag_name="--image"),
    Control("channels", "in_chans", "Channels", "radio", options=(1, 3), extra={"horizontal": True}),
    Control("width", "embed_dim", "Embedding width D", "slider", bounds=(1, 64), flag_name="--embed-dim",
            cli_type=int, cli_help="embedding width D"),
    Control("weight_seed", "seed", "Weight seed", "number_input", bounds=(0, 10_000), flag_name="--seed",
            cli_help="the linear map's weight seed"),
    Control("dtype", "dtype", "Precision", "radio", options=("float64", "float32"), extra={"horizontal": True}),
    Control("wrong_order", "wrong_flatten_order", "Flatten pixels-then-channels (wrong order)", "toggle",
            flag_name="--wrong-flatten-order", cli_help="break it: flatten pixels-then-channels"),
    Control("stride", "conv_stride", "Conv stride", "select_slider", choices=lambda p: range(1, p),
            depends_on="patch", cli_type=int, flag_name="--conv-stride",
            cli_help="break it: a conv stride below the patch size"),
)


@dataclass(frozen=True)
class PatchifyResult:
    config: PatchifyConfig
    image: np.ndarray  # (C, H, W) in [0, 1]
    tokens: np.ndarray  # (N, C*P*P): the patch sequence as the linear path flattens it (pixels first if broken)
    linear: np.ndarray  # (N, D): flatten + linear
    conv: np.ndarray  # (N', D): the strided convolution (N' = N unless the stride is broken)
    abs_diff: np.ndarray  # (min(N, N'), D)
    max_abs_diff: float
    eps: float  # machine epsilon of the dtype
    n_patches: int
    grid: int  # patches per side
    patch_dim: int  # C*P*P
    n_conv_tokens: int
    roundtrip_max_abs_diff: float  # unpatchify(patchify(x)) vs x
    upload_notes: tuple[str, ...] = ()  # what was done to an uploaded image to fit it

    @property
    def n_tokens_with_cls(self) -> int:
        return self.n_patches + 1

    @property
    def shapes(self) -> dict[str, list[int]]:
        C, H, W = self.image.shape
        return {"image": [1, C, H, W], "patches": [1, self.n_patches, self.patch_dim],
                "embedded": [1, self.n_patches, self.config.embed_dim]}

    def to_json(self) -> dict:
        """The JSON-friendly part (what the command line prints)."""
        keys = ("n_patches", "grid", "patch_dim", "n_tokens_with_cls", "n_conv_tokens", "max_abs_diff", "eps",
                "roundtrip_max_abs_diff", "shapes")
        return {**{k: getattr(self, k) for k in keys}, "config": asdict(self.config),
                "max_abs_diff_in_eps": self.max_abs_diff / self.eps, "upload_notes": list(self.upload_notes)}


def run_patchify(config: PatchifyConfig, upload: bytes | None = None) -> PatchifyResult:
    """Patchify an image, embed it both ways, and measure the difference."""
    dtype = DTYPES[config.dtype]
    notes: tuple[str, ...] = ()
    if config.image == "upload":
        if upload is None:
            raise ValueError("image='upload' needs the uploaded file's bytes")
        image, notes = image_from_bytes(upload, config.img_size, config.in_chans)
    else:
        image = synthetic_image(config.image, config.img_size, config.in_chans, config.patch_size, config.seed)
    x = as_batch(image, dtype)  # (1, C, H, W)
    B, C, H, W = x.shape
    tokens = patchify(x, config.patch_size)  # (1, N, C*P*P)
    roundtrip = (unpatchify(tokens, config.patch_size, C, H, W) - x).abs().max().item()
    if config.wrong_flatten_order:  # show the learner the rows the linear map actually reads
        tokens = patchify(x, config.patch_size, pixels_first=True)  # (1, N, P*P*C)
    embed = seeded_linear_embed(config.patch_size, C, config.embed_dim, config.seed, dtype)
    cmp = compare_embeddings(x, embed, config.wrong_flatten_order, config.conv_stride)
    return PatchifyResult(
        config=config, image=image, tokens=tokens[0].numpy(), linear=cmp["linear"][0].numpy(),
        conv=cmp["conv"][0].numpy(), abs_diff=cmp["abs_diff"][0].numpy(), max_abs_diff=cmp["max_abs_diff"],
        eps=cmp["eps"], n_patches=tokens.shape[1], grid=H // config.patch_size, patch_dim=C * config.patch_size**2,
        n_conv_tokens=cmp["n_conv_tokens"], roundtrip_max_abs_diff=roundtrip, upload_notes=notes,
    )


# ---------------------------------------------------------------- what to notice
def notes(r: PatchifyResult) -> list[str]:
    """What to notice in a run, written from its numbers: how far the two embeddings differ, and why."""
    c, n, k, P = r.config, r.n_patches, r.patch_dim, r.config.patch_size
    stride = c.conv_stride
    notes = []
    if not (c.wrong_flatten_order or stride is not None):
        notes.append(f"The two embeddings differ by at most **{r.max_abs_diff:.2e}**, which is "
                     f"**{r.max_abs_diff / r.eps:.1f}×** the {c.dtype} machine epsilon ({r.eps:.1e}): rounding from "
                     f"adding {k} products in a different order, nothing more. They are the same linear map.")
        if c.dtype == "float32":
            notes.append("Switch to float64 and compare: rounding scales with eps (1.2e-07 in float32, 2.2e-16 in "
                         "float64), so a rounding difference shrinks by up to about nine orders of magnitude, like eps "
                         "does.")
    if c.wrong_flatten_order:
        if c.in_chans == 1:
            notes.append("With **one channel**, pixels-then-channels and channels-then-pixels are the same order, so "
                         "the wrong flatten order changes nothing here. Switch to 3 channels to see it break.")
        else:
            notes.append(f"**Wrong flatten order**: the row lists each pixel's {c.in_chans} channels together, but "
                         f"the conv weight `(D, C, P, P)` expects all of channel 0, then channel 1, … Each weight now "
                         f"multiplies the wrong value; the difference jumps to **{r.max_abs_diff:.2e}**. The token sequence and "
                         "the flattened patch (sections 1 and 2) now show the rows in this wrong order: see the channels "
                         "interleaved pixel by pixel.")
    if stride is not None:
        notes.append(f"**Stride {stride} < kernel {P}**: the windows overlap, so the conv produces "
                     f"**{r.n_conv_tokens}** tokens instead of {n}, and its token *i* no longer covers patch *i*. "
                     f"Comparing the first {min(n, r.n_conv_tokens)} tokens in raster order, the difference is "
                     f"**{r.max_abs_diff:.2e}**. This is no longer a patch embedding.")
    notes.append(f"Patch size {P} turns a {c.img_size}×{c.img_size} image into **{n}** tokens of **{k}** values: "
                 f"the count is (H/P)·(W/P), so it grows as 1/P² (half the patch size, four times the tokens), and "
                 f"attention's cost grows with the count's square "
                 f"({n + 1}² = {(n + 1) ** 2} pairs with the class token).")
    return notes


# ---------------------------------------------------------------- exercises
# Each answer is computed on the page's own setting (``cfg``, and the learner's image if uploaded) with the
# question's named settings applied: what the page shows once the question is set up ("Show me on this page")
def _tokens_answer(cfg: PatchifyConfig = PatchifyConfig(), upload: bytes | None = None) -> Answer:
    r = run_patchify(replace(cfg, img_size=32, patch_size=2, conv_stride=None), upload)
    options = [64, 256, 257, 1024]
    return Answer(options.index(r.n_tokens_with_cls),
                  f"(32 / 2)² = **{r.n_patches}** patches, plus the class token: **{r.n_tokens_with_cls}** tokens. "
                  f"Attention compares every pair, {r.n_tokens_with_cls}² = {r.n_tokens_with_cls ** 2:,} of them, "
                  f"against 17² = 289 with 4×4 patches on a 16×16 image.")


def _grey_order_answer(cfg: PatchifyConfig = PatchifyConfig(), upload: bytes | None = None) -> Answer:
    r = run_patchify(replace(cfg, in_chans=1, wrong_flatten_order=True, conv_stride=None), upload)
    ok = r.max_abs_diff < 1e3 * r.eps
    return Answer(1 if ok else 0,
                  f"With one channel the difference is **{r.max_abs_diff:.1e}** ({r.max_abs_diff / r.eps:.0f} × eps): "
                  + ("the two are exactly equal. " if r.max_abs_diff == 0 else "rounding only. ") + "Channels-then-pixels and pixels-then-channels are the same order when there is one "
                  "channel, so there is nothing to get wrong. With 3 channels the same switch breaks it.")


def _precision_answer(cfg: PatchifyConfig = PatchifyConfig(), upload: bytes | None = None) -> Answer:
    # the question is about rounding: the patch embedding as it should be (the right flatten order, stride P)
    cfg = replace(cfg, wrong_flatten_order=False, conv_stride=None)
    d32 = run_patchify(replace(cfg, dtype="float32"), upload).max_abs_diff
    d64 = run_patchify(replace(cfg, dtype="float64"), upload).max_abs_diff
    if d32 == 0.0:  # every sum exact already in float32 (few products per sum can do it): nothing shrinks
        return Answer(3, "With the patch embedding as it should be (the right flatten order, stride = P) at this "
                         "page's image, channels and patch size, float32 already gives **exactly 0**"
                         + (", and so does float64" if d64 == 0.0 else f", float64 **{d64:.2e}** (under its eps, "
                            "rounding too)") + ": no float32 rounding here for more precision to remove. *Show me on "
                         "this page* sets the lesson's image, where float32 shows one.")
    if d64 == 0.0:
        return Answer(2, f"With the patch embedding as it should be (the right flatten order, stride = P) at "
                         f"this page's image, channels and patch size, float32 gives **{d32:.2e}**, float64 exactly 0: at least eight "
                         "orders of magnitude, as the machine epsilons (1.2e-07 and 2.2e-16) predict.")
    orders = math.log10(d32 / d64)
    nearest = min(range(3), key=lambda i: abs((1, 4, 8)[i] - orders)) if orders > 0.5 else 3
    return Answer(nearest, f"With the patch embedding as it should be (the right flatten order, stride = P) at "
                           f"this page's image, channels and patch size, float32 gives **{d32:.2e}**, float64 **{d64:.2e}**: {orders:.1f} "
                           "orders of magnitude, close to the ratio of the two machine epsilons (1.2e-07 / 2.2e-16, "
                           "about 9). The difference is rounding, so it scales with the precision.")


EXERCISES: tuple[Exercise, ...] = (
    Exercise("tokens", "A 32×32 image cut into 2×2 patches: how many tokens does the encoder read, counting the "
             "class token?", "Set the image size to 32 and P to 2, then read *Tokens with [CLS]*.",
             ("64", "256", "257", "1024"), _tokens_answer),
    Exercise("grey-order", "With **one** channel, switch on *Flatten pixels-then-channels (wrong order)*. Does "
             "max |linear − conv| jump?", "Set Channels to 1 and turn the switch on.",
             ("Yes, far above rounding", "No, it stays at rounding level"), _grey_order_answer),
    Exercise("precision", "Switch the precision from float32 to float64. By about how many orders of magnitude "
             "does max |linear − conv| shrink?", "Compare the metric under both precisions.",
             ("About 1", "About 4", "About 8 or more", "It does not change"), _precision_answer),
)


