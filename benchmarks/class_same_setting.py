"""A class pressing Run on one new setting at once: trained once, and every learner's result within the
command line's time for that setting + 3 s.

    python -m benchmarks.class_same_setting                  # 30 learners, the lesson at 100 epochs
    python -m benchmarks.class_same_setting --learners 30 --epochs 100

Both measured in this run, on this machine: ``python -m core generalization --epochs E`` (the command
line's time for the setting, a whole process), then ``--learners`` threads that each attach to the
server's flights at the same moment (``core.engine.running.flights``, as ``ui.training.train_live`` does: the
server's pool, its budget, its live curve) and wait for their result, as a page would (a wait of one second
at a time). Printed: each side's seconds, the trainings started, the slowest learner against the command
line + 3 s, and whether every learner got the same numbers. The pages' share of it (drawing the bar) is
not in here: ``benchmarks/load_test.py`` drives real browsers.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time

from core.engine.running.flights import Flights
from core.engine.setting.run_config import NOTEBOOK_SETUP, with_value
from core.engine.storage.store import ResultStore
from support.browser import ROOT


def command_line_seconds(epochs: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core", "generalization", "--epochs", str(epochs), "--json"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def class_seconds(learners: int, epochs: int) -> tuple[list[float], int, bool]:
    """(each learner's seconds to its result, trainings started, every learner got the same rows)."""
    cfg = with_value(NOTEBOOK_SETUP, "train.epochs", epochs)
    flights = Flights(ResultStore())
    go = threading.Barrier(learners)
    seconds, rows = [0.0] * learners, [None] * learners

    def learner(i: int) -> None:
        go.wait()
        start = time.perf_counter()
        with flights.attach(cfg, eval_every=max(1, epochs // 25)) as ticket:
            while not (s := ticket.wait(1.0)).finished:
                pass
        seconds[i], rows[i] = time.perf_counter() - start, [(r.model, r.seed, r.test_acc) for r in s.result.rows]

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(learners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return seconds, flights.started, all(r == rows[0] for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    cli = command_line_seconds(args.epochs)
    seconds, started, same = class_seconds(args.learners, args.epochs)
    slowest = max(seconds)
    print(f"setting: the lesson at {args.epochs} epochs (3 seeds x 2 models), not shipped")
    print(f"command line (python -m core generalization --epochs {args.epochs}): {cli:.1f} s")
    print(f"{args.learners} learners at once: trainings started {started}; result after median "
          f"{statistics.median(seconds):.1f} s, slowest {slowest:.1f} s; same numbers for all: {same}")
    print(f"slowest learner - command line = {slowest - cli:+.1f} s (target: <= +3 s): "
          f"{'met' if slowest <= cli + 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
