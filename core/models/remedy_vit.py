"""The lesson's ViT with one remedy switched on: lesson 4's bench.

``ViTRemedy()`` (every field at its default) *is* the lesson's TinyViT: same layers, same creation order,
so a generator seeded with ``s`` gives exactly ``LessonViT``'s weights (tested). Each field changes one
thing, so a difference in generalization can be put down to that one thing:

- ``pos_embed``: what tells the model where a patch is. "sincos" the lesson's 1-D table; "learned" a
  trained table; "sincos2d" a 2-D table (row and column features); "relative" no table, a learned bias
  per (row, column) offset inside attention (``rel_pos_bias``); "none" nothing at all.
- ``tokens``: how a token is cut. "patch" the lesson's P×P patches; "overlap" a strided conv whose
  windows reach P/2 into every neighbour; "spt" shifted patch tokenization (``spt``); "stem" a 3×3 conv
  stem before the patches (the lesson's hybrid, exercise 3).
- ``attention``: "global" the lesson's; "lsa" locality self-attention (``lsa``).
- ``global_pool``: what the head reads. "token" the class token; "avg" the mean of the patch tokens;
  "max" each feature's maximum over the patches (the CNN's global max pool, inside a ViT).
- ``max_shift``: random-shift augmentation while training (``augment``), 0 = off.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Literal, get_args

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.models.lesson_vit import EncoderLayer, encode
from core.nn import seeded
from core.nn.augment import RandomShift
from core.nn.lsa import LearnedTemperature, diagonal_mask
from core.nn.patchify import check_patch_size, patchify
from core.nn.pos_embed import check_sincos2d, sincos_1d, sincos_2d
from core.nn.rel_pos_bias import RelativePositionBias
from core.nn.spt import ShiftedPatchTokens

RemedyPos = Literal["sincos", "none", "learned", "sincos2d", "relative"]
RemedyTokens = Literal["patch", "overlap", "spt", "stem"]
RemedyAttention = Literal["global", "lsa"]
RemedyPool = Literal["token", "avg", "max"]


@dataclass(frozen=True)
class ViTRemedy:
    pos_embed: RemedyPos = "sincos"
    tokens: RemedyTokens = "patch"
    attention: RemedyAttention = "global"
    global_pool: RemedyPool = "token"
    max_shift: int = 0
    stem_channels: int = 8  # tokens="stem" only

    def __post_init__(self) -> None:
        for name, allowed in (("pos_embed", RemedyPos), ("tokens", RemedyTokens), ("attention", RemedyAttention),
                              ("global_pool", RemedyPool)):
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


class RemedyViT(nn.Module):
    def __init__(self, img_size: int = 16, patch_size: int = 4, in_chans: int = 1, embed_dim: int = 32,
                 num_heads: int = 4, depth: int = 2, remedy: ViTRemedy = ViTRemedy(), *, generator: torch.Generator,
                 num_classes: int = 1):
        super().__init__()
        g, r = generator, remedy
        check_patch_size(patch_size, img_size)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        if r.pos_embed == "sincos2d":
            check_sincos2d(embed_dim)
        self.patch_size, self.remedy = patch_size, r
        G = img_size // patch_size
        self.grid_size, self.class_token = G, r.class_token
        N = G * G
        T = N + int(r.class_token)
        chans = r.stem_channels if r.tokens == "stem" else in_chans
        # The lesson's creation order first (embed, cls_token, table, layer, head): the default is its model
        self.embed = seeded.linear(chans * patch_size * patch_size, embed_dim, g) if r.tokens in ("patch", "stem") \
            else None
        self.cls_token = nn.Parameter(seeded.randn(1, 1, embed_dim, g=g) * 0.02) if r.class_token else None
        if r.pos_embed == "sincos":
            self.register_buffer("pos_embed", sincos_1d(T, embed_dim))  # (T, D)
        elif r.pos_embed == "sincos2d":
            self.register_buffer("pos_embed", sincos_2d(G, embed_dim, r.class_token).float())  # (T, D)
        else:
            self.pos_embed = None
        layer = EncoderLayer(embed_dim, num_heads, g, "math")
        self.layers = nn.ModuleList(copy.deepcopy(layer) for _ in range(depth))  # every layer starts alike
        self.head = seeded.linear(embed_dim, num_classes, g)
        # Then each remedy's own parts
        self.stem = (nn.Sequential(seeded.conv2d(in_chans, r.stem_channels, 3, g, padding=1), nn.ReLU())
                     if r.tokens == "stem" else nn.Identity())
        if r.tokens == "overlap":
            kernel, padding = overlap_kernel(patch_size)
            self.conv_embed = seeded.conv2d(in_chans, embed_dim, kernel, g, stride=patch_size, padding=padding)
        elif r.tokens == "spt":
            self.spt = ShiftedPatchTokens(patch_size, in_chans, embed_dim, generator=g)
        if r.pos_embed == "learned":
            self.pos_embed = nn.Parameter(seeded.randn(T, embed_dim, g=g) * 0.02)  # (T, D)
        self.rel_bias = RelativePositionBias(G, num_heads, generator=g) if r.pos_embed == "relative" else None
        if r.attention == "lsa":
            self.temperatures = nn.ModuleList(LearnedTemperature(embed_dim // num_heads) for _ in range(depth))
            self.register_buffer("mask", diagonal_mask(T), persistent=False)  # (1, T, T)
        self.augment = (RandomShift(r.max_shift, generator=seeded.generator(int(torch.randint(2**62, (1,),
                                                                                               generator=g))))
                        if r.max_shift else nn.Identity())

    def patch_position_table(self) -> torch.Tensor | None:
        """(N, D) the rows of the position table the patches get (a view), or None without a table."""
        if self.pos_embed is None:
            return None
        return self.pos_embed[1:] if self.class_token else self.pos_embed

    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, N, D) patch tokens, cut as the remedy says."""
        B, C, H, W = x.shape
        kind = self.remedy.tokens
        if kind == "overlap":
            return self.conv_embed(x).flatten(2).transpose(1, 2)  # (B, D, G, G) -> (B, N, D)
        if kind == "spt":
            return self.spt(x)  # (B, N, D)
        return self.embed(patchify(self.stem(x), self.patch_size))  # (B, N, D)

    def attention_bias(self) -> torch.Tensor | None:
        """What is added to every layer's scores: the relative bias and/or the LSA diagonal mask."""
        bias = self.rel_bias() if self.rel_bias is not None else None  # (H, N, N)
        if bias is not None and self.cls_token is not None:
            bias = F.pad(bias, (1, 0, 1, 0))  # (H, T, T): the class token has no place, so no bias
        if self.remedy.attention == "lsa":
            bias = self.mask if bias is None else bias + self.mask  # (H or 1, T, T)
        return bias

    def forward(self, x: torch.Tensor, attentions: list | None = None) -> torch.Tensor:
        """(B, 1, H, W) -> (B,) logits (or (B, num_classes)); every layer's (B, heads, T, T) attention weights are appended to
        ``attentions`` when it is given (then every layer computes every token)."""
        B, C, H, W = x.shape
        x = self.augment(x)  # identity unless augmenting, and only while training
        tok = self.tokens(x)  # (B, N, D)
        if self.cls_token is not None:
            tok = torch.cat([self.cls_token.expand(B, -1, -1), tok], dim=1)  # (B, N+1, D)
        if self.pos_embed is not None:
            tok = tok + self.pos_embed  # (B, T, D)
        scales = self.temperatures if self.remedy.attention == "lsa" else None
        # the lesson's encoder; with a class token, its last layer computes that token's output only
        tok = encode(self.layers, tok, last_cls_only=self.cls_token is not None, weights_out=attentions,
                     bias=self.attention_bias(), scales=scales)
        pool = self.remedy.global_pool
        pooled = tok[:, 0] if pool == "token" else tok.mean(dim=1) if pool == "avg" else tok.amax(dim=1)  # (B, D)
        return self.head(pooled).squeeze(-1)  # (B,): one logit; or (B, K)
