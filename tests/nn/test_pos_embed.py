import pytest
import torch

from core.nn.pos_embed import sincos_1d, sincos_2d


def test_sincos_1d_matches_the_lesson_formula():
    T, D = 17, 32
    table = sincos_1d(T, D)
    assert table.shape == (T, D) and table.dtype == torch.float32
    assert torch.equal(table[0, 0::2], torch.zeros(D // 2)) and torch.equal(table[0, 1::2], torch.ones(D // 2))
    assert abs(table[3, 2].item() - torch.sin(torch.tensor(3.0) / 10000 ** (2 / 32)).item()) < 1e-6


def test_sincos_2d_neighbours_are_close_and_class_row_is_zero():
    table = sincos_2d(4, 16)
    assert table.shape == (17, 16) and torch.equal(table[0], torch.zeros(16, dtype=table.dtype))
    d_neighbour = (table[1] - table[2]).norm()
    d_far = (table[1] - table[16]).norm()
    assert d_neighbour < d_far


def test_sincos_2d_needs_dim_divisible_by_4():
    with pytest.raises(ValueError, match="embed_dim divisible by 4, got 6"):
        sincos_2d(4, 6)
