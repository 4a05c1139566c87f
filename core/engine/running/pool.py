"""Worker processes that run jobs, one thread each, within the server-wide budget.

On a small CPU the lesson's tensors are too small for PyTorch's intra-op threads to pay off: two
single-threaded processes, each training its own job, get more done than one process with two
threads, and one thread per job everywhere makes every result independent of how many workers a
machine affords (the thread count changes float rounding). Workers are plain
``python -m core.engine.running.worker`` subprocesses speaking pickle over their pipes, so nothing
depends on how the caller's main module was started (Streamlit, pytest, a notebook).

Every live worker holds ``WORKER_BASE`` bytes of the budget from its start to its end, and every
running job its own bytes and one core. A run takes the workers it can afford (reusing idle ones
first), waits in the budget's line when it can afford none, and gives everything back when it ends.
Idle workers are kept ``idle_seconds()`` for the next run, then ended. A server's workers run below its
own CPU priority (``worker_nice()``): a learner's page draws before another learner's training step.

The pool knows jobs, not experiments: a job is a function, its arguments and the memory it needs.

A run may also train *here*, in the calling process, as one of its lanes (``run(..., here=True)``): the
command line imports torch anyway, so it starts one worker fewer and trains beside them instead of
waiting. It sets this process to one torch thread, so a server (whose threads serve pages) never asks.
"""

from __future__ import annotations

import atexit
import pickle
import queue
import subprocess
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from core.engine.running.worker import start_worker_process
from core.engine.setting.machine import WORKER_BASE
from core.engine.setting.planning import Budget, idle_seconds, server_budget, worker_nice


@dataclass(frozen=True)
class Job:
    function: Callable  # a module-level function: function(*args, report=callable) -> result
    args: tuple
    nbytes: int  # memory its training step needs
    map_big: bool = False  # a large, chunked job: map big tensors (the worker is ended afterwards)


class Worker:
    """One worker process and a thread that turns its replies into queue items."""

    def __init__(self, budget: Budget, preload: tuple[str, ...] = (), proc: subprocess.Popen | None = None,
                 nice: int = 0):
        self.budget = budget  # holds WORKER_BASE of it, taken by the caller, given back by kill()
        self.proc = proc or start_worker_process(preload, nice)
        self.replies: queue.Queue | None = None
        self.idle_since = time.monotonic()
        self._ended = False
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

    def send(self, index: int, job: Job) -> None:
        pickle.dump((index, job.function, job.args, job.map_big), self.proc.stdin)
        self.proc.stdin.flush()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait()
        if not self._ended:
            self._ended = True
            self.budget.give(WORKER_BASE)


class Pool:
    def __init__(self, budget: Budget, nice: int = 0):
        self.budget = budget
        self.nice = nice  # the workers it starts run this much below this process's CPU priority
        self._idle: list[Worker] = []
        self._busy = 0  # workers in runs now
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None

    # ------------------------------------------------------------ workers
    @property
    def idle(self) -> list[Worker]:
        with self._lock:
            return list(self._idle)

    def _grant(self, wanted: int, job_bytes: int, here: bool = False) -> tuple[int, list[Worker]] | None:
        """Called under the budget's lock when it is this run's turn: the most lanes (<= wanted) the budget
        affords now, and the idle workers reused for them (one lane fewer when this process trains too);
        None if not even one lane."""
        for k in range(wanted, 0, -1):
            remote = k - here  # lanes that need a worker process
            with self._lock:
                self._idle = [w for w in self._idle if w.alive() or w.kill()]
                reuse = min(remote, len(self._idle))
                if self.budget.take(k * job_bytes + (remote - reuse) * WORKER_BASE, cores=k):
                    taken, self._idle = self._idle[:reuse], self._idle[reuse:]
                    return k, taken
        with self._lock:  # nothing fits: end an idle worker (its memory goes back) and try again
            victim = self._idle.pop() if self._idle else None
        if victim is not None:
            victim.kill()
            return self._grant(wanted, job_bytes, here)
        return None

    def _release(self, workers: list[Worker], reuse: bool) -> None:
        for w in workers:
            w.replies = None
        if not reuse:
            for w in workers:
                w.kill()
            return
        with self._lock:
            for w in workers:
                w.idle_since = time.monotonic()
            self._idle.extend(w for w in workers if w.alive())
        self._start_reaper()

    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, daemon=True)
                self._reaper.start()

    def _reap(self) -> None:
        """End workers that stayed idle longer than ``idle_seconds()``, so an idle server shrinks back."""
        while True:
            time.sleep(min(1.0, idle_seconds() / 4))
            limit = time.monotonic() - idle_seconds()
            with self._lock:
                old = [w for w in self._idle if w.idle_since < limit]
                self._idle = [w for w in self._idle if w not in old]
            for w in old:
                w.kill()

    def warm(self, n: int, preload: tuple[str, ...] = (), procs: list[subprocess.Popen] | None = None) -> int:
        """Have ``n`` idle workers ready before a run needs them (a visitor opening the training page, the
        command line before its own imports), as far as the budget affords and nobody is waiting in its
        line; idle workers it counts are kept another ``idle_seconds()`` (else a visitor who read for longer
        than that would find them ended when pressing Run, and every page visit after it started them
        again); ``procs``: worker processes already started, to adopt. Returns how many were added."""
        procs = list(procs or [])
        added = 0
        with self._lock:
            self._idle = [w for w in self._idle if w.alive() or w.kill()]
            now = time.monotonic()
            for w in self._idle[:n]:  # wanted again: their idle time starts over (a visitor is still reading)
                w.idle_since = now
            missing = n - len(self._idle) - self._busy  # workers in a run now come back idle after it
        while added < missing and not self.budget.waiting and self.budget.take(WORKER_BASE):
            worker = Worker(self.budget, preload, procs.pop() if procs else None, self.nice)
            with self._lock:
                self._idle.append(worker)
            added += 1
        for proc in procs:  # started but not affordable now: end them
            proc.kill()
            proc.wait()
        if added:
            self._start_reaper()  # unused warm workers end after idle_seconds()
        return added

    def shutdown(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()

    # ------------------------------------------------------------ running
    def run(self, jobs: list[Job], max_workers: int, on_progress: Callable[[int, object], bool | None] | None = None,
            on_wait: Callable[[int], object] | None = None, order: list[int] | None = None,
            here: bool = False) -> list | None:
        """Run ``jobs`` on up to ``max_workers`` lanes; their results in job order, or None if
        ``on_progress(index, payload)`` returned False. Jobs start in ``order`` (default: as given).
        ``here``: one lane is a thread of this process (never for big jobs). An exception in a callback
        propagates; the run's workers are then ended at once."""
        here = here and not any(j.map_big for j in jobs)
        job_bytes = max(j.nbytes for j in jobs)
        k, pool = self.budget.admit(lambda: self._grant(min(max_workers, len(jobs)), job_bytes, here), on_wait)
        pool += [Worker(self.budget, nice=self.nice) for _ in range(k - here - len(pool))]
        with self._lock:
            self._busy += k - here
        replies: queue.Queue = queue.Queue()
        for w in pool:
            w.replies = replies
        todo = deque(order if order is not None else range(len(jobs)))
        todo_lock = threading.Lock()

        def next_job() -> int | None:
            with todo_lock:
                return todo.popleft() if todo else None

        stop = threading.Event()
        lane = (threading.Thread(target=_lane_here, args=(jobs, next_job, replies, stop), name="vitlab-lane-here",
                                 daemon=True) if here else None)
        ok = False
        try:
            for w in pool:
                if (i := next_job()) is not None:
                    w.send(i, jobs[i])
            if lane is not None:
                lane.start()
            results = _collect(jobs, replies, next_job, on_progress)
            ok = results is not None
            return results
        finally:
            stop.set()
            if lane is not None and lane.is_alive():
                lane.join()  # a stopped job ends at its next report
            with self._lock:
                self._busy -= k - here
            self.budget.give(k * job_bytes, cores=k)
            # stopped, failed or interrupted workers may be mid-job, and big jobs leave big heaps: end them
            self._release(pool, reuse=ok and not any(j.map_big for j in jobs))


def _collect(jobs: list[Job], replies: queue.Queue, next_job: Callable[[], int | None],
             on_progress: Callable[[int, object], bool | None] | None) -> list | None:
    """Gather every job's result from the lanes' replies, handing a worker its next job when it finishes
    one; None if ``on_progress`` returned False."""
    results: list = [None] * len(jobs)
    remaining = len(jobs)
    while remaining:
        w, (kind, i, payload) = replies.get()
        if kind == "progress":
            if on_progress is not None and on_progress(i, payload) is False:
                return None
        elif kind == "done":
            results[i] = payload
            remaining -= 1
            if w is not None and (j := next_job()) is not None:  # w None: the lane here takes its own
                w.send(j, jobs[j])
        elif kind == "error":
            raise RuntimeError(f"a job failed {'in a worker' if w else 'in this process'}:\n{payload}")
        else:  # dead
            raise RuntimeError(f"a worker exited unexpectedly (exit status {payload})")
    return results


def _lane_here(jobs: list[Job], next_job: Callable[[], int | None], replies: queue.Queue, stop: threading.Event) -> None:
    """The lane in this process: take jobs until none is left, replying as a worker does (from ``None``).
    A job's ``report`` returns False once the run has stopped, so a training loop ends at its next epoch."""
    import torch

    torch.set_num_threads(1)  # one thread per job, as in a worker: the same numbers (see above)
    while not stop.is_set() and (i := next_job()) is not None:
        def report(payload, i=i) -> bool | None:
            replies.put((None, ("progress", i, payload)))
            return False if stop.is_set() else None

        try:
            result = jobs[i].function(*jobs[i].args, report=report)
        except Exception:
            replies.put((None, ("error", i, traceback.format_exc())))
            return
        replies.put((None, ("done", i, result)))


_pool: Pool | None = None
_pool_lock = threading.Lock()


def server_pool() -> Pool:
    """The one pool of this process, on the server-wide budget."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = Pool(server_budget(), worker_nice())
        return _pool


@atexit.register
def shutdown_server_pool() -> None:
    """End this process's idle workers (at exit; the command line calls it before leaving early)."""
    if _pool is not None:
        _pool.shutdown()
