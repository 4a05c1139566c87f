"""The experiment's config: which models, what data, how to train; its presets and sweeps.

A config is frozen and canonical: two settings that mean the same run are one value (models in
registry order, seeds sorted, settings no selected model reads reset to their defaults), so it is the
cache key, the preset, the URL state and what the downloads print. Everything is validated here, once,
with a one-line message naming the value; ranges of centres are inclusive everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from core.data.data_config import DataConfig
from core.models.model_config import ModelConfig
from core.models.registry import REGISTRY, spec

MAX_EPOCHS = 100_000
MAX_SEEDS = 32  # the most seeds any one run takes (a form may offer fewer: lesson4_fixing_the_vit.FORM_SEEDS)


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


# The notebook's setup (every default above): the unit of a run's cost, and the base of every preset
NOTEBOOK_SETUP = GeneralizationConfig()


@dataclass(frozen=True)
class Sweep:
    """One setting re-run at several values (``flights.sweep_through``)."""

    path: str  # the setting it varies, as with_value names it
    values: tuple
    axis_title: str
    log_x: bool = False
