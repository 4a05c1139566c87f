"""``python -m core worker``: trains the settings the app's replicas queue on Redis (RQ), and nothing else.

A Redis shared by a class is writable by whoever holds its password, and RQ runs whatever function a job
names (its JSON serializer stops pickles, not ``os.system``). So this worker runs one function only: before
anything of a job is imported or called, ``vet`` checks that it names ``train_queued`` and nothing more (no
callbacks, webhooks, instance or keyword arguments) and that its arguments decode as a valid setting within
the same cost cap as a page's (``typed_json``, ``planning.check_cost``) made by this worker's training code.
Anything else is refused: the job fails with the reason, one line is logged, and nothing of it runs. A job
id delivered a second time runs nothing either (``Keys.taken``).

A job's progress travels in its metadata (the place in the worker machine's line, the last epoch, every
test-accuracy point); the job renews its ``alive`` key while it trains, and the worker its heartbeat
(``queue_redis.beat``) while it lives, so a page tells a dead worker from a busy one within ALIVE_SECONDS.
The job checks its watchers at least once a second and stops at its next epoch when none is left; its lanes
go back to the worker machine's budget. A finished run goes to the shared ``RedisArchive``.
"""

from __future__ import annotations

import logging
import sys
import threading
import time

from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, get_current_job
from rq.job import Job
from rq.serializers import JSONSerializer

from core.engine.fingerprint import code_fingerprint
from core.engine.flights import Detached
from core.engine.planning import check_cost
from core.engine.queue_redis import (
    ALIVE_SECONDS,
    QUEUE,
    URL_VARIABLE,
    Keys,
    QueueUnreachable,
    beat,
    connect,
    forget_worker,
    redis_now,
)
from core.engine.redis_archive import RedisArchive
from core.engine.run import run
from core.engine.run_config import GeneralizationConfig
from core.engine.run_result import RunResult
from core.engine.train import EpochStats
from core.engine.typed_json import from_plain

log = logging.getLogger(__name__)

ENTRY = f"{__name__}.train_queued"  # the one function a job may name
WATCH_SECONDS = 10.0  # a page renews its watch at least this often, or counts as gone
CHECK_INTERVAL = 1.0  # the job looks at its watchers (and saves its progress) at most this often
JOB_TIMEOUT = 3600  # seconds: the longest training one click may ask for runs well within it
MAX_EVAL_EVERY = 100_000


class JobRefused(ValueError):
    """A job this worker will not run: its message says why, in one line."""


def job_arguments(config: object, eval_every: object, fingerprint: object) -> tuple[GeneralizationConfig, int]:
    """A job's arguments as a setting this worker may train, or ``JobRefused``: the setting decodes field by
    field, is within the page's cost cap, and was made by this worker's training code."""
    if fingerprint != code_fingerprint():
        raise JobRefused(f"it was made by other training code ({str(fingerprint)[:20]!r}, this worker runs "
                         f"{code_fingerprint()}): update the worker and start it again")
    if not isinstance(eval_every, int) or isinstance(eval_every, bool) or not 0 <= eval_every <= MAX_EVAL_EVERY:
        raise JobRefused(f"eval_every must be an integer in 0..{MAX_EVAL_EVERY}, got {str(eval_every)[:40]!r}")
    try:
        cfg = from_plain(GeneralizationConfig, config, "config")
        check_cost(cfg)
    except (ValueError, TypeError) as exc:
        raise JobRefused(f"its setting is not one the lab trains: {exc}") from None
    return cfg, eval_every


def vet(job: Job) -> tuple[GeneralizationConfig, int]:
    """What ``job`` asks, if it is the lab's training job with valid arguments; else ``JobRefused``. Reads the
    job's data only: nothing it names is imported."""
    try:
        name, instance, args, kwargs = job.func_name, job.instance, job.args, job.kwargs
    except Exception:  # noqa: BLE001 (RQ's DeserializationError, or whatever a hand-made job's data raises)
        raise JobRefused("its data does not decode") from None
    if name != ENTRY:
        raise JobRefused(f"it names the function {str(name)[:80]!r}; this worker runs only {ENTRY}")
    extras = {"an instance": instance is not None, "keyword arguments": bool(kwargs),
              "callbacks": any((job._success_callback_name, job._failure_callback_name, job._stopped_callback_name)),
              "webhooks": bool(job.webhooks), "dependencies": bool(job._dependency_ids)}
    if any(extras.values()):
        raise JobRefused("it carries " + ", ".join(k for k, v in extras.items() if v))
    if not isinstance(args, (list, tuple)) or len(args) != 3:
        raise JobRefused("it must have three arguments: the setting, eval_every and the code fingerprint")
    return job_arguments(*args)


class _Reporter:
    """A job's progress in its metadata, and whether anyone still watches it (at most every CHECK_INTERVAL)."""

    def __init__(self, job: Job):
        self.job, self.redis, self.keys = job, job.connection, Keys("", job.id)
        self.state: dict = {"waiting": None, "step": None, "curve": []}
        self._last = -float("inf")

    def save_and_check(self, force: bool = False) -> bool:
        if not force and time.monotonic() - self._last < CHECK_INTERVAL:
            return True
        self._last = time.monotonic()
        self.job.meta["progress"] = self.state
        self.job.save_meta()
        return (self.redis.zcount(self.keys.watchers, redis_now(self.redis) - WATCH_SECONDS, "+inf") > 0
                and not self.redis.exists(self.keys.stop))

    def on_wait(self, position: int) -> None:
        self.state["waiting"] = position
        if not self.save_and_check():
            raise Detached

    def progress(self, model: str, seed: int, stats: EpochStats, done: int, total: int) -> bool | None:
        self.state["waiting"] = None
        self.state["step"] = [model, seed, stats.epoch, stats.loss, done, total]
        if stats.test_acc is not None:
            self.state["curve"].append({"model": model, "seed": seed, "epoch": stats.epoch, "test_acc": stats.test_acc})
        return None if self.save_and_check() else False


def _every(seconds: float, renew) -> threading.Event:
    """Call ``renew()`` now and every ``seconds`` on a thread until the returned event is set; a Redis that
    fails meanwhile (restarting) costs a beat, not the thread."""
    done = threading.Event()

    def loop() -> None:
        while True:
            try:
                renew()
            except RedisError:
                pass
            if done.wait(seconds):
                return

    threading.Thread(target=loop, name="vitlab-beat", daemon=True).start()
    return done


def train_queued(config: dict, eval_every: int, fingerprint: str) -> dict:
    """The job: train one setting with ``run.run`` within this machine's budget and cost cap, its progress in
    the job's metadata, stopping when nobody watches; the finished run goes to the shared ``RedisArchive``.
    Returns ``{"complete": bool}``."""
    job = get_current_job()
    cfg, eval_every = job_arguments(config, eval_every, fingerprint)  # vetted already; a direct call is checked too
    reporter = _Reporter(job)
    alive = _every(ALIVE_SECONDS / 3, lambda: job.connection.set(reporter.keys.alive, 1, px=int(ALIVE_SECONDS * 1000)))
    try:
        result = run(cfg, reporter.progress, eval_every=eval_every, on_wait=reporter.on_wait, here=True)
    except Detached:
        result = RunResult(cfg, complete=False)
    finally:
        alive.set()
    if result.complete:
        RedisArchive(job.connection, fingerprint).put(cfg, result)
    reporter.save_and_check(force=True)
    return {"complete": result.complete}


class LabWorker(SimpleWorker):
    """RQ's SimpleWorker (jobs run in this process, so the pool's idle workers serve the next job; stopping is
    the job's own, by its watchers), running only ``vet``-ted jobs, each once. Counts the jobs it ran."""

    jobs = 0

    def perform_job(self, job: Job, queue: Queue) -> bool:
        try:
            vet(job)
        except JobRefused as exc:
            self._refuse(job, queue, str(exc))
            return False
        if not self.connection.set(Keys("", job.id).taken, self.name, nx=True, ex=JOB_TIMEOUT + 600):
            log.warning("job %s was delivered again: it was taken already, so this delivery runs nothing", job.id)
            with self.connection.pipeline() as p:
                self.cleanup_execution(job, p)
                p.lrem(queue.intermediate_queue_key, 1, job.id).execute()
            return False
        self.jobs += 1
        return super().perform_job(job, queue)

    def _refuse(self, job: Job, queue: Queue, reason: str) -> None:
        """Fail ``job`` with ``reason`` through RQ's own bookkeeping, once nothing it names can be called."""
        log.warning("refused job %s: %s", job.id, reason)
        job._success_callback_name = job._failure_callback_name = job._stopped_callback_name = None
        job._success_callback = job._failure_callback = job._stopped_callback = None
        job.webhooks, job.retries_left = [], None
        with self.connection.pipeline() as p:
            p.lrem(queue.intermediate_queue_key, 1, job.id).execute()
        self.handle_job_failure(job, queue, exc_string=f"refused by the ViT Lab worker: {reason}")


def work(url: str, burst: bool = False) -> int:
    """Take jobs until stopped (``burst``: until the queue is empty), one at a time, each trained in this
    machine's pool (torch is imported once, by this process and its pool's workers). Returns how many jobs
    it ran."""
    redis = connect(url)
    try:
        redis.ping()
    except RedisError as exc:  # its text names host and port, never the password
        raise OSError(f"cannot use the Redis in {URL_VARIABLE}: {QueueUnreachable(exc)}") from None
    import torch  # noqa: F401  (now, not in the first job)

    # RQ's log lines and this module's on stderr (RQ's own default is stdout): stdout is the command's answer
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    for name in ("rq.worker", __name__):
        logging.getLogger(name).addHandler(handler)
    worker = LabWorker([Queue(QUEUE, connection=redis, serializer=JSONSerializer)], connection=redis,
                       serializer=JSONSerializer)
    # The heartbeat on a client of its own: sharing the worker's pool, its commands cut into RQ's blocking wait
    # for the next job (the worker quit with "Redis connection timeout" after a few idle seconds)
    beat_redis = connect(url)
    beating = _every(ALIVE_SECONDS / 3, lambda: beat(beat_redis, worker.name))
    try:
        worker.work(burst=burst, logging_level="INFO", with_scheduler=False)
    finally:
        beating.set()
        try:
            forget_worker(beat_redis, worker.name)
        except RedisError:
            pass
    return worker.jobs

