import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.nn.patchify import patchify, patchify_unfold, unpatchify, valid_patch_sizes


@st.composite
def image_and_patch(draw):
    P = draw(st.integers(1, 6))
    gh, gw = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    C = draw(st.integers(1, 4))
    B = draw(st.integers(1, 2))
    seed = draw(st.integers(0, 2**16))
    x = torch.randn(B, C, gh * P, gw * P, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return x, P


@settings(max_examples=60, deadline=None)
@given(image_and_patch())
def test_unpatchify_inverts_patchify(case):
    x, P = case
    B, C, H, W = x.shape
    tokens = patchify(x, P)
    assert tokens.shape == (B, (H // P) * (W // P), C * P * P)
    assert torch.equal(unpatchify(tokens, P, C, H, W), x)


@settings(max_examples=60, deadline=None)
@given(image_and_patch())
def test_reshape_and_unfold_agree(case):
    x, P = case
    assert torch.equal(patchify(x, P), patchify_unfold(x, P))


def test_patch_order_is_row_major_and_channels_first():
    x = torch.arange(2 * 4 * 4, dtype=torch.float64).reshape(1, 2, 4, 4)
    tokens = patchify(x, 2)
    # patch 1 is grid row 0, col 1: channel 0 pixels then channel 1 pixels
    assert tokens[0, 1].tolist() == [2, 3, 6, 7, 18, 19, 22, 23]
    wrong = patchify(x, 2, pixels_first=True)
    assert wrong[0, 1].tolist() == [2, 18, 3, 19, 6, 22, 7, 23]


def test_patch_size_must_divide_and_message_names_values():
    with pytest.raises(ValueError, match=r"patch_size=5 does not divide img_size=16"):
        patchify(torch.zeros(1, 1, 16, 16), 5)
    with pytest.raises(ValueError, match=r"height=16 and width=12"):
        patchify(torch.zeros(1, 1, 16, 12), 8)


def test_wrong_rank_and_bad_patch_size():
    with pytest.raises(ValueError, match="rank 3"):
        patchify(torch.zeros(1, 16, 16), 4)
    with pytest.raises(ValueError, match="positive integer"):
        patchify(torch.zeros(1, 1, 16, 16), 0)


def test_unpatchify_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"expected N=16 and C\*P\*P=48"):
        unpatchify(torch.zeros(1, 15, 48), 4, 3, 16, 16)


def test_valid_patch_sizes():
    assert valid_patch_sizes(16, 16) == [1, 2, 4, 8, 16]
    assert valid_patch_sizes(12, 8) == [1, 2, 4]
