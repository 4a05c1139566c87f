"""Seeded weights without the global random number generator.

``torch.manual_seed(s)`` followed by building a model is how the lesson and the seed module fix their
weights, but it seeds *one process-wide generator*: on a server where every visitor's session is a
thread, two sessions building models at once interleave their draws and each gets some of the other's
numbers. Here every draw comes from a ``torch.Generator`` owned by the one build that uses it.

Layers are created on the ``meta`` device (no numbers, so no draw from the global generator), given
real, empty parameters of the same shapes, then initialised exactly as PyTorch's own ``reset_parameters`` would, with the same
functions in the same order but drawing from the given generator. A CPU generator seeded with ``s``
yields the same stream as ``torch.manual_seed(s)``, so a model built here holds bit for bit the weights
the lesson's ``manual_seed`` + constructor gives (``tests/nn/test_seeded.py`` checks every model).
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn


def generator(seed: int) -> torch.Generator:
    """A CPU generator in the state ``torch.manual_seed(seed)`` would put the global one in."""
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed must be in 0..2**63-1, got {seed}")
    return torch.Generator().manual_seed(seed)


def _reset_(layer: nn.Linear | nn.Conv2d, g: torch.Generator) -> None:
    """``nn.Linear.reset_parameters`` / ``_ConvNd.reset_parameters``, drawing from ``g``."""
    with torch.no_grad():
        nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=g)
        if layer.bias is not None:
            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(layer.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            nn.init.uniform_(layer.bias, -bound, bound, generator=g)


def _materialize(layer: nn.Module) -> nn.Module:
    """Give a layer built on the ``meta`` device empty CPU parameters of the same shapes. Not
    ``Module.to_empty``: its first call imports sympy (via ``empty_like``'s meta decomposition) in every
    fresh worker process (docs/performance.md)."""
    for name, p in list(layer.named_parameters(recurse=False)):
        setattr(layer, name, nn.Parameter(torch.empty(p.shape, dtype=p.dtype), requires_grad=p.requires_grad))
    return layer


def linear(in_features: int, out_features: int, g: torch.Generator, bias: bool = True) -> nn.Linear:
    """``nn.Linear(in_features, out_features)`` with its default initialisation drawn from ``g``."""
    layer = _materialize(nn.Linear(in_features, out_features, bias=bias, device="meta"))
    _reset_(layer, g)
    return layer


def conv2d(in_channels: int, out_channels: int, kernel_size: int, g: torch.Generator, stride: int = 1,
           padding: int = 0) -> nn.Conv2d:
    """``nn.Conv2d(...)`` with its default initialisation drawn from ``g``."""
    layer = _materialize(nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                                   device="meta"))
    _reset_(layer, g)
    return layer


def randn(*shape: int, g: torch.Generator) -> torch.Tensor:
    """``torch.randn(*shape)`` drawn from ``g``."""
    return torch.randn(*shape, generator=g)


def xavier_uniform_(tensor: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """``nn.init.xavier_uniform_`` drawn from ``g``."""
    return nn.init.xavier_uniform_(tensor, generator=g)
