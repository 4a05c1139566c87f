"""The experiment's config: which models, what data, how to train; its presets and sweeps.

A config is frozen and canonical: two settings that mean the same run are one value (models in
registry order, seeds sorted, settings no selected model reads reset to their defaults), so it is the
cache key, the preset, the URL state and what the downloads print. Everything is validated here, once,
with a one-line message naming the value; ranges of centres are inclusive everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from core.generalization.model_config import ModelConfig
from core.generalization.models import REGISTRY, spec
from core.shapes import check_range, valid_centres

MAX_IMAGES = 100_000
MAX_EPOCHS = 100_000
MAX_SEEDS = 32


@dataclass(frozen=True)
class DataConfig:
    n_train: int = 300
    train_range: tuple[int, int] = (5, 10)  # inclusive centres (cx and cy): the lesson's rng.integers(5, 11)
    n_test: int = 150
    test_range: tuple[int, int] = (3, 4)  # inclusive: never seen in training
    img_size: int = 16
    data_seed: int = 1

    def __post_init__(self) -> None:
        for name in ("n_train", "n_test"):
            n = getattr(self, name)
            if not 1 <= n <= MAX_IMAGES:
                raise ValueError(f"{name} must be in 1..{MAX_IMAGES}, got {n}")
        if not 8 <= self.img_size <= 64:
            raise ValueError(f"img_size must be in 8..64, got {self.img_size}")
        if not 0 <= self.data_seed < 2**32:
            raise ValueError(f"data_seed must be in 0..2**32-1, got {self.data_seed}")
        object.__setattr__(self, "train_range", tuple(self.train_range))
        object.__setattr__(self, "test_range", tuple(self.test_range))
        check_range(self.train_range, self.img_size, "training position range")
        check_range(self.test_range, self.img_size, "test position range")
        # The lesson is about positions never seen in training: a shared centre would make part of the
        # test "seen" while every label on the page calls it unseen, so overlapping ranges are refused.
        (a, b), (c, d) = self.train_range, self.test_range
        if max(a, c) <= min(b, d):
            lo, hi = valid_centres(self.img_size)[0], valid_centres(self.img_size)[-1]
            free = [f"{x}..{y}" for x, y in ((lo, a - 1), (b + 1, hi)) if x <= y]
            raise ValueError(f"test centres {c}..{d} overlap training centres {a}..{b}: the test must be at unseen "
                             "positions, " + (f"within {' or '.join(free)}" if free else
                                              f"so leave some of {lo}..{hi} out of the training range"))


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 200
    lr: float = 1e-3
    seeds: tuple[int, ...] = (0, 1, 2)

    def __post_init__(self) -> None:
        if not 1 <= self.epochs <= MAX_EPOCHS:
            raise ValueError(f"epochs must be in 1..{MAX_EPOCHS}, got {self.epochs}")
        if not (math.isfinite(self.lr) and 0 < self.lr <= 10):
            raise ValueError(f"lr must be a finite number in (0, 10], got {self.lr}")
        seeds = tuple(sorted(set(self.seeds)))
        if not seeds or len(seeds) > MAX_SEEDS or not all(0 <= s < 2**32 for s in seeds):
            raise ValueError(f"seeds must be 1..{MAX_SEEDS} distinct integers in 0..2**32-1, got {list(self.seeds)}")
        object.__setattr__(self, "seeds", seeds)


@dataclass(frozen=True)
class GeneralizationConfig:
    models: tuple[str, ...] = ("vit", "cnn")
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def __post_init__(self) -> None:
        if isinstance(self.models, str) or not self.models:
            raise ValueError(f"models must be a non-empty list of {list(REGISTRY)}, got {self.models!r}")
        specs = [spec(name) for name in self.models]  # unknown names raise here
        object.__setattr__(self, "models", tuple(n for n in REGISTRY if n in self.models))
        for s in specs:
            s.check(self.model, self.data.img_size)
        # Settings no selected model reads do not change the run: reset them, so that equal runs are equal keys.
        used = {f for s in specs for f in s.uses}
        default = ModelConfig()
        unused = {f.name: getattr(default, f.name) for f in fields(ModelConfig) if f.name not in used}
        if any(getattr(self.model, k) != v for k, v in unused.items()):
            object.__setattr__(self, "model", replace(self.model, **unused))

    @property
    def jobs(self) -> list[tuple[int, str]]:
        """(seed, model) pairs in the lesson's order: seed, then model."""
        return [(seed, name) for seed in self.train.seeds for name in self.models]

    def to_json(self) -> dict:
        return {"models": list(self.models), "data": _plain(self.data), "model": _plain(self.model),
                "train": _plain(self.train)}

    @classmethod
    def from_json(cls, d: dict) -> GeneralizationConfig:
        def tupled(x: dict) -> dict:
            return {k: tuple(v) if isinstance(v, list) else v for k, v in x.items()}

        return cls(models=tuple(d["models"]), data=DataConfig(**tupled(d["data"])), model=ModelConfig(**d["model"]),
                   train=TrainConfig(**tupled(d["train"])))


def _plain(obj) -> dict:
    return {f.name: list(v) if isinstance(v := getattr(obj, f.name), tuple) else v for f in fields(obj)}


def with_value(cfg: GeneralizationConfig, path: str, value) -> GeneralizationConfig:
    """``cfg`` with one setting changed, named as ``"data.n_train"``, ``"model.patch_size"`` or ``"models"``."""
    if "." not in path:
        return replace(cfg, **{path: value})
    part, name = path.split(".")
    return replace(cfg, **{part: replace(getattr(cfg, part), **{name: value})})


LESSON = GeneralizationConfig()
PRESETS: dict[str, GeneralizationConfig] = {
    "lesson": LESSON,
    "exercise-1": with_value(LESSON, "data.n_train", 3000),
    "exercise-2": with_value(LESSON, "model.patch_size", 2),
    "exercise-3": replace(LESSON, models=("vit", "cnn", "hybrid")),
    # Small enough for seconds, big enough to be the lesson: its ViT fits its training set (>= 95 % for
    # every seed) and still fails at unseen positions (tests/test_run.py checks both).
    "tiny": GeneralizationConfig(data=DataConfig(n_train=120, n_test=100), train=TrainConfig(epochs=150),
                                 model=ModelConfig(embed_dim=16, num_heads=2, depth=1)),
}
PRESET_NOTES = {
    "lesson": "The notebook's exact setup: 300 images at centres 5..10, test at 3..4, seeds 0-2.",
    "exercise-1": "Exercise 1: ten times the data (3000 training images) at the same positions.",
    "exercise-2": "Exercise 2: finer 2x2 patches, 64 tokens instead of 16.",
    "exercise-3": "Exercise 3: a hybrid whose transformer reads a small CNN's feature map.",
    "tiny": "A small, fast setting (seconds): a one-layer ViT that still fits its training images and still fails at unseen positions.",
}


@dataclass(frozen=True)
class Sweep:
    path: str  # the setting it varies, as with_value names it
    values: tuple
    axis_title: str
    log_x: bool = False


SWEEPS: dict[str, Sweep] = {
    "training-set size": Sweep("data.n_train", (100, 300, 1000, 3000), "training images", log_x=True),
    "patch size": Sweep("model.patch_size", (2, 4, 8), "patch size P (pixels)"),
}
