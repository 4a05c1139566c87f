"""What a run produces, typed: per-seed accuracies, curves, test predictions and the position map;
summaries of them; and the presets' results shipped in ``results/`` (with the fingerprint of the code
that made them, so a stale file is never shown as current)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np
import torch

from core.generalization.config import PRESETS, GeneralizationConfig
from core.generalization.remedies import BENCH
from core.shapes import SHAPES, valid_centres


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
    label: int  # 0 plus, 1 circle
    p_circle: float
    correct: bool


@dataclass(frozen=True)
class PositionScore:
    model: str
    seed: int
    shape: str
    cx: int
    cy: int
    correct: float  # 1.0 or 0.0


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
    # to look inside it (core.generalization.probe)
    weights: dict[str, bytes] = field(default_factory=dict, repr=False)

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
        return part

    @property
    def diverged(self) -> list[SeedResult]:
        return [r for r in self.rows if r.diverged_at is not None]

    def to_json(self) -> dict:
        """Plain, strict JSON (no NaN or infinity anywhere)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "weights"}  # weights: a .pt file
        out["config"] = self.config.to_json()
        for f in ("rows", "curves", "test_predictions", "position_map"):
            out[f] = [asdict(x) for x in out[f]]
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
    """(rows=cy, cols=cx) accuracy at each valid centre, averaged over seeds; NaN where not measured."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    centres = list(valid_centres(result.config.data.img_size))
    index = {c: i for i, c in enumerate(centres)}
    total = np.zeros((len(centres), len(centres)))
    count = np.zeros_like(total)
    for p in result.position_map:
        if p.model == model and p.shape == shape:
            total[index[p.cy], index[p.cx]] += p.correct
            count[index[p.cy], index[p.cx]] += 1
    with np.errstate(invalid="ignore"):
        return total / np.where(count > 0, count, np.nan)


# ---------------------------------------------------------------- shipped results and their fingerprint
CORE = Path(__file__).resolve().parent.parent
RESULT_SOURCES = ("shapes", "patchify", "pos_embed", "patch_embed", "vit", "lesson_vit", "cnn", "adam", "train",
                  "seeded", "augment", "rel_pos_bias", "spt", "lsa", "remedy_vit", "generalization/model_config",
                  "generalization/models", "generalization/config", "generalization/remedies",
                  "generalization/data", "generalization/results", "generalization/run")


def code_fingerprint() -> str:
    """A hash of the source that decides training results (and of torch's version). Shipped results
    carry it; when the code changes, it changes and they count as stale."""
    h = hashlib.sha256(torch.__version__.encode())
    for name in RESULT_SOURCES:
        h.update((CORE / f"{name}.py").read_bytes())
    return h.hexdigest()[:16]


RESULTS_DIR = CORE.parent / "results"
# What ships precomputed: lesson 3's presets and lesson 4's bench
SHIPPED_CONFIGS: dict[str, GeneralizationConfig] = {
    **{p: PRESETS[p] for p in ("lesson", "exercise-1", "exercise-2", "exercise-3")}, "remedies": BENCH}
SHIPPED = tuple(SHIPPED_CONFIGS)


def shipped_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.json"


def weights_path(preset: str) -> Path:
    return RESULTS_DIR / f"{preset}.weights.pt"


def save_shipped(preset: str, result: RunResult) -> Path:
    path = shipped_path(preset)
    data = {"preset": preset, "fingerprint": code_fingerprint(), "result": result.to_json()}
    path.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False))
    torch.save(result.weights, weights_path(preset))
    return path


def load_shipped(preset: str) -> tuple[RunResult, bool]:
    """(result, fresh): fresh is False when the code changed since the file was made. The trained weights
    come from the file beside it (tensors only: loaded with ``weights_only``)."""
    data = json.loads(shipped_path(preset).read_text())
    result = RunResult.from_json({**data["result"], "origin": "shipped"})
    if weights_path(preset).exists():
        result.weights = torch.load(weights_path(preset), weights_only=True)
    return result, data["fingerprint"] == code_fingerprint()


def load_fresh_shipped() -> dict[GeneralizationConfig, RunResult]:
    """Every shipped result that still matches the code and its preset; stale or missing ones are skipped."""
    out = {}
    for preset in SHIPPED:
        if shipped_path(preset).exists():
            result, fresh = load_shipped(preset)
            if fresh and result.config == SHIPPED_CONFIGS[preset]:
                out[result.config] = result
    return out


def save_shipped_rows(name: str, base: GeneralizationConfig, rows: list) -> Path:
    """A sweep's rows (dataclasses), shipped like a result: with the code fingerprint and its base config."""
    path = shipped_path(name)
    data = {"name": name, "fingerprint": code_fingerprint(), "base": base.to_json(), "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False))
    return path


def load_shipped_rows(name: str, base: GeneralizationConfig) -> list[dict] | None:
    """The shipped rows, if the file exists, matches ``base`` and the code (else None: run it instead)."""
    path = shipped_path(name)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    fresh = data["fingerprint"] == code_fingerprint() and GeneralizationConfig.from_json(data["base"]) == base
    return data["rows"] if fresh else None
