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
