"""The seed module's four claims about a ViT, its attention experiment, and the permutations that test them.

Why permutation symmetry holds: patch embedding, LayerNorm, the MLP and the q/k/v maps act on each
token alone, and attention mixes tokens by a weighted sum whose weights depend only on token
*contents*. Reorder the patch tokens and every step reorders its outputs the same way (equivariance);
the class token, which stays first and reads a sum over all tokens, sees the same set and gives the
same output (invariance). A position table added *after* reordering gives each slot its own vector,
so the contents of a slot now depend on where a patch went: the symmetry breaks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from core.lessons.controls import Control
from core.lessons.exercise import Answer, Exercise
from core.models.prenorm_vit import POS_EMBEDS, VIT_PRESETS, PreNormViT, build_prenorm
from core.nn import seeded
from core.nn.patch_embed import linear_from_conv
from core.nn.patchify import patchify, unpatchify

SEED = 13  # the seed module builds its model right after torch.manual_seed(13)
PERMUTATIONS = ("reversal", "random", "swap", "shift")


@dataclass(frozen=True)
class SymmetryConfig:
    """The lesson's model: a preset size, its weight seed and its positional encoding."""

    preset: str = "seed"
    seed: int = SEED
    pos_embed: str = "learned"

    def __post_init__(self) -> None:
        self.vit_config()  # validates preset and pos_embed
        seeded.generator(self.seed)  # validates the seed

    def vit_config(self):
        if self.preset not in VIT_PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}; choose one of {list(VIT_PRESETS)}")
        return replace(VIT_PRESETS[self.preset], pos_embed=self.pos_embed)


# The lesson's model controls, each declared once: the page's widget (its key is the URL's parameter), the config
# field and the command line's flag (``verify`` and ``attention`` share them)
CONTROLS: tuple[Control, ...] = (
    Control("positions", "pos_embed", "Positional encoding", "selectbox", options=POS_EMBEDS, flag_name="--pos-embed",
            help="none · learned (random, untrained) · sincos (the lesson's 1-D table) · sincos2d. The image stays "
                 "the same whichever you pick: only the model changes"),
    Control("preset", "preset", "Preset", "selectbox", options=tuple(VIT_PRESETS),
            cli_help="model size (default: the seed's)"),
    Control("model_seed", "seed", "Weight seed (13 = the reference ViT's)", "number_input", bounds=(0, 10_000),
            flag_name="--seed", cli_help="weight seed (13: the seed module's torch.manual_seed)"),
)


# ---------------------------------------------------------------- typed results
@dataclass(frozen=True)
class Claim:
    claim: str
    value: float
    tolerance: float
    passed: bool
    detail: str


@dataclass(frozen=True)
class PermutationEffect:
    """One model variant (without or with its positions) on the original and the permuted patches."""

    logits: np.ndarray  # (num_classes,)
    logits_permuted: np.ndarray
    class_change: float  # max |Δ class logits|
    equivariance_error: float  # max |f(permuted) patch outputs - permuted f(x) patch outputs|


@dataclass(frozen=True)
class Comparison:
    no_pos: PermutationEffect
    pos: PermutationEffect


@dataclass(frozen=True)
class RandomChanges:
    no_pos: np.ndarray  # (n,): max |Δ logits| per random permutation, without positions
    pos: np.ndarray  # (n,): with positions


@dataclass(frozen=True)
class ShuffleResult:
    perm: tuple[int, ...]  # new token i holds old patch perm[i]
    image: np.ndarray  # (C, H, W)
    moved: np.ndarray  # the image with its patches reordered
    compared: Comparison
    random: RandomChanges


@dataclass(frozen=True)
class PatchChange:
    image: np.ndarray  # the changed image
    embedding_change: np.ndarray  # (g, g): ‖Δ embedding‖ per patch, before attention
    output_change: np.ndarray  # (g, g): ‖Δ output‖ per patch, after the encoder
    class_output_change: float | None
    other_embeddings_max_change: float
    outputs_changed: int
    logits: np.ndarray
    logits_changed: np.ndarray


@dataclass(frozen=True)
class BrightPatchAttention:
    image: np.ndarray
    class_to_patch: np.ndarray  # (H, g, g): the class token's attention to each patch, first block
    self_weight: np.ndarray  # (H,)
    row_sum: np.ndarray  # (H,)
    patch_embedding: np.ndarray  # (D,)
    logits: np.ndarray
    all_layers: list[np.ndarray]  # each (H, T, T)


# The seed module's model has a learned position table: its image is drawn after that model's weights
SEED_POS_EMBED = "learned"


def model_and_input(config: SymmetryConfig) -> tuple[PreNormViT, torch.Tensor]:
    """The model, and the seed's random image: drawn from the same stream after the seed's model (learned
    positions), as the seed's verify does after ``torch.manual_seed``, from generators of this call's own.

    The image is the same whatever the positional encoding: a learned table draws from the stream and a
    fixed one does not, so drawing it after *this* model would change the picture along with the encoding,
    and the learner could not tell what the encoding alone did (and every chart of the image would be
    redrawn for nothing)."""
    g = seeded.generator(config.seed)
    model = build_prenorm(config.vit_config(), g)
    if config.pos_embed != SEED_POS_EMBED:  # reach the seed's point in the stream: build its model, unused
        g = seeded.generator(config.seed)
        build_prenorm(replace(config.vit_config(), pos_embed=SEED_POS_EMBED), g)
    c = model.cfg
    x = torch.randn(1, c.in_chans, c.img_size, c.img_size, dtype=torch.float64, generator=g)  # (1, C, H, W)
    return model, x


def patch_permutation(kind: str, num_patches: int, grid: int, *, seed: int = 0, swap: tuple[int, int] = (0, 1),
                      shift: tuple[int, int] = (0, 1)) -> torch.Tensor:
    """A permutation of patch indices: new token i holds old patch perm[i]."""
    if kind == "reversal":
        return torch.arange(num_patches - 1, -1, -1)
    if kind == "random":
        return torch.randperm(num_patches, generator=torch.Generator().manual_seed(seed))
    if kind == "swap":
        i, j = swap
        if not (0 <= i < num_patches and 0 <= j < num_patches):
            raise ValueError(f"swap indices must be in 0..{num_patches - 1}, got {swap}")
        perm = torch.arange(num_patches)
        perm[i], perm[j] = j, i
        return perm
    if kind == "shift":
        # Translate the image by whole patches, wrapping around: a cyclic roll of the patch grid.
        dr, dc = shift
        idx = torch.arange(num_patches).reshape(grid, grid)
        return torch.roll(idx, shifts=(dr, dc), dims=(0, 1)).flatten()
    raise ValueError(f"unknown permutation {kind!r}; choose one of {PERMUTATIONS}")


def with_class_slot(perm: torch.Tensor, model: PreNormViT) -> torch.Tensor:
    """Extend a patch permutation to the token sequence: the class token (if any) stays first."""
    if model.cls_token is None:
        return perm
    return torch.cat([torch.zeros(1, dtype=perm.dtype), perm + 1])


@torch.no_grad()
def permute_and_compare(model: PreNormViT, x: torch.Tensor, perm: torch.Tensor) -> Comparison:
    """Class logits and patch outputs for the original and the permuted patch order, without and with positions."""
    seq = model.sequence(model.patch_embed(x))  # (1, T, D), no positions
    order = with_class_slot(perm, model)
    start = int(model.cls_token is not None)
    out = {}
    for name, add in (("no_pos", lambda s: s), ("pos", model.add_positions)):
        base = model.encode(add(seq))  # (1, T, D)
        moved = model.encode(add(seq[:, order]))  # (1, T, D)
        logits, logits_p = model.head(model.pool(base)), model.head(model.pool(moved))
        out[name] = PermutationEffect(
            logits=logits[0].numpy(), logits_permuted=logits_p[0].numpy(),
            class_change=(logits - logits_p).abs().max().item(),
            # equivariance: permuted input's patch outputs == original patch outputs, permuted
            equivariance_error=(moved[:, start:] - base[:, start:][:, perm]).abs().max().item(),
        )
    return Comparison(**out)


@torch.no_grad()
def random_permutation_changes(model: PreNormViT, x: torch.Tensor, n: int = 100, seed: int = 0) -> RandomChanges:
    """max |Δ logits| over ``n`` random permutations, without and with positions, batched in one pass."""
    N = model.cfg.num_patches
    g = torch.Generator().manual_seed(seed)
    perms = torch.stack([torch.randperm(N, generator=g) for _ in range(n)])  # (n, N)
    seq = model.sequence(model.patch_embed(x))  # (1, T, D)
    orders = torch.stack([with_class_slot(p, model) for p in perms])  # (n, T)
    batch = seq[0][orders]  # (n, T, D)
    result = {}
    for name, add in (("no_pos", lambda s: s), ("pos", model.add_positions)):
        ref = model.classify(add(seq))  # (1, K)
        result[name] = (model.classify(add(batch)) - ref).abs().amax(dim=1).numpy()  # (n,)
    return RandomChanges(**result)


@torch.no_grad()
def one_patch_change(model: PreNormViT, x: torch.Tensor, patch: int = 0, amount: float = 3.0) -> PatchChange:
    """Add ``amount`` to every pixel of one patch: which embeddings, outputs and logits change?"""
    c = model.cfg
    P, g = c.patch_size, c.grid_size
    r, col = divmod(patch, g)
    changed = x.clone()
    changed[..., r * P:(r + 1) * P, col * P:(col + 1) * P] += amount
    emb, emb2 = model.patch_embed(x), model.patch_embed(changed)  # (1, N, D)
    seq, seq2 = model.add_positions(model.sequence(emb)), model.add_positions(model.sequence(emb2))
    enc, enc2 = model.encode(seq), model.encode(seq2)  # (1, T, D)
    start = int(model.cls_token is not None)
    emb_change = (emb2 - emb).norm(dim=-1)[0]  # (N,)
    out_change = (enc2 - enc)[:, start:].norm(dim=-1)[0]  # (N,)
    others = torch.ones(c.num_patches, dtype=torch.bool)
    others[patch] = False
    return PatchChange(
        image=changed[0].numpy(), embedding_change=emb_change.reshape(g, g).numpy(),
        output_change=out_change.reshape(g, g).numpy(),
        class_output_change=(enc2 - enc)[0, 0].norm().item() if start else None,
        other_embeddings_max_change=emb_change[others].max().item() if c.num_patches > 1 else 0.0,
        outputs_changed=int((out_change > 1e-10).sum()), logits=model.head(model.pool(enc))[0].numpy(),
        logits_changed=model.head(model.pool(enc2))[0].numpy(),
    )


def _claim(claim: str, value: float, tolerance: float, passed: bool, detail: str) -> Claim:
    return Claim(claim, float(value), tolerance, bool(passed), detail)


@torch.no_grad()
def verify(config: SymmetryConfig = SymmetryConfig()) -> list[Claim]:
    """The seed's four claims, each with its measured number, tolerance and pass/fail."""
    model, x = model_and_input(config)
    c = model.cfg
    patches = model.patch_embed(x)  # (1, N, D)
    independent = linear_from_conv(model.patch_embed)(x)  # flatten + the same weights as a linear map
    conv_err = (patches - independent).abs().max().item()
    n_tokens = model.sequence(patches).shape[1]
    expected = c.num_patches + int(c.class_token)
    perm = patch_permutation("reversal", c.num_patches, c.grid_size)
    p = permute_and_compare(model, x, perm)
    has_pos = model.pos_embed is not None
    symmetric = p.no_pos.class_change <= 1e-10 and p.no_pos.equivariance_error <= 1e-10
    pos_breaks = p.pos.class_change > 1e-10
    change = one_patch_change(model, x, patch=0)
    logits_change = float(np.abs(change.logits - change.logits_changed).max())
    return [
        _claim("Strided patch convolution equals independent flatten-and-linear projection",
               conv_err, 1e-12, conv_err <= 1e-12, f"max |conv - linear| over {c.num_patches} patches"),
        _claim(f"{c.num_patches} patch embeddings plus {int(c.class_token)} class token form a {expected}-token sequence",
               n_tokens, 0, n_tokens == expected, f"sequence shape {tuple(model.sequence(patches).shape)}"),
        _claim("Without positions, patch permutation preserves the class output; "
               + (f"{c.pos_embed} positions break this symmetry" if has_pos else
                  "this model has no positions, so only the first half is tested"),
               p.no_pos.class_change, 1e-10, symmetric and (pos_breaks if has_pos else True),
               f"reversal: |Δ class logits| without positions {p.no_pos.class_change:.2e}, "
               f"patch-output equivariance error {p.no_pos.equivariance_error:.2e}; with positions "
               + (f"{p.pos.class_change:.2e} (must exceed 1e-10)" if has_pos else "none in this model")),
        _claim("Changing one patch changes only its embedding, but global attention can change the class output",
               change.other_embeddings_max_change, 1e-12,
               change.other_embeddings_max_change <= 1e-12 and logits_change > 1e-10,
               f"other embeddings max change {change.other_embeddings_max_change:.2e}; "
               f"|Δ logits| {logits_change:.3e}; {change.outputs_changed} of {c.num_patches} patch outputs changed"),
    ]


def bright_patch_image(row: int, col: int, cfg=VIT_PRESETS["seed"]) -> torch.Tensor:
    g, P = cfg.grid_size, cfg.patch_size
    if not (0 <= row < g and 0 <= col < g):
        raise ValueError(f"patch position must be in 0..{g - 1}, got row={row}, col={col}")
    image = torch.zeros(1, cfg.in_chans, cfg.img_size, cfg.img_size, dtype=torch.float64)
    image[..., row * P:(row + 1) * P, col * P:(col + 1) * P] = 1
    return image


@torch.no_grad()
def bright_patch_attention(model: PreNormViT, row: int, col: int) -> BrightPatchAttention:
    """The seed's experiment at any position: class-token attention in the first block, every head."""
    c = model.cfg
    image = bright_patch_image(row, col, c)
    attentions: list[torch.Tensor] = []
    logits = model(image, attentions)  # (1, K)
    w = attentions[0][0]  # (H, T, T): first block
    start = int(c.class_token)
    cls_row = w[:, 0]  # (H, T): what the class token (or token 0) attends to
    return BrightPatchAttention(
        image=image[0].numpy(),
        class_to_patch=cls_row[:, start:].reshape(c.num_heads, c.grid_size, c.grid_size).numpy(),
        self_weight=cls_row[:, 0].numpy(), row_sum=cls_row.sum(dim=-1).numpy(),
        patch_embedding=model.patch_embed(image)[0, row * c.grid_size + col].numpy(), logits=logits[0].numpy(),
        all_layers=[a[0].numpy() for a in attentions],
    )


SEED_CASES = (("top-left", "Bright patch at top left", 0, 0), ("middle", "Bright patch near the middle", 1, 1),
              ("bottom-right", "Bright patch at bottom right", 3, 3))
NOTE = ("Move a bright 4×4 patch in a synthetic 16×16 image. The attention map shows head 0's class-token weights "
        "to the sixteen patch tokens, excluding its self-weight. These are untrained weights and are not a saliency "
        "explanation or object detector.")


def experiment(cases=SEED_CASES, config: SymmetryConfig = SymmetryConfig()) -> dict:
    """The seed module's ``experiment()`` structure, for its three cases or any others."""
    model = build_prenorm(config.vit_config(), seeded.generator(config.seed))
    c = model.cfg
    out = []
    for identity, label, row, col in cases:
        a = bright_patch_attention(model, row, col)
        out.append({
            "id": identity, "label": label, "target": "patches", "note": NOTE,
            "matrices": [
                {"label": "Input image · red channel, exact pixels", "values": a.image[0].tolist()},
                {"label": "Class-to-patch attention · head 0", "values": a.class_to_patch[0].tolist()},
            ],
            "vectors": [
                {"label": f"Bright patch embedding · {c.embed_dim} features", "values": a.patch_embedding.tolist()},
                {"label": f"{_count_word(c.num_classes).capitalize()} untrained class logits", "values": a.logits.tolist()},
            ],
            "metrics": [
                {"label": "Patch tokens", "value": c.num_patches},
                {"label": "Tokens including class token", "value": c.num_patches + int(c.class_token)},
                {"label": "Class-token self-attention weight", "value": float(a.self_weight[0])},
                {"label": "Total class attention row weight", "value": float(a.row_sum[0])},
            ],
        })
    return {
        "kind": "matrices",
        "title": "An image becomes a sequence of patches.",
        "description": "Recorded image-to-token conversion and class-token attention. A stride-four patch projection "
                       "is equivalent to flattening each RGB patch and applying the same linear map. Learned positions "
                       "preserve where each patch belongs.",
        "controlLabel": "Synthetic image",
        "cases": out,
    }


def _count_word(n: int) -> str:
    return {1: "one", 2: "two", 3: "three", 4: "four"}.get(n, str(n))


# ---------------------------------------------------------------- the lesson's views, from a config
def shuffle(config: SymmetryConfig, kind: str = "reversal", perm_seed: int = 0, swap: tuple[int, int] = (0, 1),
            shift: tuple[int, int] = (0, 1), n_random: int = 100) -> ShuffleResult:
    """Reorder the patches of the lesson's image: the image before and after, and what the class output
    and the patch outputs did, without and with positions (and over ``n_random`` random orders)."""
    model, x = model_and_input(config)
    c = model.cfg
    perm = patch_permutation(kind, c.num_patches, c.grid_size, seed=perm_seed, swap=swap, shift=shift)
    moved = unpatchify(patchify(x, c.patch_size)[:, perm], c.patch_size, c.in_chans, c.img_size, c.img_size)
    return ShuffleResult(tuple(perm.tolist()), x[0].numpy(), moved[0].numpy(), permute_and_compare(model, x, perm),
                         random_permutation_changes(model, x, n=n_random, seed=perm_seed))


def change(config: SymmetryConfig, patch: int) -> PatchChange:
    """Brighten one patch of the lesson's image (+3 on every pixel, as the seed does)."""
    model, x = model_and_input(config)
    if not 0 <= patch < model.cfg.num_patches:
        raise ValueError(f"patch must be in 0..{model.cfg.num_patches - 1}, got {patch}")
    return one_patch_change(model, x, patch)


def attention(config: SymmetryConfig, row: int, col: int) -> BrightPatchAttention:
    """The seed's attention experiment for a bright patch at (row, col)."""
    model, _ = model_and_input(config)
    return bright_patch_attention(model, row, col)


def claims_json(claims: list[Claim]) -> list[dict]:
    return [asdict(c) for c in claims]


# ---------------------------------------------------------------- what to notice
def shuffle_notes(cfg: SymmetryConfig, kind: str, p: ShuffleResult) -> list[str]:
    """What a permutation did, with and without the position table, in numbers."""
    pos_embed = cfg.pos_embed
    notes = [
        f"Without positions, the {kind} permutation moved the class logits by **{p.compared.no_pos.class_change:.1e}** "
        f"(float64 rounding), and the patch outputs followed the permutation to within "
        f"**{p.compared.no_pos.equivariance_error:.1e}**. Over 100 random permutations the largest change was "
        f"**{p.random.no_pos.max():.1e}**.",
    ]
    if pos_embed == "none":
        notes.append("This model has **no position table**, so it cannot distinguish any arrangement of its patches: "
                     "a translated or scrambled image gets the same class output. Pick a positional encoding to break it.")
    else:
        notes.append(f"With **{pos_embed}** positions the same permutation moves the logits by "
                     f"**{p.compared.pos.class_change:.1e}**, and 100 random ones by {p.random.pos.min():.1e} to "
                     f"{p.random.pos.max():.1e}: position is now part of each token.")
    return notes


def change_notes(ch: PatchChange, patch: int) -> list[str]:
    """What brightening one patch did: local before attention, global after it."""
    n = ch.embedding_change.size
    return [f"Brightening patch {patch} changed **{int(np.count_nonzero(ch.embedding_change))}** patch embedding(s) "
            f"(largest change elsewhere {ch.other_embeddings_max_change:.0e}): patch embedding is local. After the "
            f"encoder **{ch.outputs_changed} of {n}** patch outputs changed and the logits moved by "
            f"{np.abs(ch.logits - ch.logits_changed).max():.3f}: attention is global."]


def attention_notes(a: BrightPatchAttention, row: int, col: int) -> list[str]:
    """What the untrained class token's attention did with one bright patch, against uniform attention."""
    n = a.class_to_patch[0].size
    return [f"The class token's attention row sums to {a.row_sum.min():.6f} (a softmax); head 0 puts "
            f"{a.self_weight[0]:.3f} on itself and {a.class_to_patch[0, row, col]:.3f} on the bright patch, "
            f"against 1/{n + 1} = {1 / (n + 1):.3f} for uniform attention."]


# ---------------------------------------------------------------- exercises
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


EXERCISES: tuple[Exercise, ...] = (
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
