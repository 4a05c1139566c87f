import pytest
import torch

from core.nn import seeded
from core.nn.augment import RandomShift


def test_training_mode_moves_each_image_by_its_offset_with_zeros_coming_in():
    x = torch.zeros(2, 1, 8, 8)
    x[:, 0, 3, 4] = 1.0  # one bright pixel at row 3, column 4
    aug = RandomShift(2, generator=seeded.generator(0))
    out = aug(x, offsets=torch.tensor([[2, -1], [-2, 2]]))  # (dx, dy)
    assert out[0, 0, 2, 6] == 1 and out[0].sum() == 1  # right 2, up 1
    assert out[1, 0, 5, 2] == 1 and out[1].sum() == 1  # left 2, down 2
    edge = torch.ones(1, 1, 4, 4)
    assert aug(edge, offsets=torch.tensor([[1, 0]]))[0, 0, :, 0].eq(0).all()  # the uncovered column is zero


def test_evaluation_mode_and_zero_shift_do_nothing():
    x = torch.rand(3, 1, 8, 8)
    aug = RandomShift(2, generator=seeded.generator(0)).eval()
    assert torch.equal(aug(x), x)
    assert torch.equal(RandomShift(0, generator=seeded.generator(0))(x), x)


def test_offsets_come_from_its_own_generator_not_the_global_one():
    torch.manual_seed(123)
    state = torch.get_rng_state()
    a = RandomShift(3, generator=seeded.generator(5)).offsets(100)
    b = RandomShift(3, generator=seeded.generator(5)).offsets(100)
    assert torch.equal(a, b) and a.abs().max() == 3 and a.min() == -3
    assert torch.equal(torch.get_rng_state(), state)


def test_negative_shift_is_refused():
    with pytest.raises(ValueError, match="max_shift must be >= 0, got -1"):
        RandomShift(-1, generator=seeded.generator(0))
