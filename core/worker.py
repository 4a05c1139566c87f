"""A training worker: ``python -m core.worker`` (started by ``parallel.py``, not by hand).

Reads pickled jobs on stdin, trains each with one thread, and writes pickled replies on stdout:
("epoch", job, EpochStats) while training when progress is wanted, then ("done", job, RunResult) or
("error", job, traceback).

A job that trains in gradient chunks (a large setting) first lowers glibc's mmap threshold, so that
big tensors are mapped and unmapped rather than left in the heap: measured on the largest setting,
peak memory 808 MiB with it against 1526 MiB without, for a slower step (such a worker is ended after
its run anyway).
"""

from __future__ import annotations

import os
import pickle
import sys
import traceback


def main() -> None:
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # nothing else may write to the reply channel

    import torch

    from core.experiments import train_job

    def reply(message) -> None:
        pickle.dump(message, channel)
        channel.flush()

    while True:
        try:
            index, cfg, name, seed, eval_every, report, threads, chunk = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        try:
            torch.set_num_threads(threads)
            if chunk is not None:
                _map_big_allocations()
            callback = (lambda stats, index=index: reply(("epoch", index, stats))) if report else None
            reply(("done", index, train_job(cfg, name, seed, callback, eval_every, chunk=chunk)))
        except Exception:
            reply(("error", index, traceback.format_exc()))


def _map_big_allocations() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD = 1 MiB
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


if __name__ == "__main__":
    main()
