"""Look inside the trained models of a run: one image through one (model, seed), its attention, how far
attention reaches, the position table and what shuffling it costs. The run keeps every trained model's
weights (``RunResult.weights``), so nothing is trained here: a model is rebuilt and its weights loaded.

Transformers (the registry's ``transformer`` models) answer with their attention; the others (the CNNs)
with their last feature maps and where each channel's strongest response is.
"""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch
import torch.nn as nn

from core.data.data_config import make_data
from core.engine.results.run_result import RunResult
from core.engine.running.train import accuracy, predict
from core.inspect.attention_maps import attention_distance, attention_rollout, similarity_grid
from core.models.registry import build, spec
from core.nn import seeded


@lru_cache(maxsize=256)  # a lesson-4 run holds 80 trained models of ~0.1 MB each
def _loaded(name: str, model_cfg, img_size: int, seed: int, outputs: int, weights: bytes) -> nn.Module:
    """A model rebuilt and its weights loaded, once per weights. Keyed by the weights' bytes object itself: Python
    hashes a bytes object once, and a later lookup with the same object matches it by identity."""
    model = build(name, model_cfg, img_size, seed, outputs)
    model.load_state_dict(torch.load(io.BytesIO(weights), weights_only=True))
    return model.eval().requires_grad_(False)


def shared_model(result: RunResult, name: str, seed: int) -> nn.Module:
    """The (name, seed) model of ``result`` with its trained weights, in evaluation mode: one object, shared by
    every caller and every learner's thread, so rebuilding it (a few ms, for each of a bench's 80 models) is paid
    once. Read it only (a forward pass); whatever changes a model (a hook, an edited table) takes
    ``trained_model``'s own copy."""
    key = f"{name}/{seed}"
    if key not in result.weights:
        have = sorted(result.weights) or "none (a run from before weights were kept: re-run it)"
        raise ValueError(f"no trained weights for {key}; this run has {have}")
    cfg = result.config
    return _loaded(name, cfg.model, cfg.data.img_size, seed, cfg.data.kind.outputs, result.weights[key])


def load_every_model(result: RunResult) -> int:
    """Every trained model of ``result`` rebuilt into ``shared_model``'s cache ahead of the first look inside it
    (a bench's 80 models take a few hundred ms, the first click's otherwise). Returns how many it holds."""
    for key in result.weights:
        name, seed = key.rsplit("/", 1)
        shared_model(result, name, int(seed))
    return len(result.weights)


def trained_model(result: RunResult, name: str, seed: int) -> nn.Module:
    """The (name, seed) model of ``result`` with its trained weights, in evaluation mode: the caller's own copy,
    free to change (``shared_model`` is the one to only read)."""
    return copy.deepcopy(shared_model(result, name, seed))


def untrained_model(result: RunResult, name: str, seed: int) -> nn.Module:
    """The same model as it started: built under the same seed, before any training."""
    d = result.config.data
    return build(name, result.config.model, d.img_size, seed, d.kind.outputs).eval()


@dataclass
class Probe:
    model: str
    seed: int
    shape: str  # the class drawn: "plus", "circle" or a digit
    cx: int
    cy: int
    image: np.ndarray  # (H, W)
    classes: tuple[str, ...]  # the run's classes, by index
    probs: dict[str, list[float]]  # every model of the run at this seed: its probability of each class
    # transformers: per layer, (heads, G, G) attention from the class token to each patch (without a class
    # token: the attention each patch receives, averaged over the queries); the rollout's map; distances
    attention: list[np.ndarray] = field(default_factory=list)
    rollout: np.ndarray | None = None  # (G, G)
    distance: list[np.ndarray] = field(default_factory=list)  # per layer, (heads,) pixels, for this image
    # CNNs: (channels, h, w) last feature maps and, per channel, where its maximum is (row, col) in pixels
    features: np.ndarray | None = None
    peaks: list[tuple[int, int]] = field(default_factory=list)

    def p_right(self, model: str) -> float:
        """The probability ``model`` gives the right answer for this image."""
        return self.probs[model][self.classes.index(self.shape)]

    @property
    def p_true(self) -> float:
        """The probability the probed model gives the right answer."""
        return self.p_right(self.model)


def _attention(model: nn.Module, x: torch.Tensor) -> tuple[list[torch.Tensor], torch.Tensor]:
    attentions: list[torch.Tensor] = []
    with torch.no_grad():
        logits = model(x, attentions=attentions)
    return attentions, logits


def _patch_map(weights: torch.Tensor, class_token: bool, G: int) -> np.ndarray:
    """(H, T, T) one image's weights -> (H, G, G): what the class token reads from each patch, or without a
    class token, the attention each patch receives on average."""
    row = weights[:, 0, 1:] if class_token else weights.mean(dim=1)  # (H, N)
    return row.reshape(-1, G, G).numpy()


def class_probabilities(logits: torch.Tensor) -> torch.Tensor:
    """Each class's probability: one logit per image, (B,) or (..., 1), -> (..., 2) (class 0, class 1) by the
    sigmoid; (..., K) logits -> (..., K) by the softmax."""
    if logits.ndim == 1:
        logits = logits[:, None]  # (B, 1)
    if logits.shape[-1] == 1:
        p = torch.sigmoid(logits)
        return torch.cat([1 - p, p], dim=-1)
    return torch.softmax(logits, dim=-1)


# A run's images (training, test, map), made once per data setting and shared (never written to): the probe's,
# the pages' galleries and the learner's starting drawings are the run's own. A frozen DataConfig is the key.
run_data = lru_cache(maxsize=8)(make_data)


def probe(result: RunResult, name: str, seed: int, shape: str, cx: int, cy: int) -> Probe:
    """One image (class ``shape``'s first map image, centred at (cx, cy)) through every model of the run at
    ``seed``, and a look inside ``name``."""
    d = result.config.data
    kind = d.kind
    if shape not in kind.classes:
        raise ValueError(f"shape must be one of {kind.classes}, got {shape!r}")
    fits = kind.centres(d.img_size)
    if cx not in fits or cy not in fits:
        raise ValueError(f"centre (cx={cx}, cy={cy}) does not fit a {d.img_size}x{d.img_size} image: {kind.pattern}, "
                         f"so centres must be in {fits[0]}..{fits[-1]}")
    image = kind.example(d.data_seed, kind.classes.index(shape), cx, cy, d.img_size)
    return probe_image(result, name, seed, image, shape, (cx, cy))


def probe_image(result: RunResult, name: str, seed: int, image: np.ndarray, shape: str,
                centre: tuple[int, int]) -> Probe:
    """Any (H, W) image (a test image, or a learner's drawing of class ``shape`` centred at ``centre``) through
    every model of the run at ``seed``, and a look inside ``name``."""
    x = torch.from_numpy(np.ascontiguousarray(image, dtype=np.float32))[None, None]  # (1, 1, H, W)
    models = {m: shared_model(result, m, seed) for m in result.config.models if f"{m}/{seed}" in result.weights}
    model = models[name] if name in models else shared_model(result, name, seed)  # the latter says what is missing
    p = {m: class_probabilities(predict(net, x))[0].tolist() for m, net in models.items()}
    out = Probe(name, seed, shape, *centre, np.asarray(image, dtype=np.float32), result.config.data.kind.classes, p)
    if spec(name).transformer:
        attentions, _ = _attention(model, x)
        G = model.grid_size
        out.attention = [_patch_map(w[0], model.class_token, G) for w in attentions]
        roll = attention_rollout([w[0] for w in attentions])  # (T, T)
        out.rollout = (roll[0, 1:] if model.class_token else roll.mean(dim=0)).reshape(G, G).numpy()
        out.distance = [attention_distance(w[0], G, model.patch_size, model.class_token).numpy() for w in attentions]
    else:
        with torch.no_grad():
            fmap = model.feature_maps(x)[0]  # (C, h, w)
        scale = x.shape[-1] // fmap.shape[-1]
        flat = fmap.flatten(1).argmax(dim=1)  # (C,)
        out.features = fmap.numpy()
        out.peaks = [(int(i) // fmap.shape[-1] * scale, int(i) % fmap.shape[-1] * scale) for i in flat]
    return out


def layer_feature_maps(model: nn.Module, x: torch.Tensor) -> list[np.ndarray]:
    """A CNN's feature maps after each of its convolutions (each ReLU's output), for one image ``x`` (1, C, H, W):
    a list of (channels, h, w), first layer first."""
    maps = []
    with torch.no_grad():
        for module in model.conv:
            x = module(x)
            if isinstance(module, nn.ReLU):
                maps.append(x[0].contiguous().numpy())
    return maps


def seen_centre(result: RunResult, cx: int, cy: int) -> tuple[int, int]:
    """The training centre nearest to (cx, cy) (the first in row order of those as near): where the same shape was
    seen in training. On the notebook's square of training centres, (cx, cy) clipped into it."""
    d = result.config.data
    if not (d.phases or d.split):
        lo, hi = d.train_range
        return int(np.clip(cx, lo, hi)), int(np.clip(cy, lo, hi))
    return min(d.train_positions, key=lambda c: (c[0] - cx) ** 2 + (c[1] - cy) ** 2)


def mean_distances(model: nn.Module, images: torch.Tensor) -> np.ndarray:
    """(layers, heads) mean attention distance in pixels over ``images``."""
    attentions, _ = _attention(model, images)
    per = [torch.stack([attention_distance(w[b], model.grid_size, model.patch_size, model.class_token)
                        for b in range(len(images))]).mean(dim=0) for w in attentions]  # each (H,)
    return torch.stack(per).numpy()


def distances(result: RunResult, name: str, seed: int, images: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(untrained, trained): (layers, heads) mean attention distance over the first ``images`` test images."""
    X = run_data(result.config.data).Xte[:images]
    return mean_distances(untrained_model(result, name, seed), X), mean_distances(shared_model(result, name, seed), X)


def position_similarity(model: nn.Module) -> np.ndarray | None:
    """(N, N) cosine similarity of the patches' position embeddings, or None for a model without a table."""
    table = getattr(model, "patch_position_table", lambda: None)()
    return None if table is None else similarity_grid(table.detach()).numpy()


@dataclass(frozen=True)
class ShuffleEffect:
    test_before: float
    test_after: float
    train_before: float
    train_after: float


def shuffle_positions(result: RunResult, name: str, seed: int, shuffle_seed: int = 0) -> ShuffleEffect | None:
    """Accuracy of the trained model before and after its patches' position rows are shuffled (a seeded
    permutation): what the model relied on the table for. None for a model without a table."""
    data = run_data(result.config.data)
    model = trained_model(result, name, seed)
    table = getattr(model, "patch_position_table", lambda: None)()
    if table is None:
        return None
    before = accuracy(predict(model, data.Xte), data.yte), accuracy(predict(model, data.Xtr), data.ytr)
    perm = torch.randperm(len(table), generator=seeded.generator(shuffle_seed))
    with torch.no_grad():
        table.copy_(table[perm].clone())
    after = accuracy(predict(model, data.Xte), data.yte), accuracy(predict(model, data.Xtr), data.ytr)
    return ShuffleEffect(before[0], after[0], before[1], after[1])
