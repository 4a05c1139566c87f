"""The lesson's CNN: two 5x5 conv layers, then a global max pool.

The global max pool is what makes it translation-invariant: the same filters run at every position
and only the strongest response anywhere survives, so a shape moved to an unseen place gives the
same pooled features as long as it stays inside the image.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from core import seeded


class CNNClassifier(nn.Module):
    """conv 5x5 (8) → ReLU → max pool 2 → conv 5x5 (16) → ReLU → global max pool → one logit.

    Layers are created in the lesson's order from ``generator``, so a generator seeded with ``s`` gives
    the weights ``torch.manual_seed(s)`` gives the lesson's model. ``nhwc`` runs the convolutions in
    channels-last memory layout (faster with oneDNN on CPU; same weights).
    """

    def __init__(self, in_chans: int = 1, *, generator: torch.Generator, nhwc: bool = False):
        super().__init__()
        g = generator
        self.nhwc = nhwc
        self.conv = nn.Sequential(
            seeded.conv2d(in_chans, 8, 5, g, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            seeded.conv2d(8, 16, 5, g, padding=2), nn.ReLU(), nn.AdaptiveMaxPool2d(1),
        )
        self.fc = seeded.linear(16, 1, g)
        if nhwc:
            self.conv.to(memory_format=torch.channels_last)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        if self.nhwc:
            x = x.contiguous(memory_format=torch.channels_last)
        features = self.conv(x).flatten(1)  # (B, 16): each channel's strongest response anywhere
        return self.fc(features).squeeze(-1)  # (B,)
