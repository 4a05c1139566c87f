"""The logit lens: its last reading is the model's answer; it reads every transformer; a CNN is refused."""

import numpy as np
import pytest
import torch

from core.inspect.logit_lens import encoder_layers, logit_lens
from core.inspect.trained_model import run_data, trained_model
from core.lessons.lesson5_real_handwriting import DIGITS, lookup_in
from core.lessons.shipped import load_fresh_shipped


@pytest.fixture(scope="module")
def shipped():
    return load_fresh_shipped()


@pytest.mark.parametrize("name", ["vit", "vit-nopos-avg", "vit-relpos", "vit-shift"])
def test_the_last_layers_reading_is_the_models_answer(shipped, name):
    result = lookup_in(shipped.get, DIGITS)
    model = trained_model(result, name, 0)
    x = run_data(result.config.data).Xte[:1]
    lens = logit_lens(model, x)
    with torch.no_grad():
        answer = model(x).reshape(-1)
    assert lens.logits.shape == (len(encoder_layers(model)), 10)
    np.testing.assert_allclose(lens.logits[-1], answer.numpy(), atol=1e-5)
    np.testing.assert_allclose(lens.probs.sum(axis=1), 1, atol=1e-5)
    assert not np.allclose(lens.logits[0], lens.logits[-1])  # the first layer's reading is not yet the answer


def test_two_classes_read_as_two_probabilities_and_a_cnn_is_refused(shipped):
    from core.engine.setting.run_config import NOTEBOOK_SETUP

    result = shipped[NOTEBOOK_SETUP]
    x = run_data(NOTEBOOK_SETUP.data).Xte[:1]
    model = trained_model(result, "vit", 0)
    lens = logit_lens(model, x)
    with torch.no_grad():
        p = torch.sigmoid(model(x)).item()
    assert lens.probs.shape == (2, 2) and lens.probs[-1, 1] == pytest.approx(p, abs=1e-5)
    with pytest.raises(ValueError, match="transformers only"):
        logit_lens(trained_model(result, "cnn", 0), x)
