"""Full-batch training as in the lesson, with a progress callback and nothing of any UI.

One step per epoch: the loss over the whole training set, one Adam step. The callback gets each
epoch's numbers and may return ``False`` to stop early. Training accuracy per epoch comes for free
from the logits of that step (before the update); the final accuracies are measured after training,
exactly as the lesson does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


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


Callback = Callable[[EpochStats], bool | None]


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return ((logits > 0).float() == y).float().mean().item()


def train(model: nn.Module, Xtr: torch.Tensor, ytr: torch.Tensor, Xte: torch.Tensor, yte: torch.Tensor,
          epochs: int = 200, lr: float = 1e-3, callback: Callback | None = None, eval_every: int = 0,
          chunk_size: int | None = None) -> TrainResult:
    """Train ``model`` (already built under its seed) and return final accuracies, curves and test logits.

    Test accuracy is measured every ``eval_every`` epochs (0: never during training), for live curves.

    ``chunk_size`` accumulates the full-batch gradient over chunks of the training set: the same
    mathematics (the loss is a mean, so chunk losses are weighted by their share) with memory bounded
    by the chunk, for large training sets.
    """
    if epochs < 1 or lr <= 0:
        raise ValueError(f"need epochs >= 1 and lr > 0, got epochs={epochs}, lr={lr}")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    n = len(Xtr)
    curves: list[EpochStats] = []
    start = time.perf_counter()
    stopped = False
    for epoch in range(1, epochs + 1):
        opt.zero_grad()
        if chunk_size is None or chunk_size >= n:
            logits = model(Xtr)
            loss = F.binary_cross_entropy_with_logits(logits, ytr)
            loss.backward()
            loss_value, train_acc = loss.item(), accuracy(logits.detach(), ytr)
        else:
            loss_value, correct = 0.0, 0.0
            for i in range(0, n, chunk_size):
                xb, yb = Xtr[i:i + chunk_size], ytr[i:i + chunk_size]
                logits = model(xb)
                part = F.binary_cross_entropy_with_logits(logits, yb) * (len(xb) / n)
                part.backward()
                loss_value += part.item()
                correct += ((logits.detach() > 0).float() == yb).sum().item()
            train_acc = correct / n
        opt.step()
        test_acc = None
        if eval_every and (epoch % eval_every == 0 or epoch == epochs):
            with torch.no_grad():
                test_acc = accuracy(model(Xte), yte)
        stats = EpochStats(epoch, loss_value, train_acc, test_acc)
        curves.append(stats)
        if callback is not None and callback(stats) is False:
            stopped = True
            break
    with torch.no_grad():
        train_logits = torch.cat([model(Xtr[i:i + (chunk_size or n)]) for i in range(0, n, chunk_size or n)])
        test_logits = model(Xte)
    return TrainResult(accuracy(train_logits, ytr), accuracy(test_logits, yte), test_logits, curves,
                       time.perf_counter() - start, stopped)
