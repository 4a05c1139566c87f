import torch

from core.models.postnorm_vit import EncoderLayer
from core.nn import seeded
from core.nn.lsa import LearnedTemperature, diagonal_mask


def test_a_token_cannot_attend_to_itself():
    mask = diagonal_mask(4)
    assert mask.shape == (1, 4, 4) and torch.isinf(mask[0].diagonal()).all() and (mask[0].triu(1) == 0).all()
    # with two tokens, each one's attention output is the other token's value alone
    layer = EncoderLayer(8, 2, seeded.generator(0), "math")
    x = torch.randn(3, 2, 8)
    out = layer.attention(x, bias=diagonal_mask(2))
    v = torch.nn.functional.linear(x, layer.in_proj_weight[16:], layer.in_proj_bias[16:])  # (B, T, D) values
    assert torch.allclose(out[:, 0], layer.out_proj(v[:, 1]), atol=1e-6)
    assert torch.allclose(out[:, 1], layer.out_proj(v[:, 0]), atol=1e-6)


def test_the_class_token_only_path_uses_the_masks_first_row():
    layer = EncoderLayer(8, 2, seeded.generator(0), "math")
    x = torch.randn(2, 5, 8)
    full = layer.attention(x, bias=diagonal_mask(5))
    assert torch.allclose(layer.attention(x, cls_only=True, bias=diagonal_mask(5))[:, 0], full[:, 0], atol=1e-6)


def test_the_temperature_starts_at_the_usual_scale_and_is_learned():
    t = LearnedTemperature(16)
    assert torch.isclose(t(), torch.tensor(0.25)) and t.log_scale.requires_grad
