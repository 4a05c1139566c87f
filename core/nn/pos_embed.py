"""Fixed sinusoidal position tables.

Attention treats its input as a *set*: nothing in it knows which token came first. A position table
added to the tokens is the only place where patch location enters a ViT (learned tables are plain
``nn.Parameter``s of the models themselves: ``core/models/postnorm_vit.py``, ``prenorm_vit.py``).
"""

from __future__ import annotations

import torch


def sincos_1d(num_tokens: int, dim: int) -> torch.Tensor:
    """The lesson's 1-D table, (num_tokens, dim), float32, computed exactly as the notebook does.

    Even columns are sin, odd columns cos, of ``pos / 10000^(2*(i//2)/dim)``. The class token takes
    position 0 and patch k position k+1: the table knows the raster index, not the 2-D place.
    """
    if num_tokens < 1 or dim < 1:
        raise ValueError(f"need num_tokens >= 1 and dim >= 1, got num_tokens={num_tokens}, dim={dim}")
    pos = torch.arange(num_tokens).unsqueeze(1).float()  # (T, 1)
    i = torch.arange(dim).unsqueeze(0).float()  # (1, D)
    angles = pos * (1.0 / (10000 ** (2 * (i // 2) / dim)))  # (T, D)
    table = torch.zeros(num_tokens, dim)
    table[:, 0::2] = torch.sin(angles[:, 0::2])
    table[:, 1::2] = torch.cos(angles[:, 1::2])
    return table


def _sincos_axis(positions: torch.Tensor, dim: int) -> torch.Tensor:
    """(L,) positions -> (L, dim): dim/2 sines then dim/2 cosines (the MAE / timm 2-D convention)."""
    omega = 1.0 / 10000 ** (torch.arange(dim // 2, dtype=torch.float64) / (dim / 2))  # (dim/2,)
    angles = positions.to(torch.float64)[:, None] * omega[None]  # (L, dim/2)
    return torch.cat([angles.sin(), angles.cos()], dim=1)  # (L, dim)


def check_sincos2d(embed_dim: int) -> None:
    """The one rule of the 2-D table, said once: a quarter of the width per axis and per sin/cos."""
    if embed_dim % 4:
        raise ValueError(f"a 2-D sin-cos table (pos_embed='sincos2d') needs embed_dim divisible by 4, got {embed_dim}")


def sincos_2d(grid_size: int, dim: int, class_token: bool = True) -> torch.Tensor:
    """A 2-D table, (grid_size**2 [+1], dim), float64: half the features encode the row, half the column.

    Unlike the 1-D table, patches that are neighbours on the image are neighbours in the table. The
    class token, which has no place, gets a row of zeros.
    """
    check_sincos2d(dim)
    rows, cols = torch.meshgrid(torch.arange(grid_size), torch.arange(grid_size), indexing="ij")
    table = torch.cat([_sincos_axis(rows.flatten(), dim // 2), _sincos_axis(cols.flatten(), dim // 2)], dim=1)
    if class_token:
        table = torch.cat([torch.zeros(1, dim, dtype=table.dtype), table])  # (1 + N, D)
    return table
