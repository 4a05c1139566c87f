"""core/engine/results/units.py: a unit is one model at one seed and one training draw, scored exactly."""

import pytest

from core.data.data_config import DataConfig
from core.engine.results.behaviour import new_for_stride
from core.engine.results.run_result import PositionScore, RunResult, SeedResult
from core.engine.results.units import MEASURES, Unit, scores, units_of
from core.engine.setting.run_config import GeneralizationConfig, TrainConfig

PHASE = DataConfig(train_range=(3, 12), phases=(0, 1, 2), data_seed=2)
CFG = GeneralizationConfig(models=("vit", "cnn"), data=PHASE, train=TrainConfig(seeds=(0, 1)))


def run_where_the_vit_fails_at_new_offsets() -> RunResult:
    """The ViT right everywhere but at the centres new for its stride; the CNN right everywhere but at (3, 3)."""
    cells, rows = [], []
    for m in CFG.models:
        for seed in CFG.train.seeds:
            rows.append(SeedResult(m, seed, 1.0, 0.5 + seed / 4, 1.0))
            for cx in PHASE.kind.centres(PHASE.img_size):
                for cy in PHASE.kind.centres(PHASE.img_size):
                    right = not new_for_stride(PHASE, 4, cx, cy) if m == "vit" else (cx, cy) != (3, 3)
                    cells += [PositionScore(m, seed, shape, cx, cy, float(right)) for shape in ("plus", "circle")]
    return RunResult(CFG, rows=rows, position_map=cells)


def test_each_model_and_seed_is_a_unit_of_the_runs_training_draw_scored_on_every_measure():
    units = units_of(run_where_the_vit_fails_at_new_offsets())
    assert len(units) == 4 and {u.data_seed for u in units} == {2}
    vit = next(u for u in units if u.model == "vit" and u.seed == 1)
    assert (vit.test, vit.new, vit.reached) == (0.75, 0.0, None)  # offset 3 is new for the patch everywhere held out
    cnn = next(u for u in units if u.model == "cnn" and u.seed == 0)
    assert cnn.new is None and cnn.reached == cnn.unseen and 0.95 < cnn.unseen < 1.0  # wrong at (3, 3) alone
    assert scores(units, "vit", "test") == {(0, 2): 0.5, (1, 2): 0.75}


def test_a_measure_that_is_not_one_is_refused():
    u = Unit("vit", 0, 1, 1.0, 0.5, 0.5, None, 0.5)
    assert [u.score(m) for m in MEASURES] == [0.5, 0.5, None, 0.5]
    with pytest.raises(ValueError, match="measure must be one of"):
        u.score("train")
