"""The ViT-vs-CNN generalization experiment: configs, presets, one run, and sweeps.

A config is a frozen dataclass of primitives: it is the cache key, the preset, and what the command
line and the downloads print. Running it trains every (seed, model) pair on the training positions and
tests at the unseen ones, exactly as the lesson's loop, then also scores every position on a grid.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import torch
import torch.nn as nn

from core.cnn import CNNClassifier
from core.shapes import all_positions, check_range, make_dataset, max_distinct, valid_centres
from core.tiny_vit import LessonViT
from core.train import EpochStats, distinct, train
from core.vit import POS_EMBEDS, ViT, ViTConfig

MODELS = {
    "vit": "ViT (lesson)",
    "cnn": "CNN",
    "hybrid": "Hybrid (CNN stem + ViT)",
    "vit-config": "ViT (configurable)",
}


@dataclass(frozen=True)
class GeneralizationConfig:
    models: tuple[str, ...] = ("vit", "cnn")
    n_train: int = 300
    train_range: tuple[int, int] = (5, 11)  # half-open: centres 5..10, as rng.integers(5, 11)
    n_test: int = 150
    test_range: tuple[int, int] = (3, 5)  # centres 3..4: never seen in training
    image_size: int = 16
    data_seed: int = 1
    patch_size: int = 4
    embed_dim: int = 32
    num_heads: int = 4
    depth: int = 2
    pos_embed: str = "learned"  # configurable ViT only; the lesson ViT always uses its 1-D sin-cos table
    global_pool: str = "token"  # configurable ViT only: "token" (class token) or "avg" (mean, no class token)
    stem_channels: int = 8  # hybrid only
    epochs: int = 200
    lr: float = 1e-3
    seeds: tuple[int, ...] = (0, 1, 2)
    channels_last: bool = True  # the CNN's convolutions in NHWC layout (faster on CPU)
    attn_impl: str = "fast"  # "fast" (default), "math" or "sdpa" (bit for bit the notebook's forward); see tiny_vit.py

    def validate(self) -> None:
        unknown = [m for m in self.models if m not in MODELS]
        if unknown or not self.models:
            raise ValueError(f"models must be a non-empty subset of {list(MODELS)}, got {list(self.models)}")
        check_range(self.train_range, self.image_size, "training position range")
        check_range(self.test_range, self.image_size, "test position range")
        if self.image_size % self.patch_size:
            raise ValueError(f"patch_size={self.patch_size} must divide image_size={self.image_size}")
        if self.embed_dim % self.num_heads:
            raise ValueError(f"embed_dim={self.embed_dim} must be divisible by num_heads={self.num_heads}")
        if self.pos_embed not in POS_EMBEDS:
            raise ValueError(f"pos_embed={self.pos_embed!r} is not one of {POS_EMBEDS}")
        if self.pos_embed == "sincos2d" and "vit-config" in self.models and self.embed_dim % 4:
            raise ValueError(f"pos_embed='sincos2d' needs embed_dim divisible by 4, got {self.embed_dim}")
        if self.global_pool not in ("token", "avg"):
            raise ValueError(f"global_pool must be 'token' or 'avg', got {self.global_pool!r}")
        if not self.seeds or self.n_train < 1 or self.n_test < 1 or self.epochs < 1 or self.lr <= 0:
            raise ValueError(f"need seeds, n_train, n_test, epochs >= 1 and lr > 0; got seeds={self.seeds}, "
                             f"n_train={self.n_train}, n_test={self.n_test}, epochs={self.epochs}, lr={self.lr}")

    def to_json(self) -> dict:
        return asdict(self)


LESSON = GeneralizationConfig()
PRESETS = {
    "lesson": LESSON,
    "exercise-1": replace(LESSON, n_train=3000),
    "exercise-2": replace(LESSON, patch_size=2),
    "exercise-3": replace(LESSON, models=("vit", "hybrid", "cnn")),
    "tiny": replace(LESSON, n_train=120, n_test=60, epochs=30, seeds=(0,), embed_dim=16, num_heads=2, depth=1),
}
PRESET_NOTES = {
    "lesson": "The notebook's exact setup: 300 images at centres 5..10, test at 3..4, seeds 0-2.",
    "exercise-1": "Exercise 1: ten times the data (3000 training images) at the same positions.",
    "exercise-2": "Exercise 2: finer 2x2 patches, 64 tokens instead of 16.",
    "exercise-3": "Exercise 3: a hybrid whose transformer reads a small CNN's feature map.",
    "tiny": "A small, fast setting (seconds) for trying things out.",
}


def build_model(name: str, cfg: GeneralizationConfig, seed: int) -> nn.Module:
    """Seed, then build: the lesson's train_and_eval does the same, so seeds give the lesson's weights."""
    torch.manual_seed(seed)
    if name == "cnn":
        return CNNClassifier(channels_last=cfg.channels_last)
    if name in ("vit", "hybrid"):
        return LessonViT(cfg.image_size, cfg.patch_size, 1, cfg.embed_dim, cfg.num_heads, cfg.depth,
                         stem_channels=cfg.stem_channels if name == "hybrid" else 0, attn_impl=cfg.attn_impl)
    if name == "vit-config":
        vit = ViT(ViTConfig(img_size=cfg.image_size, in_chans=1, patch_size=cfg.patch_size, embed_dim=cfg.embed_dim,
                            depth=cfg.depth, num_heads=cfg.num_heads, mlp_ratio=2.0, num_classes=1,
                            pos_embed=cfg.pos_embed, class_token=cfg.global_pool == "token",
                            global_pool=cfg.global_pool))
        return _SqueezeLogit(vit)
    raise ValueError(f"unknown model {name!r}; choose one of {list(MODELS)}")


class _SqueezeLogit(nn.Module):
    """(B, 1) logits -> (B,), so every model answers in the same shape."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x).squeeze(-1)


@dataclass
class Data:
    Xtr: torch.Tensor
    ytr: torch.Tensor
    Xte: torch.Tensor
    yte: torch.Tensor
    test_centres: np.ndarray
    grid_X: torch.Tensor  # both shapes at every centre that fits
    grid_y: torch.Tensor
    grid_centres: np.ndarray


def make_data(cfg: GeneralizationConfig) -> Data:
    rng = np.random.default_rng(cfg.data_seed)
    tr = make_dataset(rng, cfg.n_train, cfg.train_range, cfg.image_size)
    te = make_dataset(rng, cfg.n_test, cfg.test_range, cfg.image_size)
    grid = all_positions(cfg.image_size)

    def t(a):
        return torch.from_numpy(a)

    return Data(t(tr.images).unsqueeze(1), t(tr.labels), t(te.images).unsqueeze(1), t(te.labels), te.centres,
                t(grid.images).unsqueeze(1), t(grid.labels), grid.centres)


def distinct_training_images(cfg: GeneralizationConfig) -> int:
    """How many distinct images the training set holds: what each training step actually computes."""
    data = make_data(cfg)
    return len(distinct(data.Xtr, data.ytr)[0])


@dataclass
class RunResult:
    config: dict
    rows: list[dict] = field(default_factory=list)  # one per (model, seed): train_acc, test_acc, seconds
    curves: list[dict] = field(default_factory=list)  # one per (model, seed, epoch)
    test_predictions: list[dict] = field(default_factory=list)  # one per (model, seed, test image)
    position_map: list[dict] = field(default_factory=list)  # one per (model, seed, shape, cx, cy): correct?
    seconds: float = 0.0
    complete: bool = True
    origin: str = "live"  # "live", or "shipped" for the presets' precomputed results

    def to_json(self) -> dict:
        return asdict(self)


# progress(model, seed, stats, done_units, total_units) -> False to stop
Progress = Callable[[str, int, EpochStats, int, int], bool | None]

# Memory. The whole app (this process and its training workers) should stay within MEMORY_BUDGET, the
# largest Community Cloud container's reach. A worker costs WORKER_BASE (torch itself, measured ~300 MiB
# resident) plus its training step's activations; the estimate below is multiplied by a per-model
# SAFETY factor, a little above the largest measured/estimated ratio for that model over the sizes the
# page offers (measured growth of ru_maxrss over a training step: vit 0.67-1.26, hybrid 1.25,
# vit-config 1.62, cnn 0.70).
MEMORY_BUDGET = int(float(os.environ.get("VITLAB_MEMORY_BUDGET", 1.5 * 2**30)))
WORKER_BASE = 320 * 2**20
SAFETY = {"cnn": 1.0, "vit": 1.4, "hybrid": 1.4, "vit-config": 1.9}
MARGIN = 256 * 2**20  # for everything else a training run allocates (data, outputs, the page)


def activation_bytes_per_image(cfg: GeneralizationConfig, name: str) -> int:
    """A rough estimate of what one image costs in a training step (times SAFETY[model] to be safe)."""
    if name == "cnn":
        return cfg.image_size**2 * (8 * 4 + 16 * 2) * 4
    T = (cfg.image_size // cfg.patch_size) ** 2 + 1
    per_layer = 3 * cfg.num_heads * T * T + 12 * T * cfg.embed_dim  # scores, weights, grads; q, k, v, MLP, norms
    stem = cfg.image_size**2 * cfg.stem_channels * 3 if name == "hybrid" else 0
    return (cfg.depth * per_layer + stem) * 4


@dataclass(frozen=True)
class Plan:
    """How a run uses the machine. Training happens in worker processes (``workers`` >= 1), so the app's
    own process never holds a training step's memory; 0 workers trains in the calling process. Every
    job uses ``threads`` = 1 thread wherever it runs: the thread count changes float rounding, and some
    settings (patch size 2, say) are chaotic enough for that to change a seed's test accuracy, so one
    thread per job keeps every result the same however many workers a machine affords."""

    workers: int
    threads: int
    chunks: dict  # model -> distinct images per gradient chunk, or None for one full batch


def plan(cfg: GeneralizationConfig, workers: int | None = None) -> Plan:
    """As many workers as cores allow while their full batches fit the memory budget; else one worker
    with all cores, full batches where they fit and gradient chunks (same mathematics, bounded memory)
    where they do not."""
    from core.parallel import current_rss, worker_count

    fitted = max_distinct(cfg.n_train, cfg.train_range)  # training steps see the distinct images only
    per_image = {m: SAFETY[m] * activation_bytes_per_image(cfg, m) for m in cfg.models}
    need = {m: per_image[m] * fitted for m in cfg.models}
    free = MEMORY_BUDGET - current_rss() - MARGIN
    n_jobs = len(cfg.seeds) * len(cfg.models)
    w = worker_count(n_jobs) if workers is None else min(workers, n_jobs)
    if workers is None:
        while w > 1 and w * (WORKER_BASE + max(need.values())) > free:
            w -= 1
    if w > 1:
        return Plan(w, 1, {m: None for m in cfg.models})
    room = max(free - (WORKER_BASE if w else 0), 64 * 2**20)
    chunks = {m: None if full <= room else max(1, int(room // per_image[m])) for m, full in need.items()}
    return Plan(w, 1, chunks)


def train_job(cfg: GeneralizationConfig, name: str, seed: int, callback=None, eval_every: int = 0,
              data: Data | None = None, chunk: int | None = None) -> RunResult:
    """Train one (model, seed) pair and collect everything the page shows about it."""
    data = data if data is not None else make_data(cfg)
    model = build_model(name, cfg, seed)
    tr = train(model, data.Xtr, data.ytr, data.Xte, data.yte, cfg.epochs, cfg.lr, callback, eval_every, chunk)
    part = RunResult(cfg.to_json(), complete=not tr.stopped_early, seconds=tr.seconds)
    if part.complete:
        _collect(part, name, seed, tr, model, data)
    return part


def run(cfg: GeneralizationConfig, progress: Progress | None = None, eval_every: int = 0,
        workers: int | None = None) -> RunResult:
    """Train every (seed, model) pair and merge the results in the lesson's order (seed, then model).

    The pairs train in worker processes (see ``parallel.py`` and ``plan``), in parallel where cores and
    memory allow; every pair is seeded and trained exactly as on its own, so the results do not depend
    on the number of workers beyond float rounding (one thread or several sum in other orders).
    ``workers`` overrides the plan's count; 0 trains in this process.
    """
    cfg.validate()
    jobs = [(seed, name) for seed in cfg.seeds for name in cfg.models]
    how = plan(cfg, workers)
    start = time.perf_counter()
    if how.workers:
        from core.parallel import run_jobs

        parts = run_jobs(cfg, jobs, progress, eval_every, how)
    else:
        parts = _run_sequential(cfg, jobs, progress, eval_every, how.chunks)
    result = RunResult(cfg.to_json(), complete=len(parts) == len(jobs) and all(p.complete for p in parts))
    for part in parts if result.complete else []:
        result.rows += part.rows
        result.curves += part.curves
        result.test_predictions += part.test_predictions
        result.position_map += part.position_map
    result.seconds = time.perf_counter() - start
    return result


def _run_sequential(cfg, jobs, progress, eval_every, chunks) -> list[RunResult]:
    data = make_data(cfg)
    total = len(jobs) * cfg.epochs
    parts = []
    for i, (seed, name) in enumerate(jobs):
        def callback(stats: EpochStats, name=name, seed=seed, base=i * cfg.epochs):
            return progress(name, seed, stats, base + stats.epoch, total)

        part = train_job(cfg, name, seed, callback if progress else None, eval_every, data, chunks.get(name))
        parts.append(part)
        if not part.complete:
            break
    return parts


def _collect(result: RunResult, name: str, seed: int, tr, model: nn.Module, data: Data) -> None:
    result.rows.append({"model": name, "seed": seed, "train_acc": tr.train_acc, "test_acc": tr.test_acc,
                        "seconds": tr.seconds})
    result.curves.extend({"model": name, "seed": seed, "epoch": s.epoch, "loss": s.loss, "train_acc": s.train_acc,
                          "test_acc": s.test_acc} for s in tr.curves)
    probs = torch.sigmoid(tr.test_logits).numpy()
    for i, (p, y) in enumerate(zip(probs, data.yte.numpy(), strict=True)):
        cx, cy = data.test_centres[i]
        result.test_predictions.append({"model": name, "seed": seed, "index": i, "cx": int(cx), "cy": int(cy),
                                        "label": int(y), "p_circle": float(p), "correct": bool((p > 0.5) == (y > 0.5))})
    with torch.no_grad():
        grid_pred = (model(data.grid_X) > 0).float().numpy()
    for (cx, cy), y, pred in zip(data.grid_centres, data.grid_y.numpy(), grid_pred, strict=True):
        result.position_map.append({"model": name, "seed": seed, "shape": "plus" if y == 0 else "circle",
                                    "cx": int(cx), "cy": int(cy), "correct": float(pred == y)})


def summary(result: RunResult) -> dict:
    """Mean and spread of test accuracy per model."""
    out = {}
    for name in dict.fromkeys(r["model"] for r in result.rows):
        acc = np.array([r["test_acc"] for r in result.rows if r["model"] == name])
        tr = np.array([r["train_acc"] for r in result.rows if r["model"] == name])
        out[name] = {"test_mean": float(acc.mean()), "test_std": float(acc.std()), "test_min": float(acc.min()),
                     "test_max": float(acc.max()), "train_mean": float(tr.mean())}
    return out


def position_grid(result: RunResult, model: str, shape: str, size: int) -> np.ndarray:
    """(rows=cy, cols=cx) accuracy at each centre, averaged over seeds; NaN where a shape does not fit."""
    centres = list(valid_centres(size))
    grid = np.full((size, size), np.nan)
    acc: dict[tuple[int, int], list[float]] = {}
    for r in result.position_map:
        if r["model"] == model and r["shape"] == shape:
            acc.setdefault((r["cx"], r["cy"]), []).append(r["correct"])
    for (cx, cy), v in acc.items():
        grid[cy, cx] = float(np.mean(v))
    return grid[np.ix_(centres, centres)]


RESULT_SOURCES = ("shapes", "patchify", "pos_embed", "patch_embed", "vit", "tiny_vit", "cnn", "adam", "train",
                  "experiments")


def code_fingerprint() -> str:
    """A hash of the source that decides training results (and of torch's version).

    Shipped results carry it; when the code changes, the hash changes and they count as stale.
    """
    import hashlib
    from pathlib import Path

    h = hashlib.sha256(torch.__version__.encode())
    for name in RESULT_SOURCES:
        h.update((Path(__file__).parent / f"{name}.py").read_bytes())
    return h.hexdigest()[:16]


SWEEPS = {
    "training-set size": ("n_train", (100, 300, 1000, 3000)),
    "patch size": ("patch_size", (2, 4, 8)),
}


def sweep(base: GeneralizationConfig, name: str, progress: Callable[[float, str], bool | None] | None = None,
          values: tuple | None = None) -> list[dict]:
    """Re-run ``base`` at each value of one knob; one row per (value, model, seed).

    ``progress(fraction_done, label)`` is called every epoch; returning False stops the sweep.
    """
    if name not in SWEEPS:
        raise ValueError(f"unknown sweep {name!r}; choose one of {list(SWEEPS)}")
    field_name, default_values = SWEEPS[name]
    values = values or default_values
    rows = []
    for i, value in enumerate(values):
        cfg = replace(base, **{field_name: value})

        def callback(model, seed, stats, done, total, i=i, value=value):
            label = f"{field_name}={value}: {MODELS[model]}, seed {seed}"
            return progress((i + done / total) / len(values), label)

        result = run(cfg, callback if progress else None)
        if not result.complete:
            break
        rows.extend({field_name: value, **r} for r in result.rows)
    return rows
