"""The transformers' hyperparameters in one frozen config: what the ViT, the hybrid and the configurable
ViT read (the CNN reads none). Names follow the paper and timm."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

PosEmbed = Literal["none", "learned", "sincos", "sincos2d"]
GlobalPool = Literal["token", "avg"]
# "fast" (default): plain matmul-softmax and a class-token-only last layer; "math": plain matmul-softmax;
# "sdpa": torch's scaled_dot_product_attention, bit for bit the notebook's forward
AttnImpl = Literal["fast", "math", "sdpa"]

POS_EMBEDS: tuple[str, ...] = get_args(PosEmbed)
GLOBAL_POOLS: tuple[str, ...] = get_args(GlobalPool)
ATTN_IMPLS: tuple[str, ...] = get_args(AttnImpl)


@dataclass(frozen=True)
class ModelConfig:
    patch_size: int = 4
    embed_dim: int = 32
    num_heads: int = 4
    depth: int = 2
    pos_embed: PosEmbed = "learned"  # configurable ViT only; the lesson ViT always uses its 1-D sin-cos table
    global_pool: GlobalPool = "token"  # configurable ViT only: class token, or mean of the patch tokens
    stem_channels: int = 8  # hybrid only
    attn_impl: AttnImpl = "fast"

    def __post_init__(self) -> None:
        small = {k: v for k in ("patch_size", "embed_dim", "num_heads", "depth", "stem_channels")
                 if (v := getattr(self, k)) < 1 or v > 4096}
        if small:
            raise ValueError("model sizes must be in 1..4096, got " + ", ".join(f"{k}={v}" for k, v in small.items()))
        if self.embed_dim % self.num_heads:
            raise ValueError(f"embed_dim={self.embed_dim} must be divisible by num_heads={self.num_heads}")
        for name, allowed in (("pos_embed", POS_EMBEDS), ("global_pool", GLOBAL_POOLS), ("attn_impl", ATTN_IMPLS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r} is not one of {list(allowed)}")

    def num_tokens(self, img_size: int) -> int:
        """Tokens the encoder sees: the patches and the class token."""
        return (img_size // self.patch_size) ** 2 + 1
