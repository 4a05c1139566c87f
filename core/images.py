"""Synthetic images for the lessons, and the learner's own picture turned into a tensor.

Every image is float in [0, 1] with shape (C, H, W), so the same patchify code runs on all of them.
"""

from __future__ import annotations

import io

import numpy as np
import torch

SYNTHETIC_IMAGES = ("plus", "circle", "bright patch", "gradient", "checkerboard", "noise")


def synthetic_image(kind: str, size: int, channels: int, patch_size: int = 4, seed: int = 0) -> np.ndarray:
    """A (C, size, size) float64 image. ``patch_size`` places the bright patch and sizes the checkers."""
    if kind not in SYNTHETIC_IMAGES:
        raise ValueError(f"unknown image kind {kind!r}; choose one of {SYNTHETIC_IMAGES}")
    if size < 2 or channels not in (1, 3):
        raise ValueError(f"need size >= 2 and channels in (1, 3), got size={size}, channels={channels}")
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2
    r = size / 5
    if kind == "plus":
        arm, half = max(size // 16, 1), max(size // 4, 1)
        img = (((abs(yy - c) <= arm) & (abs(xx - c) <= half)) | ((abs(xx - c) <= arm) & (abs(yy - c) <= half)))
        gray = img.astype(np.float64)
    elif kind == "circle":
        gray = (((xx - c) ** 2 + (yy - c) ** 2) <= r * r).astype(np.float64)
    elif kind == "bright patch":
        gray = np.zeros((size, size))
        row = col = min(1, size // patch_size - 1)  # the second patch on the diagonal, if there is one
        gray[row * patch_size : (row + 1) * patch_size, col * patch_size : (col + 1) * patch_size] = 1.0
    elif kind == "gradient":
        gray = (xx + yy) / max(2 * (size - 1), 1)
    elif kind == "checkerboard":
        gray = (((yy // patch_size) + (xx // patch_size)) % 2).astype(np.float64)
    else:  # noise
        return np.random.default_rng(seed).random((channels, size, size))
    if channels == 1:
        return gray[None]
    # Give colour images distinct channels, so that the flatten order of channels matters.
    return np.stack([gray, gray[::-1, :] * 0.8, gray[:, ::-1] * 0.6])


def image_from_bytes(data: bytes, size: int, channels: int) -> np.ndarray:
    """Decode a PNG/JPEG, convert to grey or RGB, resize to size x size; (C, size, size) in [0, 1]."""
    from PIL import Image, UnidentifiedImageError  # Pillow ships with streamlit; imported only when used

    try:
        img = Image.open(io.BytesIO(data))
        img = img.convert("L" if channels == 1 else "RGB").resize((size, size), Image.BILINEAR)
    except (UnidentifiedImageError, OSError) as exc:
        raise ValueError(f"could not read the uploaded file as an image ({len(data)} bytes): {exc}") from exc
    arr = np.asarray(img, dtype=np.float64) / 255.0
    return arr[None] if channels == 1 else arr.transpose(2, 0, 1)


def as_batch(image: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """(C, H, W) numpy -> (1, C, H, W) tensor of the given dtype."""
    return torch.from_numpy(np.ascontiguousarray(image)).to(dtype).unsqueeze(0)
