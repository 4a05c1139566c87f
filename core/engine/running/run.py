"""Run the experiment: train every (seed, model) pair of a config and collect what the page shows.

One Run, from the top: ``run(cfg)`` checks the work is within limits, plans how to use the machine
(``planning.plan``), then trains each pair with ``train_job``, in worker processes (``pool``) or in
this process, inside the server-wide budget; the parts are merged in the lesson's order (seed, then
model). Every pair is seeded and trained exactly as on its own, on one thread, so the numbers do not
depend on how many workers ran or what else the server was doing.
"""

from __future__ import annotations

import io
import math
import os
import threading
import time
from collections.abc import Callable
from functools import lru_cache

import torch

from core.data.data_config import Data, make_data
from core.engine.results.run_result import CurvePoint, PositionScore, RunResult, SeedResult, TestPrediction
from core.engine.running.pool import Job, Pool, server_pool
from core.engine.running.train import EpochStats, predict, predicted, train
from core.engine.setting.planning import check_cost, plan
from core.engine.setting.run_config import GeneralizationConfig
from core.models.registry import build, spec

# progress(model, seed, stats, done_epochs, total_epochs) -> False to stop
Progress = Callable[[str, int, EpochStats, int, int], bool | None]
# on_wait(position): called while the run waits for the server (0 = next in line); may raise to leave
OnWait = Callable[[int], object]


# A job reports an epoch at most this often (seconds), besides every test point and its last epoch. Each
# report crosses a process pipe and wakes the caller's threads; the page shows progress once a second, so
# more would cost the command line time for nothing (measured: docs/performance.md).
REPORT_INTERVAL = 0.1


@lru_cache(maxsize=2)
def _data(d) -> Data:
    return make_data(d)


def every(report: Callable[[EpochStats], bool | None], epochs: int,
          interval: float = REPORT_INTERVAL) -> Callable[[EpochStats], bool | None]:
    """``report``, called with an epoch's numbers when they carry a test point, end the training, or come
    ``interval`` seconds after the last ones it got (the first always); a stop it asked for (False) is
    seen at its next call."""
    last = -math.inf

    def forward(stats: EpochStats) -> bool | None:
        nonlocal last
        now = time.perf_counter()
        if stats.test_acc is None and stats.epoch < epochs and now - last < interval:
            return None
        last = now
        return report(stats)

    return forward


def train_job(cfg: GeneralizationConfig, name: str, seed: int, eval_every: int = 0, chunk: int | None = None, *,
              report: Callable[[EpochStats], bool | None] | None = None) -> RunResult:
    """Train one (model, seed) pair and collect everything the page shows about it (a partial result).
    ``report`` gets its progress: see ``every``."""
    data = _data(cfg.data)
    model = build(name, cfg.model, cfg.data.img_size, seed, cfg.data.kind.outputs)
    report = None if report is None else every(report, cfg.train.epochs)
    tr = train(model, data.Xtr, data.ytr, data.Xte, data.yte, cfg.train.epochs, cfg.train.lr, report, eval_every,
               chunk)
    part = RunResult(cfg, complete=not tr.stopped_early, seconds=tr.seconds)
    part.curves = [CurvePoint(name, seed, s.epoch, s.loss, s.train_acc, s.test_acc) for s in tr.curves]
    if tr.diverged_at is not None:
        part.rows.append(SeedResult(name, seed, None, None, tr.seconds, tr.diverged_at))
    elif part.complete:
        part.rows.append(SeedResult(name, seed, tr.train_acc, tr.test_acc, tr.seconds))
        _collect_predictions(part, name, seed, tr.test_logits, model, data)
        part.weights[f"{name}/{seed}"] = state_bytes(model)
    return part


def state_bytes(model: torch.nn.Module) -> bytes:
    """The trained weights as ``torch.save`` bytes. Bytes, not tensors, travel back from a worker: the pool's
    reader thread then never unpickles a tensor (a tensor unpickled there can abort the process at exit under
    load: "terminate called without an active exception")."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def _collect_predictions(part: RunResult, name: str, seed: int, test_logits: torch.Tensor, model, data: Data) -> None:
    classes = part.config.data.kind.classes
    if test_logits.ndim == 1:  # two classes, one logit: the probability of class 1 ("circle")
        probs = torch.sigmoid(test_logits).numpy()
        for i, (p, y) in enumerate(zip(probs, data.yte.numpy(), strict=True)):
            cx, cy = data.test_centres[i]
            part.test_predictions.append(TestPrediction(name, seed, i, int(cx), int(cy), int(y), float(p),
                                                        bool((p > 0.5) == (y > 0.5))))
    else:  # K classes: the class given and its probability
        probs = torch.softmax(test_logits, dim=-1)  # (n_test, K)
        given = probs.argmax(dim=-1)
        for i, (k, y) in enumerate(zip(given.tolist(), data.yte.tolist(), strict=True)):
            cx, cy = data.test_centres[i]
            part.test_predictions.append(TestPrediction(name, seed, i, int(cx), int(cy), int(y), None, k == y, k,
                                                        float(probs[i, k])))
    # the map: each class's share right at each centre (the shapes: one image per class and centre)
    right = (predicted(predict(model, data.grid_X)).to(data.grid_y.dtype) == data.grid_y).numpy()
    cells: dict[tuple[int, int, int], list[bool]] = {}
    for (cx, cy), y, ok in zip(data.grid_centres.tolist(), data.grid_y.tolist(), right.tolist(), strict=True):
        cells.setdefault((int(y), cx, cy), []).append(ok)
    for (y, cx, cy), oks in cells.items():
        part.position_map.append(PositionScore(name, seed, classes[y], cx, cy, sum(oks) / len(oks)))


def forced_workers() -> int | None:
    """``VITLAB_WORKERS`` (0: train in the app's own process), if set."""
    value = os.environ.get("VITLAB_WORKERS")
    return None if not value else max(0, int(value))


def run(cfg: GeneralizationConfig, progress: Progress | None = None, eval_every: int = 0, workers: int | None = None,
        on_wait: OnWait | None = None, pool: Pool | None = None, limit: bool = True, here: bool = False) -> RunResult:
    """Train every (seed, model) pair of ``cfg``; an incomplete result if ``progress`` returned False.

    ``workers`` overrides the plan's worker count (0: this process); ``limit=False`` lifts the cap on
    one run's work (the command line's ``--no-limits``, for a machine of one's own); ``here``: this
    process is one of the workers (the command line: see ``pool``).
    """
    if limit:
        check_cost(cfg)
    pool = pool or server_pool()
    how = plan(cfg, pool.budget.capacity, pool.budget.cores, workers if workers is not None else forced_workers())
    jobs = cfg.jobs
    total = len(jobs) * cfg.train.epochs
    done = [0] * len(jobs)

    def on_progress(i: int, stats: EpochStats) -> bool | None:
        done[i] = stats.epoch
        seed, name = jobs[i]
        return None if progress is None else progress(name, seed, stats, sum(done), total)

    start = time.perf_counter()
    if how.workers:
        tasks = [Job(train_job, (cfg, name, seed, eval_every, how.chunks[name]), how.job_bytes[name],
                     map_big=how.chunks[name] is not None) for seed, name in jobs]
        longest_first = sorted(range(len(jobs)), key=lambda i: not spec(jobs[i][1]).transformer)
        parts = pool.run(tasks, how.workers, on_progress if progress else None, on_wait, longest_first, here)
    else:
        parts = _run_here(cfg, jobs, how, eval_every, on_progress if progress else None, on_wait, pool)
    result = RunResult(cfg, complete=parts is not None and all(p.complete for p in parts))
    for part in parts if result.complete else []:
        result.merge(part)
    result.seconds = time.perf_counter() - start
    return result


def warm(cfg: GeneralizationConfig, pool: Pool | None = None, procs: list | None = None, delay: float = 0.0,
         here: bool = False) -> int:
    """Start the workers a run of ``cfg`` would use (each imports torch and this module while the visitor
    is still reading), so that Run does not wait for them; ``procs``: worker processes already started, to
    adopt. ``delay``: do it that many seconds later, on a thread of its own (returns 0 then), so the
    imports do not compete with the page's first draw. ``here``: the run will train in this process too
    (one worker fewer). Returns how many were started."""
    if delay:
        timer = threading.Timer(delay, warm, (cfg, pool, procs, 0.0, here))
        timer.daemon = True
        timer.start()
        return 0
    pool = pool or server_pool()
    how = plan(cfg, pool.budget.capacity, pool.budget.cores, forced_workers())
    lanes_here = int(here and how.workers > 0 and not how.chunked)  # big (chunked) jobs never train here: see pool
    return pool.warm(how.workers - lanes_here, preload=(__name__,), procs=procs)


def _run_here(cfg, jobs, how, eval_every, on_progress, on_wait, pool: Pool) -> list[RunResult] | None:
    """Train in this process, one job at a time on one thread, like a worker (the smallest containers
    cannot hold a second torch runtime)."""
    nbytes = max(how.job_bytes.values())
    budget = pool.budget
    budget.admit(lambda: True if budget.take(nbytes, cores=1) else None, on_wait)
    try:
        torch.set_num_threads(1)  # process-wide: numbers as a worker's (the thread count changes rounding)
        parts = []
        for i, (seed, name) in enumerate(jobs):
            report = None if on_progress is None else (lambda stats, i=i: on_progress(i, stats))
            part = train_job(cfg, name, seed, eval_every, how.chunks[name], report=report)
            if not part.complete:
                return None
            parts.append(part)
        return parts
    finally:
        budget.give(nbytes, cores=1)
