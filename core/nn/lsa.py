"""Locality self-attention (LSA; Lee, Lee & Song 2021, arXiv:2112.13492).

Two changes to the scores: the diagonal is masked (a token may not attend to itself, so attention has
to look at the others), and the softmax temperature is learned instead of fixed at sqrt(head_dim), so a
layer can make its attention sharper (more local) than the fixed scale allows.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def diagonal_mask(num_tokens: int) -> torch.Tensor:
    """(1, T, T): -inf on the diagonal, 0 elsewhere; added to the scores it removes self-attention."""
    return torch.zeros(num_tokens, num_tokens).fill_diagonal_(float("-inf")).unsqueeze(0)


class LearnedTemperature(nn.Module):
    """The scale the scores are multiplied by, 1/temperature, starting at the usual 1/sqrt(head_dim)."""

    def __init__(self, head_dim: int):
        super().__init__()
        self.log_scale = nn.Parameter(torch.tensor(-0.5 * math.log(head_dim)))

    def forward(self) -> torch.Tensor:
        return self.log_scale.exp()
