import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.nn.patch_embed import (
    ConvPatchEmbed,
    LinearPatchEmbed,
    compare_embeddings,
    conv_from_linear,
    conv_weight_from_linear,
    linear_from_conv,
    seeded_linear_embed,
)


@settings(max_examples=50, deadline=None)
@given(C=st.integers(1, 4), gh=st.integers(1, 4), gw=st.integers(1, 4), P=st.integers(1, 6),
       D=st.integers(1, 12), seed=st.integers(0, 1000))
def test_conv_equals_linear_float64(C, gh, gw, P, D, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, C, gh * P, gw * P, generator=g, dtype=torch.float64)
    linear = seeded_linear_embed(P, C, D, seed, torch.float64)
    result = compare_embeddings(x, linear)
    assert result["linear"].shape == (2, gh * gw, D)
    assert result["max_abs_diff"] <= 1e-12
    # and the mapping back recovers the same linear weights exactly
    back = linear_from_conv(conv_from_linear(linear))
    assert torch.equal(back.proj.weight, linear.proj.weight)
    assert torch.equal(back.proj.bias, linear.proj.bias)


def test_conv_to_linear_direction():
    conv = ConvPatchEmbed(4, 3, 8, generator=torch.Generator().manual_seed(0)).double()
    x = torch.randn(1, 3, 16, 16, dtype=torch.float64)
    linear = linear_from_conv(conv)
    assert (linear(x) - conv(x)).abs().max() <= 1e-12


def test_breaking_switches_make_the_difference_jump():
    x = torch.rand(1, 3, 16, 16, dtype=torch.float64)
    linear = seeded_linear_embed(4, 3, 8, 0, torch.float64)
    assert compare_embeddings(x, linear)["max_abs_diff"] <= 1e-12
    assert compare_embeddings(x, linear, wrong_flatten_order=True)["max_abs_diff"] > 1e-3
    overlapping = compare_embeddings(x, linear, conv_stride=2)
    assert overlapping["n_conv_tokens"] == 49 and overlapping["max_abs_diff"] > 1e-3


def test_wrong_order_is_harmless_with_one_channel():
    x = torch.rand(1, 1, 16, 16, dtype=torch.float64)
    linear = seeded_linear_embed(4, 1, 8, 0, torch.float64)
    assert compare_embeddings(x, linear, wrong_flatten_order=True)["max_abs_diff"] <= 1e-12


def test_mismatched_weights_raise_with_values():
    with pytest.raises(ValueError, match=r"48 inputs but C\*P\*P = 1\*4\*4 = 16"):
        conv_weight_from_linear(torch.zeros(8, 48), 1, 4)
    with pytest.raises(ValueError, match="expected 3 input channels, got C=1"):
        LinearPatchEmbed(4, 3, 8, generator=torch.Generator())(torch.zeros(1, 1, 16, 16))
    with pytest.raises(ValueError, match="stride"):
        linear_from_conv(ConvPatchEmbed(4, 3, 8, stride=2, generator=torch.Generator()))
