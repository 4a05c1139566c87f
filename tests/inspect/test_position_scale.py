"""core/inspect/position_scale.py: the lesson's fixed table has rows of norm sqrt(D/2), larger than its patch
tokens at the start; a learned table starts 0.02 × random, far smaller."""

import math

from core.data.data_config import make_data
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.inspect.position_scale import scales
from core.models.model_config import ModelConfig
from core.models.registry import build


def test_the_fixed_table_is_larger_than_the_tokens_and_alpha_scales_it():
    images = make_data(NOTEBOOK_SETUP.data).Xte
    s = scales(build("vit", ModelConfig(), 16, 0), images)
    assert math.isclose(s.table, math.sqrt(32 / 2), rel_tol=1e-6) and s.ratio > 1 and s.inked > s.blank
    small = scales(build("vit", ModelConfig(pos_scale=0.02), 16, 0), images)
    assert math.isclose(small.table, 0.02 * s.table, rel_tol=1e-5) and small.inked == s.inked
    learned = scales(build("vit-learned", ModelConfig(), 16, 0), images)
    assert learned.ratio < 0.1
    assert scales(build("cnn", ModelConfig(), 16, 0), images) is None
    assert scales(build("vit-nopos-avg", ModelConfig(), 16, 0), images).table is None


def test_a_relative_bias_starts_near_zero_and_only_its_model_has_one():
    from core.inspect.position_scale import bias_rms

    rms = bias_rms(build("vit-relpos", ModelConfig(), 16, 0))
    assert 0.01 < rms < 0.03  # 0.02 × random
    assert bias_rms(build("vit", ModelConfig(), 16, 0)) is None and bias_rms(build("cnn", ModelConfig(), 16, 0)) is None
