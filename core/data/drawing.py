"""A learner's own input: a drawing on the run's canvas, as the models see it (float pixels in 0..1, grey levels
of 1/16 as the digits have), moved by whole pixels, placed by its centre of mass, and written compactly for a
link or read from text.

A drawing's text form (the command line's ``--image``) is one row per line, ``.`` or ``0`` for empty, ``#`` for
full ink, ``1``-``9`` for levels in between; rows may also be separated by ``/`` on one line.
"""

from __future__ import annotations

import base64
import zlib

import numpy as np

LEVELS = 16  # grey levels: a pixel is k/16, as the digits' counts 0..16
INK = {".": 0, "0": 0, "#": LEVELS, **{str(k): round(k * LEVELS / 10) for k in range(1, 10)}}


def check(drawing: np.ndarray, size: int | None = None) -> np.ndarray:
    """``drawing`` as a (size, size) float32 array of levels k/16, refusing what is not one."""
    d = np.asarray(drawing, dtype=np.float32)
    if d.ndim != 2 or d.shape[0] != d.shape[1] or (size is not None and d.shape[0] != size):
        want = f"{size}x{size}" if size else "square"
        raise ValueError(f"a drawing must be a {want} grid of pixels, got shape {tuple(d.shape)}")
    if not np.isfinite(d).all() or d.min() < 0 or d.max() > 1:
        raise ValueError(f"a drawing's pixels must be in 0..1, got {float(np.nanmin(d))}..{float(np.nanmax(d))}")
    return np.round(d * LEVELS).astype(np.float32) / LEVELS


def encode(drawing: np.ndarray) -> str:
    """A short, URL-safe text for a drawing: its side, then its levels (one byte each) zlib-compressed in base64.
    A sparse 16x16 drawing takes a few dozen characters."""
    d = check(drawing)
    levels = np.round(d * LEVELS).astype(np.uint8)
    packed = base64.urlsafe_b64encode(zlib.compress(levels.tobytes(), 9)).decode().rstrip("=")
    return f"{d.shape[0]}-{packed}"


def decode(text: str, size: int) -> np.ndarray:
    """The drawing ``encode`` wrote, for a canvas of ``size``; a bad or foreign text raises ValueError."""
    side, _, packed = text.partition("-")
    if side != str(size):
        raise ValueError(f"this drawing is for a {side}x{side} canvas, not {size}x{size}")
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)), bufsize=size * size)
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"not a drawing: {exc}") from None
    levels = np.frombuffer(raw, dtype=np.uint8)
    if levels.size != size * size or levels.max(initial=0) > LEVELS:
        raise ValueError(f"not a drawing for a {size}x{size} canvas ({levels.size} pixels)")
    return levels.reshape(size, size).astype(np.float32) / LEVELS


def from_text(text: str, size: int) -> np.ndarray:
    """A drawing from its text form (see the module's docstring); it must be ``size`` rows of ``size`` pixels."""
    rows = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
    bad = sorted({ch for r in rows for ch in r if ch not in INK})
    if bad:
        raise ValueError(f"a drawing is written with . # and 0-9 only, got {''.join(bad)!r}")
    if len(rows) != size or any(len(r) != size for r in rows):
        raise ValueError(f"a drawing for this run is {size} rows of {size} pixels, got {len(rows)} rows of "
                         f"{sorted({len(r) for r in rows})} pixels")
    return np.array([[INK[ch] for ch in r] for r in rows], dtype=np.float32) / LEVELS


def to_text(drawing: np.ndarray) -> str:
    """The text form of a drawing (levels rounded to the nearest the text can say)."""
    d = check(drawing)
    marks = {0: "."} | {k: str(k) for k in range(1, 10)} | {10: "#"}
    return "\n".join("".join(marks[int(round(v * 10))] for v in row) for row in d)


def centre_of_mass(drawing: np.ndarray) -> tuple[int, int] | None:
    """(cx, cy): where the ink is on average, rounded to a pixel; None for an empty drawing."""
    d = np.asarray(drawing, dtype=np.float64)
    total = d.sum()
    if total <= 0:
        return None
    ys, xs = np.mgrid[0:d.shape[0], 0:d.shape[1]]
    return int(np.floor((xs * d).sum() / total + 0.5)), int(np.floor((ys * d).sum() / total + 0.5))


def offsets(drawing: np.ndarray) -> tuple[range, range]:
    """Every (dx, dy) by which the drawing moves and keeps all its ink on the canvas."""
    d = np.asarray(drawing)
    rows, cols = np.nonzero(d)
    if not len(rows):
        return range(0, 1), range(0, 1)
    n = d.shape[0]
    return range(-cols.min(), n - cols.max()), range(-rows.min(), n - rows.max())


def shift(drawing: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """The drawing moved ``dx`` pixels right and ``dy`` down; ink moved off the canvas is refused."""
    xs, ys = offsets(drawing)
    if dx not in xs or dy not in ys:
        raise ValueError(f"moving this drawing by ({dx}, {dy}) would push ink off the canvas: it moves by "
                         f"{xs.start}..{xs.stop - 1} across and {ys.start}..{ys.stop - 1} down")
    return np.roll(np.asarray(drawing, dtype=np.float32), (dy, dx), axis=(0, 1))
