"""The lessons' exercises: a question, how to find the answer on the page, and a check that computes the
right answer from the numbers the lesson's own code gives, never from a stored answer key.

An exercise's ``answer`` is a function: ``answer(*context) -> Answer``. For the first two lessons it
needs nothing (it runs the lesson's core function on the setting the question names, which is cheap);
the third lesson's exercises (``core.generalization.exercises``) take a way to look up a run's result.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.patchify_lesson import PatchifyConfig, run_patchify
from core.symmetry import SymmetryConfig, change, shuffle


@dataclass(frozen=True)
class Answer:
    correct: int | None  # index into the exercise's options; None: cannot be checked yet
    explanation: str  # with the numbers it was decided by (or what to do first)


@dataclass(frozen=True)
class Exercise:
    key: str
    question: str
    how: str  # what to do on the page to see the answer for oneself
    options: tuple[str, ...]
    answer: Callable[..., Answer]


# ---------------------------------------------------------------- lesson 1: Patchify
def _tokens_answer() -> Answer:
    r = run_patchify(PatchifyConfig(img_size=32, patch_size=2))
    options = [64, 256, 257, 1024]
    return Answer(options.index(r.n_tokens_with_cls),
                  f"(32 / 2)² = **{r.n_patches}** patches, plus the class token: **{r.n_tokens_with_cls}** tokens. "
                  f"Attention compares every pair, {r.n_tokens_with_cls}² = {r.n_tokens_with_cls ** 2:,} of them, "
                  f"against 17² = 289 with 4×4 patches on a 16×16 image.")


def _grey_order_answer() -> Answer:
    r = run_patchify(PatchifyConfig(in_chans=1, wrong_flatten_order=True))
    ok = r.max_abs_diff < 1e3 * r.eps
    return Answer(1 if ok else 0,
                  f"With one channel the difference is **{r.max_abs_diff:.1e}** ({r.max_abs_diff / r.eps:.0f} × eps): "
                  + ("the two are exactly equal. " if r.max_abs_diff == 0 else "rounding only. ") + "Channels-then-pixels and pixels-then-channels are the same order when there is one "
                  "channel, so there is nothing to get wrong. With 3 channels the same switch breaks it.")


def _precision_answer() -> Answer:
    d32 = run_patchify(PatchifyConfig(dtype="float32")).max_abs_diff
    d64 = run_patchify(PatchifyConfig(dtype="float64")).max_abs_diff
    if d64 == 0.0:
        return Answer(2, f"float32 gives **{d32:.1e}**, float64 exactly 0 here: at least eight orders of magnitude, "
                         "as the machine epsilons (1.2e-07 and 2.2e-16) predict.")
    orders = math.log10(d32 / d64)
    nearest = min(range(3), key=lambda i: abs((1, 4, 8)[i] - orders)) if orders > 0.5 else 3
    return Answer(nearest, f"float32 gives **{d32:.1e}**, float64 **{d64:.1e}**: {orders:.1f} orders of magnitude, "
                           "close to the ratio of the two machine epsilons (1.2e-07 / 2.2e-16, about 9). The "
                           "difference is rounding, so it scales with the precision.")


PATCHIFY_EXERCISES: tuple[Exercise, ...] = (
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


# ---------------------------------------------------------------- lesson 2: Permutation symmetry
def _shift_answer(cfg: SymmetryConfig) -> Answer:
    p = shuffle(replace(cfg, pos_embed="none"), "shift", shift=(0, 1))
    d = p.compared.no_pos.class_change
    bands = (1e-10, 1e-2)
    correct = 0 if d < bands[0] else 1 if d < bands[1] else 2
    return Answer(correct, f"The class logits moved by **{d:.1e}**: float64 rounding. Without a position table "
                           "nothing in the model depends on where a patch is, so a translation by whole patches "
                           "is invisible to it.")


def _one_patch_answer(cfg: SymmetryConfig) -> Answer:
    ch = change(cfg, 0)
    n = ch.embedding_change.size
    emb = int((ch.embedding_change > 0).sum())
    correct = 0 if ch.outputs_changed == 1 else 1 if emb == 1 else 2
    return Answer(correct, f"**{emb} of {n}** patch embeddings changed (the embedding reads one patch only), and "
                           f"**{ch.outputs_changed} of {n}** patch outputs after the encoder: attention mixes every "
                           "token into every other, so a local change reaches every output.")


def _sincos_answer(cfg: SymmetryConfig) -> Answer:
    p = shuffle(replace(cfg, pos_embed="sincos"), "random")
    d = p.compared.pos.class_change
    return Answer(1 if d > 1e-10 else 0,
                  f"With the 1-D sin-cos table the class logits moved by **{d:.1e}**, against "
                  f"{p.compared.no_pos.class_change:.1e} without positions: each token now carries its place, so "
                  "moving the patches changes what the model sees. A fixed table breaks the symmetry as a learned "
                  "one does.")


SYMMETRY_EXERCISES: tuple[Exercise, ...] = (
    Exercise("shift", "With **no** positional encoding, shift every patch one column to the right (a translation). "
             "How much do the class logits change?", "Pick *none* positions and the *shift* permutation.",
             ("Not at all, up to rounding (< 1e-10)", "A little (1e-10 to 1e-2)", "A lot (more than 1e-2)"),
             _shift_answer),
    Exercise("one-patch", "Brighten one patch. How many patch **embeddings** change, and how many patch **outputs** "
             "after the encoder?", "Use section 2, *Change one patch*, and read the two maps.",
             ("One embedding, one output", "One embedding, every output", "Every embedding, every output"),
             _one_patch_answer),
    Exercise("sincos", "Pick the fixed **1-D sin-cos** table and shuffle randomly. Does the class output still stay "
             "put?", "Pick *sincos* positions and the *random* permutation.",
             ("Yes, a fixed table cannot break the symmetry", "No, it changes by more than rounding"),
             _sincos_answer),
)
