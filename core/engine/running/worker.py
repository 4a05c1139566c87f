"""A training worker process: ``python -m core.engine.running.worker [module ...]`` (started by ``pool.py``;
the modules are imported at once, before the first job arrives).

Generic: it knows jobs, not experiments. It reads pickled jobs ``(index, function, args, map_big)`` on
stdin, runs ``function(*args, report=...)`` on one thread, and writes pickled replies on stdout:
``("progress", index, payload)`` whenever the job reports, then ``("done", index, result)`` or
``("error", index, traceback)``. Functions travel by reference (module and name), so whatever they
need is imported here, not by the pool.

It ends itself within a second when the process that started it dies, at any stage: a watchdog thread
checks its parent. (Not Linux's ``PR_SET_PDEATHSIG``: that fires when the *thread* that started the
worker ends, and a server starts workers from short-lived session threads while other runs reuse them.)

``map_big``: a job that trains in gradient chunks (a large setting) first lowers glibc's mmap
threshold, so that big tensors are mapped and unmapped rather than left in the heap; such a worker is
ended after its run anyway.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NICE_VARIABLE = "VITLAB_THIS_WORKER_NICE"  # how the starting process tells a worker its priority


def start_worker_process(preload: tuple[str, ...] = (), nice: int = 0) -> subprocess.Popen:
    """Start ``python -m core.engine.running.worker [modules to import at once]``, ``nice`` steps below this
    process's CPU priority (its torch import included). Starting one costs its Python and torch imports
    (docs/performance.md, the command line's whole process), which is why pools keep idle workers and start them
    early; this module imports
    nothing heavy, so a caller can start workers before its own imports."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           NICE_VARIABLE: str(nice)}
    return subprocess.Popen([sys.executable, "-m", "core.engine.running.worker", *preload], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, cwd=ROOT, env=env)


def _die_with_parent() -> None:
    parent = os.getppid()

    def watchdog() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watchdog, daemon=True).start()


def _map_big_allocations() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD = 1 MiB
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


def _lower_priority() -> None:
    nice = int(os.environ.pop(NICE_VARIABLE, "0"))
    if nice and hasattr(os, "nice"):  # not on Windows
        os.nice(nice)


def main() -> None:
    _lower_priority()  # first: the torch import below runs at that priority too
    _die_with_parent()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # nothing else may write to the reply channel

    import importlib

    import torch

    torch.set_num_threads(1)  # one thread per job: see pool.py
    for module in sys.argv[1:]:  # what the first job will need, imported while the worker waits for it
        importlib.import_module(module)

    def reply(message) -> None:
        pickle.dump(message, channel)
        channel.flush()

    while True:
        try:
            index, function, args, map_big = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        try:
            if map_big:
                _map_big_allocations()
            result = function(*args, report=lambda payload, index=index: reply(("progress", index, payload)))
            reply(("done", index, result))
        except Exception:
            reply(("error", index, traceback.format_exc()))


if __name__ == "__main__":
    main()
