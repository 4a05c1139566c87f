"""The model registry: every model the experiment can train, by name, with what the rest needs to know.

A model is registered once here (label, colour, builder, cost estimates, which settings it reads);
configs, planning, charts and pages look it up instead of comparing names. Adding a model = one
``register(ModelSpec(...))`` call (and, for a new architecture, its module beside ``core/cnn.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn

from core import seeded
from core.cnn import CNNClassifier
from core.generalization.model_config import ModelConfig
from core.lesson_vit import LessonViT
from core.remedy_vit import RemedyViT, ViTRemedy
from core.vit import ViT, ViTConfig

IN_CHANS = 1  # the lesson's images are grey


@dataclass(frozen=True)
class ModelSpec:
    name: str
    label: str
    color: str  # one colour per model on every chart
    transformer: bool
    uses: tuple[str, ...]  # the ModelConfig fields this model reads (the others do not change its run)
    build: Callable[[ModelConfig, int, torch.Generator], nn.Module]  # (settings, img_size, generator)
    activation_bytes: Callable[[ModelConfig, int], int]  # one image in a training step, roughly
    safety: float  # measured step memory / activation_bytes, rounded up: keeps the estimate an upper bound
    flops: Callable[[ModelConfig, int], float]  # one image, forward and backward
    check: Callable[[ModelConfig, int], None] = lambda m, size: None  # extra validation, one-line ValueError


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


def build(name: str, m: ModelConfig, img_size: int, seed: int) -> nn.Module:
    """The model ``name`` with the weights the lesson's ``torch.manual_seed(seed)`` + constructor give,
    drawn from a generator of this build's own (``core.seeded``): safe beside other threads."""
    return spec(name).build(m, img_size, seeded.generator(seed))


# ---------------------------------------------------------------- cost estimates
def _transformer_activation(m: ModelConfig, size: int, stem: int = 0) -> int:
    T = m.num_tokens(size)
    per_layer = 3 * m.num_heads * T * T + 12 * T * m.embed_dim  # scores, weights, grads; q, k, v, MLP, norms
    return (m.depth * per_layer + size**2 * stem * 3) * 4


def _transformer_flops(m: ModelConfig, size: int, stem: int = 0) -> float:
    T, D, P = m.num_tokens(size), m.embed_dim, m.patch_size
    channels = stem or IN_CHANS
    embed = 2 * (T - 1) * channels * P * P * D
    per_layer = 16 * T * D * D + 4 * T * T * D  # q, k, v, out and the 2D-wide MLP; scores and weighted sum
    stem_flops = 2 * size * size * IN_CHANS * stem * 9
    return 3.0 * (embed + m.depth * per_layer + stem_flops)  # backward ~ 2x forward


def _cnn_flops(m: ModelConfig, size: int) -> float:
    return 3.0 * 2 * 25 * (size * size * IN_CHANS * 8 + (size // 2) ** 2 * 8 * 16)


def _check_sincos2d(m: ModelConfig, size: int) -> None:
    if m.pos_embed == "sincos2d" and m.embed_dim % 4:
        raise ValueError(f"pos_embed='sincos2d' needs embed_dim divisible by 4, got {m.embed_dim}")


def _check_patch(m: ModelConfig, size: int) -> None:
    if size % m.patch_size:
        raise ValueError(f"patch_size={m.patch_size} must divide img_size={size}")


def _check_configurable_vit(m: ModelConfig, size: int) -> None:
    _check_patch(m, size)
    _check_sincos2d(m, size)


class _SqueezeLogit(nn.Module):
    """The configurable ViT answering as the lesson's models do: (B, 1) logits -> (B,), attention weights
    appended to ``attentions`` when given, and what the probe reads (grid, patch size, class token, table)."""

    def __init__(self, inner: ViT):
        super().__init__()
        self.inner = inner
        self.grid_size, self.patch_size = inner.cfg.grid_size, inner.cfg.patch_size
        self.class_token = inner.cfg.class_token

    def patch_position_table(self) -> torch.Tensor | None:
        table = self.inner.pos_embed
        return None if table is None else table[0, int(self.class_token):]  # (N, D) view

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        if attentions is None:
            return self.inner(x).squeeze(-1)
        logits, weights = self.inner(x, return_attention=True)
        attentions.extend(weights)
        return logits.squeeze(-1)


def _lesson_vit(m: ModelConfig, size: int, g: torch.Generator, stem: int = 0) -> nn.Module:
    return LessonViT(size, m.patch_size, IN_CHANS, m.embed_dim, m.num_heads, m.depth, stem_channels=stem,
                     attn_impl=m.attn_impl, generator=g)


def _configurable_vit(m: ModelConfig, size: int, g: torch.Generator) -> nn.Module:
    cfg = ViTConfig(img_size=size, in_chans=IN_CHANS, patch_size=m.patch_size, embed_dim=m.embed_dim, depth=m.depth,
                    num_heads=m.num_heads, mlp_ratio=2.0, num_classes=1, pos_embed=m.pos_embed,
                    class_token=m.global_pool == "token", global_pool=m.global_pool)
    return _SqueezeLogit(ViT(cfg, generator=g))


_VIT_FIELDS = ("patch_size", "embed_dim", "num_heads", "depth", "attn_impl")

register(ModelSpec(
    name="vit", label="ViT (lesson)", color="#d55e00", transformer=True, uses=_VIT_FIELDS,
    build=_lesson_vit, activation_bytes=_transformer_activation, safety=1.4, flops=_transformer_flops,
    check=_check_patch))
register(ModelSpec(
    name="cnn", label="CNN", color="#0072b2", transformer=False, uses=(),
    build=lambda m, size, g: CNNClassifier(IN_CHANS, generator=g, nhwc=True),
    activation_bytes=lambda m, size: size**2 * (8 * 4 + 16 * 2) * 4, safety=1.0, flops=_cnn_flops))
register(ModelSpec(
    name="hybrid", label="Hybrid (CNN stem + ViT)", color="#e69f00", transformer=True,
    uses=_VIT_FIELDS + ("stem_channels",),
    build=lambda m, size, g: _lesson_vit(m, size, g, stem=m.stem_channels),
    activation_bytes=lambda m, size: _transformer_activation(m, size, m.stem_channels), safety=1.4,
    flops=lambda m, size: _transformer_flops(m, size, m.stem_channels), check=_check_patch))
register(ModelSpec(
    name="vit-config", label="ViT (configurable)", color="#009e73", transformer=True,
    uses=("patch_size", "embed_dim", "num_heads", "depth", "pos_embed", "global_pool"),
    build=_configurable_vit, activation_bytes=_transformer_activation, safety=1.9, flops=_transformer_flops,
    check=_check_configurable_vit))


# ---------------------------------------------------------------- lesson 4's remedies
# The lesson's ViT with one thing changed (core/remedy_vit.py; the lesson's 1-D sin-cos table and class
# token are the "vit" above, the convolutional stem is the "hybrid"), and the CNN with its pooling or its
# padding changed. What each is for, and where it comes from: core/generalization/remedies.py.
VIT_REMEDIES: dict[str, tuple[str, str, ViTRemedy]] = {
    "vit-shift": ("ViT + random shifts", "#cc79a7", ViTRemedy(max_shift=2)),
    "vit-nopos-avg": ("ViT, no positions, mean pool", "#56b4e9", ViTRemedy(pos_embed="none", global_pool="avg")),
    "vit-learned": ("ViT, learned positions", "#882255", ViTRemedy(pos_embed="learned")),
    "vit-sincos2d": ("ViT, 2-D sin-cos positions", "#117733", ViTRemedy(pos_embed="sincos2d")),
    "vit-relpos": ("ViT, 2-D relative position bias", "#999933", ViTRemedy(pos_embed="relative")),
    "vit-overlap": ("ViT, overlapping patches", "#44aa99", ViTRemedy(tokens="overlap")),
    "vit-spt": ("ViT, shifted patch tokens", "#aa4499", ViTRemedy(tokens="spt")),
    "vit-lsa": ("ViT, locality self-attention", "#332288", ViTRemedy(attention="lsa")),
    "vit-avg": ("ViT, mean of patches", "#88ccee", ViTRemedy(global_pool="avg")),
    "vit-max": ("ViT, max over patches", "#661100", ViTRemedy(global_pool="max")),
}
CNN_VARIANTS: dict[str, tuple[str, str, dict]] = {
    "cnn-avg": ("CNN, global average pool", "#6699cc", {"head": "avg"}),
    "cnn-flatten": ("CNN, flatten + linear head", "#888888", {"head": "flatten"}),
    "cnn-circular": ("CNN, circular padding", "#ddcc77", {"padding": "circular"}),
}


def _remedy_builder(remedy: ViTRemedy):
    def build_remedy(m: ModelConfig, size: int, g: torch.Generator) -> nn.Module:
        return RemedyViT(size, m.patch_size, IN_CHANS, m.embed_dim, m.num_heads, m.depth, remedy, generator=g)
    return build_remedy


def _check_remedy(remedy: ViTRemedy):
    def check(m: ModelConfig, size: int) -> None:
        _check_patch(m, size)
        if remedy.pos_embed == "sincos2d" and m.embed_dim % 4:
            raise ValueError(f"2-D sin-cos positions need embed_dim divisible by 4, got {m.embed_dim}")
    return check


for _name, (_label, _color, _remedy) in VIT_REMEDIES.items():
    register(ModelSpec(
        name=_name, label=_label, color=_color, transformer=True, uses=_VIT_FIELDS[:-1],
        build=_remedy_builder(_remedy), activation_bytes=_transformer_activation, safety=2.0,
        flops=_transformer_flops, check=_check_remedy(_remedy)))
for _name, (_label, _color, _options) in CNN_VARIANTS.items():
    register(ModelSpec(
        name=_name, label=_label, color=_color, transformer=False, uses=(),
        build=lambda m, size, g, options=_options: CNNClassifier(IN_CHANS, generator=g, nhwc=True, img_size=size,
                                                                 **options),
        activation_bytes=lambda m, size: size**2 * (8 * 4 + 16 * 2) * 4, safety=1.0, flops=_cnn_flops))
