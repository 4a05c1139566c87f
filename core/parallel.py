"""Train (model, seed) pairs in parallel worker processes, one thread each.

On a small CPU the lesson's tensors are too small for PyTorch's intra-op threads to pay off: two
single-threaded processes, each training its own pair, get more done than one process with two
threads. Workers are plain ``python -m core.worker`` subprocesses speaking pickle over their pipes
(so nothing depends on how the caller's main module was started: Streamlit, pytest or a notebook),
kept alive between runs so that only the first run pays for importing torch.

Each worker reports every epoch; the caller's progress callback runs in the calling thread (it may be
a UI). If it returns False or raises, the workers of this run are killed at once and nothing partial
is returned.
"""

from __future__ import annotations

import atexit
import os
import pickle
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER_MEMORY = 400 * 2**20  # what one worker may need: torch itself plus a bounded training step


def available_cpus() -> float:
    """CPUs this process may use: the cgroup quota if one is set (containers), else the affinity mask."""
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if quota != "max":
            return float(quota) / float(period)
    except (OSError, ValueError):
        pass
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return float(os.cpu_count() or 1)


def available_memory() -> float:
    """Bytes this process could still use: the cgroup limit if set, else MemAvailable (inf if unknown)."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text())
        if limit != "max":
            return float(int(limit) - used)
    except (OSError, ValueError):
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float("inf")


def current_rss() -> int:
    """This process's resident memory in bytes (0 where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def worker_count(n_jobs: int) -> int:
    """Workers for ``n_jobs`` jobs: one per core and per job, only as many as memory allows; 0 (train in
    this process) where not even one worker's torch runtime fits.

    ``VITLAB_WORKERS`` overrides it (0 trains in the calling process).
    """
    forced = os.environ.get("VITLAB_WORKERS")
    if forced:
        return max(0, min(n_jobs, int(forced)))
    by_memory = int(available_memory() // WORKER_MEMORY)
    if by_memory == 0:  # e.g. the smallest Community Cloud containers: a second torch runtime won't fit
        return 0
    return max(1, min(n_jobs, int(available_cpus()), by_memory))


class Worker:
    """One ``python -m core.worker`` process and a thread that turns its replies into queue items."""

    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, "-m", "core.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=ROOT, env=env)
        self.replies: queue.Queue | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                message = pickle.load(self.proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError):
                message = ("dead", None, self.proc.poll())
            if self.replies is not None:
                self.replies.put((self, message))
            if message[0] == "dead":
                return

    def send(self, job) -> None:
        pickle.dump(job, self.proc.stdin)
        self.proc.stdin.flush()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait()


_idle: list[Worker] = []
_lock = threading.Lock()


def _acquire(n: int) -> list[Worker]:
    with _lock:
        ready = [w for w in _idle if w.alive()][:n]
        for w in ready:
            _idle.remove(w)
    return ready + [Worker() for _ in range(n - len(ready))]


def _release(workers: list[Worker]) -> None:
    with _lock:
        _idle.extend(w for w in workers if w.alive())


@atexit.register
def shutdown() -> None:
    """Stop the idle workers (also run at interpreter exit)."""
    with _lock:
        while _idle:
            _idle.pop().kill()


def run_jobs(cfg, jobs: list[tuple[int, str]], progress, eval_every: int, how) -> list:
    """Run ``jobs`` [(seed, model), ...] as ``how`` (a ``Plan``) says; return their RunResults in job order.

    Longest jobs (transformers) go first, so no worker is left alone with a long job at the end. A
    worker that trained in gradient chunks (a large setting) is ended afterwards rather than kept, so
    the memory it grew to goes back to the system.
    """
    replies: queue.Queue = queue.Queue()
    pool = _acquire(how.workers)
    for w in pool:
        w.replies = replies
    todo = sorted(range(len(jobs)), key=lambda i: jobs[i][1] == "cnn")
    results: list = [None] * len(jobs)
    epochs_done = [0] * len(jobs)
    total = len(jobs) * cfg.epochs
    busy = 0
    ok = False
    big = any(c is not None for c in how.chunks.values())

    def job(i: int) -> tuple:
        seed, name = jobs[i]
        return (i, cfg, name, seed, eval_every, progress is not None, how.threads, how.chunks[name])

    try:
        for w in pool:
            if todo:
                i = todo.pop(0)
                w.send(job(i))
                busy += 1
        while busy:
            w, (kind, i, payload) = replies.get()
            if kind == "epoch":
                epochs_done[i] = payload.epoch
                seed, name = jobs[i]
                if progress is not None and progress(name, seed, payload, sum(epochs_done), total) is False:
                    return [_incomplete(cfg)]
            elif kind == "done":
                results[i] = payload
                busy -= 1
                if todo:
                    j = todo.pop(0)
                    w.send(job(j))
                    busy += 1
            elif kind == "error":
                raise RuntimeError(f"training {jobs[i][1]} (seed {jobs[i][0]}) failed in a worker:\n{payload}")
            else:  # dead
                raise RuntimeError(f"a training worker exited unexpectedly (exit status {payload})")
        ok = True
        return results
    finally:
        for w in pool:
            w.replies = None
        if ok and not big:
            _release(pool)
        else:  # stopped, failed or interrupted: these workers may be mid-job, so end them
            for w in pool:
                w.kill()


def _incomplete(cfg):
    from core.experiments import RunResult

    return RunResult(cfg.to_json(), complete=False)
