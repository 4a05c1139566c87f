"""Training speed and memory: the notebook's loop against ViT Lab's engine, side by side.

    python -m benchmarks.bench_training            # lesson, exercise-1, exercise-2, exercise-3
    python -m benchmarks.bench_training --quick    # without exercise-1 (the notebook takes minutes on it)
    python -m benchmarks.bench_training --configs exercise-2 --notebook-threads 1   # see README: chaos

Each side runs in its own fresh process, one after the other, on the same configs. The notebook side
is ``notebook_reference.py``: ``nn.TransformerEncoder``, one seed after another, default Adam, all
threads. The engine side is ``core.engine.running.run.run`` with its defaults. Printed per config: seconds
for each, the speed ratio, peak resident memory (the engine's counts its worker processes too), and
whether every per-seed train/test accuracy is identical.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from benchmarks.harness import PeakRss

CONFIGS = ("lesson", "exercise-1", "exercise-2", "exercise-3")


def side_notebook(name: str, threads: int | None = None) -> dict:
    import torch

    if threads:
        torch.set_num_threads(threads)
    from core.data.data_config import make_data
    from core.lessons.lesson3_vit_vs_cnn import PRESETS
    from support.notebook_reference import NotebookCNN, NotebookHybrid, NotebookViT, notebook_train_and_eval

    cfg = PRESETS[name]
    data = make_data(cfg.data)  # the lesson's data (tested equal to the notebook's generator)
    factories = {
        "vit": lambda: NotebookViT(patch_size=cfg.model.patch_size),
        "hybrid": lambda: NotebookHybrid(stem_channels=cfg.model.stem_channels, patch_size=cfg.model.patch_size),
        "cnn": NotebookCNN,
    }
    rows = []
    with PeakRss() as peak:
        start = time.perf_counter()
        for seed, model in cfg.jobs:
            tr, te = notebook_train_and_eval(factories[model], data.Xtr, data.ytr, data.Xte, data.yte, seed,
                                             cfg.train.epochs, cfg.train.lr)
            rows.append({"model": model, "seed": seed, "train_acc": tr, "test_acc": te})
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_bytes": peak.peak, "rows": rows, "threads": torch.get_num_threads()}


def side_engine(name: str) -> dict:
    from core.engine.running.pool import server_pool
    from core.engine.running.run import run
    from core.engine.setting.planning import plan
    from core.lessons.lesson3_vit_vs_cnn import PRESETS

    cfg = PRESETS[name]
    budget = server_pool().budget
    how = plan(cfg, budget.capacity, budget.cores)
    with PeakRss() as peak:
        start = time.perf_counter()
        result = run(cfg)
        seconds = time.perf_counter() - start
    rows = [{"model": r.model, "seed": r.seed, "train_acc": r.train_acc, "test_acc": r.test_acc} for r in result.rows]
    return {"seconds": seconds, "peak_bytes": peak.peak, "rows": rows,
            "workers": how.workers, "chunks": how.chunks}


def run_side(side: str, name: str, threads: int | None = None) -> dict:
    extra = ["--notebook-threads", str(threads)] if threads else []
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_training", "--side", side, "--config", name, *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip exercise-1")
    parser.add_argument("--configs", nargs="+", choices=CONFIGS)
    parser.add_argument("--side", choices=("notebook", "engine"), help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--notebook-threads", type=int, help="threads for the notebook side (default: all, as the "
                        "notebook runs); the engine always trains each job on one thread")
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args()
    if args.side:
        print(json.dumps(side_notebook(args.config, args.notebook_threads) if args.side == "notebook"
                         else side_engine(args.config)))
        return
    names = args.configs or [c for c in CONFIGS if not (args.quick and c == "exercise-1")]
    print(f"{'config':<11} {'notebook s':>10} {'engine s':>9} {'speed-up':>8} {'notebook MB':>11} "
          f"{'engine MB':>9} {'workers':>7}  identical accuracies")
    report = []
    for name in names:
        nb, en = run_side("notebook", name, args.notebook_threads), run_side("engine", name)
        same = nb["rows"] == en["rows"]
        report.append({"config": name, "notebook": nb, "engine": en, "identical": same})
        print(f"{name:<11} {nb['seconds']:>10.1f} {en['seconds']:>9.1f} {nb['seconds'] / en['seconds']:>7.2f}x "
              f"{nb['peak_bytes'] / 2**20:>11.0f} {en['peak_bytes'] / 2**20:>9.0f} {en['workers']:>7}  "
              f"{'yes' if same else 'NO'}",
              flush=True)
        if not same:
            for a, b in zip(nb["rows"], en["rows"], strict=True):
                if a != b:
                    print(f"    notebook {a}\n    engine   {b}")
    print(f"(notebook side: {report[0]['notebook']['threads']} thread(s); engine side: one thread per training job)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
