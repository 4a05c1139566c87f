"""The logit lens for a trained vision transformer: what the model would answer if its encoder stopped after each
layer. The tokens after layer i are read through the model's own ending (its pooling or class token, its final
norm if it has one, its head), so the last layer's reading is the model's answer and the earlier ones show at
which layer that answer forms (nostalgebraist 2020, "interpreting GPT: the logit lens"; for vision,
ViT-Explainer, arXiv 2604.02182).

No model is changed for it: the layers' outputs are caught with forward hooks, and each is read by running the
model once more with its last layer's output replaced by it. Every layer computes every token here (the
models' attention list switches off the class-token-only shortcut of their last layer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

from core.inspect.trained_model import class_probabilities


def encoder_layers(model: nn.Module) -> nn.ModuleList:
    """The model's encoder layers, in order (the post-norm family's ``layers``; the pre-norm ViT's ``blocks``)."""
    for name in ("layers", "blocks"):
        layers = getattr(model, name, None)
        if isinstance(layers, nn.ModuleList):
            return layers
    raise ValueError(f"{type(model).__name__} has no encoder layers: the logit lens reads transformers only")


@dataclass(frozen=True)
class Lens:
    logits: np.ndarray  # (layers, outputs): the model's answer read after each layer (the last: its answer)
    probs: np.ndarray  # (layers, classes): the same as each class's probability


@torch.no_grad()
def logit_lens(model: nn.Module, x: torch.Tensor) -> Lens:
    """The lens of one image ``x`` (1, C, H, W) through ``model`` (in evaluation mode)."""
    layers = encoder_layers(model)
    caught: list[torch.Tensor] = []
    hooks = [layer.register_forward_hook(lambda m, i, out: caught.append(out)) for layer in layers]
    try:
        answer = model(x, attentions=[])  # every layer computes every token
    finally:
        for h in hooks:
            h.remove()
    readings = []
    for tokens in caught[:-1]:
        hook = layers[-1].register_forward_hook(lambda m, i, out, t=tokens: t)  # (B, T, D)
        try:
            readings.append(model(x, attentions=[]))
        finally:
            hook.remove()
    readings.append(answer)
    logits = torch.stack([r.reshape(-1) for r in readings])  # (layers, outputs)
    return Lens(logits.numpy(), class_probabilities(logits).numpy())
