"""Lesson 4's bench: training time per seed of every remedy against the lesson's ViT, same run.

    python -m benchmarks.bench_remedies             # 3 tries each, seed 0, lesson size
    python -m benchmarks.bench_remedies --tries 5 --json out.json

Each try trains one (model, seed 0) pair of the bench's config in this process, on one thread, exactly as
a worker does (``run.train_job``); the models take turns within every try, so all see the same machine
load. Printed: the median seconds per seed, its ratio to the lesson ViT's (the issue's bound: within 2x),
and the test accuracy of seed 0 (the same every try: training is seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import torch

from core.engine.running.run import train_job
from core.lessons.lesson4_fixing_the_vit import BENCH
from core.lessons.model_cards import BENCH as CARDS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--json", help="write the medians to this file")
    args = ap.parse_args()
    torch.set_num_threads(1)  # as a worker
    times: dict[str, list[float]] = {m: [] for m in CARDS}
    acc: dict[str, float] = {}
    train_job(BENCH, "vit", 0)  # warm-up: data, first allocations
    for _ in range(args.tries):
        for m in CARDS:
            part = train_job(BENCH, m, 0)
            times[m].append(part.seconds)
            acc[m] = part.rows[0].test_acc
    base = statistics.median(times["vit"])
    print(f"{BENCH.train.epochs} epochs, {BENCH.data.n_train} training images; load {os.getloadavg()[0]:.2f}")
    out = {}
    for m, t in times.items():
        med = statistics.median(t)
        out[m] = {"seconds": med, "ratio": med / base, "test_acc_seed0": acc[m]}
        print(f"{m:<14} {med:6.2f} s/seed ({', '.join(f'{x:.2f}' for x in t)})  {med / base:4.2f}x the ViT  "
              f"test (seed 0) {acc[m]:.1%}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
