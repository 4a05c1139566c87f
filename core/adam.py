"""Adam, as ``torch.optim.Adam`` computes it with its defaults on CPU, written out.

Why not ``torch.optim.Adam`` itself: its constructor imports ``torch._dynamo`` on first use, which
costs more than a whole lesson-sized training job in every fresh worker process (README, "Speed and
memory"), and its per-step bookkeeping costs more than the update's arithmetic for these small models. The arithmetic below is the same as torch's single-tensor path (the one it
takes on CPU), in the same order, so the weights come out bit for bit equal
(``tests/test_adam.py`` checks that against ``torch.optim.Adam``).
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
        for i, (p, m, v) in enumerate(zip(self.params, self.exp_avg, self.exp_avg_sq, strict=True)):
            if p.grad is None:
                continue
            g = p.grad
            self.steps[i] += 1
            t = float(self.steps[i])  # torch keeps the step in a float32 tensor and reads it back as a float
            m.lerp_(g, 1 - self.beta1)
            v.mul_(self.beta2).addcmul_(g, g, value=1 - self.beta2)
            step_size = self.lr / (1 - self.beta1**t)
            denom = (v.sqrt() / (1 - self.beta2**t) ** 0.5).add_(self.eps)
            p.addcdiv_(m, denom, value=-step_size)
