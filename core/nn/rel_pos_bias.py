"""2-D relative position bias (Swin Transformer, Liu et al., ICCV 2021).

Instead of adding a position to each token, every attention score between patch i and patch j gets a
learned bias that depends only on their *offset* (row_j - row_i, col_j - col_i): one table entry per
offset and head, (2G-1)² entries for a G×G grid. Two pairs of patches with the same offset get the same
bias wherever they are on the image, so the model can learn "look one patch to the left" without ever
knowing where "here" is: a bias towards translation equivariance.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from core.nn import seeded


def offset_index(grid_size: int) -> torch.Tensor:
    """(N, N) index into the (2G-1)² table: the entry of the offset from patch i to patch j (raster order)."""
    G = grid_size
    rows, cols = torch.meshgrid(torch.arange(G), torch.arange(G), indexing="ij")
    r, c = rows.flatten(), cols.flatten()  # (N,), (N,)
    dr = r[None, :] - r[:, None] + G - 1  # (N, N) in 0..2G-2
    dc = c[None, :] - c[:, None] + G - 1  # (N, N)
    return dr * (2 * G - 1) + dc  # (N, N)


class RelativePositionBias(nn.Module):
    def __init__(self, grid_size: int, num_heads: int, *, generator: torch.Generator):
        super().__init__()
        if grid_size < 1 or num_heads < 1:
            raise ValueError(f"need grid_size >= 1 and num_heads >= 1, got {grid_size}, {num_heads}")
        self.num_heads = num_heads
        self.table = nn.Parameter(seeded.randn((2 * grid_size - 1) ** 2, num_heads, g=generator) * 0.02)
        self.register_buffer("index", offset_index(grid_size), persistent=False)

    def forward(self) -> torch.Tensor:
        """(H, N, N): the bias each head adds to the score of query patch i and key patch j."""
        N = self.index.shape[0]
        return self.table[self.index.flatten()].reshape(N, N, self.num_heads).permute(2, 0, 1)  # (H, N, N)
