from dataclasses import replace

import pytest

from core.data.data_config import DataConfig
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig, TrainConfig
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.models.model_config import ModelConfig
from core.models.registry import REGISTRY


def test_equal_runs_are_equal_keys():
    a = replace(NOTEBOOK_SETUP, models=("cnn", "hybrid", "vit"))
    b = replace(NOTEBOOK_SETUP, models=("vit", "cnn", "hybrid"))
    assert a == b and hash(a) == hash(b) and a.models == ("vit", "cnn", "hybrid")
    # settings no selected model reads are reset: the lesson's models do not read pos_embed or the stem
    assert replace(NOTEBOOK_SETUP, model=replace(NOTEBOOK_SETUP.model, pos_embed="none", stem_channels=2)) == NOTEBOOK_SETUP
    assert TrainConfig(seeds=(2, 0, 1, 0)).seeds == (0, 1, 2)


def test_presets_use_registered_models_and_inclusive_ranges():
    assert NOTEBOOK_SETUP.data.train_range == (5, 10) and NOTEBOOK_SETUP.data.test_range == (3, 4)
    assert all(set(c.models) <= set(REGISTRY) for c in PRESETS.values())
    assert DataConfig(train_range=(5, 10), test_range=(3, 4)).test_range == (3, 4)  # touching, not overlapping


@pytest.mark.parametrize("build,message", [
    (lambda: DataConfig(train_range=(1, 10)), "1..10 does not fit"),
    (lambda: DataConfig(train_range=(8, 5)), "empty"),
    (lambda: DataConfig(train_range=(5, 10), test_range=(3, 5)), "test centres 3..5 overlap training centres 5..10"),
    (lambda: DataConfig(train_range=(3, 12), test_range=(3, 4)), "overlap"),
    (lambda: DataConfig(n_train=0), "n_train must be in 1.."),
    (lambda: DataConfig(data_seed=-1), "data_seed"),
    (lambda: ModelConfig(patch_size=0), "patch_size=0"),
    (lambda: ModelConfig(num_heads=0), "num_heads=0"),
    (lambda: ModelConfig(embed_dim=30, num_heads=4), "divisible"),
    (lambda: ModelConfig(attn_impl="fastest"), "attn_impl='fastest'"),
    (lambda: ModelConfig(depth=0), "depth=0"),
    (lambda: ModelConfig(stem_channels=0), "stem_channels=0"),
    (lambda: TrainConfig(lr=float("nan")), "finite"),
    (lambda: TrainConfig(lr=float("inf")), "finite"),
    (lambda: TrainConfig(epochs=0), "epochs"),
    (lambda: TrainConfig(seeds=(2**64,)), "seeds"),
    (lambda: TrainConfig(seeds=()), "seeds"),
    (lambda: GeneralizationConfig(models=("perceptron",)), "'perceptron'"),
    (lambda: GeneralizationConfig(models=()), "non-empty"),
    (lambda: GeneralizationConfig(model=ModelConfig(patch_size=5)), "patch_size=5 does not divide"),
    (lambda: GeneralizationConfig(models=("vit-prenorm",), model=ModelConfig(embed_dim=18, num_heads=2,
                                                                            pos_embed="sincos2d")), "sincos2d"),
])
def test_bad_values_are_refused_in_one_line_naming_them(build, message):
    with pytest.raises(ValueError, match=message) as err:
        build()
    assert "\n" not in str(err.value)


def test_json_round_trip():
    for cfg in PRESETS.values():
        assert GeneralizationConfig.from_json(cfg.to_json()) == cfg
