"""A finished run read back from a store others can write (the SQLite archive, a Redis): checked in full
before any page sees it.

A shared file or Redis is data from outside. Whatever is in it, a page must never show a traceback and a
server must never run its code: the result JSON has a size bound that the setting implies, every field its
type (``typed_json``) and its range (an accuracy is a finite number in [0, 1], a seed one of the setting's),
and the run is complete: every model and seed has its row, and each one that trained has its weights, one
test prediction per test image, one map cell per class and centre, and a test accuracy that is the share of
its test predictions that are right. Each model's weights load with ``weights_only`` into the very model the
setting builds, key for key and shape for shape. Anything else raises ``UnusableRun``, which the archives log,
delete and treat as a miss: the page then offers to train the setting. Whether the lab computed the run, not
only could have, is its signature's to say (``run_signature``).
"""

from __future__ import annotations

import io
import json
import warnings
from collections import Counter
from functools import lru_cache

import torch

from core.engine.results.run_result import CurvePoint, PositionScore, RunResult, SeedResult, TestPrediction
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.setting.typed_json import checked, from_plain, plain
from core.models.registry import build

RECORD_BYTES = 320  # the most one row, curve point, prediction or map cell takes as JSON, with room to spare
WEIGHTS_SLACK = 64 * 1024  # torch.save's archive around a state dict's numbers (its names, its zip entries)


class UnusableRun(ValueError):
    """A stored run that must not be shown: its message says what is wrong with it, in one line."""


def max_result_bytes(cfg: GeneralizationConfig) -> int:
    """The most bytes a complete run of ``cfg`` can take as JSON: every list at its longest."""
    d, jobs = cfg.data, len(cfg.jobs)
    cells = d.kind.map_cells(d.img_size)
    records = jobs * (1 + (cfg.train.epochs + 1) + d.n_test + cells)
    return 4096 + RECORD_BYTES * records


def decode_run(cfg: GeneralizationConfig, text: str | bytes, weights: dict[str, bytes]) -> RunResult:
    """The stored run of ``cfg`` from its result JSON and its weights, or ``UnusableRun``."""
    bound = max_result_bytes(cfg)
    if len(text) > bound:
        raise UnusableRun(f"its result is {len(text)} bytes, over the {bound} a run of this setting can take")
    try:
        plain = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise UnusableRun(f"its result is not JSON ({exc})") from None
    try:
        result = _from_plain(plain)
        if result.config != cfg:
            raise ValueError("it holds the run of another setting")
        check_result(result)
        result.weights = check_weights(cfg, weights, result.rows)
    except (ValueError, TypeError) as exc:
        raise UnusableRun(str(exc)) from None
    return result


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number a result may hold")


def _from_plain(plain: object) -> RunResult:
    if not isinstance(plain, dict):
        raise ValueError(f"a result must be an object, got {type(plain).__name__}")
    lists = {"rows": SeedResult, "curves": CurvePoint, "test_predictions": TestPrediction, "position_map": PositionScore}
    expected = {"config", "seconds", "complete", "origin", *lists}
    if set(plain) != expected:
        raise ValueError(f"a result has the fields {sorted(expected)}, this one {sorted(plain)[:8]}")
    out = RunResult(from_plain(GeneralizationConfig, plain["config"], "config"),
                    seconds=checked(float, plain["seconds"], "seconds"),
                    complete=checked(bool, plain["complete"], "complete"), origin=checked(str, plain["origin"], "origin"))
    for name, kind in lists.items():
        items = plain[name]
        if not isinstance(items, list):
            raise ValueError(f"{name} must be a list, got {type(items).__name__}")
        setattr(out, name, [from_plain(kind, x, f"{name}[{i}]") for i, x in enumerate(items)])
    return out


def check_result(r: RunResult) -> None:
    """The ranges and lengths a complete run of its config implies (the types are checked already)."""
    cfg, d = r.config, r.config.data
    if not r.complete or r.origin != "live":
        raise ValueError(f"only a complete live run is stored, this one is complete={r.complete}, origin={r.origin!r}")
    if r.seconds < 0:
        raise ValueError(f"seconds must be at least 0, got {r.seconds}")
    jobs = {(name, seed) for seed, name in cfg.jobs}
    if set(_per_job(r.rows, jobs, "the rows", 1)) != jobs:
        raise ValueError(f"a complete run has one row per model and seed ({len(jobs)}), this one {len(r.rows)}")
    _per_job(r.curves, jobs, "the curves", cfg.train.epochs + 1)
    n_classes, centres = len(d.kind.classes), set(d.kind.centres(d.img_size))
    _check_complete(r, _per_job(r.test_predictions, jobs, "the test predictions", d.n_test),
                    _per_job(r.position_map, jobs, "the map", d.kind.map_cells(d.img_size)))
    for c in r.curves:
        _fractions("a curve point", c.train_acc, c.test_acc)
        if not 0 <= c.epoch <= cfg.train.epochs:
            raise ValueError(f"a curve's epoch {c.epoch} is outside 0..{cfg.train.epochs}")
    for p in r.test_predictions:
        _check_prediction(p, d.n_test, d.img_size, n_classes)
    for m in r.position_map:
        if m.shape not in d.kind.classes or m.cx not in centres or m.cy not in centres:
            raise ValueError(f"a map cell names a class or centre this setting does not have: {m}")
        _fractions("a map cell", m.correct)


def _per_job(items: list, jobs: set[tuple[str, int]], what: str, most: int) -> Counter:
    """How many of ``items`` each (model, seed) has: every one a job of the setting, none over ``most``."""
    counts = Counter((x.model, x.seed) for x in items)
    strangers = set(counts) - jobs
    if strangers:
        model, seed = next(iter(strangers))
        raise ValueError(f"{what} name {model}/{seed}, not a model and seed of this setting")
    if counts and max(counts.values()) > most:
        raise ValueError(f"{what} hold {max(counts.values())} entries for one model and seed, at most {most}")
    return counts


def _check_complete(r: RunResult, predictions: Counter, cells_per_job: Counter) -> None:
    """Each (model, seed): its row in range; if it trained, its test predictions one per test image, its map one
    cell per class and centre, its test accuracy the share of its test predictions that are right; if it
    diverged, none of these."""
    d = r.config.data
    full = {"test predictions": (predictions, d.n_test),
            "map cells": (cells_per_job, d.kind.map_cells(d.img_size))}
    for x in r.rows:
        _check_row(x, r.config.train.epochs)
        for what, (counts, n) in full.items():
            if counts[(x.model, x.seed)] != (n if x.diverged_at is None else 0):
                raise ValueError(f"{x.model}/{x.seed} has {counts[(x.model, x.seed)]} {what}, a complete run "
                                 f"{n if x.diverged_at is None else 0}")
    _check_distinct(r)


def _check_distinct(r: RunResult) -> None:
    """(Counts are right already.) Each (model, seed) that trained: its test predictions name each test image
    once, its map names each cell once, and its test accuracy is the share of its test predictions that are
    right."""
    images = {(p.model, p.seed, p.index) for p in r.test_predictions}
    cells = {(m.model, m.seed, m.shape, m.cx, m.cy) for m in r.position_map}
    if len(images) != len(r.test_predictions) or len(cells) != len(r.position_map):
        raise ValueError("a test image or a map cell appears twice for one model and seed")
    right = Counter((p.model, p.seed) for p in r.test_predictions if p.correct)
    n_test = r.config.data.n_test
    for x in r.rows:
        # one image of slack: a logit within float rounding of 0 can read as right in one and wrong in the other
        if x.diverged_at is None and abs(right[(x.model, x.seed)] / n_test - x.test_acc) > 1 / n_test + 1e-6:
            raise ValueError(f"{x.model}/{x.seed}: its test accuracy {x.test_acc} is not the share of its test "
                             f"predictions that are right ({right[(x.model, x.seed)]}/{n_test})")


def _check_row(x: SeedResult, epochs: int) -> None:
    diverged = x.diverged_at is not None
    if (x.train_acc is None) != diverged or (x.test_acc is None) != diverged:
        raise ValueError(f"row {x.model}/{x.seed}: accuracies are missing exactly when training diverged")
    _fractions(f"row {x.model}/{x.seed}", x.train_acc, x.test_acc)
    if x.seconds < 0 or diverged and not 1 <= x.diverged_at <= epochs:
        raise ValueError(f"row {x.model}/{x.seed}: seconds or diverged_at out of range")


def _check_prediction(p: TestPrediction, n_test: int, size: int, n_classes: int) -> None:
    if not (0 <= p.index < n_test and 0 <= p.cx < size and 0 <= p.cy < size and 0 <= p.label < n_classes):
        raise ValueError(f"a test prediction's index, centre or label is out of range: {p}")
    if (p.p_circle is None) != (n_classes > 2) or (p.given is None) != (n_classes <= 2):
        raise ValueError(f"a test prediction answers for {n_classes} classes the wrong way: {p}")
    if p.given is not None and not 0 <= p.given < n_classes:
        raise ValueError(f"a test prediction's class {p.given} is out of range")
    _fractions("a test prediction", p.p_circle, p.p_given)


def _fractions(where: str, *values: float | None) -> None:
    for value in values:
        if value is not None and not 0 <= value <= 1:
            raise ValueError(f"{where}: {value} is not in [0, 1]")


def max_weights_bytes(cfg: GeneralizationConfig, key: str) -> int:
    """The most bytes the weights ``key`` ("model/seed") of a run of ``cfg`` can take; ``UnusableRun`` for a key
    that names no model and seed of the setting."""
    jobs = {f"{name}/{seed}": name for seed, name in cfg.jobs}
    if key not in jobs:
        raise UnusableRun(f"weights {plain(key, 60)!r} are for no model and seed of this setting")
    return 4 * sum(n for _, n in _state_shapes(cfg, jobs[key]).values()) + WEIGHTS_SLACK


def check_weights(cfg: GeneralizationConfig, weights: dict[str, bytes], rows: list[SeedResult]) -> dict[str, bytes]:
    """Each model's weights: one for each model and seed that trained (``rows``), none for another, within the
    bytes that model takes, and loaded with ``weights_only`` into that model exactly (every key, every shape,
    finite numbers)."""
    jobs = {f"{name}/{seed}": name for seed, name in cfg.jobs}
    trained = {f"{x.model}/{x.seed}" for x in rows if x.diverged_at is None}
    if set(weights) != trained:
        extra, missing = sorted(set(weights) - trained), sorted(trained - set(weights))
        raise ValueError(f"weights {plain(extra[0], 60)!r} are for no model and seed that trained" if extra else
                         f"the weights of {missing[0]} are missing")
    for key, data in weights.items():
        shapes = _state_shapes(cfg, jobs[key])
        bound = max_weights_bytes(cfg, key)
        if len(data) > bound:
            raise ValueError(f"weights {key} take {len(data)} bytes, over the {bound} the model can")
        try:
            with warnings.catch_warnings():  # a legacy pickle's protocol warning: refused either way
                warnings.simplefilter("ignore")
                state = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
        except Exception as exc:  # noqa: BLE001 (whatever the loader refuses: pickles, truncated archives)
            raise ValueError(f"weights {key} do not load as plain tensors ({type(exc).__name__})") from None
        if not isinstance(state, dict) or set(state) != set(shapes):
            raise ValueError(f"weights {key} do not hold the model's parameters")
        for name, tensor in state.items():
            if (not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != shapes[name][0]
                    or (tensor.is_floating_point() and not torch.isfinite(tensor).all())):
                raise ValueError(f"weights {key}: {name} is not the model's tensor (shape, type or a non-finite value)")
    return weights


@lru_cache(maxsize=64)
def _state_shapes(cfg: GeneralizationConfig, name: str) -> dict[str, tuple[tuple[int, ...], int]]:
    """Each entry of the model's state dict: its shape and its number of values (one build per setting and
    model: a few milliseconds)."""
    model = build(name, cfg.model, cfg.data.img_size, 0, cfg.data.kind.outputs)
    return {k: (tuple(t.shape), t.numel()) for k, t in model.state_dict().items()}
