"""Adam, as ``torch.optim.Adam`` computes it with its defaults on CPU, written out.

Why not ``torch.optim.Adam`` itself: its constructor imports ``torch._dynamo`` on first use, in every
fresh worker process, and its per-step bookkeeping outweighs the update's arithmetic for these small
models (docs/performance.md). The arithmetic below is the same as
torch's single-tensor path (the one it takes on CPU), in the same order, so the weights come out bit for
bit equal (``tests/nn/test_adam.py`` checks that against ``torch.optim.Adam``). Each operation is one
``_foreach_`` call over every parameter, which is why it is cheaper per step.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


class Adam:
    """Adam without weight decay or AMSGrad (torch's defaults): ``zero_grad()``, then ``step()``."""

    def __init__(self, params: Iterable[torch.nn.Parameter], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8):
        if lr <= 0 or eps < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"need lr > 0, eps >= 0 and betas in [0, 1); got lr={lr}, eps={eps}, betas={betas}")
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.eps = lr, eps
        self.beta1, self.beta2 = betas
        self.exp_avg = [torch.zeros_like(p) for p in self.params]  # first moment
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]  # second moment
        self.steps = [0] * len(self.params)  # per parameter, as torch counts (a parameter without grad is skipped)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None  # torch's default, set_to_none=True

    @torch.no_grad()
    def step(self) -> None:
        live = [i for i, p in enumerate(self.params) if p.grad is not None]
        if not live:
            return
        params = [self.params[i] for i in live]
        grads = [p.grad for p in params]
        ms, vs = [self.exp_avg[i] for i in live], [self.exp_avg_sq[i] for i in live]
        for i in live:
            self.steps[i] += 1
        # torch keeps each step in a float32 tensor and reads it back as a float
        t = [float(self.steps[i]) for i in live]
        # One call per operation for every tensor at once (``_foreach_*``: on CPU a C++ loop over the same
        # per-tensor kernels, so the same bits as one call per tensor, without the Python loop around it)
        torch._foreach_lerp_(ms, grads, 1 - self.beta1)
        torch._foreach_mul_(vs, self.beta2)
        torch._foreach_addcmul_(vs, grads, grads, value=1 - self.beta2)
        if len(set(t)) == 1:
            # Every parameter at the same step (training that updates them all): one scalar for all. The same
            # per-tensor kernels with the same values, without a list of scalars made into tensors one by
            # one (most of the step's remaining overhead)
            t0 = t[0]
            corrections, step_sizes = (1 - self.beta2**t0) ** 0.5, -(self.lr / (1 - self.beta1**t0))
        else:
            corrections = [(1 - self.beta2**ti) ** 0.5 for ti in t]
            step_sizes = [-(self.lr / (1 - self.beta1**ti)) for ti in t]
        denoms = torch._foreach_sqrt(vs)
        torch._foreach_div_(denoms, corrections)
        torch._foreach_add_(denoms, self.eps)
        torch._foreach_addcdiv_(params, ms, denoms, step_sizes)
