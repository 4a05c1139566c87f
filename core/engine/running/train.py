"""Full-batch training as in the lesson, with a progress callback and nothing of any UI.

One step per epoch: the loss over the whole training set, one Adam step. The callback gets each
epoch's numbers and may return ``False`` to stop early. Training accuracy per epoch comes for free
from the logits of that step (before the update); the final accuracies are measured after training,
exactly as the lesson does.

The lesson's training sets repeat themselves: an image is fixed by its shape and centre, so 300 draws
at centres 5..10 hold only ~70 distinct images and 3000 draws hold 72. The full-batch loss is a mean,
so it equals the mean over the *distinct* images weighted by how often each was drawn: the same
mathematics (and the same gradient) for a fraction of the arithmetic. Only float rounding differs.
The test sets repeat themselves more (150 draws at the 4 unseen centres hold 8 distinct images), so the
live curve's test points are counted the same way: 8 images evaluated instead of 150.

Two classes are the lesson's task: one logit per image and a binary cross-entropy. More classes (lesson 5's
ten digits) give one logit per class and a cross-entropy; everything else is the same loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.data.data_config import distinct
from core.nn.adam import Adam


@dataclass
class EpochStats:
    epoch: int
    loss: float
    train_acc: float
    test_acc: float | None  # None on epochs where the test set was not evaluated


@dataclass
class TrainResult:
    train_acc: float
    test_acc: float
    test_logits: torch.Tensor
    curves: list[EpochStats] = field(default_factory=list)
    seconds: float = 0.0
    stopped_early: bool = False
    diverged_at: int | None = None  # the epoch whose loss was not finite or exploded; training stopped there


# A binary cross-entropy this large means logits of hundreds on the wrong side: the run has blown up
# (the loss starts near log 2 = 0.69). Its accuracies would mean nothing, so training stops there.
DIVERGED_LOSS = 100.0

Callback = Callable[[EpochStats], bool | None]


# Evaluation runs without gradients but still holds one batch's activations: in chunks of this many images
# its memory stays bounded whatever the data size (measured for the largest setting: docs/performance.md)
EVAL_CHUNK = 256


@torch.no_grad()
def predict(model: nn.Module, X: torch.Tensor, chunk: int = EVAL_CHUNK) -> torch.Tensor:
    """The model's logits for every image of ``X``, computed ``chunk`` images at a time, in evaluation
    mode (a model that augments its input while training must not do it here)."""
    was_training = model.training
    model.eval()
    try:
        return torch.cat([model(X[i:i + chunk]) for i in range(0, len(X), chunk)])
    finally:
        model.train(was_training)


def predicted(logits: torch.Tensor) -> torch.Tensor:
    """The class each image is given: logit > 0 for one logit per image (B,), the largest of (B, K) logits."""
    return logits > 0 if logits.ndim == 1 else logits.argmax(dim=-1)


def loss_sum(logits: torch.Tensor, y: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Each image's cross-entropy times its weight, summed: binary for one logit per image, else over K."""
    if logits.ndim == 1:
        return F.binary_cross_entropy_with_logits(logits, y, weight=weight, reduction="sum")
    return (F.cross_entropy(logits, y, reduction="none") * weight).sum()


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return (predicted(logits).to(y.dtype) == y).float().mean().item()


def weighted_accuracy(logits: torch.Tensor, y: torch.Tensor, counts: torch.Tensor) -> float:
    """The accuracy over a set given by its distinct examples and how often each occurs: the same float
    as ``accuracy`` over the full set (a whole number of correct examples over the set's size)."""
    correct = (predicted(logits).to(y.dtype) == y).to(counts.dtype)  # (u,) 1 where right
    return ((correct * counts).sum().to(torch.float32) / counts.sum().to(torch.float32)).item()


def train(model: nn.Module, Xtr: torch.Tensor, ytr: torch.Tensor, Xte: torch.Tensor, yte: torch.Tensor,
          epochs: int = 200, lr: float = 1e-3, callback: Callback | None = None, eval_every: int = 0,
          chunk_size: int | None = None, dedup: bool = True) -> TrainResult:
    """Train ``model`` (already built under its seed) and return final accuracies, curves and test logits.

    Test accuracy is measured every ``eval_every`` epochs (0: never during training), for live curves.

    ``dedup`` (default) trains on the distinct training images, each weighted by its share of the
    training set (see the module's docstring); ``dedup=False`` runs the lesson's loop as written.

    ``chunk_size`` accumulates the full-batch gradient over chunks of (distinct) training images: the
    same mathematics (every example's loss is weighted by its share of the mean) with memory bounded by
    the chunk, for large training sets.
    """
    if epochs < 1 or not (math.isfinite(lr) and lr > 0):
        raise ValueError(f"need epochs >= 1 and a finite lr > 0, got epochs={epochs}, lr={lr}")
    opt = Adam(model.parameters(), lr=lr)  # torch.optim.Adam's arithmetic, without its import cost
    n = len(Xtr)
    if dedup:
        Xfit, yfit, counts = distinct(Xtr, ytr)  # (u, C, H, W), (u,), (u,)
    else:
        Xfit, yfit, counts = Xtr, ytr, torch.ones(n, dtype=torch.long)
    share = counts.to(Xtr.dtype) / n  # each fitted example's weight in the full-batch mean loss
    step = len(Xfit) if chunk_size is None else chunk_size
    if eval_every:  # the live curve's test points: on the distinct test images, weighted (see the docstring)
        Xeval, yeval, eval_counts = distinct(Xte, yte)  # (v, C, H, W), (v,), (v,)
    curves: list[EpochStats] = []
    start = time.perf_counter()
    stopped, diverged_at = False, None
    for epoch in range(1, epochs + 1):
        opt.zero_grad()
        if not dedup and step >= n:
            logits = model(Xtr)  # the lesson's step, as written
            loss = F.binary_cross_entropy_with_logits(logits, ytr) if logits.ndim == 1 else F.cross_entropy(logits, ytr)
            loss.backward()
            loss_value, train_acc = loss.item(), accuracy(logits.detach(), ytr)
        else:
            loss_value, correct = 0.0, 0.0
            for i in range(0, len(Xfit), step):
                xb, yb, wb, cb = Xfit[i:i + step], yfit[i:i + step], share[i:i + step], counts[i:i + step]
                logits = model(xb)
                part = loss_sum(logits, yb, wb)
                part.backward()
                loss_value += part.item()
                correct += ((predicted(logits.detach()).to(yb.dtype) == yb) * cb).sum().item()
            train_acc = correct / n
        if not math.isfinite(loss_value) or loss_value > DIVERGED_LOSS:
            diverged_at = epoch
            break
        opt.step()
        test_acc = None
        if eval_every and (epoch % eval_every == 0 or epoch == epochs):
            test_acc = weighted_accuracy(predict(model, Xeval), yeval, eval_counts)
        stats = EpochStats(epoch, loss_value, train_acc, test_acc)
        curves.append(stats)
        if callback is not None and callback(stats) is False:
            stopped = True
            break
    train_logits, test_logits = predict(model, Xtr), predict(model, Xte)
    return TrainResult(accuracy(train_logits, ytr), accuracy(test_logits, yte), test_logits, curves,
                       time.perf_counter() - start, stopped, diverged_at)
