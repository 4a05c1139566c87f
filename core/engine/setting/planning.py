"""How training uses the machine: what it has (resource probes), what a run costs (one cost model), and
one budget for the whole server process that every run, on every page and in every session, goes
through.

Memory. The app (this process and its worker processes) should stay within ``total_budget()``: the
``VITLAB_MEMORY_BUDGET`` setting (default 1.5 GiB), or the container's real limit (cgroup v2
``memory.max`` or v1 ``memory.limit_in_bytes``) when that is lower. Out of it come the app's own
process, every live worker (``WORKER_BASE``: a Python with torch loaded) and every running job's
training step (the registry's activation estimate times its safety factor, for the distinct images it
computes). Runs that do not fit wait in line (first come, first served) until others finish.

CPU. At most one running job per available core (cgroup quota, or the affinity mask), server-wide.

Work. One click may not start more than ``MAX_RUN_COST`` times the lesson's arithmetic (a sweep:
``MAX_SWEEP_COST``): enough for every preset with five seeds, not for an hour of the server's CPU.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from core.data.data_config import max_distinct_training_images
from core.engine.setting.machine import WORKER_BASE, MiB, cpu_count, rss, total_budget
from core.engine.setting.run_config import NOTEBOOK_SETUP, GeneralizationConfig
from core.models.registry import spec

MARGIN = 256 * MiB  # for everything else a run allocates in the app (data, outputs, the page)
MAX_RUN_COST = 12.0  # in units of the lesson preset's training arithmetic
MAX_SWEEP_COST = 30.0


# ---------------------------------------------------------------- the cost model
def image_bytes(cfg: GeneralizationConfig, name: str) -> int:
    """What one distinct training image costs in a training step of model ``name`` (an upper bound)."""
    s = spec(name)
    return int(s.safety * s.activation_bytes(cfg.model, cfg.data.img_size))


def step_bytes(cfg: GeneralizationConfig, name: str) -> int:
    """A full-batch training step's memory: every distinct training image at once."""
    return image_bytes(cfg, name) * max_distinct_training_images(cfg.data)


def run_flops(cfg: GeneralizationConfig) -> float:
    """The arithmetic of training every (model, seed) pair: epochs x distinct images x per-image flops."""
    images = max_distinct_training_images(cfg.data)
    per_seed = sum(spec(m).flops(cfg.model, cfg.data.img_size) for m in cfg.models)
    return cfg.train.epochs * len(cfg.train.seeds) * images * per_seed


def relative_cost(cfg: GeneralizationConfig) -> float:
    """``run_flops`` in units of the lesson preset's."""
    return run_flops(cfg) / run_flops(NOTEBOOK_SETUP)


def check_cost(cfg: GeneralizationConfig, limit: float = MAX_RUN_COST, what: str = "this run") -> None:
    """Refuse a run that would take the server's CPU for too long, saying what to reduce."""
    cost = relative_cost(cfg)
    if cost > limit:
        raise ValueError(f"{what} is {cost:.1f}x the lesson's training work (limit {limit:g}x): reduce epochs "
                         f"({cfg.train.epochs}), seeds ({len(cfg.train.seeds)}), models ({len(cfg.models)}), "
                         f"the training range or the ViT's size (patch size {cfg.model.patch_size}, width "
                         f"{cfg.model.embed_dim}, {cfg.model.depth} layers)")


@dataclass(frozen=True)
class Plan:
    """How one run uses the machine. ``workers`` >= 1: train in up to that many worker processes, one
    thread each; 0: in the calling process, one thread. ``chunks[model]``: distinct images per gradient
    chunk, or None for one full batch. ``job_bytes[model]``: what one of its jobs reserves."""

    workers: int
    chunks: dict[str, int | None]
    job_bytes: dict[str, int]

    @property
    def chunked(self) -> bool:
        return any(c is not None for c in self.chunks.values())


def plan(cfg: GeneralizationConfig, capacity: int, cores: int, workers: int | None = None) -> Plan:
    """As many workers as cores and jobs allow while their full batches fit ``capacity`` bytes; else one
    worker (or, where not even one worker fits, this process) with gradient chunks where a full batch
    does not fit: the same mathematics in bounded memory. ``workers`` forces the count (0: in-process)."""
    per_image = {m: image_bytes(cfg, m) for m in cfg.models}
    need = {m: step_bytes(cfg, m) for m in cfg.models}
    n_jobs = len(cfg.jobs)
    if workers is None:
        w = max(1, min(int(cores), n_jobs))
        while w > 1 and w * (WORKER_BASE + max(need.values())) > capacity:
            w -= 1
        if capacity < WORKER_BASE + 64 * MiB:  # e.g. the smallest Cloud containers: no second torch runtime
            w = 0
    else:
        w = max(0, min(workers, n_jobs))
    if w > 1:
        return Plan(w, {m: None for m in cfg.models}, need)
    room = max(capacity - (WORKER_BASE if w else 0), 64 * MiB)
    chunks = {m: None if need[m] <= room else max(1, int(room // per_image[m])) for m in cfg.models}
    job_bytes = {m: need[m] if chunks[m] is None else chunks[m] * per_image[m] for m in cfg.models}
    return Plan(w, chunks, job_bytes)


# ---------------------------------------------------------------- the server-wide budget
T = TypeVar("T")


class Budget:
    """Bytes and cores shared by every training run in this process, and the line runs wait in.

    ``admit(try_take, ...)`` waits until it is this caller's turn (first come, first served) and
    ``try_take()``, called under the budget's lock, returns something other than None; meanwhile
    ``on_wait(position)`` is called about four times a second (0 = next in line) and may raise to leave
    the line (a page whose visitor moved on, or pressed Cancel).
    """

    def __init__(self, capacity: int, cores: int):
        self.capacity, self.cores = int(capacity), max(1, int(cores))
        self.held_bytes = self.busy_cores = 0
        self.peak_bytes = 0
        self.lock = threading.Condition(threading.RLock())
        self._line: list[object] = []

    def take(self, nbytes: int, cores: int = 0) -> bool:
        with self.lock:
            if self.held_bytes + nbytes > self.capacity or self.busy_cores + cores > self.cores:
                return False
            self.held_bytes += nbytes
            self.busy_cores += cores
            self.peak_bytes = max(self.peak_bytes, self.held_bytes)
            return True

    def give(self, nbytes: int, cores: int = 0) -> None:
        with self.lock:
            self.held_bytes -= nbytes
            self.busy_cores -= cores
            self.lock.notify_all()

    @property
    def waiting(self) -> int:
        return len(self._line)

    def admit(self, try_take: Callable[[], T | None], on_wait: Callable[[int], object] | None = None,
              poll: float = 0.25) -> T:
        ticket = object()
        with self.lock:
            self._line.append(ticket)
        try:
            while True:
                with self.lock:
                    if self._line[0] is ticket:
                        got = try_take()
                        if got is not None:
                            self._line.remove(ticket)
                            self.lock.notify_all()
                            return got
                    position = self._line.index(ticket)
                    self.lock.wait(timeout=poll)
                if on_wait is not None:
                    on_wait(position)
        except BaseException:
            with self.lock:
                if ticket in self._line:
                    self._line.remove(ticket)
                self.lock.notify_all()
            raise


_server_budget: Budget | None = None
_server_lock = threading.Lock()


def server_budget() -> Budget:
    """The one budget of this process, sized when the first run asks for it: the total budget less the
    app's own memory at that moment (a page with torch loaded) and a margin."""
    global _server_budget
    with _server_lock:
        if _server_budget is None:
            capacity = max(total_budget() - rss() - MARGIN, 128 * MiB)  # never none: then runs train in chunks
            _server_budget = Budget(capacity, int(cpu_count()) or 1)
        return _server_budget


def worker_nice() -> int:
    """How much lower than the server's own the training workers' CPU priority is (``VITLAB_WORKER_NICE``,
    default 10; the command line, whose workers are its only work, uses 0). On a server's few cores a
    training run would otherwise take them from every learner's page draws and control changes; niced, it
    gets what the pages leave (measured: docs/performance.md)."""
    return int(os.environ.get("VITLAB_WORKER_NICE", 10))


def idle_seconds() -> float:
    """How long an idle worker is kept for the next run before it is ended (``VITLAB_IDLE_SECONDS``)."""
    return float(os.environ.get("VITLAB_IDLE_SECONDS", 30))

