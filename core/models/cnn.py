"""The lesson's CNN: two 5x5 conv layers, then a global max pool; and the variants that show why.

The same filters run at every position and the global max pool keeps only the strongest response anywhere,
so a shape moved to an unseen place gives nearly the same pooled features. Nearly: the stride-2 max pool
makes the features equivariant only to even shifts, and zero padding lets filters tell where the border is,
so the CNN is not invariant to every shift by construction (Azulay & Weiss 2019; Biscione & Bowers 2021).
Lesson 4 changes exactly these parts:
``head="avg"`` (global average pool), ``head="flatten"`` (every position's features into one linear
layer: the head now knows *where* a feature fired), ``padding="circular"`` (zero padding lets
filters at the border tell where the border is; circular padding has no border, Kayhan & van Gemert 2020),
and ``pool="blur"`` (Zhang 2019's MaxBlurPool: the max taken at stride 1, then a fixed [1, 2, 1] blur before
the stride-2 subsampling, so a move by one pixel changes what is sampled less; ``core.nn.blur``).
"""

from __future__ import annotations

from typing import Literal, get_args

import torch
import torch.nn as nn

from core.nn import seeded
from core.nn.blur import Blur

CNNHead = Literal["max", "avg", "flatten"]
CNNPadding = Literal["zeros", "circular"]
CNNPool = Literal["max", "blur"]
POOL_STRIDE = 2  # the one subsampling of the lesson's CNN: its features sit on a grid of this step


class CNNClassifier(nn.Module):
    """conv 5x5 (8) → ReLU → max pool 2 → conv 5x5 (16) → ReLU → global max pool → one logit (or
    ``num_classes``). With ``pool="blur"`` the max pool 2 is max 2x2 at stride 1 → blur [1, 2, 1]² at stride 2.

    Layers are created in the lesson's order from ``generator``, so a generator seeded with ``s`` gives
    the weights ``torch.manual_seed(s)`` gives the lesson's model. ``nhwc`` runs the convolutions in
    channels-last memory layout (faster with oneDNN on CPU; same weights).
    """

    def __init__(self, in_chans: int = 1, *, generator: torch.Generator, nhwc: bool = False, head: CNNHead = "max",
                 padding: CNNPadding = "zeros", pool: CNNPool = "max", img_size: int = 16, num_classes: int = 1):
        super().__init__()
        if head not in get_args(CNNHead) or padding not in get_args(CNNPadding) or pool not in get_args(CNNPool):
            raise ValueError(f"head must be one of {get_args(CNNHead)}, padding one of {get_args(CNNPadding)} and "
                             f"pool one of {get_args(CNNPool)}, got head={head!r}, padding={padding!r}, pool={pool!r}")
        g = generator
        self.nhwc = nhwc
        conv1, conv2 = seeded.conv2d(in_chans, 8, 5, g, padding=2), seeded.conv2d(8, 16, 5, g, padding=2)
        for conv in (conv1, conv2):
            conv.padding_mode = padding
        # MaxBlurPool has no weights (the blur is fixed), so both pools leave the layers' indices and weights alike
        subsample = nn.MaxPool2d(POOL_STRIDE) if pool == "max" else nn.Sequential(
            nn.MaxPool2d(POOL_STRIDE, stride=1),  # (B, 8, H-1, W-1): the max, at every position
            Blur(8, 3, stride=POOL_STRIDE, padding="reflect"))  # (B, 8, H/2, W/2): low-passed, then subsampled
        head_pool = {"max": nn.AdaptiveMaxPool2d(1), "avg": nn.AdaptiveAvgPool2d(1), "flatten": nn.Identity()}[head]
        self.conv = nn.Sequential(conv1, nn.ReLU(), subsample, conv2, nn.ReLU(), head_pool)
        # the flatten head sees every position of the (16, H/2, W/2) map
        self.fc = seeded.linear(16 * (img_size // POOL_STRIDE) ** 2 if head == "flatten" else 16, num_classes, g)
        if nhwc:
            self.conv.to(memory_format=torch.channels_last)

    def feature_maps(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 16, H/2, W/2): the last convolution's responses, before the head pools (or flattens) them."""
        if self.nhwc:
            x = x.contiguous(memory_format=torch.channels_last)
        return self.conv[:-1](x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        features = self.conv[-1](self.feature_maps(x)).flatten(1)  # (B, 16): each channel's strongest response
        # anywhere (max head), its mean (avg head), or every position's (flatten head: (B, 16 * H/2 * W/2))
        return self.fc(features).squeeze(-1)  # (B,), or (B, K) for K classes
