import pytest
import torch

from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.cnn import CNNClassifier
from core.models.mlp import FlattenMLP, LinearPixels
from core.models.model_config import ModelConfig
from core.models.postnorm_vit import PostNormViT, ViTVariant
from core.models.prenorm_vit import PreNormViT
from core.models.registry import REGISTRY, ModelSpec, build, postnorm_vit, register, spec
from core.nn import seeded


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_model_answers_one_logit_per_image_and_has_its_costs(name):
    s = spec(name)
    model = build(name, PRESETS["tiny"].model, 16, 0)
    assert model(torch.rand(3, 1, 16, 16)).shape == (3,)
    assert build(name, PRESETS["tiny"].model, 16, 0, outputs=10)(torch.rand(3, 1, 16, 16)).shape == (3, 10)
    assert s.safety >= 1  # its label, colour and card: tests/lessons/test_model_cards.py
    assert s.activation_bytes(NOTEBOOK_SETUP.model, 16) > 0 and s.flops(NOTEBOOK_SETUP.model, 16) > 0


def test_unknown_and_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="unknown model 'perceptron'"):
        spec("perceptron")
    with pytest.raises(ValueError, match="already registered"):
        register(ModelSpec(**{**spec("cnn").__dict__}))


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (build("vit", NOTEBOOK_SETUP.model, 16, s) for s in (0, 0, 1))
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    assert not all(torch.equal(x, y) for x, y in zip(a.parameters(), c.parameters(), strict=True))


def test_a_model_naming_a_setting_that_does_not_exist_is_refused_where_it_is_declared():
    import dataclasses


    with pytest.raises(ValueError, match=r"uses \['patch_sise'\], which are not ModelConfig fields"):
        dataclasses.replace(REGISTRY["vit"], name="typo", uses=("patch_sise",))


def test_every_model_setting_is_read_by_some_model():
    """A ModelConfig field no registered model reads would be reset in every run: declared for nothing."""
    import dataclasses

    from core.models.model_config import ModelConfig

    read = {f for s in REGISTRY.values() for f in s.uses}
    assert {f.name for f in dataclasses.fields(ModelConfig)} <= read


@pytest.mark.parametrize("name", list(REGISTRY))
@pytest.mark.parametrize("patch_size,size", [(4, 16), (2, 16), (4, 28)])
def test_every_models_sampling_stride_is_its_architectures(name, patch_size, size):
    """A transformer samples its input on the P×P patch grid (stem, overlapping windows and all), the CNN family
    every 2nd position (the stride-2 pool, blurred or not), a flatten model nowhere in common: the whole image."""
    m = ModelConfig(patch_size=patch_size)
    model = build(name, m, size, 0)
    expected = (patch_size if isinstance(model, PostNormViT | PreNormViT) else 2 if isinstance(model, CNNClassifier)
                else size if isinstance(model, FlattenMLP | LinearPixels) else None)
    assert expected is not None, f"{name}: which stride does a {type(model).__name__} have?"
    assert spec(name).stride(m, size) == expected
    assert spec(name).transformer == isinstance(model, PostNormViT | PreNormViT)


def state_dicts_equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    x, y = a.state_dict(), b.state_dict()
    return list(x) == list(y) and all(torch.equal(x[k], y[k]) for k in x)


@pytest.mark.parametrize("seed", [0, 7])
def test_the_anti_aliased_models_have_their_plain_twins_weights(seed):
    """The blur has no weight: cnn-blurpool is cnn's state_dict, and vit-blur is the remedies' plain ViT's
    (``ViTVariant()``); that is ``vit``'s too, as long as the config keeps the table's scale at 1."""
    m = NOTEBOOK_SETUP.model
    assert state_dicts_equal(build("cnn-blurpool", m, 16, seed), build("cnn", m, 16, seed))
    assert state_dicts_equal(build("cnn-blurpool", m, 16, seed, 10), build("cnn", m, 16, seed, 10))
    plain = postnorm_vit(m, 16, seeded.generator(seed), 1, ViTVariant())
    assert state_dicts_equal(build("vit-blur", m, 16, seed), plain)
    assert m.pos_scale == 1 and state_dicts_equal(build("vit-blur", m, 16, seed), build("vit", m, 16, seed))
    assert not state_dicts_equal(build("vit-blur", m, 16, seed), build("vit", ModelConfig(pos_scale=2), 16, seed))


def test_vit_nopos_is_vit_without_its_table_and_linear_is_one_layer():
    vit, nopos = build("vit", ModelConfig(), 16, 0).state_dict(), build("vit-nopos", ModelConfig(), 16, 0).state_dict()
    assert "cls_token" in nopos and list(nopos) == [k for k in vit if k != "pos_embed"]
    assert all(torch.equal(nopos[k], vit[k]) for k in nopos)
    linear = build("linear", ModelConfig(), 16, 0, outputs=10)
    assert [(k, tuple(v.shape)) for k, v in linear.state_dict().items()] == [("fc.weight", (10, 256)), ("fc.bias", (10,))]
