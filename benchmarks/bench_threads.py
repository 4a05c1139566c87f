"""What torch's intra-op thread count costs a page's inference on the server: a drawing's answers on lesson 4's
bench (every model at every seed, ``core.inspect.own_input.answers``) at one thread and at two, on a quiet
machine and beside one busy process (a browser drawing, another learner's session).

    python -m benchmarks.bench_threads
    python -m benchmarks.bench_threads --tries 9 --out benchmarks/records/bench_threads_last_run.txt

The two counts take turns within every try, so both see the same load; medians in ms and their ratio. Why the
pages run at one thread (``ui/__init__.py``): a second thread waits for a core something else holds.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import numpy as np
import torch

from benchmarks.harness import machine_now, ms, table_arguments, write_table
from core.inspect.own_input import answers
from core.inspect.trained_model import run_data
from core.lessons.shipped import load_fresh_shipped


def main() -> None:
    args = table_arguments(__doc__, 7)
    cfg, result = max(load_fresh_shipped().items(), key=lambda kv: len(kv[0].models) * len(kv[0].train.seeds))
    drawing = np.asarray(run_data(cfg.data).Xte[0, 0].numpy())
    answers(result, drawing)  # every model rebuilt once, as on a server that has opened the tab before
    lines = [f"{machine_now()}",
             f"a drawing's answers, {len(cfg.models)} models x {len(cfg.train.seeds)} seeds "
             f"(ms, median of {args.tries})",
             f"{'machine':<22} {'1 thread':>9} {'2 threads':>10} {'2 / 1':>7}"]
    for busy in (False, True):
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            time.sleep(0.5)
            times = {1: [], 2: []}
            for _ in range(args.tries):
                for threads in times:
                    torch.set_num_threads(threads)
                    times[threads].append(ms(lambda: answers(result, drawing)))
        finally:
            if hog is not None:
                hog.kill()
        one, two = statistics.median(times[1]), statistics.median(times[2])
        lines.append(f"{'one busy process' if busy else 'quiet':<22} {one:9.1f} {two:10.1f} {two / one:7.2f}")
        print(lines[-1], flush=True)
    write_table(lines, args.out)


if __name__ == "__main__":
    main()
