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
    assert (vit.notebook, vit.new, vit.reached) == (0.75, 0.0, None)  # offset 3 is new for the patch everywhere held out
    assert vit.test == vit.unseen < 0.5  # the phase split tests every centre it does not train
    cnn = next(u for u in units if u.model == "cnn" and u.seed == 0)
    assert cnn.new is None and cnn.reached == cnn.unseen and 0.95 < cnn.unseen < 1.0  # wrong at (3, 3) alone
    assert scores(units, "vit", "notebook") == {(0, 2): 0.5, (1, 2): 0.75}


def test_the_test_set_is_every_class_at_every_test_centre_once_so_one_answer_everywhere_scores_chance():
    """The notebook's measure is a random draw of test images (a class's share of it is random); the test set is
    each class at each test centre once, each class weighted equally."""
    d = DataConfig()  # the notebook's split: test centres 3..4
    cfg = GeneralizationConfig(models=("vit",), data=d, train=TrainConfig(seeds=(0,)))
    cells = [PositionScore("vit", 0, shape, cx, cy, float(shape == "circle"))  # "circle" for every image
             for cx in d.kind.centres(d.img_size) for cy in d.kind.centres(d.img_size) for shape in ("plus", "circle")]
    unit = units_of(RunResult(cfg, rows=[SeedResult("vit", 0, 1.0, 0.51, 1.0)], position_map=cells))[0]
    assert unit.notebook == 0.51 and unit.test == 0.5 and unit.unseen == 0.5
    right_at_one_centre = [PositionScore(c.model, c.seed, c.shape, c.cx, c.cy, float((c.cx, c.cy) == (3, 3)))
                           for c in cells]
    unit = units_of(RunResult(cfg, rows=[SeedResult("vit", 0, 1.0, 0.3, 1.0)], position_map=right_at_one_centre))[0]
    assert unit.test == 0.25  # one of the four test centres (3..4 × 3..4)


def test_a_measure_that_is_not_one_is_refused():
    u = Unit("vit", 0, 1, 1.0, 0.51, 0.5, 0.5, None, 0.5)
    assert [u.score(m) for m in MEASURES] == [0.51, 0.5, 0.5, None, 0.5]
    with pytest.raises(ValueError, match="measure must be one of"):
        u.score("train")
