"""Random-shift augmentation: the invariance comes from the data, not from the architecture.

Every training step moves every image by its own random whole-pixel offset (dx, dy), filling the
uncovered border with zeros (the background). The model then *sees* shapes at positions the training
set never held, which is why it can generalize there: on the lesson's split, shifts of up to 2 pixels
carry training centres 5..10 to 3..12, over the test centres 3..4. It is a module, so it travels with
the model through the registry; in evaluation mode it does nothing.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class RandomShift(nn.Module):
    def __init__(self, max_shift: int, *, generator: torch.Generator):
        super().__init__()
        if max_shift < 0:
            raise ValueError(f"max_shift must be >= 0, got {max_shift}")
        self.max_shift = max_shift
        self.generator = generator  # its own stream: the draws never touch torch's global RNG

    def offsets(self, batch: int) -> torch.Tensor:
        """(batch, 2) offsets (dx, dy), each uniform in -max_shift..max_shift."""
        s = self.max_shift
        return torch.randint(-s, s + 1, (batch, 2), generator=self.generator)

    def forward(self, x: torch.Tensor, offsets: torch.Tensor | None = None) -> torch.Tensor:
        B, C, H, W = x.shape
        if not self.training or self.max_shift == 0:
            return x
        s = self.max_shift
        offsets = self.offsets(B) if offsets is None else offsets  # (B, 2): (dx, dy)
        padded = F.pad(x, (s, s, s, s))  # (B, C, H + 2s, W + 2s), zeros around
        # output pixel (i, j) is input pixel (i - dy, j - dx): row i - dy + s of the padded image
        rows = torch.arange(H)[None] + s - offsets[:, 1:2]  # (B, H)
        cols = torch.arange(W)[None] + s - offsets[:, 0:1]  # (B, W)
        b = torch.arange(B)[:, None, None, None]
        c = torch.arange(C)[None, :, None, None]
        return padded[b, c, rows[:, None, :, None], cols[:, None, None, :]]  # (B, C, H, W)
