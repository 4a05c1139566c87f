"""Patch embedding two ways: flatten + one linear map, and a strided convolution.

``Conv2d(C, D, kernel_size=P, stride=P)`` slides a P x P window that never overlaps and applies the
same weights at every stop. Each stop is one patch, and a dot product of its (C, P, P) pixels with
each of the D kernels is exactly ``Linear(C*P*P, D)`` applied to the flattened patch. The weights map
between the two by a reshape: ``conv.weight == linear.weight.view(D, C, P, P)``.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from core.nn import seeded
from core.nn.patchify import check_patch_grid, patchify


class LinearPatchEmbed(nn.Module):
    """Flatten every patch to a row of C*P*P values, then one shared linear map to D features."""

    def __init__(self, patch_size: int, in_chans: int, embed_dim: int, *, generator: torch.Generator):
        super().__init__()
        self.patch_size = patch_size
        self.in_chans = in_chans
        self.proj = seeded.linear(in_chans * patch_size * patch_size, embed_dim, generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = check_patch_grid(x, self.patch_size)
        if C != self.in_chans:
            raise ValueError(f"expected {self.in_chans} input channels, got C={C}")
        return self.proj(patchify(x, self.patch_size))  # (B, N, D)


class ConvPatchEmbed(nn.Module):
    """The usual ViT implementation (as in timm): a Conv2d whose stride equals its kernel size."""

    def __init__(self, patch_size: int, in_chans: int, embed_dim: int, stride: int | None = None, *,
                 generator: torch.Generator):
        super().__init__()
        self.patch_size = patch_size
        self.in_chans = in_chans
        # stride < patch_size makes windows overlap: no longer a patch embedding (the lesson's switch that breaks the equivalence).
        self.proj = seeded.conv2d(in_chans, embed_dim, patch_size, generator, stride=stride or patch_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        if C != self.in_chans:
            raise ValueError(f"expected {self.in_chans} input channels, got C={C}")
        x = self.proj(x)  # (B, D, H', W')
        return x.flatten(2).transpose(1, 2)  # (B, N, D) with N = H' * W', row-major


def conv_weight_from_linear(weight: torch.Tensor, in_chans: int, patch_size: int) -> torch.Tensor:
    """Linear weight (D, C*P*P) -> conv weight (D, C, P, P)."""
    D, K = weight.shape
    if K != in_chans * patch_size * patch_size:
        raise ValueError(
            f"linear weight has {K} inputs but C*P*P = {in_chans}*{patch_size}*{patch_size} = "
            f"{in_chans * patch_size * patch_size}"
        )
    return weight.reshape(D, in_chans, patch_size, patch_size)


def linear_weight_from_conv(weight: torch.Tensor) -> torch.Tensor:
    """Conv weight (D, C, P, P) -> linear weight (D, C*P*P)."""
    if weight.dim() != 4 or weight.shape[2] != weight.shape[3]:
        raise ValueError(f"expected a square conv weight of shape (D, C, P, P), got {tuple(weight.shape)}")
    return weight.flatten(1)


def conv_from_linear(linear: LinearPatchEmbed, stride: int | None = None) -> ConvPatchEmbed:
    """A ConvPatchEmbed that holds exactly the weights of ``linear``."""
    D = linear.proj.out_features
    conv = ConvPatchEmbed(linear.patch_size, linear.in_chans, D, stride=stride,
                          generator=torch.Generator()).to(linear.proj.weight.dtype)  # weights copied below
    with torch.no_grad():
        conv.proj.weight.copy_(conv_weight_from_linear(linear.proj.weight, linear.in_chans, linear.patch_size))
        conv.proj.bias.copy_(linear.proj.bias)
    return conv


def linear_from_conv(conv: ConvPatchEmbed) -> LinearPatchEmbed:
    """A LinearPatchEmbed that holds exactly the weights of ``conv``."""
    if conv.proj.stride != (conv.patch_size, conv.patch_size):
        raise ValueError(f"only a conv with stride == kernel ({conv.patch_size}) is a linear patch map; stride is {conv.proj.stride}")
    D = conv.proj.out_channels
    linear = LinearPatchEmbed(conv.patch_size, conv.in_chans, D,
                              generator=torch.Generator()).to(conv.proj.weight.dtype)  # weights copied below
    with torch.no_grad():
        linear.proj.weight.copy_(linear_weight_from_conv(conv.proj.weight))
        linear.proj.bias.copy_(conv.proj.bias)
    return linear


def compare_embeddings(
    x: torch.Tensor, linear: LinearPatchEmbed, wrong_flatten_order: bool = False, conv_stride: int | None = None
) -> dict:
    """Run both embeddings on ``x`` and measure how far apart they are.

    The two switches break the equivalence on purpose:
    ``wrong_flatten_order`` flattens patches pixels-then-channels (P, P, C) while the conv weight is
    channels-then-pixels; ``conv_stride < patch_size`` makes the conv windows overlap. Returns the two
    token matrices (compared over the tokens both have, in raster order) and the max |difference|.
    """
    conv = conv_from_linear(linear, stride=conv_stride)
    with torch.no_grad():
        if wrong_flatten_order:
            out_linear = linear.proj(patchify(x, linear.patch_size, pixels_first=True))  # (B, N, D)
        else:
            out_linear = linear(x)  # (B, N, D)
        out_conv = conv(x)  # (B, N', D)
    n = min(out_linear.shape[1], out_conv.shape[1])
    diff = (out_linear[:, :n] - out_conv[:, :n]).abs()
    return {
        "linear": out_linear,
        "conv": out_conv,
        "abs_diff": diff,
        "max_abs_diff": diff.max().item(),
        "n_linear_tokens": out_linear.shape[1],
        "n_conv_tokens": out_conv.shape[1],
        "eps": torch.finfo(x.dtype).eps,
    }


def seeded_linear_embed(patch_size: int, in_chans: int, embed_dim: int, seed: int, dtype: torch.dtype) -> LinearPatchEmbed:
    """A LinearPatchEmbed with PyTorch's default init drawn from its own generator (global RNG untouched)."""
    embed = LinearPatchEmbed(patch_size, in_chans, embed_dim, generator=torch.Generator())  # overwritten below
    g = seeded.generator(seed)
    bound = 1.0 / (in_chans * patch_size * patch_size) ** 0.5  # nn.Linear's default range
    with torch.no_grad():
        embed.proj.weight.copy_(torch.empty_like(embed.proj.weight).uniform_(-bound, bound, generator=g))
        embed.proj.bias.copy_(torch.empty_like(embed.proj.bias).uniform_(-bound, bound, generator=g))
    return embed.to(dtype)

