"""The transformers' hyperparameters in one frozen config: what the ViT, the hybrid and the pre-norm ViT read
(the CNN reads none). Names follow the paper and timm."""

from __future__ import annotations

import math
from dataclasses import dataclass

# The choices are defined once, beside the code that reads them
from core.models.postnorm_vit import ATTN_IMPLS, AttnImpl
from core.models.prenorm_vit import GLOBAL_POOLS, POS_EMBEDS, GlobalPool, PosEmbed

MAX_POS_SCALE = 10.0

__all__ = ["ATTN_IMPLS", "MAX_POS_SCALE", "GLOBAL_POOLS", "POS_EMBEDS", "AttnImpl", "GlobalPool", "ModelConfig", "PosEmbed"]


@dataclass(frozen=True)
class ModelConfig:
    patch_size: int = 4
    embed_dim: int = 32
    num_heads: int = 4
    depth: int = 2
    pos_embed: PosEmbed = "learned"  # pre-norm ViT only; the lesson ViT always uses its 1-D sin-cos table
    global_pool: GlobalPool = "token"  # pre-norm ViT only: class token, or mean of the patch tokens
    stem_channels: int = 8  # hybrid only
    attn_impl: AttnImpl = "fast"
    pos_scale: float = 1.0  # lesson ViT and hybrid: the scale of the fixed 1-D sin-cos table (1: the notebook's)

    def __post_init__(self) -> None:
        small = {k: v for k in ("patch_size", "embed_dim", "num_heads", "depth", "stem_channels")
                 if (v := getattr(self, k)) < 1 or v > 4096}
        if small:
            raise ValueError("model sizes must be in 1..4096, got " + ", ".join(f"{k}={v}" for k, v in small.items()))
        if not (math.isfinite(self.pos_scale) and 0 <= self.pos_scale <= MAX_POS_SCALE):
            raise ValueError(f"pos_scale must be a number in 0..{MAX_POS_SCALE} (1: the notebook's table), got "
                             f"{self.pos_scale}")
        if self.embed_dim % self.num_heads:
            raise ValueError(f"embed_dim={self.embed_dim} must be divisible by num_heads={self.num_heads}")
        for name, allowed in (("pos_embed", POS_EMBEDS), ("global_pool", GLOBAL_POOLS), ("attn_impl", ATTN_IMPLS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r} is not one of {list(allowed)}")

    def num_tokens(self, img_size: int) -> int:
        """Tokens the encoder sees: the patches and the class token."""
        return (img_size // self.patch_size) ** 2 + 1
