"""Shifted patch tokenization (SPT; Lee, Lee & Song 2021, "Vision Transformer for Small-Size Datasets",
arXiv:2112.13492).

A plain patch token sees only its own P×P pixels. SPT first shifts the image by half a patch in the four
diagonal directions, stacks the four shifted copies with the original along the channels (5·C channels),
and only then cuts patches: each token now also holds pixels of its neighbours, widening what one token
sees (the paper's "receptive field") without a convolution. LayerNorm, then one linear map, as the paper.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.nn import seeded
from core.nn.patchify import patchify

DIAGONALS = ((-1, -1), (1, -1), (-1, 1), (1, 1))  # (dx, dy) signs: up-left, up-right, down-left, down-right


def shift(x: torch.Tensor, dx: int, dy: int) -> torch.Tensor:
    """Move the image content by (dx, dy) pixels (right and down are positive), zeros coming in."""
    B, C, H, W = x.shape
    padded = F.pad(x, (max(dx, 0), max(-dx, 0), max(dy, 0), max(-dy, 0)))  # (B, C, H + |dy|, W + |dx|)
    top, left = max(-dy, 0), max(-dx, 0)
    return padded[:, :, top:top + H, left:left + W]  # (B, C, H, W)


class ShiftedPatchTokens(nn.Module):
    def __init__(self, patch_size: int, in_chans: int, embed_dim: int, *, generator: torch.Generator):
        super().__init__()
        self.patch_size = patch_size
        dim = 5 * in_chans * patch_size * patch_size
        self.norm = nn.LayerNorm(dim)
        self.proj = seeded.linear(dim, embed_dim, generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        h = max(1, self.patch_size // 2)
        stacked = torch.cat([x] + [shift(x, sx * h, sy * h) for sx, sy in DIAGONALS], dim=1)  # (B, 5C, H, W)
        return self.proj(self.norm(patchify(stacked, self.patch_size)))  # (B, N, D)
