"""Shift equivariance, measured: how much a model's answer, and what it computes on the way, changes when every
test pattern moves by one pixel, or by one patch (P pixels).

Lesson 1 shows that a ViT's patch embedding is a stride-P convolution: moving the image by P pixels moves every
patch to a neighbouring patch's place, so the set of tokens is the same, reordered; lesson 2 shows that without
positions a transformer's output ignores that order. A move by one pixel cuts every pattern into different
patches: new tokens. A convolution with stride 1 is equivariant to every one-pixel move; the CNN's stride-2
pooling keeps that only for even moves, and its global max pool then keeps the strongest response wherever it
is. Forward passes only: a trained run's models answer at once.

The moves are exact: an image moves only where its pattern stays inside the canvas (the columns or rows that
roll around are blank), so the moved image is the same pattern drawn elsewhere.

Shift consistency (Zhang 2019, "Making Convolutional Networks Shift-Invariant Again") asks the same of the answer
alone, one phase at a time: a model that samples its input every s pixels (a ViT's patch, the CNN's stride-2 pool)
sees a move from offset k to k + 1 within that stride differently for each k (the offset: the pattern's centre
coordinate mod s). The share of images whose answer stays the same, per phase, says which moves the model's
sampling turned into new inputs for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

from core.engine.results.run_result import RunResult
from core.inspect.trained_model import class_probabilities, run_data, shared_model, untrained_model
from core.models.registry import spec

AXES = {"x": -1, "y": -2}
CENTRE_COLUMN = {"x": 0, "y": 1}  # where each axis's coordinate sits in a (cx, cy) centre
BATCH = 1024  # images per forward pass: bounds the activations of a large map (lesson 5's digits)


@dataclass(frozen=True)
class ShiftResponse:
    model: str
    seed: int
    trained: bool
    axis: str  # "x" (right) or "y" (down)
    pixels: int  # the move
    images: int  # patterns that fit after the move
    answer_changed: float  # share of those images whose answer (the class given) changed
    p_change: float  # mean |change| of the probability of each image's true class
    inside: float | None  # relative change of what the model computes inside (tokens as a set, or feature maps)
    inside_what: str  # what ``inside`` measured


def movable(images: torch.Tensor, labels: torch.Tensor, axis: str, pixels: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The images whose last ``pixels`` columns (``axis`` "x") or rows ("y") are blank, and their labels: these
    move by ``pixels`` without losing any of their pattern."""
    dim = AXES[axis]
    edge = images.narrow(dim, images.shape[dim] - pixels, pixels)
    keep = edge.flatten(1).abs().sum(1) == 0
    return images[keep], labels[keep]


def moved(images: torch.Tensor, axis: str, pixels: int) -> torch.Tensor:
    return torch.roll(images, pixels, dims=AXES[axis])


def patch_tokens(model: nn.Module, x: torch.Tensor) -> torch.Tensor | None:
    """(B, N, D) the tokens a transformer builds from the image's patches before any position is added; None for
    a model that has none (a CNN, an MLP)."""
    return model.tokens(x) if hasattr(model, "tokens") else None


def token_set_change(a: torch.Tensor, b: torch.Tensor) -> float:
    """How far the tokens of ``b`` are from the *set* of tokens of ``a`` (each to its nearest, in any order),
    relative to the tokens' mean norm: 0 when ``b``'s tokens are ``a``'s, reordered."""
    a, b = a.detach(), b.detach()
    nearest = torch.cdist(b, a).amin(dim=-1)  # (B, N): each of b's tokens to its nearest token of a
    return float(nearest.mean() / a.norm(dim=-1).mean().clamp_min(1e-12))


def feature_change(model: nn.Module, x: torch.Tensor, x_moved: torch.Tensor, axis: str, pixels: int) -> float | None:
    """The CNN's last feature maps (at half resolution, after its stride-2 pool) of the moved image against those
    of the original moved by pixels / 2 (the nearer whole step when odd), where both are defined (the strip that
    moved in from the border is left out), relative to their mean size; None for a model without feature maps."""
    if not hasattr(model, "feature_maps"):
        return None
    f, g = model.feature_maps(x), model.feature_maps(x_moved)  # (B, C, H/2, W/2)
    dim, size = AXES[axis], f.shape[AXES[axis]]

    def error(step: int) -> float:
        return float((g.narrow(dim, step, size - step) - f.narrow(dim, 0, size - step)).abs().mean())

    return min(error(step) for step in {pixels // 2, (pixels + 1) // 2}) / float(f.abs().mean().clamp_min(1e-12))


def shift_response(model: nn.Module, images: torch.Tensor, labels: torch.Tensor, axis: str, pixels: int,
                   model_name: str, seed: int, trained: bool) -> ShiftResponse:
    x, y = movable(images, labels, axis, pixels)
    x_moved = moved(x, axis, pixels)
    with torch.no_grad():
        p, q = class_probabilities(model(x)), class_probabilities(model(x_moved))  # (B, K)
        truth = y.long()
        p_true, q_true = p.gather(1, truth[:, None]), q.gather(1, truth[:, None])
        tokens = patch_tokens(model, x)
        if tokens is not None:
            inside, what = token_set_change(tokens, patch_tokens(model, x_moved)), "patch tokens (as a set)"
        else:
            inside, what = feature_change(model, x, x_moved, axis, pixels), "feature maps"
    return ShiftResponse(model_name, seed, trained, axis, pixels, len(x),
                         float((p.argmax(1) != q.argmax(1)).float().mean()), float((p_true - q_true).abs().mean()),
                         inside, what if inside is not None else "")


def shift_responses(result: RunResult, seed: int, pixels: tuple[int, ...] | None = None) -> list[ShiftResponse]:
    """Every model of ``result`` (trained at ``seed``, and as it started), moved by 1 pixel and by one patch
    along x and y, on the map's images (every class at every centre)."""
    d = result.config.data
    data = run_data(d)  # the run's images, made once and shared
    pixels = pixels or (1, result.config.model.patch_size)
    out = []
    for name in result.config.models:
        if f"{name}/{seed}" not in result.weights:
            continue
        for trained, model in ((True, shared_model(result, name, seed)), (False, untrained_model(result, name, seed))):
            for axis in AXES:
                for n in pixels:
                    out.append(shift_response(model, data.grid_X, data.grid_y, axis, n, name, seed, trained))
    return out


@dataclass(frozen=True)
class ShiftConsistency:
    """One trained model at one seed: how often its answer stays the same when the map's images move by one pixel
    along ``axis`` from offset ``phase`` to the next within its sampling stride."""

    model: str
    seed: int
    axis: str  # "x" (right) or "y" (down)
    stride: int  # s: the model's sampling stride in pixels
    phase: int  # k: the move goes from offset k to k + 1 (mod s), the offset being the centre coordinate mod s
    same: float | None  # share of the pairs whose predicted class is the same before and after; None: no pair
    pairs: int  # map images at that offset whose pattern still fits the canvas after the move


def sampling_stride(result: RunResult, name: str) -> int:
    """The step at which model ``name`` samples its input: a ViT's patch, the CNN's pool (the registry's own)."""
    cfg = result.config
    return spec(name).stride(cfg.model, cfg.data.img_size)


def predicted(model: nn.Module, images: torch.Tensor) -> torch.Tensor:
    """(B,) the class ``model`` gives each image, in batches of ``BATCH``."""
    with torch.no_grad():
        return torch.cat([class_probabilities(model(images[i:i + BATCH])).argmax(dim=1)
                          for i in range(0, len(images), BATCH)]) if len(images) else torch.zeros(0, dtype=torch.long)


def one_pixel_movable(centres: np.ndarray, fits: range, axis: str) -> np.ndarray:
    """(n,) whether each image, its pattern centred at ``centres`` (n, 2) (cx, cy), still fits the canvas moved
    one pixel along ``axis``: its centre plus one is a centre the dataset's patterns fit at."""
    return np.isin(centres[:, CENTRE_COLUMN[axis]] + 1, np.asarray(fits))


def shift_consistency(result: RunResult, seeds: tuple[int, ...] | None = None) -> list[ShiftConsistency]:
    """Every trained model of ``result`` at each of ``seeds`` (default: the run's) with weights kept: on the map's
    images (every class at every centre), the share whose answer is the same after a one-pixel move, for each
    phase of the model's sampling stride, along x and along y."""
    d = result.config.data
    data = run_data(d)  # the run's images, made once and shared
    fits = d.kind.centres(d.img_size)
    out = []
    for name in result.config.models:
        stride = sampling_stride(result, name)
        for seed in seeds if seeds is not None else result.config.train.seeds:
            if f"{name}/{seed}" not in result.weights:
                continue
            model = shared_model(result, name, seed)
            before = predicted(model, data.grid_X)  # (N,)
            for axis in AXES:
                keep = torch.from_numpy(one_pixel_movable(data.grid_centres, fits, axis))  # (N,)
                after = torch.zeros_like(before)
                after[keep] = predicted(model, moved(data.grid_X[keep], axis, 1))
                offset = torch.from_numpy(data.grid_centres[:, CENTRE_COLUMN[axis]] % stride)  # (N,)
                for phase in range(stride):
                    pair = keep & (offset == phase)
                    n = int(pair.sum())
                    same = float((before[pair] == after[pair]).double().mean()) if n else None
                    out.append(ShiftConsistency(name, seed, axis, stride, phase, same, n))
    return out
