"""Patchify: cut an image into non-overlapping P x P patches and flatten each one.

The flatten order inside a patch is channels first, then rows, then columns: (C, P, P). That is the
order in which a ``Conv2d`` stores its weight, ``(out, C, P, P)``, and it is why a strided
convolution and "flatten + one linear map" compute the same numbers (see ``patch_embed.py``).
Patches are numbered row by row over the patch grid, like reading text.
"""

from __future__ import annotations

import torch


def check_patch_grid(x: torch.Tensor, patch_size: int) -> tuple[int, int, int, int]:
    """Validate an image batch against a patch size; return ``(B, C, H, W)``.

    Errors name the offending values, so the message alone says what to fix.
    """
    if x.dim() != 4:
        raise ValueError(f"expected an image batch of shape (B, C, H, W), got rank {x.dim()} shape {tuple(x.shape)}")
    B, C, H, W = x.shape
    check_patch_size(patch_size, H, W)
    return B, C, H, W


def patchify(x: torch.Tensor, patch_size: int, pixels_first: bool = False) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*P*P) with N = (H/P) * (W/P), patches in row-major grid order.

    Each patch is flattened channel by channel, (C, P, P), the order of a Conv2d weight.
    ``pixels_first=True`` flattens it as (P, P, C) instead: each pixel's channels together. That is the
    "wrong" order for a Conv2d weight and is used by the Patchify page's break switch.
    """
    B, C, H, W = check_patch_grid(x, patch_size)
    P = patch_size
    gh, gw = H // P, W // P
    x = x.reshape(B, C, gh, P, gw, P)  # (B, C, gh, P, gw, P): split each axis into (grid, in-patch)
    if pixels_first:
        x = x.permute(0, 2, 4, 3, 5, 1)  # (B, gh, gw, P, P, C)
    else:
        x = x.permute(0, 2, 4, 1, 3, 5)  # (B, gh, gw, C, P, P)
    return x.reshape(B, gh * gw, C * P * P)  # (B, N, C*P*P)


def patchify_unfold(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """The same map as ``patchify`` written with ``F.unfold``, as the lesson and the seed do it."""
    check_patch_grid(x, patch_size)
    cols = torch.nn.functional.unfold(x, kernel_size=patch_size, stride=patch_size)  # (B, C*P*P, N)
    return cols.transpose(1, 2)  # (B, N, C*P*P)


def check_patch_size(patch_size: int, height: int, width: int | None = None) -> None:
    """The one rule of patching, said once: ``patch_size`` is a positive integer dividing the image's sides."""
    width = height if width is None else width
    if isinstance(patch_size, bool) or not isinstance(patch_size, int) or patch_size < 1:
        raise ValueError(f"patch_size must be a positive integer, got {patch_size!r}")
    if height % patch_size or width % patch_size:
        size = f"img_size={height}" if width == height else f"height={height} and width={width}"
        raise ValueError(f"patch_size={patch_size} does not divide {size}; "
                         f"valid patch sizes: {valid_patch_sizes(height, width)}")


def unpatchify(patches: torch.Tensor, patch_size: int, channels: int, height: int, width: int) -> torch.Tensor:
    """Inverse of ``patchify``: (B, N, C*P*P) -> (B, C, H, W)."""
    if patches.dim() != 3:
        raise ValueError(f"expected patches of shape (B, N, C*P*P), got rank {patches.dim()} shape {tuple(patches.shape)}")
    P = patch_size
    check_patch_size(P, height, width)
    B, N, K = patches.shape
    gh, gw = height // P, width // P
    if N != gh * gw or K != channels * P * P:
        raise ValueError(
            f"patches of shape {tuple(patches.shape)} do not fit C={channels}, H={height}, W={width}, P={P}: "
            f"expected N={gh * gw} and C*P*P={channels * P * P}"
        )
    x = patches.reshape(B, gh, gw, channels, P, P)  # (B, gh, gw, C, P, P)
    x = x.permute(0, 3, 1, 4, 2, 5)  # (B, C, gh, P, gw, P)
    return x.reshape(B, channels, height, width)  # (B, C, H, W)


def valid_patch_sizes(height: int, width: int) -> list[int]:
    """Every patch size that divides both sides: the only ones a non-overlapping grid allows."""
    return [p for p in range(1, min(height, width) + 1) if height % p == 0 and width % p == 0]
