import pytest
import torch

from core.models.seed_vit import VIT_PRESETS, ViT, ViTConfig
from core.nn import seeded


@pytest.mark.parametrize("pos_embed", ["none", "learned", "sincos", "sincos2d"])
@pytest.mark.parametrize("class_token,pool", [(True, "token"), (True, "avg"), (False, "avg")])
def test_shapes_and_attention(pos_embed, class_token, pool):
    cfg = ViTConfig(embed_dim=32, depth=2, num_heads=4, pos_embed=pos_embed, class_token=class_token, global_pool=pool)
    model = ViT(cfg, generator=seeded.generator(0))
    logits, attn = model(torch.randn(2, 3, 16, 16), return_attention=True)
    T = 16 + int(class_token)
    assert logits.shape == (2, 3) and len(attn) == 2 and attn[0].shape == (2, 4, T, T)
    torch.testing.assert_close(attn[1].sum(-1), torch.ones(2, 4, T))


def test_presets_are_valid():
    for cfg in VIT_PRESETS.values():
        ViT(cfg, generator=seeded.generator(0))


@pytest.mark.parametrize("bad,match", [
    (dict(num_heads=3), "num_heads=3"),
    (dict(patch_size=5), "patch_size=5"),
    (dict(pos_embed="rope"), "rope"),
    (dict(class_token=False), "global_pool='token' needs"),
    (dict(embed_dim=18, pos_embed="sincos2d"), "embed_dim divisible by 4"),
])
def test_bad_configs_raise_with_values(bad, match):
    with pytest.raises(ValueError, match=match):
        ViT(ViTConfig(**bad), generator=seeded.generator(0))
