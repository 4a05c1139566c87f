"""Lesson 4's remedies as models: each the lesson's ViT with one thing changed (``remedy_vit.ViTRemedy``), or
the CNN with its head or padding changed (``CNNVariant``), registered under its name.

Only what builds and trains a model is here: its card (label, colour, what it changes, why, its source) is
``core/lessons/model_cards.py``'s, outside the training code's fingerprint, so a sentence edited there re-trains
nothing. A new remedy is one ``remedy(...)`` here (and, for a new kind of change, its option in
``remedy_vit.py``) and its card there.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models.cnn import CNNClassifier
from core.models.model_config import ModelConfig
from core.models.registry import (
    IN_CHANS,
    VIT_FIELDS,
    ModelSpec,
    check_patch,
    cnn_activation,
    cnn_flops,
    register,
    transformer_activation,
    transformer_flops,
)
from core.models.remedy_vit import RemedyViT, ViTRemedy
from core.nn.pos_embed import check_sincos2d


@dataclass(frozen=True)
class CNNVariant:
    head: str = "max"  # the lesson's global max pool, "avg" or "flatten"
    padding: str = "zeros"  # or "circular"


def remedy(name: str, change: ViTRemedy | CNNVariant) -> None:
    """Register the remedy's model: the lesson's ViT with one thing changed, or the CNN with its head or
    padding changed."""
    if isinstance(change, ViTRemedy):
        register(ModelSpec(
            name=name, transformer=True, uses=VIT_FIELDS,
            build=lambda m, size, g, outputs: RemedyViT(size, m.patch_size, IN_CHANS, m.embed_dim, m.num_heads,
                                                        m.depth, change, generator=g, num_classes=outputs),
            activation_bytes=transformer_activation, safety=2.0, flops=transformer_flops,
            check=lambda m, size: _check_vit_remedy(change, m, size)))
    else:
        options = {k: v for k, v in vars(change).items() if v != getattr(CNNVariant(), k)}
        register(ModelSpec(
            name=name, transformer=False, uses=(),
            build=lambda m, size, g, outputs: CNNClassifier(IN_CHANS, generator=g, nhwc=True, img_size=size,
                                                            num_classes=outputs, **options),
            activation_bytes=cnn_activation, safety=1.0, flops=cnn_flops))


def _check_vit_remedy(change: ViTRemedy, m: ModelConfig, size: int) -> None:
    check_patch(m, size)
    if change.pos_embed == "sincos2d":
        check_sincos2d(m.embed_dim)


remedy("vit-shift", ViTRemedy(max_shift=2))
remedy("vit-nopos-avg", ViTRemedy(pos_embed="none", global_pool="avg"))
remedy("vit-learned", ViTRemedy(pos_embed="learned"))
remedy("vit-sincos2d", ViTRemedy(pos_embed="sincos2d"))
remedy("vit-relpos", ViTRemedy(pos_embed="relative"))
remedy("vit-overlap", ViTRemedy(tokens="overlap"))
remedy("vit-spt", ViTRemedy(tokens="spt"))
remedy("vit-lsa", ViTRemedy(attention="lsa"))
remedy("vit-avg", ViTRemedy(global_pool="avg"))
remedy("vit-max", ViTRemedy(global_pool="max"))
remedy("cnn-avg", CNNVariant(head="avg"))
remedy("cnn-flatten", CNNVariant(head="flatten"))
remedy("cnn-circular", CNNVariant(padding="circular"))
