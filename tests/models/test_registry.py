import pytest
import torch

from core.engine.run_config import LESSON
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.registry import REGISTRY, ModelSpec, build, register, spec


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_model_answers_one_logit_per_image_and_has_its_costs(name):
    s = spec(name)
    model = build(name, PRESETS["tiny"].model, 16, 0)
    assert model(torch.rand(3, 1, 16, 16)).shape == (3,)
    assert s.safety >= 1  # its label, colour and card: tests/lessons/test_model_cards.py
    assert s.activation_bytes(LESSON.model, 16) > 0 and s.flops(LESSON.model, 16) > 0


def test_unknown_and_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="unknown model 'perceptron'"):
        spec("perceptron")
    with pytest.raises(ValueError, match="already registered"):
        register(ModelSpec(**{**spec("cnn").__dict__}))


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (build("vit", LESSON.model, 16, s) for s in (0, 0, 1))
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    assert not all(torch.equal(x, y) for x, y in zip(a.parameters(), c.parameters(), strict=True))
