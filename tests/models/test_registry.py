import pytest
import torch

from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.registry import REGISTRY, ModelSpec, build, register, spec


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_model_answers_one_logit_per_image_and_has_its_costs(name):
    s = spec(name)
    model = build(name, PRESETS["tiny"].model, 16, 0)
    assert model(torch.rand(3, 1, 16, 16)).shape == (3,)
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
