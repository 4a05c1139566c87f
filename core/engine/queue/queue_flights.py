"""``flights.Flights`` on a job queue, for a class larger than one machine: every replica hands its trainings to
``python -m core worker`` processes (``queue_worker``) through one Redis, one job per distinct setting.

``vitlab:current:<setting>`` names the job now training a setting; a learner whose page asks for that setting
joins it, and only a setting with no live job gets a new one (under a Redis lock, so two replicas never enqueue
it twice). A page *watches* a job: it renews its entry in the job's ``watchers`` (a sorted set scored by
Redis's own clock) each time it reads the job's progress, and removes it on Cancel; with no live watcher left
the job stops at its next epoch. A learner who cancels alone leaves the others training.

Every watcher of a job learns the same truth. A started job whose alive key lapsed for ALIVE_SECONDS (its
worker killed, out of memory) is *handed on* by the first page to notice, under the setting's lock: the setting
is enqueued again once (``RETRIES``) and the old job's record names the new one, which every other page then
follows, its watchers carried over; once the retries are spent the old job is failed with one reason that
every page reads. A job whose record vanished (the Redis emptied or restarted without its data) is given
ALIVE_SECONDS for its worker to write it again, then enqueued again the same way. A queued job with no live
worker (``queue_redis.live_workers``: heartbeats on Redis's clock, none from the future) says so at once and
gives up after NO_WORKER_SECONDS with the command that starts one. What a page reads of a job is checked
(``queue_job.read_job``, ``_progress``): a hand-made entry is treated as lost or as no progress, never a
traceback.
"""

from __future__ import annotations

import logging
import time
import uuid

from redis import Redis
from redis.exceptions import RedisError, ResponseError

from core.engine.queue.queue_job import (
    FAILED,
    FINISHED,
    HANDED_ON,
    JOB_TIMEOUT,
    LIVE,
    QUEUED,
    STARTED,
    STOPPED,
    BadJob,
    JobRecord,
    enqueue,
    new_job_id,
    read_job,
    update,
)
from core.engine.queue.queue_redis import (
    ALIVE_SECONDS,
    QUEUE,
    START_WORKER,
    Keys,
    QueueUnreachable,
    live_workers,
    read_small,
    recent,
    redis_now,
    repaired,
    setting_id,
)
from core.engine.queue.queue_worker import MAX_EVAL_EVERY, WATCH_SECONDS
from core.engine.results.run_result import RunResult
from core.engine.running.flights import RunTicket, Snapshot, Step, TrainingStopped
from core.engine.setting.fingerprint import code_fingerprint
from core.engine.setting.run_config import GeneralizationConfig
from core.engine.setting.typed_json import plain

log = logging.getLogger(__name__)

RETRIES = 1  # a job whose worker died (or that vanished) is enqueued again this many times, then reported
POLL = 0.25  # seconds between two reads of a job's state by a waiting page
NO_WORKER_SECONDS = 2 * ALIVE_SECONDS  # a queued job with no live worker this long is given up, with a message
NO_WORKER = f"no training worker is running: the run starts when one is ({START_WORKER})"
MAX_HOPS = 8  # handed-on jobs followed in one read, at most (a loop written by hand ends here)


def died_message() -> str:
    return (f"the worker training this setting stopped, {RETRIES + 1} times: the setting may need more memory "
            f"than a worker has, or no worker is running ({START_WORKER})")


class QueueTicket(RunTicket):
    """One learner watching one queued job (``flights.RunTicket``, as a learner of this server's flights)."""

    def __init__(self, flights: QueueFlights, cfg: GeneralizationConfig, setting: str, job_id: str, started: bool,
                 eval_every: int, member: str | None = None):
        self._flights, self.cfg, self.setting, self.job_id = flights, cfg, setting, job_id  # job_id "": stored
        self.started, self.eval_every = started, eval_every
        self.member = member or uuid.uuid4().hex
        self._attached = True
        self._missing_since: float | None = None  # when this page first saw the job started without a heartbeat
        self._gone_since: float | None = None  # when this page first saw the job's record missing
        self._no_worker_since: float | None = None  # when this page first saw it queued with no live worker
        self._unreachable_since: float | None = None  # when Redis first failed to answer this page
        self._watch()

    @property
    def _redis(self) -> Redis:
        return self._flights.redis

    def _watch(self) -> None:
        if not self.job_id:
            return
        keys = Keys(self.setting, self.job_id)

        def watch() -> None:
            with self._redis.pipeline() as p:
                p.zadd(keys.watchers, {self.member: redis_now(self._redis)}).expire(keys.watchers, 3600).execute()

        repaired(self._redis, keys.watchers, watch)

    def follow(self, job_id: str) -> None:
        """Watch ``job_id`` instead of the job this ticket watched (it was handed on)."""
        self.job_id = job_id
        self._missing_since = self._gone_since = None
        self._watch()

    def wait(self, timeout: float) -> Snapshot:
        """The job's state after ``timeout`` seconds, or as soon as it is over. A Redis that does not answer
        (restarting, failing over) is waited for ALIVE_SECONDS, then ``QueueUnreachable``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                s = self._read()
                self._unreachable_since = None
            except RedisError as exc:
                self._unreachable_since = self._unreachable_since or time.monotonic()
                if time.monotonic() - self._unreachable_since >= ALIVE_SECONDS:
                    raise QueueUnreachable(exc) from None
                s = Snapshot(None, None, [], eval_every=self.eval_every,
                             note="the training queue (Redis) does not answer: waiting for it to come back")
            left = deadline - time.monotonic()
            if s.finished or left <= 0:
                return s
            time.sleep(min(POLL, left))

    def _read(self) -> Snapshot:
        if not self.job_id:  # the setting was stored when this learner asked: over at once
            return self._over(None, self._flights.store.get(self.cfg))
        job = self._followed()
        if isinstance(job, Snapshot):
            return job
        if job is None:
            return self._vanished()
        self._gone_since = None
        return self._ended(job) or self._running(job)

    def _followed(self) -> JobRecord | Snapshot | None:
        """The job this ticket watches, after following it wherever it was handed on; a Snapshot where the
        job's record cannot be used."""
        for _ in range(MAX_HOPS):
            self._watch()
            try:
                job = read_job(self._redis, self.job_id, progress=True)
            except BadJob as exc:
                log.warning("a training job's record is not one the lab writes (%s)", plain(exc, 300))
                return self._lost(f"the training job's record in Redis was not one the lab writes ({plain(exc, 120)})")
            if job is None or job.status != HANDED_ON:
                return job
            self.follow(job.next)
        return self._over(TrainingStopped("the training job was handed on too many times"))

    def _ended(self, job: JobRecord) -> Snapshot | None:
        """The job's outcome, once it has one."""
        if job.status == FINISHED:
            result = None
            if job.complete:
                self._flights.store.forget(self.cfg)  # a re-run replaced the run this replica may remember
                result = self._flights.store.get(self.cfg)
            return self._over(None, result or RunResult(self.cfg, complete=False))
        if job.status == STOPPED:
            return self._over(None, RunResult(self.cfg, complete=False))
        if job.status == FAILED:
            return self._over(TrainingStopped("the training failed on a worker: " + (plain(job.error, 300) or
                                                                                      "no reason given")))
        if job.status == STARTED and self._heartbeat_lost():
            return self._lost(died_message())
        return None

    def _running(self, job: JobRecord) -> Snapshot:
        """A queued or started job: its place in line, its progress, and whether any worker is there to take it."""
        waiting, step, curve = _progress(job.progress, self.cfg)
        note = ""
        if job.status != QUEUED:
            self._no_worker_since = None  # the wait for a worker counts from the job's last time in the queue
        else:
            waiting = _position(self._redis, self.job_id)
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
        machines' clocks compared; a worker sets the key as it starts the job)."""
        if self._redis.exists(Keys("", self.job_id).alive):
            self._missing_since = None
            return False
        self._missing_since = self._missing_since or time.monotonic()
        return time.monotonic() - self._missing_since >= ALIVE_SECONDS

    def _vanished(self) -> Snapshot:
        """The job's record is gone. Its worker, if it still trains, writes it again within a second or two of
        Redis answering: wait ALIVE_SECONDS for that, then enqueue the setting again."""
        self._gone_since = self._gone_since or time.monotonic()
        if time.monotonic() - self._gone_since < ALIVE_SECONDS:
            return Snapshot(None, None, [], eval_every=self.eval_every, note="the training queue lost this job's "
                            "record (Redis emptied or restarted): waiting for its worker to say it still trains")
        return self._lost("the training job disappeared from the queue (the Redis was emptied or restarted)")

    def _lost(self, reason: str) -> Snapshot:
        """The job is gone (its worker died, Redis lost it, or its record is not the lab's): follow the job the
        setting is handed on to while retries last, else every watcher reads ``reason``."""
        if self._flights.hand_on(self, reason):
            return self._read()
        return self._over(TrainingStopped("the training failed on a worker: " + reason))  # as every watcher reads it

    def _over(self, error: BaseException | None, result: RunResult | None = None) -> Snapshot:
        return Snapshot(result=result, error=error, eval_every=self.eval_every)

    def detach(self) -> None:
        if not self._attached or not self.job_id:
            return
        self._attached = False
        keys = Keys(self.setting, self.job_id)
        try:
            self._redis.zrem(keys.watchers, self.member)
            if recent(self._redis, keys.watchers, WATCH_SECONDS) == 0:
                self._flights.stop(self.setting, self.job_id)
        except RedisError as exc:  # the job stops by itself once this watch expires
            log.warning("could not detach from a training job (%s)", exc)


def _position(redis: Redis, job_id: str) -> int:
    """The job's place in the queue (0: next, or taken); a queue of another type than a list reads as 0."""
    try:
        return redis.lpos(QUEUE, job_id) or 0
    except ResponseError:
        return 0


MOST = 10**9  # no count a job reports (an epoch, a place in line, epochs done) is larger


def _count(v: object) -> bool:
    return type(v) is int and 0 <= v <= MOST


def _number(v: object) -> bool:
    """A finite number of a sane size (JSON's integers have no bound: a loss of 10**400 is no float)."""
    return (type(v) is float or type(v) is int) and abs(v) <= 1e30 and v == v


def _progress(progress: object, cfg: GeneralizationConfig) -> tuple[int | None, Step | None, list[dict]]:
    """The job's place in line, last epoch and curve from its record; anything of another shape (a hand-made
    entry: another type, a number out of range, a model or seed the setting does not train) reads as no
    progress yet."""
    jobs = {(name, seed) for seed, name in cfg.jobs}
    if not isinstance(progress, dict):
        return None, None, []
    waiting, step, curve = progress.get("waiting"), progress.get("step"), progress.get("curve", [])
    if not (waiting is None or _count(waiting)):
        waiting = None
    if not (isinstance(step, list) and len(step) == 6 and isinstance(step[0], str) and _count(step[1])
            and (step[0], step[1]) in jobs and _count(step[2]) and _number(step[3]) and _count(step[4])
            and _count(step[5]) and step[4] <= step[5]):
        step = None
    point = {"model", "seed", "epoch", "test_acc"}
    if not (isinstance(curve, list) and all(
            isinstance(p, dict) and set(p) == point and isinstance(p["model"], str) and _count(p["seed"])
            and (p["model"], p["seed"]) in jobs and _count(p["epoch"]) and type(p["test_acc"]) is float
            and 0 <= p["test_acc"] <= 1 for p in curve)):
        curve = []
    return waiting, (Step(step[0], step[1], step[2], float(step[3]), step[4], step[5]) if step else None), list(curve)


class QueueFlights:
    """``flights.Flights`` on a job queue: attach to the job training a setting, or enqueue one."""

    def __init__(self, redis: Redis, store, fingerprint: str | None = None):
        self.redis, self.store = redis, store
        self.fingerprint = fingerprint or code_fingerprint()
        self.started = 0  # jobs this replica enqueued

    def attach(self, cfg: GeneralizationConfig, eval_every: int = 0, again: bool = False) -> QueueTicket:
        try:
            return self._attach(cfg, eval_every, again)
        except RedisError as exc:
            raise QueueUnreachable(exc) from None

    def _lock(self, setting: str):
        """The setting's lock, held at most 30 s; a lock key without an expiry was not made by a page, and goes."""
        key = Keys(setting).lock
        if self.redis.ttl(key) == -1:
            log.warning("%s had no expiry (not a page's lock): deleted", key)
            self.redis.delete(key)
        return self.redis.lock(key, timeout=30, blocking_timeout=30)

    def _tries(self, setting: str) -> int:
        """Enqueues of ``setting`` since it last started afresh; a value that is not a count reads as 0."""
        value = read_small(self.redis, Keys(setting).tries, 12)
        return int(value) if value is not None and value.isdigit() else 0

    def _attach(self, cfg: GeneralizationConfig, eval_every: int, again: bool) -> QueueTicket:
        setting = setting_id(cfg, self.fingerprint)
        keys = Keys(setting)
        with self._lock(setting):
            job = self._live_job(setting)
            if job is not None:
                joined = job.eval_every if 0 <= job.eval_every <= MAX_EVAL_EVERY else 0
                return QueueTicket(self, cfg, setting, job.id, False, joined)
            if not again and self.store.get(cfg) is not None:
                return QueueTicket(self, cfg, setting, "", False, eval_every)
            self.redis.delete(keys.tries)
            member = uuid.uuid4().hex
            job_id = self._enqueue(cfg, setting, eval_every, [member])
            return QueueTicket(self, cfg, setting, job_id, True, eval_every, member)

    def _live_job(self, setting: str) -> JobRecord | None:
        """The job training ``setting`` now, if it is the lab's, queued or started (with a heartbeat), and not
        being stopped."""
        current = read_small(self.redis, Keys(setting).current, 64)
        if current is None:
            return None
        try:
            job = read_job(self.redis, current.decode(errors="replace"))
        except BadJob as exc:
            log.warning("this setting's current job is not one the lab writes (%s): a new one is enqueued",
                        plain(exc, 300))
            return None
        if job is None or job.setting != setting or job.status not in LIVE:
            return None
        if job.status == STARTED and not self.redis.exists(Keys("", job.id).alive):
            return None  # its worker is dead: a page watching it hands it on
        return job if not self.redis.exists(Keys(setting, job.id).stop) else None

    def _enqueue(self, cfg: GeneralizationConfig, setting: str, eval_every: int, members: list[str],
                 carried_from: str | None = None) -> str:
        """A new job for ``setting``, watched by ``members`` (and by every watcher of ``carried_from``) from
        before a worker can look."""
        job_id = new_job_id(setting, uuid.uuid4().hex[:8])
        watchers = Keys(setting, job_id).watchers
        now = redis_now(self.redis)
        with self.redis.pipeline(transaction=True) as p:
            if carried_from is not None:
                p.zunionstore(watchers, [watchers, Keys(setting, carried_from).watchers])
            p.zadd(watchers, {m: now for m in members}).expire(watchers, 3600).execute()
        enqueue(self.redis, job_id, setting, cfg.to_json(), eval_every, self.fingerprint)
        self.redis.set(Keys(setting).current, job_id, ex=JOB_TIMEOUT)
        self.redis.set(Keys(setting).tries, self._tries(setting) + 1, ex=JOB_TIMEOUT)
        self.started += 1
        return job_id

    def hand_on(self, ticket: QueueTicket, reason: str) -> bool:
        """The ticket's job is lost (``reason``): under the setting's lock, follow the job another page handed it
        on to, or enqueue the setting again and hand the old job on to it, while retries last; else fail the old
        job with ``reason``, for every watcher to read. True when ``ticket`` now follows a live job."""
        old = ticket.job_id
        with self._lock(ticket.setting):
            try:
                record = read_job(self.redis, old)
            except BadJob:
                record = None
            if record is not None and record.status == HANDED_ON:  # another page did it: follow
                ticket.follow(record.next)
                return True
            if record is not None and record.status in (FAILED, FINISHED, STOPPED):
                return True  # over meanwhile: the next read says how
            live = self._live_job(ticket.setting)
            if live is not None and live.id != old:
                ticket.follow(live.id)
                return True
            if self._tries(ticket.setting) > RETRIES:
                update(self.redis, old, status=FAILED, error=reason)
                return False
            log.warning("training job %s was lost (its worker stopped, or Redis lost it): enqueuing it again", old)
            self.redis.set(Keys(ticket.setting, old).stop, 1, ex=3600)
            new = self._enqueue(ticket.cfg, ticket.setting, ticket.eval_every, [ticket.member], carried_from=old)
            if not update(self.redis, old, status=HANDED_ON, next=new):
                self.redis.delete(Keys("", old).job)  # not a hash the lab can update: out of the way
            ticket.follow(new)
            return True

    def stop(self, setting: str, job_id: str) -> None:
        """Nobody watches the job any more: it stops at its next check (queued: it leaves the queue)."""
        self.redis.set(Keys(setting, job_id).stop, 1, ex=3600)
        try:
            job = read_job(self.redis, job_id)
        except BadJob:
            return
        if job is not None and job.status == QUEUED:
            update(self.redis, job_id, status=STOPPED)
            try:
                self.redis.lrem(QUEUE, 1, job_id)
            except ResponseError:  # a queue of another type: the workers delete it
                pass
