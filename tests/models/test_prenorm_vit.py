import pytest
import torch

from core.models.prenorm_vit import VIT_PRESETS, PreNormConfig, PreNormViT
from core.nn import seeded


@pytest.mark.parametrize("pos_embed", ["none", "learned", "sincos", "sincos2d"])
@pytest.mark.parametrize("class_token,pool", [(True, "token"), (True, "avg"), (False, "avg")])
def test_shapes_and_attention(pos_embed, class_token, pool):
    cfg = PreNormConfig(embed_dim=32, depth=2, num_heads=4, pos_embed=pos_embed, class_token=class_token,
                        global_pool=pool)
    model = PreNormViT(cfg, generator=seeded.generator(0))
    attentions: list[torch.Tensor] = []
    logits = model(torch.randn(2, 3, 16, 16), attentions)
    T = 16 + int(class_token)
    assert logits.shape == (2, 3) and len(attentions) == 2 and attentions[0].shape == (2, 4, T, T)
    torch.testing.assert_close(attentions[1].sum(-1), torch.ones(2, 4, T))
    table = model.patch_position_table()
    assert (table is None) == (pos_embed == "none") and (table is None or table.shape == (16, 32))


@pytest.mark.parametrize("name", list(VIT_PRESETS))
def test_presets_build_the_size_they_name(name):
    cfg = VIT_PRESETS[name]
    model = PreNormViT(cfg, generator=seeded.generator(0))
    assert len(model.blocks) == cfg.depth and model.head.in_features == cfg.embed_dim
    assert model(torch.randn(1, cfg.in_chans, cfg.img_size, cfg.img_size)).shape == (1, cfg.num_classes)


def test_one_logit_answers_as_the_post_norm_family_does():
    model = PreNormViT(PreNormConfig(in_chans=1, num_classes=1), generator=seeded.generator(0))
    assert model(torch.randn(4, 1, 16, 16)).shape == (4,)


@pytest.mark.parametrize("bad,match", [
    (dict(num_heads=3), "num_heads=3"),
    (dict(patch_size=5), "patch_size=5"),
    (dict(pos_embed="rope"), "rope"),
    (dict(class_token=False), "global_pool='token' needs"),
    (dict(embed_dim=18, pos_embed="sincos2d"), "embed_dim divisible by 4"),
])
def test_bad_configs_raise_with_values(bad, match):
    with pytest.raises(ValueError, match=match):
        PreNormConfig(**bad)
