"""The post-norm ViT: the lesson's TinyViT reproduced exactly, and every variant of it the lab trains.

The lesson builds its encoder from ``nn.TransformerEncoderLayer`` (post-norm, ReLU, feed-forward 2x, no
dropout) wrapped in ``nn.TransformerEncoder``, which deep-copies one layer: every layer starts with the *same*
weights. We write the layer out so its arithmetic is ours to speed up, but create its parameters with the same
initialisers in the same order and clone it the same way, so that a generator seeded with ``s``
(``core.nn.seeded``) gives exactly the weights ``torch.manual_seed(s)`` then the lesson's constructor gives.

``ViTVariant()`` (every field at its default) *is* the lesson's model. Each field changes one thing, so a
difference in generalization can be put down to that one thing (lesson 4's bench; lesson 3's hybrid and α):

- ``pos_embed``: what tells the model where a patch is. "sincos" the lesson's 1-D table; "learned" a trained
  table; "sincos2d" a 2-D table (row and column features); "relative" no table, a learned bias per (row,
  column) offset inside attention (``rel_pos_bias``); "none" nothing at all.
- ``pos_scale``: the fixed table's scale (1: the notebook's; values in [-1, 1]: at the start its rows are
  about twice the size of an inked patch's token). It decides whether position or pattern dominates a token; lesson 3 sweeps it.
- ``tokens``: how a token is cut. "patch" the lesson's P×P patches; "overlap" a strided conv whose windows
  reach P/2 into every neighbour; "spt" shifted patch tokenization (``spt``); "stem" a 3×3 conv + ReLU stem
  before the patches (the lesson's hybrid, exercise 3).
- ``blur``: a fixed (P+1)-tap binomial blur of the image before it is cut at stride P (anti-aliasing, Zhang
  2019; ``core.nn.blur``): no weights, so the state_dict is the unblurred model's.
- ``attention``: "global" the lesson's; "lsa" locality self-attention (``lsa``).
- ``global_pool``: what the head reads. "token" the class token; "avg" the mean of the patch tokens; "max"
  each feature's maximum over the patches (the CNN's global max pool, inside a ViT).
- ``max_shift``: random-shift augmentation while training (``augment``), 0 = off.
- ``attn_impl``: how attention is computed, not what: the same model (see ``AttnImpl``).

The lesson's creation order comes first (embed, class token, table, layer, head), each variant's own parts
after it, so a variant's shared weights are the lesson model's.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Literal, get_args

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.nn import seeded
from core.nn.augment import RandomShift
from core.nn.blur import Blur
from core.nn.lsa import LearnedTemperature, diagonal_mask
from core.nn.patchify import check_patch_size, patchify
from core.nn.pos_embed import check_sincos2d, sincos_1d, sincos_2d
from core.nn.rel_pos_bias import RelativePositionBias
from core.nn.spt import ShiftedPatchTokens

# "sdpa": as torch's own layer computes it (bit for bit); "math": plain matmul-softmax, faster on CPU for
# short sequences (docs/performance.md); "fast": "math" plus the class-token-only last layer
AttnImpl = Literal["fast", "math", "sdpa"]
ATTN_IMPLS: tuple[str, ...] = get_args(AttnImpl)
VariantPos = Literal["sincos", "none", "learned", "sincos2d", "relative"]
VariantTokens = Literal["patch", "overlap", "spt", "stem"]
VariantAttention = Literal["global", "lsa"]
VariantPool = Literal["token", "avg", "max"]


@dataclass(frozen=True)
class ViTVariant:
    pos_embed: VariantPos = "sincos"
    pos_scale: float = 1.0
    tokens: VariantTokens = "patch"
    blur: bool = False
    attention: VariantAttention = "global"
    global_pool: VariantPool = "token"
    max_shift: int = 0
    stem_channels: int = 8  # tokens="stem" only
    attn_impl: AttnImpl = "fast"

    def __post_init__(self) -> None:
        for name, allowed in (("pos_embed", VariantPos), ("tokens", VariantTokens), ("attention", VariantAttention),
                              ("global_pool", VariantPool), ("attn_impl", AttnImpl)):
            if getattr(self, name) not in get_args(allowed):
                raise ValueError(f"{name}={getattr(self, name)!r} is not one of {list(get_args(allowed))}")
        if self.max_shift < 0 or self.stem_channels < 1:
            raise ValueError(f"need max_shift >= 0 and stem_channels >= 1, got {self.max_shift}, {self.stem_channels}")

    @property
    def class_token(self) -> bool:
        return self.global_pool == "token"


def overlap_kernel(patch_size: int) -> tuple[int, int]:
    """(kernel, padding) of the overlapping patch embedding: a window reaching P//2 pixels into each
    neighbouring patch, at stride P, so the grid (and the token count) stays that of P×P patches."""
    return patch_size + 2 * (patch_size // 2), patch_size // 2


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


class PostNormViT(nn.Module):
    """Tokens (patches, or as the variant cuts them), [CLS], positions, the post-norm encoder, one logit (or
    ``num_classes`` logits, for more than two classes)."""

    def __init__(self, img_size: int = 16, patch_size: int = 4, in_chans: int = 1, embed_dim: int = 32,
                 num_heads: int = 4, depth: int = 2, variant: ViTVariant = ViTVariant(), *,
                 generator: torch.Generator, num_classes: int = 1):
        super().__init__()
        g, v = generator, variant
        check_patch_size(patch_size, img_size)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        if v.pos_embed == "sincos2d":
            check_sincos2d(embed_dim)
        self.patch_size, self.variant = patch_size, v
        G = img_size // patch_size
        self.grid_size, self.class_token = G, v.class_token
        N = G * G
        T = N + int(v.class_token)
        chans = v.stem_channels if v.tokens == "stem" else in_chans
        # The lesson's creation order first (embed, cls_token, table, layer, head): the default is its model
        self.embed = seeded.linear(chans * patch_size * patch_size, embed_dim, g) if v.tokens in ("patch", "stem") \
            else None
        self.cls_token = nn.Parameter(seeded.randn(1, 1, embed_dim, g=g) * 0.02) if v.class_token else None
        if v.pos_embed == "sincos":
            self.register_buffer("pos_embed", v.pos_scale * sincos_1d(T, embed_dim))  # (T, D)
        elif v.pos_embed == "sincos2d":
            self.register_buffer("pos_embed", v.pos_scale * sincos_2d(G, embed_dim, v.class_token).float())  # (T, D)
        else:
            self.pos_embed = None
        layer = EncoderLayer(embed_dim, num_heads, g, v.attn_impl)
        self.layers = nn.ModuleList(copy.deepcopy(layer) for _ in range(depth))  # as nn.TransformerEncoder
        self.head = seeded.linear(embed_dim, num_classes, g)
        # Then each variant's own parts
        self.stem = (nn.Sequential(seeded.conv2d(in_chans, v.stem_channels, 3, g, padding=1), nn.ReLU())
                     if v.tokens == "stem" else nn.Identity())
        if v.tokens == "overlap":
            kernel, padding = overlap_kernel(patch_size)
            self.conv_embed = seeded.conv2d(in_chans, embed_dim, kernel, g, stride=patch_size, padding=padding)
        elif v.tokens == "spt":
            self.spt = ShiftedPatchTokens(patch_size, in_chans, embed_dim, generator=g)
        if v.pos_embed == "learned":
            self.pos_embed = nn.Parameter(seeded.randn(T, embed_dim, g=g) * 0.02)  # (T, D)
        self.rel_bias = RelativePositionBias(G, num_heads, generator=g) if v.pos_embed == "relative" else None
        if v.attention == "lsa":
            self.temperatures = nn.ModuleList(LearnedTemperature(embed_dim // num_heads) for _ in range(depth))
            self.register_buffer("mask", diagonal_mask(T), persistent=False)  # (1, T, T)
        # Zero padding: the lesson's background is black, and so is the world beyond the canvas (core.nn.blur)
        self.blur = Blur(in_chans, patch_size + 1, padding="zeros") if v.blur else nn.Identity()
        self.augment = (RandomShift(v.max_shift, generator=seeded.generator(int(torch.randint(2**62, (1,),
                                                                                               generator=g))))
                        if v.max_shift else nn.Identity())

    def patch_position_table(self) -> torch.Tensor | None:
        """(N, D) the rows of the position table the patches get (a view: writing to it changes the model), or
        None without a table."""
        if self.pos_embed is None:
            return None
        return self.pos_embed[1:] if self.class_token else self.pos_embed

    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N, D) patch tokens, cut as the variant says, before any position is added."""
        B, C, H, W = x.shape
        kind = self.variant.tokens
        # the image low-passed before any stride-P cut samples it (identity unless the variant blurs): a pattern
        # moved by part of a patch then changes the samples less
        x = self.blur(x)
        if kind == "overlap":
            return self.conv_embed(x).flatten(2).transpose(1, 2)  # (B, D, G, G) -> (B, N, D)
        if kind == "spt":
            return self.spt(x)  # (B, N, D)
        return self.embed(patchify(self.stem(x), self.patch_size))  # (B, N, D); stem: identity unless "stem"

    def attention_bias(self) -> torch.Tensor | None:
        """What is added to every layer's scores: the relative bias and/or the LSA diagonal mask."""
        bias = self.rel_bias() if self.rel_bias is not None else None  # (H, N, N)
        if bias is not None and self.cls_token is not None:
            bias = F.pad(bias, (1, 0, 1, 0))  # (H, T, T): the class token has no place, so no bias
        if self.variant.attention == "lsa":
            bias = self.mask if bias is None else bias + self.mask  # (H or 1, T, T)
        return bias

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, C, H, W) -> (B,) logits (or (B, num_classes)); every layer's (B, heads, T, T) attention weights are
        appended to ``attentions`` when it is given (then every layer computes every token)."""
        B, C, H, W = x.shape
        x = self.augment(x)  # identity unless augmenting, and only while training
        tok = self.tokens(x)  # (B, N, D)
        if self.cls_token is not None:
            tok = torch.cat([self.cls_token.expand(B, -1, -1), tok], dim=1)  # (B, N+1, D)
        if self.pos_embed is not None:
            tok = tok + self.pos_embed  # (B, T, D)
        scales = self.temperatures if self.variant.attention == "lsa" else None
        # "fast": only the class token's output is read after the last layer, so that layer computes it alone
        last_cls_only = self.cls_token is not None and self.variant.attn_impl == "fast"
        tok = encode(self.layers, tok, last_cls_only=last_cls_only, weights_out=attentions,
                     bias=self.attention_bias(), scales=scales)
        pool = self.variant.global_pool
        pooled = tok[:, 0] if pool == "token" else tok.mean(dim=1) if pool == "avg" else tok.amax(dim=1)  # (B, D)
        return self.head(pooled).squeeze(-1)  # (B,): one logit; or (B, K)
