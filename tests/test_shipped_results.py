"""The presets' shipped results must match the code that would produce them."""

import pytest

from core.experiments import PRESETS
from ui.shipped import SHIPPED, load, path_for


@pytest.mark.parametrize("preset", SHIPPED)
def test_shipped_result_is_present_and_fresh(preset):
    assert path_for(preset).exists(), f"results/{preset}.json is missing: run python -m scripts.precompute {preset}"
    cfg, result, fresh = load(preset)
    assert cfg == PRESETS[preset], f"results/{preset}.json was made for another config"
    assert fresh, (f"results/{preset}.json is stale: the training code changed since it was made. "
                   f"Run: python -m scripts.precompute {preset}")
    assert result.complete and len(result.rows) == len(cfg.seeds) * len(cfg.models)


def test_shipped_lesson_matches_the_notebook():
    """The notebook prints ViT 50.7 %, 50.7 %, 26.0 % and CNN 100 % at unseen positions for seeds 0-2."""
    _, result, _ = load("lesson")
    acc = {(r["model"], r["seed"]): round(r["test_acc"], 3) for r in result.rows}
    assert acc == {("vit", 0): 0.507, ("cnn", 0): 1.0, ("vit", 1): 0.507, ("cnn", 1): 1.0,
                   ("vit", 2): 0.26, ("cnn", 2): 1.0}
