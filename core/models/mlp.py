"""The flatten models: every pixel read by weights of its own. The notebook's other baseline, Lesson 33's
flatten-based MLP, which the lesson says the ViT "stands in for"; and its control without a hidden layer, a
linear classifier of the pixels.

Flatten the image, one hidden layer (the MLP) or none (``LinearPixels``), one logit (or one per class). The first
layer gives every pixel a weight of its own, so nothing in it is shared across positions: a pattern moved to
pixels it never saw in training reaches weights that never learned from it. Lesson 33 itself is not among this
project's sources, so the MLP's width is ours (MLP_HIDDEN), chosen to be about as large as the lesson's CNN
(~4k parameters against ~3.4k).
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.nn import seeded

MLP_HIDDEN = 16


class FlattenMLP(nn.Module):
    """(B, C, H, W) -> flatten -> Linear(C*H*W, MLP_HIDDEN) -> ReLU -> Linear(MLP_HIDDEN, K) -> (B,) or (B, K)."""

    def __init__(self, img_size: int = 16, in_chans: int = 1, hidden: int = MLP_HIDDEN, *, generator: torch.Generator,
                 num_classes: int = 1):
        super().__init__()
        self.fc1 = seeded.linear(in_chans * img_size * img_size, hidden, generator)
        self.fc2 = seeded.linear(hidden, num_classes, generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        h = F.relu(self.fc1(x.reshape(B, C * H * W)))  # (B, hidden)
        return self.fc2(h).squeeze(-1)  # (B,): one logit; or (B, K)


class LinearPixels(nn.Module):
    """(B, C, H, W) -> flatten -> Linear(C*H*W, K) -> (B,) or (B, K): one weight per pixel and class, nothing else.

    A control, not a remedy: each logit is a weighted sum of the pixels, the simplest model that reads each pixel
    with a weight of its own (the MLP is this with a hidden layer before the logits)."""

    def __init__(self, img_size: int = 16, in_chans: int = 1, *, generator: torch.Generator, num_classes: int = 1):
        super().__init__()
        self.fc = seeded.linear(in_chans * img_size * img_size, num_classes, generator)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        return self.fc(x.reshape(B, C * H * W)).squeeze(-1)  # (B,): one logit; or (B, K)
