"""The shipped lesson run's maps, read without torch, are the numbers the full run gives; nothing stale is shown."""

import numpy as np

from core.engine.results.run_result import mean_grid
from core.lessons import shipped_files
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import load_fresh_shipped
from core.lessons.shipped_files import shipped_maps


def test_the_maps_read_from_the_file_are_mean_grid_on_the_shipped_run_bit_for_bit():
    cfg = PRESETS["lesson"]
    result = load_fresh_shipped()[cfg]
    maps = shipped_maps("lesson")
    d = cfg.data
    assert maps.centres == list(d.kind.centres(d.img_size))
    assert (maps.train_range, maps.test_range) == (d.train_range, d.test_range)
    assert set(maps.grids) == set(cfg.models)
    for model in cfg.models:
        np.testing.assert_array_equal(maps.grids[model], mean_grid(result, model))  # NaN where the run has none


def test_a_stale_or_missing_file_gives_no_maps(monkeypatch):
    monkeypatch.setattr(shipped_files, "stamps", lambda: {"lesson": "made by other code"})
    assert shipped_maps("lesson") is None
    assert shipped_maps("no-such-preset") is None
