"""A fixed binomial blur: the low-pass filter that anti-aliasing puts before a strided sampling.

Sampling an image (or a feature map) every ``s`` pixels keeps only one position in ``s``: a pattern moved by
part of the stride lands between the samples and is seen differently, because frequencies above the new
Nyquist limit fold back onto lower ones (aliasing; Azulay & Weiss 2019). Blurring first removes most of those
frequencies, so what is sampled changes more smoothly with a move (Zhang 2019, "Making Convolutional Networks
Shift-Invariant Again": his BlurPool).

The filter is a row of Pascal's triangle ([1, 2, 1], [1, 4, 6, 4, 1], ...) normalised to sum 1, applied along
rows and then columns (their outer product, one 2-D kernel), to each channel on its own (depthwise). It has
**no weights**: the kernel is a non-persistent buffer, so a model with a blur has exactly the ``state_dict`` of
its twin without one, and the blur draws nothing from a generator.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

import torch
import torch.nn as nn
import torch.nn.functional as F

BlurPadding = Literal["zeros", "reflect"]


def binomial(taps: int) -> torch.Tensor:
    """(taps,) row ``taps - 1`` of Pascal's triangle, normalised to sum 1: [1, 2, 1] / 4 for 3 taps."""
    if taps < 1:
        raise ValueError(f"a binomial filter needs at least 1 tap, got taps={taps}")
    row = torch.tensor([math.comb(taps - 1, k) for k in range(taps)], dtype=torch.float64)
    return (row / row.sum()).float()


class Blur(nn.Module):
    """(B, C, H, W) -> (B, C, ceil(H / stride), ceil(W / stride)): each channel blurred by the ``taps``-tap 2-D
    binomial filter, then sampled every ``stride`` pixels. At stride 1 the size is kept.

    The border is padded by about ``taps // 2`` pixels, and how is the caller's choice, because the right one depends
    on what lies beyond the border:

    - ``"zeros"``, for an image on a black background (the lesson's): zeros *are* what lies beyond the canvas,
      so blurring a shape then moving it equals moving it then blurring, as long as it stays on the canvas.
      Reflecting would mirror a shape that touches the border (the lesson's test centres 3..4 do) into a
      ghost beyond it, brightening the border at exactly the positions the lesson tests.
    - ``"reflect"``, for a feature map, whose background is not zero (a ReLU of a bias): zeros would dim
      every pixel within ``taps // 2`` of the border, a border cue of the blur's own (the next layer could tell
      where the border is; Kayhan & van Gemert 2020); reflected pixels keep a constant map constant. Zhang's
      own BlurPool pads this way.

    An even tap count has no centre pixel: its extra pad goes right and below (as in Zhang's code), so the
    picture moves half a pixel up and left.
    """

    def __init__(self, channels: int, taps: int, stride: int = 1, padding: BlurPadding = "zeros"):
        super().__init__()
        if channels < 1 or stride < 1 or padding not in get_args(BlurPadding):
            raise ValueError(f"need channels >= 1, stride >= 1 and padding in {get_args(BlurPadding)}, got "
                             f"channels={channels}, stride={stride}, padding={padding!r}")
        self.channels, self.taps, self.stride, self.padding = channels, taps, stride, padding
        row = binomial(taps)
        kernel = torch.outer(row, row).expand(channels, 1, taps, taps).contiguous()  # (C, 1, k, k): one per channel
        # not persistent: no weight in the state_dict, and nothing to train
        self.register_buffer("kernel", kernel, persistent=False)
        self.pad = ((taps - 1) // 2, taps // 2) * 2  # (left, right, top, bottom), for F.pad

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, C, H, W = x.shape
        if C != self.channels:
            raise ValueError(f"this blur filters {self.channels} channels, got an input of shape {tuple(x.shape)}")
        mode = "constant" if self.padding == "zeros" else "reflect"
        x = F.pad(x, self.pad, mode=mode)  # (B, C, H + k - 1, W + k - 1)
        return F.conv2d(x, self.kernel, stride=self.stride, groups=C)  # (B, C, ceil(H / s), ceil(W / s))
