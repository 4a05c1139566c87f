"""Uploads: bombs refused before decoding, every mode converted correctly, and the page told what was done."""

import io

import numpy as np
import pytest
from PIL import Image

from core.data.images import MAX_UPLOAD_PIXELS, decode_upload, image_from_bytes


def encode(img: Image.Image, fmt: str = "PNG", **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def test_a_decompression_bomb_is_refused_from_its_header():
    side = int(MAX_UPLOAD_PIXELS**0.5) + 100
    data = encode(Image.new("1", (side, side)))  # a few KB that would decode to tens of megapixels
    assert len(data) < 100_000
    with pytest.raises(ValueError, match=r"megapixels; the limit is 40"):
        image_from_bytes(data, 16, 3)
    huge = encode(Image.new("1", (14000, 14000)))  # beyond Pillow's own bomb limit too
    with pytest.raises(ValueError, match="megapixels"):
        image_from_bytes(huge, 16, 3)


def test_garbage_and_truncated_files_are_one_line_errors():
    good = encode(Image.new("RGB", (64, 64), "red"))
    for data, why in ((b"not an image", "^not a PNG, JPEG, GIF, BMP, TIFF or WebP image, whatever its name says$"),
                      (good[: len(good) // 2], r"^damaged or cut short \(")):
        with pytest.raises(ValueError, match=why) as err:  # a clause the page's sentence holds: no BytesIO named
            image_from_bytes(data, 16, 3)
        assert "\n" not in str(err.value) and "BytesIO" not in str(err.value)


def test_16_bit_grey_keeps_its_levels():
    ramp = np.linspace(0, 65535, 64 * 64).reshape(64, 64).astype(np.uint16)
    image, notes = image_from_bytes(encode(Image.fromarray(ramp)), 16, 1)
    assert len(np.unique(np.round(image, 3))) > 100  # not crushed to a handful of grey levels
    assert image.min() < 0.05 and image.max() > 0.95 and any("16-bit" in n for n in notes)


def test_transparency_is_flattened_on_black_and_said():
    rgba = Image.new("RGBA", (32, 32), (255, 255, 255, 0))
    rgba.paste((255, 255, 255, 255), (0, 0, 16, 32))
    image, notes = image_from_bytes(encode(rgba), 16, 3)
    assert image[:, :, :6].min() > 0.99 and image[:, :, 10:].max() < 0.01
    assert "transparency flattened on black" in notes


def test_palette_cmyk_and_animation():
    pal = Image.new("RGB", (20, 20), (0, 0, 255)).convert("P")
    image, _ = image_from_bytes(encode(pal), 8, 3)
    assert image[2].min() > 0.9 and image[0].max() < 0.1
    cmyk = Image.new("CMYK", (20, 20), (0, 255, 255, 0))  # red
    image, notes = image_from_bytes(encode(cmyk, "JPEG"), 8, 3)
    assert image[0].min() > 0.8 and "CMYK converted to RGB" in notes
    frames = [Image.new("L", (10, 10), v) for v in (0, 128, 255)]
    gif = io.BytesIO()
    frames[0].save(gif, "GIF", save_all=True, append_images=frames[1:])
    image, notes = image_from_bytes(gif.getvalue(), 8, 1)
    assert "first frame of 3 used" in notes and image.max() < 0.05


def test_decoded_once_at_reduced_size_and_aspect_change_said():
    data = encode(Image.new("RGB", (2000, 1000), "white"))
    decode_upload.cache_clear()
    image_from_bytes(data, 16, 3)
    image_from_bytes(data, 32, 1)
    assert decode_upload.cache_info().misses == 1
    rgb, _, size = decode_upload(data)
    assert max(rgb.shape[:2]) <= 256 and size == (2000, 1000)
    _, notes = image_from_bytes(data, 16, 3)
    assert any("cropped to its central square (it was 2000x1000" in n for n in notes)


def test_a_wide_upload_is_cropped_to_its_centre_not_squashed():
    img = Image.new("RGB", (400, 200), "black")
    img.paste(Image.new("RGB", (200, 200), "white"), (100, 0))  # the central square is white, the sides black
    image, _ = image_from_bytes(encode(img), 16, 1)
    assert image.min() > 0.99  # squashing would have pulled the black sides in
