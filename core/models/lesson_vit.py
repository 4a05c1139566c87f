"""The lesson's TinyViT, reproduced exactly, and its hybrid variant with a small convolutional stem.

The lesson builds its encoder from ``nn.TransformerEncoderLayer`` (post-norm, ReLU, feed-forward 2x,
no dropout) wrapped in ``nn.TransformerEncoder``, which deep-copies one layer: every layer starts with
the *same* weights. We write the layer out so its arithmetic is ours to speed up, but create its
parameters with the same initialisers in the same order and clone it the same way, so that a
generator seeded with ``s`` (``core.nn.seeded``) gives exactly the weights ``torch.manual_seed(s)`` then the
lesson's constructor gives.
"""

from __future__ import annotations

import copy
import math
from typing import Literal, get_args

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.nn import seeded
from core.nn.patchify import check_patch_size, patchify
from core.nn.pos_embed import sincos_1d

# "sdpa": as torch's own layer computes it (bit for bit); "math": plain matmul-softmax, faster on CPU for
# short sequences; "fast": "math" plus the class-token-only last layer (see LessonViT)
AttnImpl = Literal["fast", "math", "sdpa"]
ATTN_IMPLS: tuple[str, ...] = get_args(AttnImpl)


class EncoderLayer(nn.Module):
    """``nn.TransformerEncoderLayer(d, h, dim_feedforward=2d, dropout=0, batch_first=True)``, written out."""

    def __init__(self, dim: int, num_heads: int, g: torch.Generator, attn_impl: str = "sdpa"):
        super().__init__()
        if num_heads < 1 or dim % num_heads:
            raise ValueError(f"embed_dim={dim} must be divisible by num_heads={num_heads} (>= 1)")
        if attn_impl not in ATTN_IMPLS:
            raise ValueError(f"attn_impl={attn_impl!r} is not one of {ATTN_IMPLS}")
        self.num_heads = num_heads
        self.attn_impl = attn_impl
        # nn.MultiheadAttention's parameters, created and initialised in its order
        self.in_proj_weight = nn.Parameter(torch.empty(3 * dim, dim))
        self.in_proj_bias = nn.Parameter(torch.empty(3 * dim))
        self.out_proj = seeded.linear(dim, dim, g)
        seeded.xavier_uniform_(self.in_proj_weight, g)
        nn.init.constant_(self.in_proj_bias, 0.0)
        nn.init.constant_(self.out_proj.bias, 0.0)
        self.linear1 = seeded.linear(dim, 2 * dim, g)
        self.linear2 = seeded.linear(2 * dim, dim, g)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)

    def attention(self, x: torch.Tensor, cls_only: bool = False, bias: torch.Tensor | None = None,
                  scale: torch.Tensor | None = None, weights_out: list | None = None) -> torch.Tensor:
        """Multi-head self-attention. ``bias`` (H, T, T) is added to the scores (a relative position bias, or
        -inf on the diagonal for locality self-attention) and ``scale`` replaces 1/sqrt(head_dim) (a learned
        temperature): both for the remedies of lesson 4; without them this is torch's layer. The softmax
        weights, (B, H, T, T), are appended to ``weights_out`` when it is given (to look inside a model)."""
        B, T, D = x.shape
        H = self.num_heads
        if cls_only:
            # Only the class token's output is read after the last layer: its query alone is needed,
            # while keys and values still come from every token. Same mathematics, 1/T of the queries.
            q = F.linear(x[:, :1], self.in_proj_weight[:D], self.in_proj_bias[:D])  # (B, 1, D)
            q = q.reshape(B, 1, H, D // H).transpose(1, 2)  # (B, H, 1, hd)
            kv = F.linear(x, self.in_proj_weight[D:], self.in_proj_bias[D:])  # (B, T, 2D)
            k, v = kv.reshape(B, T, 2, H, D // H).permute(2, 0, 3, 1, 4)  # each (B, H, T, hd)
            T = 1
        else:
            qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias)  # (B, T, 3D)
            q, k, v = qkv.reshape(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)  # each (B, H, T, hd)
        if self.attn_impl == "sdpa" and bias is None and scale is None and weights_out is None:
            out = F.scaled_dot_product_attention(q, k, v)  # (B, H, T, hd)
        else:
            scores = q @ k.transpose(-2, -1)  # (B, H, T, T)
            scores = scores / math.sqrt(D // H) if scale is None else scores * scale
            if bias is not None:
                scores = scores + (bias[:, :1] if cls_only else bias)
            weights = scores.softmax(dim=-1)  # (B, H, T, T), rows sum to 1
            if weights_out is not None:
                weights_out.append(weights)
            out = weights @ v  # (B, H, T, hd)
        out = out.transpose(1, 2).reshape(B, T, D)  # (B, T, D)
        return self.out_proj(out)

    def forward(self, x: torch.Tensor, cls_only: bool = False, bias: torch.Tensor | None = None,
                scale: torch.Tensor | None = None, weights_out: list | None = None) -> torch.Tensor:
        """(B, T, D) -> (B, T, D), or (B, 1, D) for the class token alone when ``cls_only``."""
        residual = x[:, :1] if cls_only else x
        x = self.norm1(residual + self.attention(x, cls_only, bias, scale, weights_out))  # post-norm, as torch's default norm_first=False
        return self.norm2(x + self.linear2(F.relu(self.linear1(x))))


def encode(layers: nn.ModuleList, tok: torch.Tensor, last_cls_only: bool, weights_out: list | None = None,
           bias: torch.Tensor | None = None, scales: nn.ModuleList | None = None) -> torch.Tensor:
    """The encoder: ``layers`` in turn over the tokens (B, T, D). With ``last_cls_only`` the last layer computes
    the class token's output alone (B, 1, D): the only one a class-token head reads. Not when every layer's
    attention weights are asked for (``weights_out``): then every layer computes every token. ``bias`` is added
    to every layer's scores; ``scales[i]()`` is layer i's softmax temperature (default: 1/sqrt(head dim))."""
    last = len(layers) - 1
    for i, layer in enumerate(layers):
        cls_only = last_cls_only and i == last and weights_out is None
        tok = layer(tok, cls_only=cls_only, bias=bias, scale=None if scales is None else scales[i](),
                    weights_out=weights_out)
    return tok


class LessonViT(nn.Module):
    """The lesson's TinyViT: patchify, linear embed, [CLS], 1-D sin-cos positions (scaled by ``pos_scale``, 1 in
    the notebook), post-norm encoder, one logit (or ``num_classes`` logits, for more than two classes).

    ``stem_channels > 0`` makes the exercise-3 hybrid: a 3x3 conv + ReLU stem runs first and its feature
    map, not the raw pixels, is patchified. The stem is created last, so the plain model's creation
    order (and hence its seeded weights) is untouched when ``stem_channels == 0``.
    """

    def __init__(self, img_size: int = 16, patch_size: int = 4, in_chans: int = 1, embed_dim: int = 32,
                 num_heads: int = 4, depth: int = 2, stem_channels: int = 0, attn_impl: str = "sdpa",
                 pos_scale: float = 1.0, *, generator: torch.Generator, num_classes: int = 1):
        super().__init__()
        g = generator
        check_patch_size(patch_size, img_size)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self.patch_size = patch_size
        self.attn_impl = attn_impl
        self.grid_size = img_size // patch_size
        self.class_token = True
        n_patches = (img_size // patch_size) ** 2
        patch_dim = (stem_channels or in_chans) * patch_size * patch_size
        self.embed = seeded.linear(patch_dim, embed_dim, g)
        self.cls_token = nn.Parameter(seeded.randn(1, 1, embed_dim, g=g) * 0.02)
        # The notebook's fixed table, times ``pos_scale`` (1: the notebook's; values in [-1, 1] against patch
        # embeddings that start far smaller). Its scale decides whether the position or the pattern dominates a
        # token; lesson 3 sweeps it.
        self.register_buffer("pos_enc", pos_scale * sincos_1d(n_patches + 1, embed_dim))
        layer = EncoderLayer(embed_dim, num_heads, g, attn_impl)
        self.layers = nn.ModuleList(copy.deepcopy(layer) for _ in range(depth))  # as nn.TransformerEncoder
        self.head = seeded.linear(embed_dim, num_classes, g)
        self.stem = (nn.Sequential(seeded.conv2d(in_chans, stem_channels, 3, g, padding=1), nn.ReLU())
                     if stem_channels else nn.Identity())

    def patch_position_table(self) -> torch.Tensor:
        """(N, D) the rows of the position table the patches get (a view: writing to it changes the model)."""
        return self.pos_enc[1:]

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, 1, H, W) -> (B,) logits (or (B, num_classes)); every layer's (B, heads, T, T) attention weights are appended to
        ``attentions`` when it is given (then every layer computes every token)."""
        B, C, H, W = x.shape
        x = self.stem(x)  # (B, C', H, W): identity unless hybrid
        tok = self.embed(patchify(x, self.patch_size))  # (B, N, D)
        cls = self.cls_token.expand(B, -1, -1)  # (B, 1, D)
        tok = torch.cat([cls, tok], dim=1) + self.pos_enc  # (B, N+1, D)
        # "fast": the last layer computes the class token only (the only output that is read)
        tok = encode(self.layers, tok, last_cls_only=self.attn_impl == "fast", weights_out=attentions)
        return self.head(tok[:, 0]).squeeze(-1)  # (B,): one logit, read from the class token; or (B, K)
