"""``flights.Flights`` on a job queue, for a class larger than one machine: every replica hands its trainings to
``python -m core worker`` processes (``queue_worker``) through one Redis, one job per distinct setting.

``vitlab:current:<setting>`` names the job now training a setting; a learner whose page asks for that setting
joins it, and only a setting with no live job gets a new one (under a Redis lock, so two replicas never enqueue
it twice). A page *watches* a job: it renews its entry in the job's ``watchers`` (a sorted set scored by
Redis's own clock) each time it reads the job's progress, and removes it on Cancel; with no live watcher left
the job stops at its next epoch. A learner who cancels alone leaves the others training.

A learner never waits on nothing: a queued job with no live worker (``queue_redis.live_workers``: heartbeats,
not RQ's registrations) says so at once and gives up after NO_WORKER_SECONDS with the command that starts
one; a started job whose alive key lapsed for ALIVE_SECONDS (its worker killed, out of memory) is taken off
RQ's started registry and enqueued again once (``RETRIES``), then reported; a job that vanished (the Redis
emptied or restarted without its data) is enqueued again the same way. What the page reads of a job's
metadata is checked (``_progress``): a hand-made entry is ignored, never a traceback.
"""

from __future__ import annotations

import logging
import time
import uuid

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from core.engine.archive import config_key
from core.engine.fingerprint import code_fingerprint
from core.engine.flights import RunTicket, Snapshot, Step, TrainingStopped
from core.engine.queue_redis import (
    ALIVE_SECONDS,
    QUEUE,
    START_WORKER,
    Keys,
    QueueUnreachable,
    live_workers,
    redis_now,
    setting_id,
)
from core.engine.queue_worker import ENTRY, JOB_TIMEOUT, MAX_EVAL_EVERY, WATCH_SECONDS
from core.engine.run_config import GeneralizationConfig
from core.engine.run_result import RunResult

log = logging.getLogger(__name__)

RETRIES = 1  # a job whose worker died (or that vanished) is enqueued again this many times, then reported
POLL = 0.25  # seconds between two reads of a job's state by a waiting page
NO_WORKER_SECONDS = 2 * ALIVE_SECONDS  # a queued job with no live worker this long is given up, with a message
NO_WORKER = f"no training worker is running: the run starts when one is ({START_WORKER})"


class QueueTicket(RunTicket):
    """One learner watching one queued job (``flights.RunTicket``, as a learner of this server's flights)."""

    def __init__(self, flights: QueueFlights, cfg: GeneralizationConfig, setting: str, job_id: str, started: bool,
                 eval_every: int, member: str | None = None):
        self._flights, self.cfg, self.setting, self.job_id = flights, cfg, setting, job_id  # job_id "": stored
        self.started, self.eval_every = started, eval_every
        self.member = member or uuid.uuid4().hex
        self._attached = True
        self._missing_since: float | None = None  # when this page first saw the job started without a heartbeat
        self._no_worker_since: float | None = None  # when this page first saw it queued with no live worker
        self._watch()

    @property
    def _redis(self) -> Redis:
        return self._flights.redis

    def _watch(self) -> None:
        if not self.job_id:
            return
        keys = Keys(self.setting, self.job_id)
        with self._redis.pipeline() as p:
            p.zadd(keys.watchers, {self.member: redis_now(self._redis)}).expire(keys.watchers, 3600).execute()

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
            return self._lost("the training job disappeared from the queue (the Redis was emptied or restarted)")
        status = job.get_status()
        if status == JobStatus.FINISHED:
            result = None
            if _returned(job).get("complete") is True:
                self._flights.store.forget(self.cfg)  # a re-run replaced the run this replica may remember
                result = self._flights.store.get(self.cfg)
            return self._over(None, result or RunResult(self.cfg, complete=False))
        if status in (JobStatus.STOPPED, JobStatus.CANCELED):
            return self._over(None, RunResult(self.cfg, complete=False))
        if status == JobStatus.FAILED or (status == JobStatus.STARTED and self._heartbeat_lost()):
            return self._failed(job, status)
        waiting, step, curve = _progress(job)
        note = ""
        if status != JobStatus.QUEUED:
            self._no_worker_since = None  # the wait for a worker counts from the job's last time in the queue
        else:
            waiting = job.get_position() or 0
            if live_workers(self._redis):
                self._no_worker_since = None
            else:
                self._no_worker_since = self._no_worker_since or time.monotonic()
                if time.monotonic() - self._no_worker_since >= NO_WORKER_SECONDS:
                    return self._over(TrainingStopped(
                        f"no training worker has been running for {NO_WORKER_SECONDS:.0f} s, so this setting cannot "
                        f"train: start one ({START_WORKER}), then press Run again"))
                note = NO_WORKER
        return Snapshot(waiting, step, curve, eval_every=self.eval_every, note=note)

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
        the reason, in one line."""
        self._missing_since = None
        latest = job.latest_result()
        last = (latest.exc_string or "").strip().splitlines() if latest else []
        # RQ's own clean-up fails a job whose worker vanished ("AbandonedJobError"): that is a death too
        died = status == JobStatus.STARTED or any("AbandonedJobError" in line for line in last)
        if died:
            self._flights.retire(job)
            return self._lost(f"the worker training this setting stopped, {RETRIES + 1} times: the setting may "
                              "need more memory than a worker has")
        return self._over(TrainingStopped("the training failed on a worker: " + (last[-1] if last else "no reason given")))

    def _lost(self, reason: str) -> Snapshot:
        """The job is gone (its worker died, or Redis lost it): follow a new one while retries last."""
        if self._flights.enqueue_again(self):
            return self._read()
        return self._over(TrainingStopped(reason))

    def _over(self, error: BaseException | None, result: RunResult | None = None) -> Snapshot:
        return Snapshot(result=result, error=error, eval_every=self.eval_every)

    def detach(self) -> None:
        if not self._attached or not self.job_id:
            return
        self._attached = False
        keys = Keys(self.setting, self.job_id)
        try:
            self._redis.zrem(keys.watchers, self.member)
            if self._redis.zcount(keys.watchers, redis_now(self._redis) - WATCH_SECONDS, "+inf") == 0:
                self._flights.stop(self.setting, self.job_id)
        except RedisError as exc:  # the job stops by itself once this watch expires
            log.warning("could not detach from a training job (%s)", exc)


def _returned(job: Job) -> dict:
    value = job.return_value()
    return value if isinstance(value, dict) else {}


def _progress(job: Job) -> tuple[int | None, Step | None, list[dict]]:
    """The job's place in line, last epoch and curve from its metadata; anything of another shape (a hand-made
    entry) reads as no progress yet."""
    progress = job.get_meta(refresh=False).get("progress")
    if not isinstance(progress, dict):
        return None, None, []
    waiting, step, curve = progress.get("waiting"), progress.get("step"), progress.get("curve", [])
    types = (str, int, int, float, int, int)
    if not (waiting is None or type(waiting) is int and waiting >= 0):
        waiting = None
    if not (isinstance(step, list) and len(step) == len(types) and all(
            isinstance(v, t) and not isinstance(v, bool) or t is float and type(v) is int
            for v, t in zip(step, types, strict=True)) and 0 <= step[4] <= step[5]):
        step = None
    point = {"model": str, "seed": int, "epoch": int, "test_acc": float}
    if not (isinstance(curve, list) and all(
            isinstance(p, dict) and set(p) == set(point) and all(isinstance(p[k], t) for k, t in point.items())
            for p in curve)):
        curve = []
    return waiting, (Step(*step) if step else None), list(curve)


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
                joined = job.meta.get("eval_every", 0)
                joined = joined if type(joined) is int and 0 <= joined <= MAX_EVAL_EVERY else 0
                return QueueTicket(self, cfg, setting, job.id, False, joined)
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
            job = Job.fetch(current.decode(errors="replace"), connection=self.redis, serializer=JSONSerializer)
        except NoSuchJobError:
            return None
        live = job.get_status() in (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED, JobStatus.SCHEDULED)
        return job if live and not self.redis.exists(Keys(setting, job.id).stop) else None

    def _enqueue(self, cfg: GeneralizationConfig, setting: str, eval_every: int, member: str) -> Job:
        """A new job for ``setting``, watched by ``member`` from before the worker can look."""
        job_id = f"vitlab-{setting}-{uuid.uuid4().hex[:8]}"
        self.redis.zadd(Keys(setting, job_id).watchers, {member: redis_now(self.redis)})
        job = self.queue.enqueue_call(ENTRY, args=(cfg.to_json(), eval_every, self.fingerprint),
                                      job_id=job_id, timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=3600,
                                      meta={"eval_every": eval_every}, description=f"train {config_key(cfg)}")
        self.redis.set(Keys(setting).current, job_id, ex=JOB_TIMEOUT)
        self.redis.incr(Keys(setting).tries)
        self.started += 1
        return job

    def enqueue_again(self, ticket: QueueTicket) -> bool:
        """The ticket's job is gone (its worker died, or Redis lost it): enqueue the setting again, unless
        another page did already (then follow that job) or it has used its retries. True when ``ticket`` now
        follows a live job."""
        keys = Keys(ticket.setting)
        with self.redis.lock(keys.lock, timeout=30, blocking_timeout=30):
            live = self._live_job(ticket.setting)
            if live is None or live.id == ticket.job_id:
                if int(self.redis.get(keys.tries) or 0) > RETRIES:
                    return False
                log.warning("a training job was lost (its worker stopped, or Redis lost it): enqueuing it again")
                self.redis.set(Keys(ticket.setting, ticket.job_id).stop, 1, ex=3600)
                live = self._enqueue(ticket.cfg, ticket.setting, ticket.eval_every, ticket.member)
            ticket.job_id = live.id
            ticket._watch()
            return True

    def retire(self, job: Job) -> None:
        """A started job whose worker died: off RQ's started registry and marked failed, so nothing counts it as
        running (RQ's own clean-up would wait for the dead worker's hour-long registration)."""
        try:
            with self.redis.pipeline() as p:
                self.queue.started_job_registry.remove_executions(job, pipeline=p)
                job.set_status(JobStatus.FAILED, pipeline=p)
                p.execute()
        except (RedisError, NoSuchJobError) as exc:
            log.warning("could not retire a dead worker's job (%s)", exc)

    def stop(self, setting: str, job_id: str) -> None:
        """Nobody watches the job any more: it stops at its next check (queued: it is cancelled)."""
        self.redis.set(Keys(setting, job_id).stop, 1, ex=3600)
        try:
            job = Job.fetch(job_id, connection=self.redis, serializer=JSONSerializer)
            if job.get_status() == JobStatus.QUEUED:
                job.cancel()
        except NoSuchJobError:
            pass
