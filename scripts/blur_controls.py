"""The blur's stride-free control: does a blur help models that subsample nothing? ``python -m scripts.blur_controls``.

The blurred ViT and the blur-pool CNN beat their plain twins at offsets new for their stride (docs/claims.md §2). If
the blur helps *by anti-aliasing a stride*, models with no stride should gain nothing from it. This trains the flatten
MLP and the linear pixel classifier with and without the ViT's own blur (5 taps, zero padding: ``core.nn.blur``) in
front, on the odd and the phase split, and prints each at its held-out centres by region (docs/claims.md §11).

The two blurred controls are registered in this process only: the registry's file, and so the code fingerprint of
every shipped result, is unchanged. Each pair starts from the same weights (the blur has none and draws nothing).
"""

from __future__ import annotations

import sys
from dataclasses import replace

import torch.nn as nn

from core.engine.results.behaviour import map_scores
from core.engine.results.units import held_out
from core.engine.running.run import run
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.what_broke import by_region
from core.models.registry import IN_CHANS, REGISTRY, register
from core.nn.blur import Blur

TAPS = 5  # the lesson's ViT blurs with P + 1 taps at its 4×4 patches
CONTROLS = ("mlp", "linear")
SPLITS = ("splits-odd", "splits-phase")


class Blurred(nn.Module):
    """(B, C, H, W) -> blur (stride 1, the size kept) -> the plain model: its weights, drawn as the plain model's."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.blur = Blur(IN_CHANS, TAPS, padding="zeros")
        self.model = model

    def forward(self, x):
        return self.model(self.blur(x))


def register_blurred(name: str) -> str:
    plain = REGISTRY[name]
    blurred = f"{name}-blur"
    if blurred not in REGISTRY:
        register(replace(plain, name=blurred,
                         build=lambda m, size, g, outputs, plain=plain: Blurred(plain.build(m, size, g, outputs))))
    return blurred


def main(argv: list[str]) -> int:
    seeds = tuple(int(a) for a in argv[:1][0].split(",")) if argv else (0, 1, 2)
    draws = tuple(int(a) for a in argv[1].split(",")) if len(argv) > 1 else (1, 2)
    models = tuple(m for name in CONTROLS for m in (name, register_blurred(name)))
    print(f"seeds {seeds}, training draws {draws}; accuracy at the held-out centres that are new for the model "
          "(all of them: these models have no stride), then by region")
    for preset in SPLITS:
        for draw in draws:
            base = PRESETS[preset]
            cfg = replace(base, models=models, train=replace(base.train, seeds=seeds),
                          data=replace(base.data, data_seed=draw))
            result = run(cfg, workers=0, limit=False)
            regions_of = by_region(result)
            for m in models:
                new = map_scores(result, m, held_out(result, m, "new"))
                regions = regions_of[m]
                train = {row.seed: row.train_acc for row in result.rows if row.model == m}
                print(f"{preset} draw {draw} {m:12s} new " + "/".join(f"{100 * new[s]:.0f}" for s in seeds)
                      + " %  train " + "/".join(f"{100 * train[s]:.0f}" for s in seeds) + " %  "
                      + "  ".join(f"{r}: " + "/".join(f"{100 * x:.0f}" for x in v) for r, v in regions.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
