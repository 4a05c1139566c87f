"""core/nn/blur.py: a fixed binomial low-pass filter, depthwise, with no weights; zeros or reflected pixels at the
border; and what it is for: a pattern moved by one pixel is sampled at stride 2 the same way once blurred."""

import pytest
import torch

from core.nn.blur import Blur, binomial


def test_the_filter_is_a_normalised_row_of_pascals_triangle():
    torch.testing.assert_close(binomial(3), torch.tensor([1.0, 2.0, 1.0]) / 4)
    torch.testing.assert_close(binomial(5), torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0]) / 16)
    assert torch.equal(binomial(1), torch.ones(1))
    with pytest.raises(ValueError, match="taps=0"):
        binomial(0)


@pytest.mark.parametrize("taps", [2, 3, 5, 9])
def test_the_kernel_sums_to_one_and_is_the_outer_product_of_the_row(taps):
    blur = Blur(3, taps)
    assert blur.kernel.shape == (3, 1, taps, taps)
    torch.testing.assert_close(blur.kernel.sum(dim=(1, 2, 3)), torch.ones(3))
    torch.testing.assert_close(blur.kernel[1, 0], torch.outer(binomial(taps), binomial(taps)))


def test_it_has_no_weights_and_nothing_in_the_state_dict():
    blur = Blur(8, 3, stride=2, padding="reflect")
    assert list(blur.parameters()) == [] and blur.state_dict() == {}
    assert [name for name, _ in blur.named_buffers()] == ["kernel"]  # there, but not persistent
    assert blur.double().kernel.dtype == torch.float64  # it travels with the model's dtype


@pytest.mark.parametrize("taps", [2, 3, 4, 5])
@pytest.mark.parametrize("padding", ["zeros", "reflect"])
def test_stride_one_keeps_the_size_and_stride_s_keeps_every_sth(taps, padding):
    x = torch.rand(2, 3, 15, 16)
    assert Blur(3, taps, padding=padding)(x).shape == (2, 3, 15, 16)
    assert Blur(3, taps, stride=2, padding=padding)(x).shape == (2, 3, 8, 8)  # ceil(15 / 2), 16 / 2
    assert Blur(3, taps, stride=4, padding=padding)(x).shape == (2, 3, 4, 4)


def test_a_constant_image_stays_constant_reflected_everywhere_with_zeros_inside_only():
    x = torch.full((1, 2, 10, 10), 0.7)
    torch.testing.assert_close(Blur(2, 5, padding="reflect")(x), x)
    torch.testing.assert_close(Blur(2, 3, stride=2, padding="reflect")(x), x[:, :, ::2, ::2])
    zeros = Blur(2, 5, padding="zeros")(x)
    torch.testing.assert_close(zeros[:, :, 2:-2, 2:-2], x[:, :, 2:-2, 2:-2])
    assert (zeros[:, :, 0, :] < 0.7).all()  # the zeros beyond the border are averaged in


def test_each_channel_is_filtered_on_its_own():
    x = torch.zeros(1, 2, 9, 9)
    x[0, 0, 4, 4] = 1.0  # an impulse in channel 0 only
    out = Blur(2, 3)(x)
    assert out[0, 1].abs().sum() == 0
    torch.testing.assert_close(out[0, 0, 3:6, 3:6], torch.outer(binomial(3), binomial(3)))


def test_with_zeros_a_shape_on_a_black_canvas_is_blurred_as_if_the_canvas_went_on():
    """Zero padding is what lies beyond a black canvas: blurring a crop of a larger black canvas is cropping its
    blur, so blurring and moving commute while the shape stays on the canvas. Reflection would add a ghost."""
    big = torch.zeros(1, 1, 24, 24)
    big[0, 0, 4:11, 6:9] = 1.0  # a bar touching row 0 and column 2 of the crop below
    crop = big[:, :, 4:20, 4:20]
    zeros, reflect = Blur(1, 5, padding="zeros"), Blur(1, 5, padding="reflect")
    torch.testing.assert_close(zeros(crop), zeros(big)[:, :, 4:20, 4:20])
    assert not torch.allclose(reflect(crop), zeros(big)[:, :, 4:20, 4:20])


def test_a_one_pixel_move_changes_what_stride_two_samples_unless_it_is_blurred_first():
    """Aliasing in one example: a 1-pixel checkerboard sampled every 2nd pixel is all ones or all zeros depending
    on its phase; blurred by [1, 2, 1]² first, both phases sample the same grey."""
    rows, cols = torch.meshgrid(torch.arange(12), torch.arange(12), indexing="ij")
    board = ((rows + cols) % 2).float()[None, None]  # (1, 1, 12, 12)
    moved = torch.roll(board, shifts=1, dims=3)
    assert torch.equal(board[..., ::2, ::2], torch.zeros(1, 1, 6, 6))
    assert torch.equal(moved[..., ::2, ::2], torch.ones(1, 1, 6, 6))
    pool = Blur(1, 3, stride=2, padding="reflect")  # reflection continues the board's pattern exactly
    torch.testing.assert_close(pool(board), torch.full((1, 1, 6, 6), 0.5))
    torch.testing.assert_close(pool(moved), pool(board))


def test_bad_settings_and_inputs_are_refused_with_the_values():
    with pytest.raises(ValueError, match="padding='circular'"):
        Blur(1, 3, padding="circular")
    with pytest.raises(ValueError, match="stride=0"):
        Blur(1, 3, stride=0)
    with pytest.raises(ValueError, match=r"filters 3 channels, got an input of shape \(2, 1, 8, 8\)"):
        Blur(3, 3)(torch.rand(2, 1, 8, 8))
