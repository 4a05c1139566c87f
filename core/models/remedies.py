"""Lesson 4's remedies as models: each the lesson's ViT with one thing changed (``postnorm_vit.ViTVariant``), or
the CNN with its head, padding or pool changed (``CNNVariant``), registered under its name.

Only what builds and trains a model is here: its card (label, colour, what it changes, why, its source) is
``core/lessons/model_cards.py``'s, outside the training code's fingerprint, so a sentence edited there re-trains
nothing. A new remedy is one ``remedy(...)`` here (and, for a new kind of change, its option in
``postnorm_vit.py``) and its card there.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models.cnn import CNNClassifier
from core.models.postnorm_vit import ViTVariant
from core.models.registry import (
    IN_CHANS,
    VIT_FIELDS,
    ModelSpec,
    blurpool_cnn_activation,
    blurpool_cnn_flops,
    check_vit,
    cnn_activation,
    cnn_flops,
    cnn_stride,
    patch_stride,
    postnorm_vit,
    register,
    transformer_activation,
    transformer_flops,
)


@dataclass(frozen=True)
class CNNVariant:
    head: str = "max"  # the lesson's global max pool, "avg" or "flatten"
    padding: str = "zeros"  # or "circular"
    pool: str = "max"  # the lesson's stride-2 max pool, or "blur" (max at stride 1, then a blur at stride 2)


def remedy(name: str, change: ViTVariant | CNNVariant) -> None:
    """Register the remedy's model: the lesson's ViT with one thing changed, or the CNN with its head, padding
    or pool changed."""
    if isinstance(change, ViTVariant):
        register(ModelSpec(
            name=name, transformer=True, uses=VIT_FIELDS,
            build=lambda m, size, g, outputs: postnorm_vit(m, size, g, outputs, change),
            activation_bytes=transformer_activation, safety=2.0, flops=transformer_flops, stride=patch_stride,
            check=lambda m, size: check_vit(m, size, change.pos_embed)))
    else:
        options = {k: v for k, v in vars(change).items() if v != getattr(CNNVariant(), k)}
        blur = change.pool == "blur"
        register(ModelSpec(
            name=name, transformer=False, uses=(),
            build=lambda m, size, g, outputs: CNNClassifier(IN_CHANS, generator=g, nhwc=True, img_size=size,
                                                            num_classes=outputs, **options),
            activation_bytes=blurpool_cnn_activation if blur else cnn_activation, safety=1.0,
            flops=blurpool_cnn_flops if blur else cnn_flops, stride=cnn_stride))


remedy("vit-shift", ViTVariant(max_shift=2))
remedy("vit-nopos", ViTVariant(pos_embed="none"))
remedy("vit-nopos-avg", ViTVariant(pos_embed="none", global_pool="avg"))
remedy("vit-learned", ViTVariant(pos_embed="learned"))
remedy("vit-sincos2d", ViTVariant(pos_embed="sincos2d"))
remedy("vit-relpos", ViTVariant(pos_embed="relative"))
remedy("vit-overlap", ViTVariant(tokens="overlap"))
remedy("vit-spt", ViTVariant(tokens="spt"))
remedy("vit-blur", ViTVariant(blur=True))
remedy("vit-lsa", ViTVariant(attention="lsa"))
remedy("vit-avg", ViTVariant(global_pool="avg"))
remedy("vit-max", ViTVariant(global_pool="max"))
remedy("cnn-avg", CNNVariant(head="avg"))
remedy("cnn-flatten", CNNVariant(head="flatten"))
remedy("cnn-circular", CNNVariant(padding="circular"))
remedy("cnn-blurpool", CNNVariant(pool="blur"))
