"""What a run produces, typed: per-seed accuracies, curves, test predictions and the position map;
summaries of them. The presets' shipped results are ``core.lessons.shipped``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np

from core.engine.setting.run_config import GeneralizationConfig


@dataclass(frozen=True)
class SeedResult:
    model: str
    seed: int
    train_acc: float | None  # None when training diverged: then there is no accuracy to report
    test_acc: float | None
    seconds: float
    diverged_at: int | None = None  # the epoch whose loss was not finite or exploded


@dataclass(frozen=True)
class CurvePoint:
    model: str
    seed: int
    epoch: int
    loss: float
    train_acc: float
    test_acc: float | None  # None on epochs where the test set was not evaluated


@dataclass(frozen=True)
class TestPrediction:
    model: str
    seed: int
    index: int
    cx: int
    cy: int
    label: int  # the class index: 0 plus, 1 circle; or the digit's index in the dataset's classes
    p_circle: float | None  # two classes: the probability of class 1 (circle); None with more classes
    correct: bool
    given: int | None = None  # more than two classes: the class the model gave, and its probability
    p_given: float | None = None

    def answer(self) -> tuple[int, float]:
        """(the class the model gave, its probability), whatever the number of classes."""
        if self.p_circle is None:
            return self.given, self.p_given
        return int(self.p_circle > 0.5), max(self.p_circle, 1 - self.p_circle)


@dataclass(frozen=True)
class PositionScore:
    model: str
    seed: int
    shape: str  # the class's name: "plus", "circle", or a digit
    cx: int
    cy: int
    correct: float  # the share of that class's map images the model got right there (the shapes: 1.0 or 0.0)


@dataclass
class RunResult:
    config: GeneralizationConfig
    rows: list[SeedResult] = field(default_factory=list)  # one per (model, seed), in the lesson's order
    curves: list[CurvePoint] = field(default_factory=list)
    test_predictions: list[TestPrediction] = field(default_factory=list)
    position_map: list[PositionScore] = field(default_factory=list)
    seconds: float = 0.0
    complete: bool = True
    origin: str = "live"  # "live", or "shipped" for the presets' precomputed results
    # "model/seed" -> the trained model's state_dict as torch.save bytes (tens of thousands of numbers each),
    # to look inside it (core.inspect.trained_model)
    weights: dict[str, bytes] = field(default_factory=dict, repr=False)
    # The same setting's units over more seeds and training draws (``core.engine.results.units.Unit``; a shipped
    # preset's, kept in a file of its own): what its statistics are over. Empty: the run's own seeds, one draw.
    replicates: list = field(default_factory=list, repr=False)

    def merge(self, part: RunResult) -> None:
        for f in ("rows", "curves", "test_predictions", "position_map"):
            getattr(self, f).extend(getattr(part, f))
        self.weights.update(part.weights)

    def subset(self, config: GeneralizationConfig) -> RunResult:
        """This result restricted to ``config``, a config that differs from this one only in keeping some of
        its models (lesson 4 shows any selection of the shipped bench without training)."""
        if replace(self.config, models=config.models) != config or not set(config.models) <= set(self.config.models):
            raise ValueError(f"{config.models} is not a selection of this result's models {self.config.models}")
        keep = set(config.models)
        part = RunResult(config, seconds=self.seconds, complete=self.complete, origin=self.origin)
        for f in ("rows", "curves", "test_predictions", "position_map"):
            setattr(part, f, [x for x in getattr(self, f) if x.model in keep])
        part.weights = {k: w for k, w in self.weights.items() if k.split("/")[0] in keep}
        part.replicates = [u for u in self.replicates if u.model in keep]
        return part

    @property
    def diverged(self) -> list[SeedResult]:
        return [r for r in self.rows if r.diverged_at is not None]

    def to_json(self) -> dict:
        """Plain, strict JSON (no NaN or infinity anywhere)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name not in ("weights", "replicates")}  # files of their own
        out["config"] = self.config.to_json()
        for f in ("rows", "curves", "test_predictions", "position_map"):
            out[f] = [asdict(x) for x in out[f]]
        for p in out["test_predictions"]:  # two classes say it all in p_circle: no empty fields per image
            if p["given"] is None:
                del p["given"], p["p_given"]
        return out

    @classmethod
    def from_json(cls, d: dict) -> RunResult:
        return cls(config=GeneralizationConfig.from_json(d["config"]), rows=[SeedResult(**r) for r in d["rows"]],
                   curves=[CurvePoint(**c) for c in d["curves"]],
                   test_predictions=[TestPrediction(**p) for p in d["test_predictions"]],
                   position_map=[PositionScore(**p) for p in d["position_map"]], seconds=d["seconds"],
                   complete=d["complete"], origin=d["origin"])


@dataclass(frozen=True)
class ModelSummary:
    test_mean: float  # over the seeds that trained (diverged seeds have no accuracy)
    test_std: float
    test_min: float
    test_max: float
    train_mean: float
    seeds: int
    diverged: int


def summary(result: RunResult) -> dict[str, ModelSummary]:
    """Test accuracy per model over its seeds, in the config's model order (models whose every seed
    diverged are left out)."""
    out = {}
    for name in result.config.models:
        ok = [r for r in result.rows if r.model == name and r.diverged_at is None]
        bad = sum(1 for r in result.rows if r.model == name and r.diverged_at is not None)
        if not ok:
            continue
        acc = np.array([r.test_acc for r in ok])
        out[name] = ModelSummary(float(acc.mean()), float(acc.std()), float(acc.min()), float(acc.max()),
                                 float(np.mean([r.train_acc for r in ok])), len(ok), bad)
    return out


def position_grid(result: RunResult, model: str, shape: str) -> np.ndarray:
    """(rows=cy, cols=cx) accuracy of one class at each valid centre, averaged over seeds; NaN where not
    measured."""
    kind = result.config.data.kind
    if shape not in kind.classes:
        raise ValueError(f"shape must be one of {kind.classes}, got {shape!r}")
    centres = list(kind.centres(result.config.data.img_size))
    index = {c: i for i, c in enumerate(centres)}
    total = np.zeros((len(centres), len(centres)))
    count = np.zeros_like(total)
    for p in result.position_map:
        if p.model == model and p.shape == shape:
            total[index[p.cy], index[p.cx]] += p.correct
            count[index[p.cy], index[p.cx]] += 1
    with np.errstate(invalid="ignore"):
        return total / np.where(count > 0, count, np.nan)


def mean_grid(result: RunResult, model: str) -> np.ndarray:
    """(rows=cy, cols=cx) accuracy at each valid centre over every class (the classes are balanced)."""
    grids = [position_grid(result, model, c) for c in result.config.data.kind.classes]
    with np.errstate(invalid="ignore"):
        return np.nanmean(grids, axis=0)
