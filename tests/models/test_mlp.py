"""core/models/mlp.py: Lesson 33's flatten MLP and the linear pixel classifier, and the property the notebook
contrasts with the CNN: no weight is shared across pixels."""

import torch

from core.models.mlp import MLP_HIDDEN, FlattenMLP, LinearPixels
from core.nn import seeded


def test_one_logit_per_image_from_a_hidden_layer_over_every_pixel():
    model = FlattenMLP(16, generator=seeded.generator(0))
    assert model(torch.rand(5, 1, 16, 16)).shape == (5,)
    assert model.fc1.weight.shape == (MLP_HIDDEN, 256)
    assert FlattenMLP(16, generator=seeded.generator(0), num_classes=10)(torch.rand(2, 1, 16, 16)).shape == (2, 10)


def test_a_pixel_the_training_never_lit_gets_no_gradient():
    """A pattern at pixels no training image lit reaches first-layer weights that never learned: the flatten
    head's position-specific weights, in one assertion."""
    model = FlattenMLP(16, generator=seeded.generator(0))
    x = torch.zeros(4, 1, 16, 16)
    x[:, :, 4:8, 4:8] = 1.0  # every image lights only this square
    model(x).sum().backward()
    grad = model.fc1.weight.grad.reshape(MLP_HIDDEN, 16, 16)
    assert grad[:, 4:8, 4:8].abs().sum() > 0 and grad[:, 10:, 10:].abs().sum() == 0


def test_the_linear_control_is_one_weight_per_pixel_and_class_and_nothing_else():
    model = LinearPixels(16, generator=seeded.generator(0))
    assert model(torch.rand(5, 1, 16, 16)).shape == (5,)
    assert [tuple(p.shape) for p in model.parameters()] == [(1, 256), (1,)]
    ten = LinearPixels(16, generator=seeded.generator(0), num_classes=10)
    assert ten(torch.rand(2, 1, 16, 16)).shape == (2, 10)
    x = torch.rand(3, 1, 16, 16, dtype=torch.float64)
    model = model.double()
    expected = x.reshape(3, 256) @ model.fc.weight[0] + model.fc.bias[0]  # a weighted sum of the pixels
    torch.testing.assert_close(model(x), expected)


def test_the_linear_control_learns_nothing_at_pixels_no_image_lit():
    model = LinearPixels(16, generator=seeded.generator(0))
    x = torch.zeros(4, 1, 16, 16)
    x[:, :, 4:8, 4:8] = 1.0
    model(x).sum().backward()
    grad = model.fc.weight.grad.reshape(16, 16)
    assert grad[4:8, 4:8].abs().sum() > 0 and grad[10:, 10:].abs().sum() == 0
