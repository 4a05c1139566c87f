"""The model registry: every model the experiment can train, by name, with what the rest needs to know.

A model is registered once here (builder, cost estimates, which settings it reads): what builds and trains
it, nothing a page says of it (its label, colour and card are ``core/lessons/model_cards.py``'s, outside the
training code's fingerprint). Configs, planning, charts and pages look a model up instead of comparing names.
Adding a model = one ``register(ModelSpec(...))`` call (and, for a new architecture, its module beside
``core/models/cnn.py``) and its card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import torch
import torch.nn as nn

from core.models.cnn import POOL_STRIDE, CNNClassifier
from core.models.mlp import MLP_HIDDEN, FlattenMLP, LinearPixels
from core.models.model_config import ModelConfig
from core.models.postnorm_vit import PostNormViT, ViTVariant
from core.models.prenorm_vit import PreNormConfig, PreNormViT
from core.nn import seeded
from core.nn.patchify import check_patch_size
from core.nn.pos_embed import check_sincos2d

IN_CHANS = 1  # the lesson's images are grey


@dataclass(frozen=True)
class ModelSpec:
    name: str
    transformer: bool
    uses: tuple[str, ...]  # the ModelConfig fields this model reads (the others do not change its run)
    # (settings, img_size, generator, outputs): outputs 1 is one logit (two classes), K one per class
    build: Callable[[ModelConfig, int, torch.Generator, int], nn.Module]
    activation_bytes: Callable[[ModelConfig, int], int]  # one image in a training step, roughly
    safety: float  # measured step memory / activation_bytes, rounded up: keeps the estimate an upper bound
    flops: Callable[[ModelConfig, int], float]  # one image, forward and backward
    # (settings, img_size) -> the step between the positions at which the model samples its input before
    # anything pools over position: a pattern moved by a multiple of it meets the same sampling grid
    stride: Callable[[ModelConfig, int], int]
    check: Callable[[ModelConfig, int], None] = lambda m, size: None  # extra validation, one-line ValueError

    def __post_init__(self) -> None:
        # a setting a model names must exist: a misspelt one would be reset for every run (GeneralizationConfig
        # resets the settings no selected model reads, so that equal runs are one key)
        unknown = sorted(set(self.uses) - {f.name for f in fields(ModelConfig)})
        if unknown:
            raise ValueError(f"model {self.name!r} uses {unknown}, which are not ModelConfig fields "
                             f"({[f.name for f in fields(ModelConfig)]})")


REGISTRY: dict[str, ModelSpec] = {}


def register(spec: ModelSpec) -> ModelSpec:
    if spec.name in REGISTRY:
        raise ValueError(f"model {spec.name!r} is already registered")
    REGISTRY[spec.name] = spec
    return spec


def spec(name: str) -> ModelSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; choose from {list(REGISTRY)}") from None


def build(name: str, m: ModelConfig, img_size: int, seed: int, outputs: int = 1) -> nn.Module:
    """The model ``name`` with the weights the lesson's ``torch.manual_seed(seed)`` + constructor give,
    drawn from a generator of this build's own (``core.nn.seeded``): safe beside other threads. ``outputs``:
    logits per image (1 for the lesson's two classes; the head is drawn last, so the rest is the same)."""
    return spec(name).build(m, img_size, seeded.generator(seed), outputs)


# ---------------------------------------------------------------- sampling strides
def patch_stride(m: ModelConfig, size: int) -> int:
    """A ViT's: one token per P×P patch (also when a stem or overlapping windows come first: the grid is P's)."""
    return m.patch_size


def cnn_stride(m: ModelConfig, size: int) -> int:
    """The CNN's: its convolutions slide by 1, its one subsampling (max pool, or blur pool) keeps every 2nd."""
    return POOL_STRIDE


def whole_image(m: ModelConfig, size: int) -> int:
    """A flatten model's: no grid shared across positions; every pixel has weights of its own."""
    return size


# ---------------------------------------------------------------- cost estimates
def transformer_activation(m: ModelConfig, size: int, stem: int = 0) -> int:
    T = m.num_tokens(size)
    per_layer = 3 * m.num_heads * T * T + 12 * T * m.embed_dim  # scores, weights, grads; q, k, v, MLP, norms
    return (m.depth * per_layer + size**2 * stem * 3) * 4


def transformer_flops(m: ModelConfig, size: int, stem: int = 0) -> float:
    T, D, P = m.num_tokens(size), m.embed_dim, m.patch_size
    channels = stem or IN_CHANS
    embed = 2 * (T - 1) * channels * P * P * D
    per_layer = 16 * T * D * D + 4 * T * T * D  # q, k, v, out and the 2D-wide MLP; scores and weighted sum
    stem_flops = 2 * size * size * IN_CHANS * stem * 9
    return 3.0 * (embed + m.depth * per_layer + stem_flops)  # backward ~ 2x forward


def cnn_flops(m: ModelConfig, size: int) -> float:
    return 3.0 * 2 * 25 * (size * size * IN_CHANS * 8 + (size // 2) ** 2 * 8 * 16)


def cnn_activation(m: ModelConfig, size: int) -> int:
    return size**2 * (8 * 4 + 16 * 2) * 4


def blurpool_cnn_flops(m: ModelConfig, size: int) -> float:
    """The CNN's, and the blur pool's 3×3 filter over 8 channels at every kept position."""
    return cnn_flops(m, size) + 3.0 * 2 * 9 * 8 * (size // 2) ** 2


def blurpool_cnn_activation(m: ModelConfig, size: int) -> int:
    """The CNN's, and the blur pool's full-size max map (8 channels), kept for the backward pass."""
    return cnn_activation(m, size) + size**2 * 8 * 4


def linear_flops(m: ModelConfig, size: int) -> float:
    return 3.0 * 2 * size * size * IN_CHANS


def check_patch(m: ModelConfig, size: int) -> None:
    check_patch_size(m.patch_size, size)


def check_vit(m: ModelConfig, size: int, pos_embed: str) -> None:
    """A ViT's settings against the image: patches tile it; a 2-D sin-cos table needs a width divisible by 4."""
    check_patch(m, size)
    if pos_embed == "sincos2d":
        check_sincos2d(m.embed_dim)


def postnorm_vit(m: ModelConfig, size: int, g: torch.Generator, outputs: int, variant: ViTVariant) -> nn.Module:
    """The lesson's ViT family at the config's sizes, with ``variant``'s one change."""
    return PostNormViT(size, m.patch_size, IN_CHANS, m.embed_dim, m.num_heads, m.depth, variant, generator=g,
                       num_classes=outputs)


def _lesson_variant(m: ModelConfig, **change) -> ViTVariant:
    """The lesson's own ViT reads how attention is computed and the table's scale from the config."""
    return ViTVariant(attn_impl=m.attn_impl, pos_scale=m.pos_scale, **change)


def _prenorm_vit(m: ModelConfig, size: int, g: torch.Generator, outputs: int) -> nn.Module:
    cfg = PreNormConfig(img_size=size, in_chans=IN_CHANS, patch_size=m.patch_size, embed_dim=m.embed_dim,
                        depth=m.depth, num_heads=m.num_heads, mlp_ratio=2.0, num_classes=outputs,
                        pos_embed=m.pos_embed, class_token=m.global_pool == "token", global_pool=m.global_pool)
    return PreNormViT(cfg, generator=g)


VIT_FIELDS = ("patch_size", "embed_dim", "num_heads", "depth")  # what every ViT reads
LESSON_VIT_FIELDS = VIT_FIELDS + ("attn_impl", "pos_scale")  # and the lesson's own, with its fixed table

register(ModelSpec(
    name="vit", transformer=True, uses=LESSON_VIT_FIELDS,
    build=lambda m, size, g, outputs: postnorm_vit(m, size, g, outputs, _lesson_variant(m)),
    activation_bytes=transformer_activation, safety=1.4, flops=transformer_flops, stride=patch_stride,
    check=check_patch))
register(ModelSpec(
    name="cnn", transformer=False, uses=(),
    build=lambda m, size, g, outputs: CNNClassifier(IN_CHANS, generator=g, nhwc=True, num_classes=outputs),
    activation_bytes=cnn_activation, safety=1.0, flops=cnn_flops, stride=cnn_stride))
register(ModelSpec(
    name="hybrid", transformer=True,
    uses=LESSON_VIT_FIELDS + ("stem_channels",),
    build=lambda m, size, g, outputs: postnorm_vit(m, size, g, outputs, _lesson_variant(
        m, tokens="stem", stem_channels=m.stem_channels)),
    activation_bytes=lambda m, size: transformer_activation(m, size, m.stem_channels), safety=1.4,
    flops=lambda m, size: transformer_flops(m, size, m.stem_channels), stride=patch_stride, check=check_patch))
register(ModelSpec(
    name="vit-prenorm", transformer=True,
    uses=("patch_size", "embed_dim", "num_heads", "depth", "pos_embed", "global_pool"),
    build=_prenorm_vit, activation_bytes=transformer_activation, safety=1.9, flops=transformer_flops,
    stride=patch_stride, check=lambda m, size: check_vit(m, size, m.pos_embed)))
register(ModelSpec(
    name="mlp", transformer=False, uses=(),
    build=lambda m, size, g, outputs: FlattenMLP(size, IN_CHANS, generator=g, num_classes=outputs),
    activation_bytes=lambda m, size: (size * size * IN_CHANS + 2 * MLP_HIDDEN) * 4 * 3, safety=2.0,
    flops=lambda m, size: 3.0 * 2 * (size * size * IN_CHANS * MLP_HIDDEN + MLP_HIDDEN), stride=whole_image))
register(ModelSpec(
    name="linear", transformer=False, uses=(),
    build=lambda m, size, g, outputs: LinearPixels(size, IN_CHANS, generator=g, num_classes=outputs),
    activation_bytes=lambda m, size: (size * size * IN_CHANS + 1) * 4 * 3, safety=2.0, flops=linear_flops,
    stride=whole_image))
