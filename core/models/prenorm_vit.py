"""The pre-norm ViT (timm's block: LayerNorm before attention and MLP, GELU, a final norm), configurable.

The lab's other ViT family is ``postnorm_vit`` (the lesson's ``nn.TransformerEncoderLayer``: norm after each
residual, ReLU, one fused q/k/v map). Each family is created in its own source's order so that a seeded
generator gives its source's exact weights; merging them would break one of the two.

Names follow the paper and timm: ``patch_embed``, ``cls_token``, ``pos_embed``, ``blocks``, ``norm``,
``head``. Parameters are created in the same order as the seed module's model, from a generator of the
build's own (``core.nn.seeded``), so the ``seed`` preset built with seed 13 holds exactly the weights the
seed module gets after ``torch.manual_seed(13)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import torch
import torch.nn as nn

from core.nn import seeded
from core.nn.patch_embed import ConvPatchEmbed
from core.nn.patchify import check_patch_size
from core.nn.pos_embed import check_sincos2d, sincos_1d, sincos_2d

PosEmbed = Literal["none", "learned", "sincos", "sincos2d"]
GlobalPool = Literal["token", "avg"]  # "token": read the class token; "avg": mean of the patch tokens
POS_EMBEDS: tuple[str, ...] = get_args(PosEmbed)
GLOBAL_POOLS: tuple[str, ...] = get_args(GlobalPool)


@dataclass(frozen=True)
class PreNormConfig:
    img_size: int = 16
    in_chans: int = 3
    patch_size: int = 4
    embed_dim: int = 16
    depth: int = 1
    num_heads: int = 2
    mlp_ratio: float = 2.0
    num_classes: int = 3
    pos_embed: PosEmbed = "learned"
    class_token: bool = True
    global_pool: GlobalPool = "token"

    @property
    def grid_size(self) -> int:
        return self.img_size // self.patch_size

    @property
    def num_patches(self) -> int:
        return self.grid_size**2

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        small = {k: getattr(self, k) for k in ("img_size", "in_chans", "patch_size", "embed_dim", "depth",
                                                "num_heads", "num_classes") if getattr(self, k) < 1}
        if small or not self.mlp_ratio > 0:
            raise ValueError(f"sizes must be >= 1 and mlp_ratio > 0, got {small or {'mlp_ratio': self.mlp_ratio}}")
        check_patch_size(self.patch_size, self.img_size)
        if self.embed_dim % self.num_heads:
            raise ValueError(f"embed_dim={self.embed_dim} must be divisible by num_heads={self.num_heads}")
        if self.pos_embed not in POS_EMBEDS:
            raise ValueError(f"pos_embed={self.pos_embed!r} is not one of {POS_EMBEDS}")
        if self.global_pool not in GLOBAL_POOLS:
            raise ValueError(f"global_pool={self.global_pool!r} is not one of {GLOBAL_POOLS}")
        if self.global_pool == "token" and not self.class_token:
            raise ValueError("global_pool='token' needs class_token=True; use global_pool='avg' without it")
        if self.pos_embed == "sincos2d":
            check_sincos2d(self.embed_dim)


# The seed module's model: 16x16 RGB, 4x4 patches, width 16, 2 heads, one pre-LN block, MLP 32, 3 classes.
SEED_VIT = PreNormConfig()
VIT_PRESETS = {
    "seed": SEED_VIT,
    "two blocks, 4 heads, width 32": PreNormConfig(embed_dim=32, depth=2, num_heads=4),
}


class Attention(nn.Module):
    """Multi-head self-attention with separate q, k, v maps; returns the softmax weights too."""

    def __init__(self, dim: int, num_heads: int, g: torch.Generator):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.q = seeded.linear(dim, dim, g)
        self.k = seeded.linear(dim, dim, g)
        self.v = seeded.linear(dim, dim, g)
        self.proj = seeded.linear(dim, dim, g)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        B, T, D = x.shape
        H, hd = self.num_heads, self.head_dim
        q = self.q(x).reshape(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        k = self.k(x).reshape(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        v = self.v(x).reshape(B, T, H, hd).transpose(1, 2)  # (B, H, T, hd)
        weights = (q @ k.transpose(-2, -1) / math.sqrt(hd)).softmax(dim=-1)  # (B, H, T, T), rows sum to 1
        out = (weights @ v).transpose(1, 2).reshape(B, T, D)  # (B, T, D): heads side by side again
        return self.proj(out), weights


class Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int, g: torch.Generator):
        super().__init__()
        self.fc1 = seeded.linear(dim, hidden, g)
        self.act = nn.GELU()
        self.fc2 = seeded.linear(hidden, dim, g)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    """Pre-norm: x + attn(norm1(x)), then + mlp(norm2(x)). Every step acts on each token alike."""

    def __init__(self, dim: int, num_heads: int, mlp_ratio: float, g: torch.Generator):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads, g)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio), g)

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, T, D) -> (B, T, D); the (B, H, T, T) attention weights are appended to ``attentions`` if given."""
        attn_out, weights = self.attn(self.norm1(x))
        if attentions is not None:
            attentions.append(weights)
        x = x + attn_out
        return x + self.mlp(self.norm2(x))


class PreNormViT(nn.Module):
    """Conv patch embedding, [CLS] (optional), positions (optional), pre-norm blocks, final norm, pooled head:
    (B, C, H, W) -> (B, num_classes) logits, or (B,) for one logit, as the post-norm family answers."""

    def __init__(self, cfg: PreNormConfig = SEED_VIT, *, generator: torch.Generator):
        super().__init__()
        g = generator
        self.cfg = cfg
        # what a probe of a trained model reads, named as on the post-norm family
        self.grid_size, self.patch_size, self.class_token = cfg.grid_size, cfg.patch_size, cfg.class_token
        D, N = cfg.embed_dim, cfg.num_patches
        n_tokens = N + int(cfg.class_token)
        # Creation order matters for seeded exactness: patch_embed, cls_token, pos_embed, blocks, norm, head.
        self.patch_embed = ConvPatchEmbed(cfg.patch_size, cfg.in_chans, D, generator=g)
        self.cls_token = nn.Parameter(seeded.randn(1, 1, D, g=g) * 0.02) if cfg.class_token else None
        if cfg.pos_embed == "learned":
            self.pos_embed = nn.Parameter(seeded.randn(1, n_tokens, D, g=g) * 0.02)
        elif cfg.pos_embed == "sincos":
            self.register_buffer("pos_embed", sincos_1d(n_tokens, D).unsqueeze(0))
        elif cfg.pos_embed == "sincos2d":
            self.register_buffer("pos_embed", sincos_2d(cfg.grid_size, D, cfg.class_token).float().unsqueeze(0))
        else:
            self.pos_embed = None
        self.blocks = nn.ModuleList(Block(D, cfg.num_heads, cfg.mlp_ratio, g) for _ in range(cfg.depth))
        self.norm = nn.LayerNorm(D)
        self.head = seeded.linear(D, cfg.num_classes, g)

    # The forward pass in named steps, so that the lessons can cut in between them.
    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N, D) patch tokens, before the class token and positions."""
        return self.patch_embed(x)

    def sequence(self, patch_tokens: torch.Tensor) -> torch.Tensor:
        """(B, N, D) patch tokens -> (B, T, D) with the class token in front (no positions yet)."""
        if self.cls_token is None:
            return patch_tokens
        cls = self.cls_token.expand(patch_tokens.shape[0], -1, -1)  # (B, 1, D)
        return torch.cat([cls, patch_tokens], dim=1)  # (B, 1 + N, D)

    def add_positions(self, seq: torch.Tensor) -> torch.Tensor:
        return seq if self.pos_embed is None else seq + self.pos_embed

    def patch_position_table(self) -> torch.Tensor | None:
        """(N, D) the rows of the position table the patches get (a view), or None without a table."""
        return None if self.pos_embed is None else self.pos_embed[0, int(self.class_token):]

    def encode(self, seq: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, T, D) -> normalised (B, T, D) outputs; each block's (B, H, T, T) attention weights are appended to
        ``attentions`` when it is given."""
        for block in self.blocks:
            seq = block(seq, attentions)
        return self.norm(seq)

    def pool(self, encoded: torch.Tensor) -> torch.Tensor:
        if self.cfg.global_pool == "token":
            return encoded[:, 0]  # (B, D)
        start = int(self.cfg.class_token)
        return encoded[:, start:].mean(dim=1)  # (B, D)

    def classify(self, seq: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """Logits from a ready token sequence: positions, if any, must already be in it. (B, K), or (B,) for K=1."""
        return self.head(self.pool(self.encode(seq, attentions))).squeeze(-1)

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, C, H, W) -> (B, num_classes) logits, (B,) for one; every block's (B, H, T, T) attention weights are
        appended to ``attentions`` when it is given."""
        B, C, H, W = x.shape
        seq = self.add_positions(self.sequence(self.tokens(x)))  # (B, T, D)
        return self.classify(seq, attentions)


def build_prenorm(cfg: PreNormConfig, g: torch.Generator, dtype: torch.dtype = torch.float64) -> PreNormViT:
    """Build drawing from ``g`` (seeded with s: the weights the seed module gets after
    ``torch.manual_seed(s)``), cast, and switch to eval mode."""
    return PreNormViT(cfg, generator=g).to(dtype).eval()
