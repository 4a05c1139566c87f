"""Train (model, seed) pairs in parallel worker processes, one thread each.

On a small CPU the lesson's tensors are too small for PyTorch's intra-op threads to pay off: two
single-threaded processes each training its own pair do about twice the work of one process with two
threads. Workers are forked from a forkserver that has already imported torch, so they start fast,
and they report every epoch through a queue. The caller's progress callback runs in the calling
thread (it may be a UI); if it returns False or raises, a shared event tells every worker to stop at
its next epoch.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

import torch

from core.experiments import RunResult, train_job
from core.train import EpochStats

_queue = None
_stop = None


def available_cpus() -> float:
    """CPUs this process may use: the cgroup quota if one is set (containers), else the affinity mask."""
    try:
        quota, period = open("/sys/fs/cgroup/cpu.max").read().split()
        if quota != "max":
            return max(float(quota) / float(period), 0.0)
    except (OSError, ValueError):
        pass
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return float(os.cpu_count() or 1)


def _init(q, stop) -> None:
    global _queue, _stop
    torch.set_num_threads(1)
    _queue, _stop = q, stop


def _work(cfg, index: int, name: str, seed: int, eval_every: int):
    def callback(stats: EpochStats):
        _queue.put((index, stats))
        return False if _stop.is_set() else None

    return index, train_job(cfg, name, seed, callback, eval_every)


def _context():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["torch", "core.experiments"])
    return ctx


def run_jobs(cfg, jobs: list[tuple[int, str]], progress, eval_every: int, workers: int) -> list:
    """Run ``jobs`` [(seed, model), ...]; return their RunResults in job order (fewer if stopped)."""
    ctx = _context()
    q, stop = ctx.Queue(), ctx.Event()
    results: list = [None] * len(jobs)
    epochs_done = [0] * len(jobs)
    total = len(jobs) * cfg.epochs

    def drain() -> None:
        while True:
            try:
                index, stats = q.get_nowait()
            except queue.Empty:
                return
            epochs_done[index] = stats.epoch
            seed, name = jobs[index]
            if progress is not None and progress(name, seed, stats, sum(epochs_done), total) is False:
                stop.set()

    executor = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(q, stop))
    try:
        pending = {executor.submit(_work, cfg, i, name, seed, eval_every) for i, (seed, name) in enumerate(jobs)}
        while pending:
            done, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
            for future in done:
                index, part = future.result()
                results[index] = part
            drain()
        drain()
    except BaseException:
        stop.set()  # a raising callback (e.g. the UI moved on): stop every worker at its next epoch
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    if stop.is_set():  # stopped by the callback: report an incomplete run, keep nothing partial
        return [RunResult(cfg.to_json(), complete=False)]
    return results
