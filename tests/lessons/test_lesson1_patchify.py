import io
from dataclasses import replace

import numpy as np
import pytest

from core.data.images import SYNTHETIC_IMAGES
from core.lessons.lesson1_patchify import EXERCISES, PatchifyConfig, run_patchify
from core.nn.patchify import valid_patch_sizes

IMAGE_SIZES = [8, 12, 16, 24, 32, 48, 64]  # what the Patchify page offers


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 1e-5)])
def test_every_offered_setting_is_within_tolerance(dtype, tol):
    worst = 0.0
    for size in IMAGE_SIZES:
        for P in valid_patch_sizes(size, size):
            for image in ("noise", "gradient"):
                r = run_patchify(PatchifyConfig(image=image, img_size=size, in_chans=3, patch_size=P,
                                                embed_dim=64, dtype=dtype))
                worst = max(worst, r.max_abs_diff)
                assert r.roundtrip_max_abs_diff == 0.0
    assert worst <= tol


def test_result_shapes_and_counts():
    r = run_patchify(PatchifyConfig(img_size=16, in_chans=3, patch_size=4, embed_dim=16))
    assert (r.n_patches, r.patch_dim, r.n_tokens_with_cls) == (16, 48, 17)
    assert r.tokens.shape == (16, 48) and r.linear.shape == (16, 16)


@pytest.mark.parametrize("kind", SYNTHETIC_IMAGES)
def test_synthetic_images_are_in_range(kind):
    r = run_patchify(PatchifyConfig(image=kind, img_size=16, in_chans=3))
    assert r.image.shape == (3, 16, 16) and 0 <= r.image.min() and r.image.max() <= 1
    assert r.image.max() > 0


def test_upload_is_resized_and_converted():
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray((np.random.default_rng(0).random((40, 30, 3)) * 255).astype(np.uint8)).save(buf, "PNG")
    r = run_patchify(PatchifyConfig(image="upload", img_size=16, in_chans=1), buf.getvalue())
    assert r.image.shape == (1, 16, 16)
    with pytest.raises(ValueError, match="not a PNG, JPEG"):
        run_patchify(PatchifyConfig(image="upload"), b"not an image")


def test_bad_config_lists_valid_sizes():
    with pytest.raises(ValueError, match=r"patch_size=5 does not divide img_size=16.*\[1, 2, 4, 8, 16\]"):
        run_patchify(PatchifyConfig(patch_size=5))


def test_wrong_order_shows_the_rows_the_linear_map_reads():
    import torch

    from core.data.images import as_batch
    from core.nn.patchify import patchify

    r = run_patchify(PatchifyConfig(wrong_flatten_order=True))
    x = as_batch(r.image, torch.float64)
    assert np.array_equal(r.tokens, patchify(x, 4, pixels_first=True)[0].numpy())
    assert not np.array_equal(r.tokens, patchify(x, 4)[0].numpy())


def test_what_to_notice_follows_the_switches():
    from core.lessons.lesson1_patchify import notes

    plain = notes(run_patchify(PatchifyConfig(dtype="float32")))
    assert "They are the same linear map" in plain[0] and any("Switch to float64" in n for n in plain)
    wrong = notes(run_patchify(PatchifyConfig(in_chans=3, wrong_flatten_order=True)))
    assert any(n.startswith("**Wrong flatten order**") for n in wrong) and "same linear map" not in wrong[0]
    grey = notes(run_patchify(PatchifyConfig(in_chans=1, wrong_flatten_order=True)))
    assert any("With **one channel**" in n for n in grey)
    assert notes(run_patchify(PatchifyConfig(img_size=16, patch_size=4)))[-1].startswith(
        "Patch size 4 turns a 16×16 image into **16** tokens")


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.key)
def test_every_exercise_answer_is_valid_and_explained(ex):
    a = ex.answer()
    assert 0 <= a.correct < len(ex.options) and "**" in a.explanation


def test_the_token_count_answer_counts_the_class_token():
    assert EXERCISES[0].options[EXERCISES[0].answer().correct] == "257"


def test_the_precision_answer_is_the_pages_own_setting():
    """On a setting where float32 is already exact the page shows 0 under both precisions: the answer says so,
    never the lesson's default setting's 1e-07."""
    precision = next(ex for ex in EXERCISES if ex.key == "precision")
    exact = PatchifyConfig(in_chans=1, patch_size=2)
    assert run_patchify(exact).max_abs_diff == 0.0
    answer = precision.answer(exact)
    assert precision.options[answer.correct] == "It does not change" and "exactly 0" in answer.explanation
    rounded = PatchifyConfig(in_chans=3)
    d32 = run_patchify(replace(rounded, dtype="float32")).max_abs_diff  # rounding in float32 on some machines, exactly 0 on others (the same
    answer = precision.answer(rounded)  # GEMM for both): the answer follows this machine's own number either way
    if d32 > 0:
        assert f"{d32:.2e}" in answer.explanation and answer.correct == 2
    else:
        assert precision.options[answer.correct] == "It does not change" and "exactly 0" in answer.explanation
    # a broken embedding on the page (a stride, the wrong order) is not rounding: the question asks about the real one
    for broken in (PatchifyConfig(conv_stride=2), PatchifyConfig(in_chans=3, wrong_flatten_order=True)):
        assert precision.answer(broken) == answer
    grey = next(ex for ex in EXERCISES if ex.key == "grey-order")
    assert grey.answer(PatchifyConfig(conv_stride=2)).correct == 1  # the stride's jump is not the flatten order's
