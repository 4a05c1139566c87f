"""Training on a job queue, for a class larger than one machine: RQ on Redis (``VITLAB_REDIS_URL``).

Without the setting nothing here runs: one process trains in its own pool (``flights``). With it, every
replica of the app hands its trainings to ``python -m core worker`` processes, on any number of machines,
through one Redis; the same Redis holds every finished run (``RedisArchive``), so every replica sees every
run, and the de-duplication of ``flights`` holds across replicas: one job per distinct setting.

One setting, one job at a time. ``vitlab:current:<setting>`` names the job now training a setting; a learner
whose page asks for that setting joins it, and only a setting with no live job gets a new one (under a
Redis lock, so two replicas never enqueue it twice). A page *watches* a job: it renews its entry in the
job's ``watchers`` (a sorted set scored by Redis's own clock) every time it reads the job's progress, and
removes it on Cancel. The job, on the worker, checks the watchers at least once a second: with no live
watcher left (all cancelled, or their pages and replicas gone) it stops at its next epoch and its lanes go
back to the worker machine's budget. A learner who cancels alone leaves the others training.

Progress travels in the job's metadata (RQ's ``job.meta``): the place in the worker machine's line, the
last epoch, every test-accuracy point. The job, its arguments, its metadata and its return value are JSON
(RQ's ``JSONSerializer``), and the results are JSON and ``torch.save`` weight bytes: nothing in Redis is a
pickle, so a shared Redis is no way to run code on a worker or a replica.

A worker that dies mid-job (killed, out of memory) stops renewing its job's ``alive`` key; the next page
that reads the job sees it gone, and the job is enqueued again once (``RETRIES``), then reported as failed:
never a page waiting forever. A worker refuses jobs made by other training code (the code fingerprint).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
import time
import uuid

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, Worker, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from core.engine.archive import config_key
from core.engine.fingerprint import code_fingerprint
from core.engine.flights import Detached, Snapshot, Step
from core.engine.results import RunResult
from core.engine.run import run
from core.engine.run_config import GeneralizationConfig
from core.engine.train import EpochStats

log = logging.getLogger(__name__)

URL_VARIABLE = "VITLAB_REDIS_URL"
QUEUE = "vitlab"
WATCH_SECONDS = 10.0  # a page renews its watch at least this often, or counts as gone
CHECK_INTERVAL = 1.0  # the job looks at its watchers (and saves its progress) at most this often
# the job renews its alive key every ALIVE_SECONDS / 3; a started job without one for ALIVE_SECONDS is dead
ALIVE_SECONDS = float(os.environ.get("VITLAB_ALIVE_SECONDS") or 15)
RETRIES = 1  # a job whose worker died is enqueued again this many times, then reported failed
JOB_TIMEOUT = 3600  # seconds: the longest training one click may ask for runs well within it
RESULT_SECONDS = 7 * 24 * 3600  # a finished run stays this long after it was last read (and Redis's maxmemory)
POLL = 0.25  # seconds between two reads of a job's state by a waiting page
NO_WORKER = ("no training worker is running: the run starts when one is (`python -m core worker` with this "
             "server's VITLAB_REDIS_URL)")


def redis_url() -> str | None:
    return os.environ.get(URL_VARIABLE) or None


def connect(url: str) -> Redis:
    """A connection to ``url``. The URL may hold a password: it is never printed, logged or shown."""
    return Redis.from_url(url)


def setting_id(cfg: GeneralizationConfig, fingerprint: str) -> str:
    return hashlib.sha256(f"{fingerprint}\0{config_key(cfg)}".encode()).hexdigest()[:32]


class QueueUnreachable(OSError):
    """Redis cannot be reached (or answered with an error): the page says so, and the learner tries again.
    The message names Redis's host and port as the client reports them, never the URL's password."""

    def __init__(self, exc: RedisError):
        super().__init__(f"the training queue (Redis) cannot be reached: {exc}")


class Keys:
    """The Redis keys of one job (``job``) and of its setting (``setting``)."""

    def __init__(self, setting: str, job: str = ""):
        self.current = f"vitlab:current:{setting}"  # -> the id of the job now training this setting
        self.lock = f"vitlab:lock:{setting}"
        self.tries = f"vitlab:tries:{setting}"  # enqueues of this setting since it last finished
        self.watchers = f"vitlab:watchers:{job}"
        self.alive = f"vitlab:alive:{job}"
        self.stop = f"vitlab:stop:{job}"


def _now(redis: Redis) -> float:
    seconds, micro = redis.time()  # Redis's clock: the same for every replica and worker, whatever theirs say
    return seconds + micro / 1e6


class RedisArchive:
    """Finished runs in Redis, shared by every replica and worker: the same interface as
    ``archive.RunArchive``. Each run is one hash (its result JSON and one field per weights); reading a run
    renews its expiry, and Redis's ``maxmemory`` policy bounds the whole (README, *Hosting for a class*)."""

    def __init__(self, redis: Redis, fingerprint: str, ttl: int = RESULT_SECONDS):
        self.redis, self.fingerprint, self.ttl = redis, fingerprint, ttl

    def _key(self, cfg: GeneralizationConfig) -> str:
        return f"vitlab:run:{setting_id(cfg, self.fingerprint)}"

    def get(self, cfg: GeneralizationConfig) -> RunResult | None:
        fields = self.redis.hgetall(self._key(cfg))
        if not fields:
            return None
        try:
            result = RunResult.from_json(json.loads(fields[b"result"]))
            if result.config != cfg:
                raise ValueError("it holds the run of another config")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("skipping a shared run that does not decode (%s): %s", type(exc).__name__, exc)
            self.redis.delete(self._key(cfg))
            return None
        result.weights = {k[2:].decode(): bytes(v) for k, v in fields.items() if k.startswith(b"w:")}
        self.redis.expire(self._key(cfg), self.ttl)
        return result

    def put(self, cfg: GeneralizationConfig, result: RunResult) -> None:
        if not result.complete:
            return
        fields = {"result": json.dumps(result.to_json(), separators=(",", ":"), allow_nan=False),
                  **{f"w:{name}": data for name, data in result.weights.items()}}
        with self.redis.pipeline(transaction=True) as p:  # all of it or nothing
            p.delete(self._key(cfg)).hset(self._key(cfg), mapping=fields).expire(self._key(cfg), self.ttl).execute()


# ---------------------------------------------------------------- the worker's side
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
        return (self.redis.zcount(self.keys.watchers, _now(self.redis) - WATCH_SECONDS, "+inf") > 0
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


def _heartbeat(redis: Redis, key: str) -> threading.Event:
    """Renew ``key`` (expiring after ALIVE_SECONDS) every ALIVE_SECONDS / 3 until the returned event is set."""
    done = threading.Event()

    def renew() -> None:
        while True:
            redis.set(key, 1, px=int(ALIVE_SECONDS * 1000))
            if done.wait(ALIVE_SECONDS / 3):
                return

    threading.Thread(target=renew, name="vitlab-alive", daemon=True).start()
    return done


def train_queued(config: dict, eval_every: int, fingerprint: str) -> dict:
    """The job (run by ``python -m core worker``): train one setting with ``run.run`` within this machine's
    budget and cost cap, its progress in the job's metadata, stopping when nobody watches; the finished run
    goes to the shared ``RedisArchive``. Returns ``{"complete": bool}``."""
    job = get_current_job()
    if fingerprint != code_fingerprint():
        raise RuntimeError(f"this worker runs other training code ({code_fingerprint()}, the job wants "
                           f"{fingerprint}): update the worker and start it again")
    cfg = GeneralizationConfig.from_json(config)
    reporter = _Reporter(job)
    alive = _heartbeat(job.connection, reporter.keys.alive)
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


def work(url: str, burst: bool = False) -> int:
    """``python -m core worker``: take jobs until stopped (``burst``: until the queue is empty), one at a time,
    each trained in this machine's pool (torch is imported once, by this process and its pool's workers).
    Returns how many jobs it took. A ``SimpleWorker``: jobs run in this process, so the pool's idle workers
    serve the next job; stopping is the job's own (its watchers, above), not RQ's kill of a forked horse."""
    redis = connect(url)
    try:
        redis.ping()
    except RedisError as exc:  # its text names host and port, never the password
        raise OSError(f"cannot reach the Redis in {URL_VARIABLE}: {exc}") from None
    import torch  # noqa: F401  (now, not in the first job)

    # RQ's log lines on stderr (its own default is stdout): stdout is the command's answer (--json)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    logging.getLogger("rq.worker").addHandler(handler)
    worker = _CountingWorker([Queue(QUEUE, connection=redis, serializer=JSONSerializer)], connection=redis,
                             serializer=JSONSerializer)
    worker.work(burst=burst, logging_level="INFO", with_scheduler=False)
    return worker.jobs


class _CountingWorker(SimpleWorker):
    """RQ's SimpleWorker, counting the jobs it took (its own counts live in Redis, gone when it quits)."""

    jobs = 0

    def execute_job(self, job, queue):
        self.jobs += 1
        return super().execute_job(job, queue)


# ---------------------------------------------------------------- the page's side
class QueueTicket:
    """One learner watching one queued job: the interface of ``flights.Ticket``."""

    def __init__(self, flights: QueueFlights, cfg: GeneralizationConfig, setting: str, job_id: str, started: bool,
                 eval_every: int, member: str | None = None):
        self._flights, self.cfg, self.setting, self.job_id = flights, cfg, setting, job_id  # job_id "": stored
        self.started, self.eval_every = started, eval_every
        self.member = member or uuid.uuid4().hex
        self._attached = True
        self._missing_since: float | None = None  # when this page first saw the job started without a heartbeat
        self._watch()

    @property
    def _redis(self) -> Redis:
        return self._flights.redis

    def _watch(self) -> None:
        if not self.job_id:
            return
        keys = Keys(self.setting, self.job_id)
        with self._redis.pipeline() as p:
            p.zadd(keys.watchers, {self.member: _now(self._redis)}).expire(keys.watchers, 3600).execute()

    def wait(self, timeout: float) -> Snapshot:
        """The job's state after ``timeout`` seconds, or as soon as it is over."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                s = self._read()
            except RedisError as exc:
                raise QueueUnreachable(exc) from None
            left = deadline - time.monotonic()
            if s.finished or left <= 0:
                return s
            time.sleep(min(POLL, left))

    def _read(self) -> Snapshot:
        if not self.job_id:  # the setting was stored when this learner asked: over at once
            return self._over(None, self._flights.store.get(self.cfg))
        self._watch()
        try:
            job = Job.fetch(self.job_id, connection=self._redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return self._over(RuntimeError("the training job disappeared from the queue (Redis was emptied?)"))
        status = job.get_status()
        if status == JobStatus.FINISHED:
            result = None
            if (job.return_value() or {}).get("complete"):
                self._flights.store.forget(self.cfg)  # a re-run replaced the run this replica may remember
                result = self._flights.store.get(self.cfg)
            return self._over(None, result or RunResult(self.cfg, complete=False))
        if status in (JobStatus.STOPPED, JobStatus.CANCELED):
            return self._over(None, RunResult(self.cfg, complete=False))
        if status == JobStatus.FAILED or (status == JobStatus.STARTED and self._heartbeat_lost()):
            return self._failed(job, status)
        progress = job.get_meta(refresh=False).get("progress") or {}
        waiting = (job.get_position() or 0) if status == JobStatus.QUEUED else progress.get("waiting")
        step = Step(*progress["step"]) if progress.get("step") else None
        note = NO_WORKER if status == JobStatus.QUEUED and not Worker.count(queue=self._flights.queue) else ""
        return Snapshot(waiting, step, list(progress.get("curve", [])), eval_every=self.eval_every, note=note)

    def _heartbeat_lost(self) -> bool:
        """The started job's alive key has been missing ALIVE_SECONDS, by this page's own clock (no two
        machines' clocks compared; a job just started has none yet)."""
        if self._redis.exists(Keys("", self.job_id).alive):
            self._missing_since = None
            return False
        self._missing_since = self._missing_since or time.monotonic()
        return time.monotonic() - self._missing_since >= ALIVE_SECONDS

    def _failed(self, job: Job, status: JobStatus) -> Snapshot:
        """A failed job, or one whose worker died: enqueued again (then followed) while retries last, else
        the reason, raised in the page."""
        self._missing_since = None
        last = (job.latest_result().exc_string or "").strip().splitlines() if job.latest_result() else []
        # RQ's own clean-up fails a job whose worker vanished ("AbandonedJobError"): that is a death too
        died = status == JobStatus.STARTED or any("AbandonedJobError" in line for line in last)
        if died and self._flights.worker_died(self, job):
            return self._read()
        if died:
            return self._over(RuntimeError(f"the worker training this setting stopped, {RETRIES + 1} times: "
                                           "the setting may need more memory than a worker has"))
        return self._over(RuntimeError("the training failed on a worker: " + (last[-1] if last else "no reason given")))

    def _over(self, error: BaseException | None, result: RunResult | None = None) -> Snapshot:
        return Snapshot(result=result, error=error, eval_every=self.eval_every)

    def detach(self) -> None:
        if not self._attached or not self.job_id:
            return
        self._attached = False
        keys = Keys(self.setting, self.job_id)
        try:
            self._redis.zrem(keys.watchers, self.member)
            if self._redis.zcount(keys.watchers, _now(self._redis) - WATCH_SECONDS, "+inf") == 0:
                self._flights.stop(self.setting, self.job_id)
        except RedisError as exc:  # the job stops by itself once this watch expires
            log.warning("could not detach from a training job (%s)", exc)

    def __enter__(self) -> QueueTicket:
        return self

    def __exit__(self, *exc) -> None:
        self.detach()


class QueueFlights:
    """``flights.Flights`` on a job queue: attach to the job training a setting, or enqueue one."""

    def __init__(self, redis: Redis, store, fingerprint: str | None = None, queue: str = QUEUE):
        self.redis, self.store = redis, store
        self.fingerprint = fingerprint or code_fingerprint()
        self.queue = Queue(queue, connection=redis, serializer=JSONSerializer)
        self.started = 0  # jobs this replica enqueued

    def attach(self, cfg: GeneralizationConfig, eval_every: int = 0, again: bool = False) -> QueueTicket:
        try:
            return self._attach(cfg, eval_every, again)
        except RedisError as exc:
            raise QueueUnreachable(exc) from None

    def _attach(self, cfg: GeneralizationConfig, eval_every: int, again: bool) -> QueueTicket:
        setting = setting_id(cfg, self.fingerprint)
        keys = Keys(setting)
        with self.redis.lock(keys.lock, timeout=30, blocking_timeout=30):
            job = self._live_job(setting)
            if job is not None:
                return QueueTicket(self, cfg, setting, job.id, False, int(job.meta.get("eval_every", 0)))
            if not again and self.store.get(cfg) is not None:
                return QueueTicket(self, cfg, setting, "", False, eval_every)
            self.redis.delete(keys.tries)
            member = uuid.uuid4().hex
            job = self._enqueue(cfg, setting, eval_every, member)
            return QueueTicket(self, cfg, setting, job.id, True, eval_every, member)

    def _live_job(self, setting: str) -> Job | None:
        """The job training ``setting`` now, if it is queued or started and not being stopped."""
        current = self.redis.get(Keys(setting).current)
        if current is None:
            return None
        try:
            job = Job.fetch(current.decode(), connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return None
        live = job.get_status() in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
        return job if live and not self.redis.exists(Keys(setting, job.id).stop) else None

    def _enqueue(self, cfg: GeneralizationConfig, setting: str, eval_every: int, member: str) -> Job:
        """A new job for ``setting``, watched by ``member`` from before the worker can look."""
        job_id = f"vitlab-{setting}-{uuid.uuid4().hex[:8]}"
        self.redis.zadd(Keys(setting, job_id).watchers, {member: _now(self.redis)})
        job = self.queue.enqueue_call(train_queued, args=(cfg.to_json(), eval_every, self.fingerprint),
                                      job_id=job_id, timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=3600,
                                      meta={"eval_every": eval_every}, description=f"train {config_key(cfg)}")
        self.redis.set(Keys(setting).current, job_id, ex=JOB_TIMEOUT)
        self.redis.incr(Keys(setting).tries)
        self.started += 1
        return job

    def worker_died(self, ticket: QueueTicket, job: Job) -> bool:
        """The job's worker died: enqueue the setting again, unless it was already (then follow that job) or
        it has used its retries. True when ``ticket`` now follows a live job."""
        keys = Keys(ticket.setting)
        with self.redis.lock(keys.lock, timeout=30, blocking_timeout=30):
            live = self._live_job(ticket.setting)
            if live is None or live.id == job.id:
                if int(self.redis.get(keys.tries) or 0) > RETRIES:
                    return False
                log.warning("a training job's worker stopped (%s): enqueuing it again", job.get_status())
                self.redis.set(Keys(ticket.setting, job.id).stop, 1, ex=3600)
                live = self._enqueue(ticket.cfg, ticket.setting, ticket.eval_every, ticket.member)
            ticket.job_id = live.id
            ticket._watch()
            return True

    def stop(self, setting: str, job_id: str) -> None:
        """Nobody watches the job any more: it stops at its next check (queued: it is cancelled)."""
        self.redis.set(Keys(setting, job_id).stop, 1, ex=3600)
        try:
            job = Job.fetch(job_id, connection=self.redis, serializer=JSONSerializer)
            if job.get_status() == JobStatus.QUEUED:
                job.cancel()
        except NoSuchJobError:
            pass
