import numpy as np
import pytest
import torch

from core.models.cnn import CNNClassifier
from core.nn import seeded


def cnn(**options):
    return CNNClassifier(1, generator=seeded.generator(0), **options).double()


def test_max_pool_with_circular_padding_is_invariant_to_even_cyclic_shifts():
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    moved = torch.roll(x, shifts=(2, -4), dims=(2, 3))  # even: the 2x2 max pool's grid is kept
    assert torch.allclose(cnn(padding="circular")(x), cnn(padding="circular")(moved), atol=1e-12)
    assert not torch.allclose(cnn()(x), cnn()(moved), atol=1e-6)  # zero padding: the border is seen


def test_a_flatten_head_is_not_shift_invariant_even_with_circular_padding():
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    moved = torch.roll(x, shifts=(2, -4), dims=(2, 3))
    model = cnn(head="flatten", padding="circular")
    assert not torch.allclose(model(x), model(moved), atol=1e-6)
    assert model.fc.in_features == 16 * 8 * 8


def test_the_default_is_the_lessons_cnn_and_bad_options_are_refused():
    a, b = CNNClassifier(1, generator=seeded.generator(4)), CNNClassifier(1, generator=seeded.generator(4), head="max")
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    with pytest.raises(ValueError, match="head='mean'"):
        CNNClassifier(1, generator=seeded.generator(0), head="mean")


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("options", [{}, {"head": "flatten"}, {"padding": "circular", "num_classes": 10}])
def test_the_blur_pool_cnn_has_the_plain_cnns_state_dict_key_for_key(seed, options):
    """MaxBlurPool adds no weight and draws nothing, so every layer keeps its index and its weights."""
    plain = CNNClassifier(1, generator=seeded.generator(seed), **options).state_dict()
    blurred = CNNClassifier(1, generator=seeded.generator(seed), pool="blur", **options).state_dict()
    assert list(blurred) == list(plain)
    assert all(torch.equal(blurred[k], plain[k]) for k in plain)


def digit_batch() -> torch.Tensor:
    """Four 8x8 handwritten digits on 16x16 canvases, in three corners and the middle: lesson 5's images."""
    from core.data.digits import load, place
    images, _ = load()
    canvases = [place(images[i], cx, cy, 16) for i, (cx, cy) in enumerate([(4, 4), (11, 11), (4, 11), (7, 8)])]
    return torch.from_numpy(np.stack(canvases))[:, None]  # (4, 1, 16, 16) float32


@pytest.mark.parametrize("num_classes,shape", [(1, (4,)), (10, (4, 10))])
@pytest.mark.parametrize("nhwc", [False, True])
def test_the_blur_pool_cnn_answers_shapes_and_digits_in_float32(num_classes, shape, nhwc):
    model = CNNClassifier(1, generator=seeded.generator(0), pool="blur", nhwc=nhwc, num_classes=num_classes)
    for x in (torch.rand(4, 1, 16, 16), digit_batch()):
        out = model(x)
        assert out.shape == shape and out.dtype == torch.float32 and torch.isfinite(out).all()
    assert model.feature_maps(digit_batch()).shape == (4, 16, 8, 8)  # the plain CNN's grid: stride 2


def test_the_blur_pool_is_max_at_stride_one_then_a_fixed_blur_at_stride_two():
    model = cnn(pool="blur")
    max_pool, blur = model.conv[2]
    assert max_pool.stride == 1 and blur.stride == 2 and blur.taps == 3 and blur.padding == "reflect"
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in cnn().parameters())
    x = torch.rand(2, 8, 16, 16, dtype=torch.float64)
    torch.testing.assert_close(model.conv[2](x), blur(torch.nn.functional.max_pool2d(x, 2, stride=1)))
    assert not torch.allclose(model.conv[2](x), cnn().conv[2](x))  # not the plain max pool
    with pytest.raises(ValueError, match="pool='avg'"):
        CNNClassifier(1, generator=seeded.generator(0), pool="avg")


def test_the_blur_pool_keeps_the_flatten_heads_grid_at_other_sizes():
    for size in (12, 15, 28):
        model = CNNClassifier(1, generator=seeded.generator(0), pool="blur", head="flatten", img_size=size)
        assert model(torch.rand(2, 1, size, size)).shape == (2,)
