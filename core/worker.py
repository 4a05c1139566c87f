"""A training worker: ``python -m core.worker`` (started by ``parallel.py``, not by hand).

Reads pickled jobs on stdin, trains each with one thread, and writes pickled replies on stdout:
("epoch", job, EpochStats) while training when progress is wanted, then ("done", job, RunResult) or
("error", job, traceback).
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

    torch.set_num_threads(1)

    def reply(message) -> None:
        pickle.dump(message, channel)
        channel.flush()

    while True:
        try:
            index, cfg, name, seed, eval_every, report = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        try:
            callback = (lambda stats, index=index: reply(("epoch", index, stats))) if report else None
            reply(("done", index, train_job(cfg, name, seed, callback, eval_every)))
        except Exception:
            reply(("error", index, traceback.format_exc()))


if __name__ == "__main__":
    main()
