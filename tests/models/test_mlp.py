"""core/models/mlp.py: Lesson 33's flatten MLP, and the property the notebook contrasts with the CNN: no weight
is shared across pixels."""

import torch

from core.models.mlp import MLP_HIDDEN, FlattenMLP
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
