"""How long lesson 3's shift test takes for a shipped run: every model, trained and as it started, moved by 1 pixel
and by one patch along x and y (forward passes only), first call (nothing cached) and again.

    python -m benchmarks.bench_equivariance [--tries 5]

The page computes it once per run (cached): the first open of *What broke the ViT?* pays the first figure.
"""

from __future__ import annotations

import argparse
import time

import torch

from benchmarks.harness import machine_now
from core.inspect import trained_model
from core.inspect.equivariance import shift_responses
from core.lessons.lesson3_vit_vs_cnn import PRESETS
from core.lessons.shipped import load_fresh_shipped


def main(tries: int) -> None:
    torch.set_num_threads(1)  # as a page's thread (ui/__init__.py)
    shipped = load_fresh_shipped()
    print(machine_now())
    for name in ("lesson", "mlp", "splits-phase"):
        result = shipped[PRESETS[name]]
        firsts, agains = [], []
        for _ in range(tries):
            trained_model._loaded.cache_clear()
            trained_model.run_data.cache_clear()
            start = time.perf_counter()
            shift_responses(result, result.config.train.seeds[0])
            firsts.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            shift_responses(result, result.config.train.seeds[0])
            agains.append(1000 * (time.perf_counter() - start))
        print(f"{name} ({len(result.config.models)} models): first {sorted(firsts)[len(firsts) // 2]:.0f} ms, "
              f"models built already {sorted(agains)[len(agains) // 2]:.0f} ms (medians of {tries})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=5)
    main(parser.parse_args().tries)
