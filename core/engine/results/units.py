"""What is random in an experiment, and each random unit's score.

A run's accuracy depends on two random draws: the **seed** (a model's starting weights and its data order) and the
**training draw** (which images the training set holds: ``DataConfig.data_seed``). The test images are not random:
the test centres' images, and the map's, are every image there is at those centres. So a *unit* is one model
trained at one (seed, training draw), and its score on a measure is exact: the share of that measure's images it
gets right. Statistics are over units (``verdict.unit_interval``), never over images.

The measures, each a share of images. Each but the notebook's is scored over the distinct images at its centres with
every class weighted equally (``behaviour.map_scores``), so a model that answers one class for every image scores
exactly chance:

- ``notebook``: the notebook's test accuracy, the share right of its random draw of test images (150 draws of the
  8 distinct images at the lesson's test centres): kept bit for bit, but a model answering one class everywhere
  scores that draw's class share, not chance.
- ``test``: the **test set**, every class at every test centre of the split, once each.
- ``unseen``: the **unseen map**, every class at every map centre never trained on.
- ``new``: the held-out centres that are new for the model's own sampling stride (``behaviour.new_for_stride``:
  no training centre reaches them by whole strides); ``reached``: the held-out centres its stride does reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.engine.results.behaviour import REGIONS, map_scores, new_for_stride, region
from core.engine.results.run_result import RunResult
from core.models.registry import spec

MEASURES = ("notebook", "test", "unseen", "new", "reached")


@dataclass(frozen=True)
class Unit:
    """One model trained at one seed and one training draw, and its exact score on each measure (None: the
    measure has no image for it, as ``new`` on the notebook's split)."""

    model: str
    seed: int
    data_seed: int
    train: float | None  # None: training diverged
    notebook: float | None  # the notebook's test accuracy (its random draw of test images)
    test: float | None
    unseen: float | None
    new: float | None
    reached: float | None

    def score(self, measure: str) -> float | None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
        return getattr(self, measure)


def held_out(result: RunResult, model: str, measure: str) -> Callable[[int, int], bool]:
    """Which map centres a map measure counts, for ``model``."""
    d = result.config.data
    stride = spec(model).stride(result.config.model, d.img_size)
    if measure == "test":
        tested = frozenset(d.test_positions)
        return lambda cx, cy: (cx, cy) in tested
    keep = {"unseen": lambda cx, cy: True, "new": lambda cx, cy: new_for_stride(d, stride, cx, cy),
            "reached": lambda cx, cy: not new_for_stride(d, stride, cx, cy)}[measure]
    return lambda cx, cy: region(d, cx, cy) != REGIONS[0] and keep(cx, cy)


def units_of(result: RunResult) -> list[Unit]:
    """Every (model, seed) of a run as a unit of its training draw, scored on every measure."""
    maps = {(m, measure): map_scores(result, m, held_out(result, m, measure))
            for m in result.config.models for measure in MEASURES[1:]}
    return [Unit(r.model, r.seed, result.config.data.data_seed, r.train_acc, r.test_acc,
                 *(maps[r.model, measure].get(r.seed) for measure in MEASURES[1:]))
            for r in result.rows]


def run_units(result: RunResult) -> list[Unit]:
    """A run's units: the replicates it ships over seeds and training draws, else its own seeds."""
    return result.replicates or units_of(result)


def scores(units: list[Unit], model: str, measure: str) -> dict[tuple[int, int], float]:
    """One model's score on ``measure`` at each (seed, training draw) it has one."""
    return {(u.seed, u.data_seed): s for u in units if u.model == model and (s := u.score(measure)) is not None}
