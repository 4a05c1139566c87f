import torch

from core.nn import seeded
from core.nn.spt import ShiftedPatchTokens, shift


def test_shift_moves_content_with_zeros_coming_in():
    x = torch.zeros(1, 1, 6, 6)
    x[0, 0, 2, 2] = 1
    assert shift(x, 1, -2)[0, 0, 0, 3] == 1 and shift(x, 1, -2).sum() == 1
    assert shift(x, 5, 0).sum() == 0  # moved out of the image


def test_a_token_sees_pixels_of_its_neighbours():
    spt = ShiftedPatchTokens(4, 1, 8, generator=seeded.generator(0))
    x = torch.zeros(1, 1, 16, 16)
    tokens = spt(x)
    assert tokens.shape == (1, 16, 8)
    y = x.clone()
    y[0, 0, 5, 5] = 1.0  # inside patch 5 (row 1, col 1), one pixel from the corner of patch 0
    changed = (spt(y) - tokens).abs().sum(-1)[0] > 1e-6  # (N,)
    assert changed[5] and changed[0]  # its own token, and the neighbour that sees it through a shift
    assert not changed[15]  # a far patch does not
