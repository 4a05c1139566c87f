"""Synthetic images for the lessons, and the learner's own picture turned into a tensor.

Every image is float in [0, 1] with shape (C, H, W), so the same patchify code runs on all of them.
"""

from __future__ import annotations

import io
from functools import lru_cache

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


MAX_UPLOAD_PIXELS = 40_000_000  # checked from the header, before anything is decoded
DECODE_SIDE = 256  # an upload is decoded once, at most this many pixels a side; every page size is smaller
UPLOAD_FORMATS = "PNG, JPEG, GIF, BMP, TIFF or WebP"  # what the page's uploader offers (Pillow reads more)


@lru_cache(maxsize=8)
def decode_upload(data: bytes) -> tuple[np.ndarray, tuple[str, ...], tuple[int, int]]:
    """Decode an uploaded file once: a read-only (h, w, 3) float64 array in [0, 1], at most DECODE_SIDE a
    side, notes on what was done to it (frames dropped, transparency flattened, bit depth), and the
    original (width, height).

    The pixel count is checked from the header before decoding, so a small file that would decode to
    gigabytes (a "decompression bomb") is refused with a message, never decoded. Whatever cannot be shown
    raises one ``ValueError``, its reason a clause a sentence can hold ("not a PNG, … image"): the page
    says it and shows its synthetic image instead, the command line names the file with it.
    """
    from PIL import Image  # Pillow ships with streamlit; imported only when used

    try:
        img = Image.open(io.BytesIO(data))
        w, h = img.size
        if w * h > MAX_UPLOAD_PIXELS:
            raise ValueError(f"the image is {w}x{h} = {w * h / 1e6:.0f} megapixels; the limit is "
                             f"{MAX_UPLOAD_PIXELS / 1e6:.0f}: scale it down first")
        notes = [f"{w}x{h} {img.format or ''} image, mode {img.mode}".replace("  ", " ")]
        frames = getattr(img, "n_frames", 1)
        if frames > 1:
            notes.append(f"first frame of {frames} used")
        img.draft("RGB", (DECODE_SIDE, DECODE_SIDE))  # JPEG: decode at a reduced scale where it can
        rgb = _to_rgb_floats(img, notes)
    except ValueError:
        raise
    except Image.DecompressionBombError as exc:  # Pillow's own check, in open(), for the largest ones
        raise ValueError(f"the image is far above the limit of {MAX_UPLOAD_PIXELS / 1e6:.0f} megapixels ({exc}): "
                         "scale it down first") from exc
    except Image.UnidentifiedImageError as exc:  # its message names a BytesIO object: nothing a learner can use
        raise ValueError(f"not a {UPLOAD_FORMATS} image, whatever its name says") from exc
    except Exception as exc:  # Pillow raises many kinds (truncated, unsupported modes): all are bad input
        raise ValueError(f"damaged or cut short ({type(exc).__name__}: {exc})") from exc
    rgb.setflags(write=False)  # shared between sessions through the cache
    return rgb, tuple(notes), (w, h)


def _to_rgb_floats(img, notes: list[str]) -> np.ndarray:
    """Any Pillow mode to (h, w, 3) floats in [0, 1], shrunk to at most DECODE_SIDE a side."""
    from PIL import Image

    if img.mode in ("I", "I;16", "I;16L", "I;16B", "I;16N", "F"):  # 16-bit or float grey
        arr = np.asarray(img.convert("F"), dtype=np.float64)
        top = 65535.0 if arr.max(initial=0) > 255 or img.mode.startswith("I;16") else 255.0
        notes.append(f"{'16-bit' if top > 255 else 'integer'} grey scaled by 1/{top:.0f}")
        arr = np.clip(arr / top, 0, 1)
        return _shrink(np.repeat(arr[..., None], 3, axis=2))
    if img.mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    if img.mode == "CMYK":
        notes.append("CMYK converted to RGB")
    has_alpha = img.mode in ("RGBA", "LA", "PA", "La", "RGBa")
    img = img.convert("RGBA" if has_alpha else "RGB")
    img.thumbnail((DECODE_SIDE, DECODE_SIDE), Image.BILINEAR)
    arr = np.asarray(img, dtype=np.float64) / 255.0
    if has_alpha:
        alpha = arr[..., 3:]
        if (alpha < 1).any():
            notes.append("transparency flattened on black")
        arr = arr[..., :3] * alpha
    return arr


def _shrink(arr: np.ndarray) -> np.ndarray:
    h, w = arr.shape[:2]
    step = max(1, -(-max(h, w) // DECODE_SIDE))
    return arr[::step, ::step]


def image_from_bytes(data: bytes, size: int, channels: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """An uploaded PNG/JPEG/GIF/… as a (C, size, size) float64 image in [0, 1], grey or RGB, and notes
    on what was done to fit it (decoded once per file, see ``decode_upload``)."""
    from PIL import Image

    rgb, notes, (w, h) = decode_upload(data)
    H, W = rgb.shape[:2]
    if H != W:  # the lesson's images are square: keep the central square rather than squash the picture
        m = min(H, W)
        top, left = (H - m) // 2, (W - m) // 2
        rgb = rgb[top:top + m, left:left + m]
        notes = notes + (f"cropped to its central square (it was {w}x{h}, not square; the sides were cut, "
                         "not squashed)",)
    planes = [np.asarray(Image.fromarray(rgb[..., c].astype(np.float32), mode="F").resize((size, size),
                                                                                         Image.BILINEAR))
              for c in range(3)]
    out = np.stack(planes).astype(np.float64)  # (3, size, size)
    resized = f"resized to {size}x{size}"
    if channels == 1:
        out = (0.299 * out[0] + 0.587 * out[1] + 0.114 * out[2])[None]  # ITU-R 601 luma, as Pillow's "L"
        return np.clip(out, 0, 1), notes + (resized, "converted to grey")
    return np.clip(out, 0, 1), notes + (resized,)


def as_batch(image: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """(C, H, W) numpy -> (1, C, H, W) tensor of the given dtype."""
    return torch.from_numpy(np.ascontiguousarray(image)).to(dtype).unsqueeze(0)
