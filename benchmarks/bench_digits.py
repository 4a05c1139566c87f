"""Lesson 5's cost: training time per seed of each of its models on real digits, against the same model on lesson
3's shapes, in the same run.

    python -m benchmarks.bench_digits                 # 1 try each, seed 0
    python -m benchmarks.bench_digits --tries 3 --out benchmarks/records/bench_digits_last_run.txt

Each try trains one (model, seed 0) pair in this process, on one thread, exactly as a worker does
(``run.train_job``): on lesson 3's setting (shapes, 300 draws holding ~70 distinct images), on lesson 5's ten
digits (1000 distinct images) and on its 0 vs 1 (300). The settings take turns within every try, so all see
the same machine load. Printed per model: the median seconds per seed of each setting and its ratio to the
shapes' (timings on a shared machine are noisy: compare the ratios). Also timed: one live run of the page's
*small* preset as the page runs it (``run.run``, every core), the learner's live re-run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import replace

import torch

from core.engine.running.run import run, train_job
from core.engine.setting.run_config import NOTEBOOK_SETUP
from core.lessons.lesson5_real_handwriting import MODELS, PRESETS

SETTINGS = {"shapes (lesson 3)": NOTEBOOK_SETUP, "ten digits": PRESETS["ten digits"], "0 vs 1": PRESETS["0 vs 1"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=1)
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args()
    torch.set_num_threads(1)  # as a worker
    configs = {name: replace(cfg, models=MODELS) for name, cfg in SETTINGS.items()}
    times = {(m, s): [] for m in MODELS for s in configs}
    for cfg in configs.values():
        train_job(cfg, "cnn", 0)  # warm-up: data, first allocations
    for _ in range(args.tries):
        for m in MODELS:
            for s, cfg in configs.items():
                times[m, s].append(train_job(cfg, m, 0).seconds)
    lines = [f"{NOTEBOOK_SETUP.train.epochs} epochs, seed 0, one thread, median of {args.tries}; load "
             f"{os.getloadavg()[0]:.2f}",
             f"{'model':<14}" + "".join(f"{s:>26}" for s in configs)]
    for m in MODELS:
        base = statistics.median(times[m, "shapes (lesson 3)"])
        cells = [f"{statistics.median(times[m, s]):8.2f} s ({statistics.median(times[m, s]) / base:5.1f}x)"
                 for s in configs]
        lines.append(f"{m:<14}" + "".join(f"{c:>26}" for c in cells))
    start = time.perf_counter()
    result = run(PRESETS["small"])
    lines.append(f"live re-run of the page's 'small' preset (ViT and CNN, ten digits, 2 seeds, every core): "
                 f"{time.perf_counter() - start:.1f} s ({len(result.rows)} pairs)")
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(report + "\n")


if __name__ == "__main__":
    main()
